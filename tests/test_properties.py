"""Properties of `grad-opt`, `expand-gradient`, `expand-jvp` and the
interpreter on random programs.

The programs come from `programs.py`: well-typed `grad` programs over the
differentiable ops, with their float64 reference. Each property runs on
`GRADOPT_PROPERTY_EXAMPLES` examples (30 by default, so that the suite stays
under five minutes on two cores), derandomized so that a CI run is
reproducible; set the variable higher to search longer, and
`GRADOPT_PROPERTY_RANDOM=1` to draw other examples on each run.
"""

from __future__ import annotations

import contextlib
import io
import os
import sys
from collections.abc import Sequence

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from programs import Op, Program, Value, programs

import gradopt
from gradopt.dialect.context import make_context
from gradopt.dialect.differentiation import DifferentiationOp, GradientOp, JvpOp, VjpOp
from gradopt.dialect.verifier import verify_module
from gradopt.support.diagnostics import parse_module
from gradopt.tools import grad_opt as grad_opt_tool

EXAMPLES = int(os.environ.get("GRADOPT_PROPERTY_EXAMPLES", "30"))

PROPERTY = settings(
    max_examples=EXAMPLES,
    deadline=None,
    derandomize=not os.environ.get("GRADOPT_PROPERTY_RANDOM"),
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)

ANY_PROGRAM = st.one_of(programs("gradient", inner=2), programs("vjp"), programs("jvp"))


def grad_opt(text: str, *args: str) -> str:
    """`grad-opt` run in-process on `text` (as standard input); its output."""
    stdin, out, err = sys.stdin, io.StringIO(), io.StringIO()
    sys.stdin = io.TextIOWrapper(io.BytesIO(text.encode()))
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            status = grad_opt_tool.main(list(args))
    finally:
        sys.stdin = stdin
    assert status == 0, f"grad-opt {' '.join(args)} failed:\n{err.getvalue()}{text}"
    return out.getvalue()


def run(program: Program, text: str | None = None) -> list[np.ndarray]:
    """The results of `program` (or of `text` on the program's inputs)."""
    source = program.text if text is None else text
    return gradopt.run(source, slots=program.slots, args=program.args).results


def run_text(text: str, args: Sequence[np.ndarray]) -> list[np.ndarray]:
    return gradopt.run(text, args=args).results


def assert_same_bits(xs: Sequence[np.ndarray], ys: Sequence[np.ndarray]) -> None:
    assert len(xs) == len(ys)
    for i, (x, y) in enumerate(zip(xs, ys, strict=True)):
        assert (x.dtype, x.shape) == (y.dtype, y.shape), f"result {i}"
        assert x.tobytes() == y.tobytes(), f"result {i}: {x} != {y} (bits)"


def assert_close(actual: Sequence[np.ndarray], expected: Sequence[np.ndarray]) -> None:
    """f32 results within float32 tolerance of the float64 reference: 2e-4
    relative, plus 2e-5 of the largest magnitude of the result (observed
    errors are below 1e-6 of it)."""
    assert len(actual) == len(expected)
    for i, (a, b) in enumerate(zip(actual, expected, strict=True)):
        scale = max(1.0, float(np.max(np.abs(b), initial=0.0)))
        error = np.abs(np.asarray(a, np.float64) - b)
        bad = ~(error <= 2e-4 * np.abs(b) + 2e-5 * scale)
        assert not bad.any(), f"result {i}: gradopt {a}, float64 reference {b}"


def differentiation_ops(text: str) -> list[str]:
    module = parse_module(make_context(), text, "expanded.mlir")
    verify_module(module)
    return [op.name for op in module.walk() if isinstance(op, DifferentiationOp)]


# --- expansion, interpretation and pipelines ----------------------------------


@PROPERTY
@given(ANY_PROGRAM)
def test_grad_opt_output_reparses_to_the_same_text(program: Program) -> None:
    """(a) in the custom and the generic form, before and after expansion."""
    for pipeline in ([], ["-p", "expand-gradient"]):
        printed = grad_opt(program.text, *pipeline)
        assert grad_opt(printed) == printed
        generic = grad_opt(printed, "--print-op-generic")
        assert grad_opt(generic, "--print-op-generic") == generic
        assert grad_opt(generic) == printed


@PROPERTY
@given(ANY_PROGRAM)
def test_the_expanded_module_verifies_and_has_no_differentiation_op(
    program: Program,
) -> None:
    """(b), also for `expand-jvp`, which leaves only the reverse-mode ops
    that no jvp needs."""
    assert differentiation_ops(grad_opt(program.text, "-p", "expand-gradient")) == []
    remaining = differentiation_ops(grad_opt(program.text, "-p", "expand-jvp"))
    assert JvpOp.name not in remaining
    assert set(remaining) <= {GradientOp.name, VjpOp.name}


