# ruff: noqa: E501 (MLIR text: one op a line, as MLIR prints it)
"""How the interpreter runs loops (SPEC §10.4, §11).

Caches written in place (`tensor.insert_slice` and `tensor.insert` into a
destination that dies there, a loop body's carried buffers): each program is
run twice, as planned and with every destination copied (the plain
semantics), and must give the same bits, leave its arguments and constants as
they were, and match NumPy by hand. The cases are the ones an aliasing bug
would break: a destination read again after the write, a cache also returned
or yielded twice, a destination that is an argument or a constant, a view of
the cache taken before the write, nested loops, and the expanded gradient of
a loop. Then the `index` shortcuts: Python-int arithmetic that wraps as
NumPy's int64 does, and the steps a loop body drops (`lb + k * step` of a
loop from 0 by 1, literals of the enclosing plan folded)."""

from __future__ import annotations

import inspect

import numpy as np
import pytest
from xdsl.dialects import arith
from xdsl.parser import Parser

import gradopt
from gradopt import Program
from gradopt.dialect.context import make_context
from gradopt.dialect.errors import OpError
from gradopt.interpreter import Plan
from gradopt.interpreter import owned as ownership
from gradopt.interpreter import tensor as tensor_kernels
from gradopt.interpreter.executor import Interpreter
from gradopt.interpreter.scalar import function_of, index_function


def run(text: str, *args: np.ndarray) -> list[np.ndarray]:
    return gradopt.run(text, args=list(args)).results


def run_copying(
    monkeypatch: pytest.MonkeyPatch, text: str, *args: np.ndarray
) -> list[np.ndarray]:
    """`text` run with no destination written in place, and no upstream
    result written over an operand."""
    with monkeypatch.context() as patch:
        patch.setattr(tensor_kernels, "destination", lambda op: None)
        patch.setattr(ownership, "ENABLED", False)
        return run(text, *args)


def same_bits(a: list[np.ndarray], b: list[np.ndarray]) -> bool:
    return len(a) == len(b) and all(
        np.asarray(x).dtype == np.asarray(y).dtype
        and np.asarray(x).tobytes() == np.asarray(y).tobytes()
        for x, y in zip(a, b, strict=True)
    )


def check(
    monkeypatch: pytest.MonkeyPatch, text: str, *args: np.ndarray
) -> list[np.ndarray]:
    """The results of `text`, checked against the copying run (run after,
    so that a write into an argument would show there too) and for
    arguments left as they were."""
    kept = [a.copy() for a in args]
    found = run(text, *args)
    assert same_bits(list(args), kept), "an argument was written into"
    assert same_bits(found, run_copying(monkeypatch, text, *args))
    again = run(text, *args)  # constants and planned values unchanged
    assert same_bits(found, again)
    return found


def loop_body(program: Program, entry: str = "main") -> Plan:
    """The plan of the body of the first `scf.for` of `entry`."""
    program.interpreter.prepare(entry)
    for step in program.interpreter.plans[entry].steps:
        if step.op.name == "scf.for":
            body = inspect.getclosurevars(step.kernel).nonlocals["body"]
            assert isinstance(body, Plan)
            return body
    raise AssertionError("no loop")


RNG = np.random.default_rng(6)


def f32(*shape: int) -> np.ndarray:
    return RNG.uniform(-1.0, 1.0, shape).astype(np.float32)


CACHE = """
func.func @main(%x: tensor<3xf32>, %init: tensor<4x3xf32>) -> (tensor<4x3xf32>, tensor<3xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %h, %cache = scf.for %i = %c0 to %c4 step %c1 iter_args(%v = %x, %c = %init) -> (tensor<3xf32>, tensor<4x3xf32>) {
    %c2 = tensor.insert_slice %v into %c[%i, 0] [1, 3] [1, 1] : tensor<3xf32> into tensor<4x3xf32>
    %n = grad.sin %v : tensor<3xf32>
    scf.yield %n, %c2 : tensor<3xf32>, tensor<4x3xf32>
  }
  func.return %cache, %h : tensor<4x3xf32>, tensor<3xf32>
}
"""


