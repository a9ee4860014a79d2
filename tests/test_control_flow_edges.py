# ruff: noqa: E501 (MLIR text: one op a line, as MLIR prints it)
"""Loops at the edges of what their derivatives are built for (SPEC §11):
bounds known only at run time that make no sense, and run-time sizes that
the caches of a loop's reverse take from them."""

from __future__ import annotations

import importlib.util
from typing import Any

import numpy as np
import pytest

from gradopt import GradoptError, Program

STEPPED = """func.func @main(%x: tensor<3xf32>, %n: i32, %s: i32) -> tensor<3xf32> {
  %c0 = arith.constant 0 : i32
  %r = scf.for %i = %c0 to %n step %s iter_args(%h = %x) -> (tensor<3xf32>) : i32 {
    %a = grad.mul %h, %h : tensor<3xf32>
    scf.yield %a : tensor<3xf32>
  }
  %l = grad.reduce add %r [0] : tensor<3xf32> to tensor<f32>
  %g = grad.gradient %l wrt %x control_flow : tensor<f32>, tensor<3xf32>
  func.return %g : tensor<3xf32>
}"""


@pytest.mark.parametrize(
    ("step", "message"),
    [
        (-1, "'tensor.empty' size -3 of dimension 0 is negative"),
        (0, "'arith.ceildivsi' divides by zero"),
    ],
)
def test_a_step_that_is_not_positive_is_a_located_error_under_a_gradient(
    step: int, message: str
) -> None:
    """A step known at run time sizes the reverse's cache before the loop
    runs (where the interpreter refuses such a step): the run stops there,
    at the loop, with a located error and no traceback."""
    program = Program(STEPPED, "stepped.mlir")
    args = [np.ones(3, np.float32), np.int32(3), np.int32(step)]
    with pytest.raises(GradoptError) as caught:
        program.run(args=args)
    assert str(caught.value).startswith(f"stepped.mlir:3:3: error: {message}")
    (gradient,) = program.run(args=[args[0], np.int32(3), np.int32(1)]).results
    np.testing.assert_array_equal(gradient, np.full(3, 8.0, np.float32))


HAVE_IREE = all(
    importlib.util.find_spec(name) is not None
    for name in ("iree", "iree.compiler", "iree.runtime")
)

BINOMIAL = '{"grad.checkpoint" = "binomial", "grad.snapshots" = 2 : i64}'

CHECKPOINTED = f"""func.func @main(%x: tensor<3xf32>, %n: i32) -> (tensor<3xf32>, tensor<3xf32>) {{
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %b = scf.for %i = %c0 to %n step %c1 iter_args(%h = %x) -> (tensor<3xf32>) : i32 {{
    %s = grad.mul %h, %x : tensor<3xf32>
    %t = grad.sin %s : tensor<3xf32>
    scf.yield %t : tensor<3xf32>
  }} {BINOMIAL}
  %r:2 = scf.while (%h = %b, %k = %c0) : (tensor<3xf32>, i32) -> (tensor<3xf32>, i32) {{
    %more = arith.cmpi slt, %k, %n : i32
    scf.condition(%more) %h, %k : tensor<3xf32>, i32
  }} do {{
  ^bb0(%h: tensor<3xf32>, %k: i32):
    %s = grad.add %h, %x : tensor<3xf32>
    %t = grad.sin %s : tensor<3xf32>
    %k1 = arith.addi %k, %c1 : i32
    scf.yield %t, %k1 : tensor<3xf32>, i32
  }} attributes {BINOMIAL}
  %l = grad.reduce add %r#0 [0] : tensor<3xf32> to tensor<f32>
  %g = grad.gradient %l wrt %x control_flow : tensor<f32>, tensor<3xf32>
  func.return %r#0, %g : tensor<3xf32>, tensor<3xf32>
}}"""


@pytest.mark.skipif(not HAVE_IREE, reason="IREE is not installed")
def test_binomial_checkpointing_runs_on_iree() -> None:
    """Revolve's stack of positions and its snapshots, sized by a trip count
    known at run time only (an `scf.for` with i32 bounds and an
    `scf.while`), pass IREE's compiler and give the interpreter's values;
    the loops start from copies of their tensors, dynamically sized ones
    too (IREE 3.13 otherwise ran into "indirect buffer reference slot 0 is
    out range")."""
    program = Program(CHECKPOINTED)
    x = np.array([0.3, -0.7, 1.1], np.float32)
    for n in (0, 4):
        args = [x, np.int32(n)]
        expected = program.run(args=args).results
        found = program.run(args=args, backend="iree").results
        for a, b in zip(found, expected, strict=True):
            np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


BRANCH = """func.func @main(%x: tensor<3xf32>, %p: i1, %q: tensor<i1>) -> (tensor<3xf32>, i1) {
  %c = grad.const 2.0 : tensor<3xf32>
  %r = scf.if %p -> (tensor<3xf32>) {
    %a = grad.mul %x, %c : tensor<3xf32>
    scf.yield %a : tensor<3xf32>
  } else {
    scf.yield %x : tensor<3xf32>
  }
  %qs = tensor.extract %q[] : tensor<i1>
  %b = arith.andi %p, %qs : i1
  func.return %r, %b : tensor<3xf32>, i1
}"""


@pytest.mark.skipif(not HAVE_IREE, reason="IREE is not installed")
def test_an_i1_argument_takes_a_branch_on_iree() -> None:
    """An `i1` scalar argument (an `scf.if`'s condition) is passed to IREE as
    the integer its VM holds (it was 'could not convert python value to VM:
    True'), beside an `i1` tensor."""
    program = Program(BRANCH)
    x = np.array([1.0, 2.0, 3.0], np.float32)
    for p in (True, False):
        args = [x, np.bool_(p), np.array(True)]
        found = program.run(args=args, backend="iree").results
        expected = program.run(args=args).results
        for a, b in zip(found, expected, strict=True):
            np.testing.assert_array_equal(a, b)


