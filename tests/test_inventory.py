"""The op inventory of the tests (`inventory.py`) against the `grad` dialect.

The tests' lists of ops are derived from the inventory, so an op that has no
entry is silently left out of all of them: these tests fail first. They
also check the facts the other tests rely on, where the dialect can tell: the
element types each op takes (each entry's sample lines parse and verify with
exactly those), how derivatives pass it, and which binary ops are commutative.
"""

from __future__ import annotations

import numpy as np
import pytest
from inventory import (
    BY_OP_NAME,
    ELEMENTS,
    INVENTORY,
    SAMPLE_ARGUMENTS,
    SAMPLE_FUNCTION,
    Derivative,
    Element,
    Entry,
    Form,
    entries,
    literal,
)
from xdsl.dialects.builtin import TensorType
from xdsl.ir import Operation

import gradopt
import gradopt.dialect.ops
from gradopt.autodiff.registry import Flow, derivative_of
from gradopt.dialect import Grad
from gradopt.dialect.context import make_context
from gradopt.dialect.differentiation import DifferentiationOp
from gradopt.dialect.errors import OpError
from gradopt.dialect.verifier import verify_module
from gradopt.support.diagnostics import LocatedError, parse_module

DIALECT = [op.name for op in Grad.operations]


def test_every_op_of_the_dialect_has_an_entry() -> None:
    missing = [name for name in DIALECT if name not in BY_OP_NAME]
    assert not missing, (
        f"no entry in tests/inventory.py for {', '.join(missing)}: every list of "
        "ops in the tests leaves them out"
    )


def test_every_entry_names_an_op_of_the_dialect() -> None:
    unknown = [name for name in BY_OP_NAME if name not in DIALECT]
    assert not unknown, f"tests/inventory.py has entries for no op: {unknown}"


def sample(entry: Entry, template: str, source: Element, result: Element) -> str:
    line = template.format(
        name=entry.name,
        S=source,
        R=result,
        one=literal(source, 1),
        zero=literal(source, 0),
    )
    arguments = SAMPLE_ARGUMENTS.format(S=source)
    return (
        f"func.func @sample({arguments}) {{\n  {line}\n  func.return\n}}\n"
        + SAMPLE_FUNCTION.format(S=source)
    )


def parsed(entry: Entry, text: str) -> Operation:
    """The entry's op in `text`, parsed and verified (or the error raised)."""
    module = parse_module(make_context(), text, "sample.mlir")
    verify_module(module)
    return next(op for op in module.walk() if op.name == entry.op_name)


def accepted(entry: Entry, text: str) -> Operation:
    """The entry's op in `text`, which must parse and verify."""
    try:
        return parsed(entry, text)
    except (LocatedError, OpError) as error:
        pytest.fail(f"{text}is refused, but the inventory says it is valid: {error}")


def cases(entry: Entry) -> list[tuple[str, Element, Element | None, bool]]:
    """(template, operand element, result element or None where the syntax
    implies it, whether the op takes them) for every element type."""
    found = []
    for template in entry.samples:
        for source in ELEMENTS:
            if "{R}" not in template:
                found.append((template, source, None, entry.accepts(source)))
                continue
            for result in ELEMENTS:
                found.append(
                    (template, source, result, (source, result) in entry.types)
                )
    return found


@pytest.mark.parametrize("entry", list(INVENTORY.values()), ids=lambda e: e.name)
def test_the_entry_takes_exactly_its_element_types(entry: Entry) -> None:
    """Each sample line verifies with the entry's (operand, result) element
    types and is refused, at that line, with any other."""
    for template, source, result, takes in cases(entry):
        text = sample(entry, template, source, result or source)
        if takes:
            op = accepted(entry, text)
            if result is None and op.results:  # the syntax implies the result
                type = op.results[0].type
                assert isinstance(type, TensorType)
                assert (source, str(type.get_element_type())) in entry.types, text
            continue
        with pytest.raises((LocatedError, OpError)) as refused:
            parsed(entry, text)
        error = refused.value
        if isinstance(error, OpError):
            assert error.op.name == entry.op_name, f"{text}refused for: {error}"
        else:
            assert error.location.line == 2, f"{text}refused for: {error.message}"


def _flow(op: Operation) -> Derivative:
    """How derivatives pass `op`, as gradopt's registry says."""
    if isinstance(op, DifferentiationOp):
        return Derivative.EXPANDED
    found = derivative_of(op)
    if found is None:
        return Derivative.NONE
    return {
        Flow.RULES: Derivative.RULES,
        Flow.STOPS: Derivative.STOPS,
        Flow.DEAD_END: Derivative.DEAD_END,
    }[found.flow]


@pytest.mark.parametrize("entry", list(INVENTORY.values()), ids=lambda e: e.name)
def test_the_entry_says_how_derivatives_pass_the_op(entry: Entry) -> None:
    """On f32 where the op takes it (a conversion to f32 from f32)."""
    source, result = min(entry.types, key=lambda t: (t[0] != "f32", t[1] != "f32"))
    op = accepted(entry, sample(entry, entry.samples[0], source, result))
    assert _flow(op) is entry.derivative


def _data(element: Element, rng: np.random.Generator) -> np.ndarray:
    """Valid operands of every binary op: normal floats, i32 in 1..9 (divisors
    and shift amounts), random i1."""
    if element == "f32":
        return rng.standard_normal(8).astype(np.float32)
    if element == "i32":
        return rng.integers(1, 10, 8).astype(np.int32)
    return rng.integers(0, 2, 8).astype(np.bool_)


@pytest.mark.parametrize(
    "entry",
    entries((Form.ELEMENTWISE, Form.COMPARE), arity=2),
    ids=lambda e: e.name,
)
def test_the_entry_says_whether_the_op_is_commutative(entry: Entry) -> None:
    rng = np.random.default_rng(0)
    swapped_differs = []
    for source, result in sorted(entry.types):
        t, r = f"tensor<8x{source}>", f"tensor<8x{result}>"
        text = (
            f"func.func @main(%a: {t}, %b: {t}) -> ({r}, {r}) {{\n"
            f"  %x = grad.{entry.name} %a, %b : {t}\n"
            f"  %y = grad.{entry.name} %b, %a : {t}\n"
            f"  func.return %x, %y : {r}, {r}\n}}\n"
        )
        x, y = gradopt.run(text, args=[_data(source, rng), _data(source, rng)]).results
        swapped_differs.append(x.tobytes() != y.tobytes())
    assert any(swapped_differs) is not entry.commutative