@PROPERTY
@given(ANY_PROGRAM)
def test_expand_gradient_is_idempotent(program: Program) -> None:
    """(c)"""
    once = grad_opt(program.text, "-p", "expand-gradient")
    assert grad_opt(once, "-p", "expand-gradient") == once
    assert grad_opt(program.text, "-p", "expand-gradient,expand-gradient") == once


@PROPERTY
@given(ANY_PROGRAM)
def test_results_match_a_float64_reference(program: Program) -> None:
    """(d) gradients, vjps, jvps (also of differentiation ops inside the
    program: second order) against finite differences in float64."""
    assert_close(run(program), program.expected())


@PROPERTY
@given(ANY_PROGRAM, st.booleans())
def test_results_are_identical_bit_for_bit_across_runs_and_pipelines(
    program: Program, special: bool
) -> None:
    """(e) two runs; the program expanded by `expand-gradient` alone, with
    `canonicalize,cse,dce` after it, and by `expand-jvp` (the run expands the
    reverse-mode ops that no jvp needed).

    Not `canonicalize` or `cse` before the expansion: a target is an SSA value,
    and a rewrite that replaces it by an equal value (`neg (neg x)` by `x`,
    one of two equal ops by the other, `neg` of a literal by a literal) changes
    what the derivative is taken with respect to.

    Half of the examples run on data with NaN, infinities and signed zeros,
    where an inexact rewrite would show."""
    if special:
        program = program.with_special_data(len(program.ops))
    results = run(program)
    assert_same_bits(run(program), results)
    for pipeline in (
        "expand-gradient",
        "expand-gradient,canonicalize,cse,dce",
        "expand-jvp",
    ):
        assert_same_bits(run(program, grad_opt(program.text, "-p", pipeline)), results)