def test_no_loop_starts_from_a_copy_of_an_empty_tensor() -> None:
    """A periodic `scf.while` reverse starts its replay from `tensor.empty`
    for the carried values it does not keep; copying those for IREE read
    uninitialized memory, and IREE's compiler printed a warning about it
    on the user's terminal."""
    from xdsl.dialects.linalg.ops import GenericOp
    from xdsl.dialects.tensor import EmptyOp

    from gradopt.runtime.iree import _lowered

    periodic = CHECKPOINTED.replace(BINOMIAL, '{"grad.checkpoint" = "periodic"}')
    lowered = _lowered(Program(periodic).module)
    generics = [op for op in lowered.walk() if isinstance(op, GenericOp)]
    assert generics
    for op in generics:
        for value in op.inputs:
            assert not isinstance(value.owner, EmptyOp), op


def test_a_gradient_of_a_gradient_through_a_run_time_trip_count_is_refused() -> None:
    """The first gradient's reverse caches the loop's carried values in
    tensors sized at run time (`tensor<?x3xf32>`), which a second reverse
    cannot cache or sum: a located error (it was a NumPy traceback, and
    through a `while_loop` a wrong value), while the same loop with a static
    trip count has its second gradient. Forward mode over such a gradient
    needs zeros of that size, and is refused alike."""
    import gradopt
    import gradopt.numpy as gnp
    from gradopt import lax

    def body(h: Any, a: Any) -> Any:
        return gnp.sin(h) * a + h * 0.5

    def by_while(a: Any) -> Any:
        step = lambda c: (c[0] + 1, body(c[1], a))  # noqa: E731
        return gnp.sum(lax.while_loop(lambda c: c[0] < 3, step, (0, a))[1])

    def by_bounds(a: Any, n: Any) -> Any:
        return gnp.sum(lax.fori_loop(0, n, lambda i, h: body(h, a), a))

    def static(a: Any) -> Any:
        return gnp.sum(lax.fori_loop(0, 3, lambda i, h: body(h, a), a))

    def second(f: Any) -> Any:
        return gradopt.grad(lambda a, *n: gnp.sum(gradopt.grad(f)(a, *n) ** 2))

    x = np.array([0.3, -0.7, 1.1], np.float32)
    expected = [10.214247, -0.1035226, -16.440089]  # JAX, float64
    np.testing.assert_allclose(second(static)(x), expected, rtol=1e-5)
    for f, args in ((by_while, (x,)), (by_bounds, (x, np.int32(3)))):
        with pytest.raises(GradoptError) as caught:
            second(f)(*args)
        message = str(caught.value)
        assert message.startswith(f"{__file__}:"), message
        assert (
            "tensor<?x3xf32>, whose size is known at run time only, on the path: "
            "its reverse cannot take it (a gradient of a gradient through a loop "
            "whose trip count is known at run time only is not supported)"
        ) in message
    with pytest.raises(GradoptError) as caught:
        gradopt.jvp(gradopt.grad(by_while), (x,), (x,))
    assert "'grad.jvp' op needs zeros of tensor<?x3xf32>, whose size is known" in str(
        caught.value
    )


CHAINED_CALLS = """func.func private @cell(%h: tensor<3xf32>, %w: tensor<3xf32>, %flag: i1) -> (tensor<3xf32>, i1) {
  %r = scf.if %flag -> (tensor<3xf32>) {
    %a = grad.mul %h, %w : tensor<3xf32>
    scf.yield %a : tensor<3xf32>
  } else {
    scf.yield %h : tensor<3xf32>
  }
  func.return %r, %flag : tensor<3xf32>, i1
}
func.func @main(%x: tensor<3xf32>, %w: tensor<3xf32>, %f: i1) -> (tensor<3xf32>, tensor<3xf32>) {
  %n, %n1 = func.call @cell(%x, %w, %f) : (tensor<3xf32>, tensor<3xf32>, i1) -> (tensor<3xf32>, i1)
  %m, %m1 = func.call @cell(%n, %w, %f) : (tensor<3xf32>, tensor<3xf32>, i1) -> (tensor<3xf32>, i1)
  %s = grad.add %n, %m : tensor<3xf32>
  %l = grad.reduce add %s [0] : tensor<3xf32> to tensor<f32>
  %gx, %gw = grad.gradient %l wrt %x, %w control_flow : tensor<f32>, tensor<3xf32>, tensor<3xf32>
  func.return %gx, %gw : tensor<3xf32>, tensor<3xf32>
}"""


def test_a_branch_of_an_inlined_call_reads_a_kept_calls_result() -> None:
    """The second call is inlined (its arguments send shares to each other),
    the first kept for derivative functions; the walk of the inlined
    `scf.if`'s branches reads the first call's result as a leaf and leaves
    that call to the enclosing walk (it inlined it from under the walk:
    "Operation CallOp(...) has no SymbolTable ancestor")."""
    program = Program(CHAINED_CALLS)
    x = np.array([1.0, 2.0, 3.0], np.float32)
    w = np.array([1.0, 1.0, 2.0], np.float32)
    gx, gw = program.run(args=[x, w, np.bool_(True)]).results  # x·w + x·w·w
    np.testing.assert_array_equal(gx, w + w * w)
    np.testing.assert_array_equal(gw, x + 2 * x * w)
    gx, gw = program.run(args=[x, w, np.bool_(False)]).results  # x + x
    np.testing.assert_array_equal(gx, np.full(3, 2.0, np.float32))
    np.testing.assert_array_equal(gw, np.zeros(3, np.float32))