def test_a_cache_is_written_in_place_from_a_copy_of_its_initial_value(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The cache's initial value is an argument: the loop writes into a copy,
    and the caller's array stays as it was (checked by `check`)."""
    x, init = f32(3), f32(4, 3)
    cache, h = check(monkeypatch, CACHE, x, init)
    rows, v = [], x
    for _ in range(4):
        rows.append(v)
        v = np.sin(v)
    assert same_bits([cache, h], [np.stack(rows), v])
    body = loop_body(Program(CACHE))
    assert body.owned == (0, 1)  # the sin writes over its operand too
    (insert,) = [s for s in body.steps if s.op.name == "tensor.insert_slice"]
    assert insert.out == 1


def test_no_iterations_give_back_the_initial_values(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    text = CACHE.replace("%c4 = arith.constant 4", "%c4 = arith.constant 0")
    x, init = f32(3), f32(4, 3)
    assert same_bits(check(monkeypatch, text, x, init), [init, x])


GENERIC_LOOP = """
func.func @main(%x: tensor<3x4xf32>, %r: tensor<4xf32>) -> (tensor<3x4xf32>, tensor<3x4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c5 = arith.constant 5 : index
  %e = tensor.empty() : tensor<3x4xf32>
  %h = scf.for %i = %c0 to %c5 step %c1 iter_args(%v = %x) -> (tensor<3x4xf32>) {
    %n = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%v, %r : tensor<3x4xf32>, tensor<4xf32>) outs(%e : tensor<3x4xf32>) {
    ^bb0(%a: f32, %b: f32, %o: f32):
      %m = arith.mulf %a, %b : f32
      %t = math.tanh %m : f32
      linalg.yield %t : f32
    } -> tensor<3x4xf32>
    %u = arith.mulf %n, %n : tensor<3x4xf32>
    scf.yield %u : tensor<3x4xf32>
  }
  %again = arith.addf %x, %x : tensor<3x4xf32>
  func.return %h, %again : tensor<3x4xf32>, tensor<3x4xf32>
}
"""


def test_a_loop_of_upstream_ops_writes_its_carried_buffer_in_place(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A body of a generic and an `arith` op on tensors: the carried value
    is the body's own buffer (the generic writes over it, `arith.mulf` over
    the generic's result), so the loop copies the argument once and leaves
    it as it was (read again after the loop); the bits are the copying
    run's and NumPy's."""
    x, r = f32(3, 4), f32(4)
    found = check(monkeypatch, GENERIC_LOOP, x, r)
    v = x
    for _ in range(5):
        n = np.tanh(v * r)
        v = n * n
    assert same_bits(found, [v, x + x])
    body = loop_body(Program(GENERIC_LOOP))
    assert body.owned == (0,)
    assert [s.out is not None for s in body.steps] == [True, True]


# The cache is read (a view of its previous row) before each write, and the
# value written is the previous row plus the input: the view must see the
# row before the write.
READ_BEFORE = """
func.func @main(%x: tensor<3xf32>) -> tensor<5x3xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c5 = arith.constant 5 : index
  %z = arith.constant dense<0.5> : tensor<5x3xf32>
  %cache = scf.for %i = %c1 to %c5 step %c1 iter_args(%c = %z) -> (tensor<5x3xf32>) {
    %p = arith.subi %i, %c1 : index
    %prev = tensor.extract_slice %c[%p, 0] [1, 3] [1, 1] : tensor<5x3xf32> to tensor<3xf32>
    %here = tensor.extract_slice %c[%i, 0] [1, 3] [1, 1] : tensor<5x3xf32> to tensor<3xf32>
    %c2 = tensor.insert_slice %x into %c[%p, 0] [1, 3] [1, 1] : tensor<3xf32> into tensor<5x3xf32>
    %s = grad.add %prev, %here : tensor<3xf32>
    %c3 = tensor.insert_slice %s into %c2[%i, 0] [1, 3] [1, 1] : tensor<3xf32> into tensor<5x3xf32>
    scf.yield %c3 : tensor<5x3xf32>
  }
  func.return %cache : tensor<5x3xf32>
}
"""


def test_views_of_the_cache_taken_before_a_write_see_the_old_rows(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    x = f32(3)
    (found,) = check(monkeypatch, READ_BEFORE, x)
    c = np.full((5, 3), 0.5, np.float32)
    for i in range(1, 5):
        s = c[i - 1] + c[i]
        c[i - 1] = x
        c[i] = s
    assert same_bits([found], [c])


# The cache is yielded twice and returned with its value after the first
# write: no buffer may be shared by two of them.
TWICE = """
func.func @main(%x: tensor<2xf32>) -> (tensor<3x2xf32>, tensor<3x2xf32>, tensor<3x2xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %e = tensor.empty() : tensor<3x2xf32>
  %a, %b = scf.for %i = %c0 to %c3 step %c1 iter_args(%p = %e, %q = %e) -> (tensor<3x2xf32>, tensor<3x2xf32>) {
    %v = grad.add %x, %x : tensor<2xf32>
    %p2 = tensor.insert_slice %v into %p[%i, 0] [1, 2] [1, 1] : tensor<2xf32> into tensor<3x2xf32>
    scf.yield %p2, %p2 : tensor<3x2xf32>, tensor<3x2xf32>
  }
  %w = grad.neg %x : tensor<2xf32>
  %c = tensor.insert_slice %w into %a[%c0, 0] [1, 2] [1, 1] : tensor<2xf32> into tensor<3x2xf32>
  func.return %a, %b, %c : tensor<3x2xf32>, tensor<3x2xf32>, tensor<3x2xf32>
}
"""


def test_a_cache_yielded_twice_and_returned_is_never_shared(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    x = f32(2)
    a, b, c = check(monkeypatch, TWICE, x)
    expected = np.zeros((3, 2), np.float32)
    expected[1:] = x + x  # row 0 holds the last iteration's p, row i its write
    expected[0] = x + x
    assert same_bits([a, b], [expected, expected])
    changed = expected.copy()
    changed[0] = -x
    assert same_bits([c], [changed])
    assert loop_body(Program(TWICE)).owned == ()


# A destination that is a constant, inside a loop, and a function argument
# written at the top level and returned beside the result.
CONSTANT_AND_ARGUMENT = """
func.func @main(%x: tensor<2xf32>, %d: tensor<3x2xf32>) -> (tensor<3x2xf32>, tensor<3x2xf32>, tensor<3x2xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %k = arith.constant dense<2.0> : tensor<3x2xf32>
  %acc = scf.for %i = %c0 to %c3 step %c1 iter_args(%s = %k) -> (tensor<3x2xf32>) {
    %one = tensor.insert_slice %x into %k[%i, 0] [1, 2] [1, 1] : tensor<2xf32> into tensor<3x2xf32>
    %t = grad.add %s, %one : tensor<3x2xf32>
    scf.yield %t : tensor<3x2xf32>
  }
  %r = tensor.insert_slice %x into %d[%c1, 0] [1, 2] [1, 1] : tensor<2xf32> into tensor<3x2xf32>
  func.return %acc, %r, %d : tensor<3x2xf32>, tensor<3x2xf32>, tensor<3x2xf32>
}
"""


def test_constants_and_arguments_are_copied_before_a_write(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    x, d = f32(2), f32(3, 2)
    acc, r, same = check(monkeypatch, CONSTANT_AND_ARGUMENT, x, d)
    k = np.full((3, 2), 2.0, np.float32)
    expected = k
    for i in range(3):
        one = k.copy()
        one[i] = x
        expected = expected + one
    written = d.copy()
    written[1] = x
    assert same_bits([acc, r, same], [expected, written, d])


# Nested loops: the outer loop carries a cache of rows, the inner one a
# cache of scalars written by `tensor.insert`, whose initial value is the
# outer loop's carried buffer read again after the inner loop.
NESTED = """
func.func @main(%x: tensor<3xf32>) -> (tensor<2x3xf32>, tensor<3xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %e = tensor.empty() : tensor<2x3xf32>
  %rows, %last = scf.for %i = %c0 to %c2 step %c1 iter_args(%c = %e, %v = %x) -> (tensor<2x3xf32>, tensor<3xf32>) {
    %inner = scf.for %j = %c0 to %c3 step %c1 iter_args(%u = %v) -> (tensor<3xf32>) {
      %s = tensor.extract %u[%j] : tensor<3xf32>
      %m = arith.mulf %s, %s : f32
      %u2 = tensor.insert %m into %u[%j] : tensor<3xf32>
      scf.yield %u2 : tensor<3xf32>
    }
    %c2x = tensor.insert_slice %v into %c[%i, 0] [1, 3] [1, 1] : tensor<3xf32> into tensor<2x3xf32>
    %n = grad.add %inner, %v : tensor<3xf32>
    scf.yield %c2x, %n : tensor<2x3xf32>, tensor<3xf32>
  }
  func.return %rows, %last : tensor<2x3xf32>, tensor<3xf32>
}
"""


def test_nested_loops_write_only_their_own_buffers(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    x = f32(3)
    rows, last = check(monkeypatch, NESTED, x)
    expected, v = np.zeros((2, 3), np.float32), x
    for i in range(2):
        expected[i] = v
        v = v * v + v
    assert same_bits([rows, last], [expected, v])


RNN = """
func.func @main(%h0: tensor<1x4xf32>, %xs: tensor<6x4xf32>, %w: tensor<4x4xf32>, %n: tensor<i32>) -> (tensor<1x4xf32>, tensor<6x4xf32>, tensor<4x4xf32>) {
  %lo = arith.constant 0 : index
  %one = arith.constant 1 : index
  %ni = tensor.extract %n[] : tensor<i32>
  %hi = arith.index_cast %ni : i32 to index
  %h = scf.for %i = %lo to %hi step %one iter_args(%c = %h0) -> (tensor<1x4xf32>) {
    %x = tensor.extract_slice %xs[%i, 0] [1, 4] [1, 1] : tensor<6x4xf32> to tensor<1x4xf32>
    %wc = grad.dot %c, %w : tensor<1x4xf32>, tensor<4x4xf32> to tensor<1x4xf32>
    %s = grad.add %wc, %x : tensor<1x4xf32>
    %t = math.tanh %s : tensor<1x4xf32>
    scf.yield %t : tensor<1x4xf32>
  }
  %sq = grad.mul %h, %h : tensor<1x4xf32>
  %l = grad.reduce add %sq [0, 1] : tensor<1x4xf32> to tensor<f32>
  %g0, %gx, %gw = grad.gradient %l wrt %h0, %xs, %w control_flow : tensor<f32>, tensor<1x4xf32>, tensor<6x4xf32>, tensor<4x4xf32>
  func.return %g0, %gx, %gw : tensor<1x4xf32>, tensor<6x4xf32>, tensor<4x4xf32>
}
"""


@pytest.mark.parametrize("static", [True, False])
def test_the_gradient_of_a_loop_takes_the_bits_of_copying(
    monkeypatch: pytest.MonkeyPatch, static: bool
) -> None:
    """The recording loop's cache (static, or sized at run time) and the
    reverse loop's running sums, written in place; against float64."""
    text = RNN
    if static:
        text = text.replace(
            "%hi = arith.index_cast %ni : i32 to index",
            "%hi = arith.constant 5 : index",
        )
    h0, xs, w = f32(1, 4), f32(6, 4), f32(4, 4)
    g0, gx, gw = check(monkeypatch, text, h0, xs, w, np.array(5, np.int32))
    h0d, xsd, wd = (a.astype(np.float64) for a in (h0, xs, w))
    hs = [h0d]
    for k in range(5):
        hs.append(np.tanh(hs[-1] @ wd + xsd[k : k + 1]))
    dh, dxs, dw = 2 * hs[-1], np.zeros_like(xsd), np.zeros_like(wd)
    for k in reversed(range(5)):
        ds = dh * (1 - hs[k + 1] ** 2)
        dxs[k] = ds[0]
        dw += hs[k].T @ ds
        dh = ds @ wd.T
    for found, expected in ((g0, dh), (gx, dxs), (gw, dw)):
        np.testing.assert_allclose(found, expected, rtol=1e-5, atol=1e-6)


def test_index_arithmetic_on_python_ints_wraps_as_int64() -> None:
    text = """
    func.func @f(%a: index, %b: index) {
      %s = arith.addi %a, %b : index
      %d = arith.subi %a, %b : index
      %p = arith.muli %a, %b : index
      %x = arith.maxsi %a, %b : index
      %n = arith.minsi %a, %b : index
      func.return
    }
    """
    module = Parser(make_context(), text).parse_module()
    ops = [
        op
        for op in module.walk()
        if isinstance(op, arith.SignlessIntegerBinaryOperation)
    ]
    assert len(ops) == 5
    edge = [0, 1, -1, 7, -(2**63), 2**63 - 1, 2**62, -(2**62) - 3, 3037000500]
    with np.errstate(all="ignore"):
        for op in ops:
            shortcut, numpy = index_function(op), function_of(op)
            assert shortcut is not None and numpy is not None
            for a in edge:
                for b in edge:
                    found = shortcut(a, np.int64(b))
                    assert type(found) is int
                    assert found == int(numpy(np.int64(a), np.int64(b)))


def _truncated(a: int, b: int) -> int:
    return abs(a) // abs(b) * (1 if (a < 0) == (b < 0) else -1)


_EXACT = {
    "arith.divsi": _truncated,
    "arith.remsi": lambda a, b: a - b * _truncated(a, b),
    "arith.ceildivsi": lambda a, b: -(-a // b),
    "arith.floordivsi": lambda a, b: a // b,
}
"""MLIR's signed divisions on exact integers (in range but for MIN / -1)."""


def test_index_comparisons_divisions_and_selects_on_python_ints() -> None:
    """The shortcuts of revolve's schedule: every `cmpi` predicate (a NumPy
    bool, as NumPy's comparison gives), the signed divisions (rounding and
    wrapping as the NumPy kernels do, a zero divisor the same located
    error) and `select`, against the NumPy functions on edge values."""
    predicates = ["eq", "ne", "slt", "sle", "sgt", "sge", "ult", "ule", "ugt", "uge"]
    divisions = ["divsi", "remsi", "ceildivsi", "floordivsi"]
    text = (
        "func.func @f(%a: index, %b: index, %c: i1) {\n"
        + "".join(f"  %{p} = arith.cmpi {p}, %a, %b : index\n" for p in predicates)
        + "".join(f"  %{d} = arith.{d} %a, %b : index\n" for d in divisions)
        + "  %s = arith.select %c, %a, %b : index\n"
        + "  %w = arith.index_cast %a : index to i64\n"
        + "  %i = arith.index_cast %w : i64 to index\n  func.return\n}"
    )
    module = Parser(make_context(), text).parse_module()
    ops = [op for op in module.walk() if op.name.startswith("arith.")]
    *ops, wide, narrow = ops
    assert len(ops) == len(predicates) + len(divisions) + 1
    edge = [0, 1, -1, 7, -7, 3, -(2**63), 2**63 - 1, 2**62, -(2**62) - 3]
    with np.errstate(all="ignore"):
        for op in ops[:-1]:
            shortcut, numpy = index_function(op), function_of(op)
            assert shortcut is not None and numpy is not None
            for a in edge:
                for b in edge:
                    if b == 0 and op.name != "arith.cmpi":
                        for call in (shortcut, numpy):
                            with pytest.raises(OpError, match="divides by zero"):
                                call(np.int64(a), np.int64(b))
                        continue
                    found = shortcut(a, np.int64(b))
                    expected = numpy(np.int64(a), np.int64(b))
                    assert type(found) is type(expected) or type(found) is int
                    assert found == expected, (op.name, a, b)
                    exact = _EXACT.get(op.name)
                    if exact is not None and (a, b) != (-(2**63), -1):  # overflow
                        assert found == exact(a, b), (op.name, a, b)
    select = index_function(ops[-1])
    assert select is not None
    assert select(np.True_, 3, np.int64(4)) == 3
    assert type(select(np.False_, 3, np.int64(4))) is int
    for cast, argument in ((wide, 2**63 - 1), (narrow, np.int64(-(2**63)))):
        shortcut, numpy = index_function(cast), function_of(cast)
        assert shortcut is not None and numpy is not None
        found, expected = shortcut(argument), numpy(argument)
        assert type(found) is type(expected) and found == expected


def test_a_plan_writes_index_ops_as_expressions_with_their_results() -> None:
    """The same ops compiled into a plan, where they are Python expressions
    (no kernel is called: the plan's code reads no `k` name), give the
    shortcuts' values, wrapping included."""
    ops = ["addi", "subi", "muli", "maxsi", "minsi", "cmpi slt,", "cmpi ne,"]
    types = ["index"] * 5 + ["i1"] * 2
    text = (
        f"func.func @f(%a: index, %b: index, %c: i1) -> ({', '.join(types)}, index) {{\n"
        + "".join(f"  %r{i} = arith.{op} %a, %b : index\n" for i, op in enumerate(ops))
        + "  %s = arith.select %c, %a, %b : index\n"
        + f"  func.return {', '.join(f'%r{i}' for i in range(len(ops)))}, %s : "
        + f"{', '.join(types)}, index\n}}"
    )
    module = Parser(make_context(), text).parse_module()
    interpreter = Interpreter(module)
    interpreter.prepare("f")
    code = interpreter.plans["f"].compiled.function.__code__
    assert not [name for name in code.co_names if name.startswith("k")]
    arith_ops = [op for op in module.walk() if op.name.startswith("arith.")]
    edge = [0, -1, 7, -(2**63), 2**63 - 1, 3037000500]
    for a in edge:
        for b in edge:
            for c in (np.True_, np.False_):
                found = interpreter.call("f", [a, b, c])
                expected = []
                for op in arith_ops:
                    shortcut = index_function(op)
                    assert shortcut is not None
                    operands = (c, a, b) if op.name == "arith.select" else (a, b)
                    expected.append(shortcut(*operands))
                assert found == expected, (a, b, c)
                assert [type(v) for v in found] == [type(v) for v in expected]


def test_a_loop_body_from_0_by_1_drops_its_index_arithmetic() -> None:
    """The reverse loop of the RNN's gradient: iteration k's induction
    variable is `0 + k * 1` (no step), `n - 1` of the outer literal n is a
    literal, and the results keep their bits (checked above)."""
    text = RNN.replace(
        "%hi = arith.index_cast %ni : i32 to index", "%hi = arith.constant 5 : index"
    )
    program = Program(text)
    program.interpreter.prepare("main")
    loops = [
        s
        for s in program.interpreter.plans["main"].steps
        if s.op.name == "scf.for" and inspect.isfunction(s.kernel)
    ]
    bodies = [inspect.getclosurevars(s.kernel).nonlocals["body"] for s in loops]
    names = [
        [step.op.name for step in body.steps if step.result not in body.constants]
        for body in bodies
    ]
    recording, reverse = names  # the recording loop stands for the original
    assert [n for n in recording if n != "tensor.insert_slice"] == [
        "tensor.extract_slice",
        "grad.dot",
        "grad.add",
        "math.tanh",
    ]
    assert "arith.muli" not in recording and "arith.addi" not in recording
    assert [n for n in reverse if n.startswith("arith.") and n.endswith("i")] == [
        "arith.subi"  # n - 1 - k
    ]


def test_a_tape_of_run_time_length_is_sliced_at_each_length() -> None:
    """A while loop's reverse sweep reads a tape whose length is known only
    when it runs; the slices worked out for one length must not be reused
    for another (the kernel keeps those of the last shape)."""
    from gradopt import lax

    def power(x: np.ndarray, n: np.ndarray) -> np.ndarray:
        def step(carry: tuple[np.ndarray, np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
            return carry[0] * x, carry[1] + 1

        return lax.while_loop(lambda carry: carry[1] < n, step, (x, 0))[0]

    derivative = gradopt.jit(gradopt.grad(power))
    x = np.float32(1.1)
    for n in (3, 5, 3, 0):
        expected = (n + 1) * np.float64(x) ** n
        assert float(derivative(x, np.int32(n))) == pytest.approx(expected, rel=1e-6)