@settings(PROPERTY, max_examples=max(1, EXAMPLES // 2))
@given(
    st.one_of(
        programs("gradient", inner=2, twins=True),
        programs("vjp", twins=True),
        programs("jvp", twins=True),
    )
)
def test_cse_before_expand_gradient_changes_no_result_beyond_rounding(
    program: Program,
) -> None:
    """SPEC §4 rule 6: no target of a valid program has a twin that
    its loss depends on, so `cse` before `expand-gradient` merges only values
    that the gradient treats alike. The results agree within float32 rounding,
    not bit for bit: a merged node makes another graph, whose shares add in
    another order. The programs copy earlier ops, so `cse` has work to do, and
    may take a copy as a target: those the verifier refuses are skipped (and
    would fail here if it accepted them)."""
    try:
        gradopt.Program(program.text)
    except gradopt.GradoptError as error:
        assert "structurally equal twin" in str(error), str(error)
        return
    merged = grad_opt(program.text, "-p", "cse")
    expected = [np.asarray(r, np.float64) for r in run(program)]
    assert_close(run(program, merged), expected)


# --- jvp and vjp against the gradient -----------------------------------------


@PROPERTY
@given(programs("jvp_gradient"))
def test_jvp_agrees_with_the_gradient_and_a_finite_difference(
    program: Program,
) -> None:
    """Along a random tangent t, jvp is sum(gradient * t) within 1e-4 of
    sum |gradient * t| (SPEC §5.6), and a float64 central difference."""
    jvp, gradient = run(program)
    terms = (
        np.asarray(gradient, np.float64) * program.data[program.info["tangent"].name]
    )
    assert abs(float(jvp) - terms.sum()) <= 1e-4 * np.abs(terms).sum()
    assert_close([jvp], program.expected()[:1])


def sum_of_product(program: Program) -> Program:
    """The program with `grad.vjp %y, %ct wrt ...` replaced by the gradient of
    `sum(y * ct)` w.r.t. the same targets."""
    y, cotangent = program.info["y"], program.info["cotangent"]
    targets: list[Value] = program.info["targets"]
    product = Value("product", y.shape)
    loss = Value("loss", ())
    ops = [Op("mul", (product,), (y, cotangent))]
    if y.shape:
        axes = list(range(len(y.shape)))
        ops.append(Op("reduce", (loss,), (product,), {"kind": "add", "axes": axes}))
    else:
        loss = product
    results = [Value(f"g{i}", t.shape) for i, t in enumerate(targets)]
    ops.append(Op("gradient", tuple(results), (loss, *targets)))
    return program.with_final(ops, results)


@PROPERTY
@given(programs("vjp"))
def test_vjp_is_the_gradient_of_the_sum_of_output_times_cotangent(
    program: Program,
) -> None:
    """Bit for bit: the walk from `sum(y * ct)` reaches y with `mul 1.0 ct`,
    which is ct, and from there on is the vjp's walk."""
    assert_same_bits(run(sum_of_product(program)), run(program))


@PROPERTY
@given(programs("gradient", targets=(2, 3)), st.booleans())
def test_several_targets_give_what_one_op_per_target_gives(
    program: Program, special: bool
) -> None:
    """SPEC §5.2 step 5: one walk for several targets gives, bit for bit,
    what a separate walk (here a separate program) for each target gives,
    also on NaN, infinities and signed zeros."""
    targets: list[Value] = program.info["targets"]
    assume(len(targets) > 1)
    if special:
        program = program.with_special_data(len(program.ops))
    _, *together = run(program)
    for target, result in zip(targets, together, strict=True):
        gradient = Value("alone", target.shape)
        alone = program.with_final(
            [Op("gradient", (gradient,), (program.info["loss"], target))],
            [gradient],
        )
        assert_same_bits(run(alone), [result])


# --- found by the properties --------------------------------------------------


def test_a_target_that_expands_to_an_existing_value() -> None:
    """d(gx + d)/d(gx) is 1, whatever gx and d are. gx (= d x/d x) expands to
    the literal 1.0 that the expansion of d (= d x²/d x = 1.0·x + 1.0·x) also
    reads, so it must get a node of its own or the outer gradient gives 1 + 2x.
    A zeros literal (a target the loss does not depend on) and a cotangent
    (`vjp %y, %ct wrt %y`) would alias in the same way."""
    text = """
    func.func @main(%x: tensor<f32>) -> tensor<f32> {
      %gx = grad.gradient %x wrt %x : tensor<f32>, tensor<f32>
      %sx = grad.mul %x, %x : tensor<f32>
      %d = grad.gradient %sx wrt %x : tensor<f32>, tensor<f32>
      %l = grad.add %gx, %d : tensor<f32>
      %h = grad.gradient %l wrt %gx : tensor<f32>, tensor<f32>
      func.return %h : tensor<f32>
    }
    """
    (h,) = gradopt.run(text, args=[np.float32(3.0)]).results
    assert h == 1.0


def test_two_gradients_of_one_loss_one_w_r_t_a_value_it_does_not_reach() -> None:
    """Found by test_jvp_agrees_with_the_gradient_and_a_finite_difference with
    GRADOPT_PROPERTY_RANDOM=1; both ops share one walk (SPEC §5.4)."""
    text = """
    func.func @main(%x: tensor<f32>, %y: tensor<f32>) -> (tensor<f32>, tensor<f32>) {
      %g = grad.gradient %x wrt %x : tensor<f32>, tensor<f32>
      %h = grad.gradient %x wrt %y : tensor<f32>, tensor<f32>
      func.return %g, %h : tensor<f32>, tensor<f32>
    }
    """
    g, h = gradopt.run(text, args=[np.float32(3.0), np.float32(1.0)]).results
    assert (g, h) == (1.0, 0.0)


def test_canonicalize_before_expansion_keeps_a_gradient() -> None:
    """d(-a)/da is -1; had `canonicalize` folded y = neg (neg x) to x, y would
    no longer depend on a and the gradient would be 0. Found by adding
    `canonicalize,expand-gradient` to the pipelines of (e)."""
    text = """
    func.func @main(%x: tensor<f32>) -> tensor<f32> {
      %a = grad.neg %x : tensor<f32>
      %y = grad.neg %a : tensor<f32>
      %g = grad.gradient %y wrt %a : tensor<f32>, tensor<f32>
      func.return %g : tensor<f32>
    }
    """
    (g,) = run_text(grad_opt(text, "-p", "canonicalize"), [np.float32(1.0)])
    assert g == -1.0


def test_a_target_with_a_twin_is_refused_as_cse_would_change_its_gradient() -> None:
    """d(a·b)/da is b = sin x, though a and b are equal ops; after `cse`, b is
    a, and the gradient would be 2 sin x. SPEC §4 rule 6 refuses the program,
    so no pipeline can give either answer."""
    text = """
    func.func @main(%x: tensor<f32>) -> tensor<f32> {
      %a = grad.sin %x : tensor<f32>
      %b = grad.sin %x : tensor<f32>
      %l = grad.mul %a, %b : tensor<f32>
      %g = grad.gradient %l wrt %a : tensor<f32>, tensor<f32>
      func.return %g : tensor<f32>
    }
    """
    with pytest.raises(gradopt.GradoptError, match="structurally equal twin at 4:7"):
        gradopt.run(text, args=[np.float32(1.0)])
