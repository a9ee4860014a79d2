# ruff: noqa: E501 (MLIR text: one op a line, as MLIR prints it)
"""Calls in loops (SPEC §11): one set of derivative functions per callee and
pattern serves every call site and every iteration; calls outside loops keep
the bits of inlining."""

from __future__ import annotations

import numpy as np
from test_control_flow import close, expanded, f32, results, same_bits
from xdsl.dialects.builtin import ModuleOp
from xdsl.dialects.func import CallOp, FuncOp
from xdsl.parser import Parser

from gradopt.autodiff.rules.func import inline_call
from gradopt.dialect.context import make_context
from gradopt.passes.expand_gradient import ExpandGradientPass

# @cell calls @inner (nested) and returns its own argument; the loop calls
# @cell twice and @inner once, and reads %h outside the calls as well.
PROGRAM = """
func.func @inner(%a: tensor<2xf32>, %w: tensor<2xf32>) -> tensor<2xf32> {{
  %m = grad.mul %a, %w : tensor<2xf32>
  %s = grad.sin %m : tensor<2xf32>
  func.return %s : tensor<2xf32>
}}
func.func @cell(%h: tensor<2xf32>, %w: tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>) {{
  %i = func.call @inner(%h, %w) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  %j = grad.mul %i, %h : tensor<2xf32>
  func.return %j, %h : tensor<2xf32>, tensor<2xf32>
}}
func.func @main(%x: tensor<2xf32>, %w: tensor<2xf32>, %n: i32) -> (tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %nd = arith.index_cast %n : i32 to index
  %count = {count}
  %r = scf.for %k = %c0 to %count step %c1 iter_args(%h = %x) -> (tensor<2xf32>) {{
    %a, %same = func.call @cell(%h, %w) : (tensor<2xf32>, tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>)
    %b, %unused = func.call @cell(%a, %same) : (tensor<2xf32>, tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>)
    %c = func.call @inner(%b, %w) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %d = grad.add %c, %h : tensor<2xf32>
    scf.yield %d : tensor<2xf32>
  }} {attributes}
  %sq = grad.mul %r, %r : tensor<2xf32>
  %l = grad.reduce add %sq [0] : tensor<2xf32> to tensor<f32>
  %gx, %gw = grad.gradient %l wrt %x, %w control_flow : tensor<f32>, tensor<2xf32>, tensor<2xf32>
  %t = grad.jvp %r wrt %w, %x control_flow : tensor<2xf32>, tensor<2xf32>
  func.return %gx, %gw, %t : tensor<2xf32>, tensor<2xf32>, tensor<2xf32>
}}
"""

Array = np.ndarray
X = np.array([0.4, -0.6], np.float32)
W = np.array([0.9, 1.3], np.float32)


def reference(n: int) -> list[np.ndarray]:
    """The gradients and the jvp in float64 by dual numbers."""

    def run(dx: np.ndarray, dw: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        w = W.astype(np.float64)
        h, dh = X.astype(np.float64), dx

        def inner(a: Array, da: Array, v: Array, dv: Array) -> tuple[Array, Array]:
            return np.sin(a * v), np.cos(a * v) * (da * v + a * dv)

        def cell(a: Array, da: Array, v: Array, dv: Array) -> tuple[Array, Array]:
            i, di = inner(a, da, v, dv)
            return i * a, di * a + i * da

        for _ in range(n):
            a, da = cell(h, dh, w, dw)
            b, db = cell(a, da, h, dh)
            c, dc = inner(b, db, w, dw)
            h, dh = c + h, dc + dh
        return h, dh

    eye, zero = np.eye(2), np.zeros(2)
    gx = [np.sum(2 * np.prod(run(e, zero), axis=0)) for e in eye]
    gw = [np.sum(2 * np.prod(run(zero, e), axis=0)) for e in eye]
    return [np.array(gx), np.array(gw), run(zero, X.astype(np.float64))[1]]


def functions(module: ModuleOp) -> dict[str, int]:
    """Each function's name, with the number of calls of it."""
    calls: dict[str, int] = {}
    for op in module.walk():
        if isinstance(op, CallOp):
            name = op.callee.string_value()
            calls[name] = calls.get(name, 0) + 1
    return {
        op.sym_name.data: calls.get(op.sym_name.data, 0)
        for op in module.ops
        if isinstance(op, FuncOp)
    }


def test_one_derivative_function_per_callee_in_a_loop() -> None:
    module = expanded(
        PROGRAM.format(count="arith.addi %nd, %c0 : index", attributes="")
    )
    found = functions(module)
    # the reverse: one pair of functions per callee and pattern of results
    # with a gradient: @cell's first site passes both results on (its second,
    # the argument it returns, is the next call's %w), its second site only
    # the first; @inner's pair serves the loop's site and the sites in both
    # @cell__aug functions. The tangent, per pattern of arguments with a
    # tangent and of results whose tangent is needed: @cell__fwd_11_11 in
    # place of the first site and @cell__tan_11_11 from its tape,
    # @cell__fwd_11_10 and @cell__tan_11_10 at the second, @inner's pair at
    # the loop's site and in both pairs of @cell.
    assert {k: v for k, v in found.items() if "__" in k} == {
        "cell__aug_11": 1,
        "cell__rev_11": 1,
        "cell__aug_10": 1,
        "cell__rev_10": 1,
        "inner__aug_1": 3,
        "inner__rev_1": 3,
        "cell__fwd_11_11": 1,
        "cell__tan_11_11": 1,
        "cell__fwd_11_10": 1,
        "cell__tan_11_10": 1,
        "inner__fwd_11_1": 3,
        "inner__tan_11_1": 3,
    }
    for n in (0, 1, 3):
        got = results(module, X, W, np.array(n, np.int32))
        for value, expected in zip(got, reference(n), strict=True):
            close(value, expected, 1e-4)


def test_calls_in_a_loop_against_the_unrolled_and_inlined_program() -> None:
    text = PROGRAM.format(count="arith.constant 3 : index", attributes="")
    args = (X, W, np.array(3, np.int32))
    found = results(expanded(text), *args)
    unrolled = results(expanded(text, unroll=True), *args)
    for value, other in zip(found, unrolled, strict=True):
        np.testing.assert_allclose(value, other, rtol=1e-5, atol=1e-6)
    for policy in (
        '{"grad.checkpoint" = "periodic"}',
        '{"grad.checkpoint" = "binomial", "grad.snapshots" = 2 : i64}',
    ):
        marked = PROGRAM.format(count="arith.constant 3 : index", attributes=policy)
        assert same_bits(results(expanded(marked), *args), found)


def inlined(text: str) -> ModuleOp:
    """`text` with every call in @main replaced by its callee's body (again,
    until none is left), then expanded: the reference of SPEC §11."""
    ctx = make_context()
    module = Parser(ctx, text).parse_module()
    main = next(
        op for op in module.ops if isinstance(op, FuncOp) and op.sym_name.data == "main"
    )
    while calls := [op for op in main.walk() if isinstance(op, CallOp)]:
        for call in calls:
            inline_call(call)
    ExpandGradientPass().apply(ctx, module)
    return module


# @loss at four sites sharing %w, which is also read outside the calls;
# @loss calls @norm (nested); @pick returns its argument (inlined: that
# result's shares reach the argument one by one); the gradient is taken
# again (grad-of-grad).
SITES = """
func.func @norm(%a: tensor<3xf32>) -> tensor<f32> {
  %s = grad.sin %a : tensor<3xf32>
  %q = grad.mul %s, %a : tensor<3xf32>
  %r = grad.reduce add %q [0] : tensor<3xf32> to tensor<f32>
  func.return %r : tensor<f32>
}
func.func @loss(%w: tensor<3xf32>, %x: tensor<3xf32>) -> tensor<f32> {
  %p = grad.mul %w, %x : tensor<3xf32>
  %d = grad.mul %p, %w : tensor<3xf32>
  %n = func.call @norm(%d) : (tensor<3xf32>) -> tensor<f32>
  func.return %n : tensor<f32>
}
func.func @pick(%a: tensor<3xf32>, %b: tensor<3xf32>) -> tensor<3xf32> {
  func.return %a : tensor<3xf32>
}
func.func @main(%w: tensor<3xf32>, %x1: tensor<3xf32>, %x2: tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) {
  %l1 = func.call @loss(%w, %x1) : (tensor<3xf32>, tensor<3xf32>) -> tensor<f32>
  %l2 = func.call @loss(%w, %x2) : (tensor<3xf32>, tensor<3xf32>) -> tensor<f32>
  %v = func.call @pick(%w, %x1) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  %wv = grad.mul %w, %v : tensor<3xf32>
  %l3 = func.call @loss(%wv, %x2) : (tensor<3xf32>, tensor<3xf32>) -> tensor<f32>
  %l4 = func.call @loss(%wv, %w) : (tensor<3xf32>, tensor<3xf32>) -> tensor<f32>
  %a = grad.add %l1, %l2 : tensor<f32>
  %b = grad.add %a, %l3 : tensor<f32>
  %l = grad.add %b, %l4 : tensor<f32>
  %g, %gx = grad.gradient %l wrt %w, %x1 control_flow : tensor<f32>, tensor<3xf32>, tensor<3xf32>
  %gg = grad.mul %g, %g : tensor<3xf32>
  %m = grad.reduce add %gg [0] : tensor<3xf32> to tensor<f32>
  %g2 = grad.gradient %m wrt %w control_flow : tensor<f32>, tensor<3xf32>
  func.return %g, %gx, %g2 : tensor<3xf32>, tensor<3xf32>, tensor<3xf32>
}
"""


def test_calls_outside_loops_share_functions_with_the_bits_of_inlining() -> None:
    first = SITES.replace(
        "%g2 = grad.gradient %m wrt %w control_flow : tensor<f32>, tensor<3xf32>",
        "%g2 = grad.mul %gg, %w : tensor<3xf32>",
    )
    assert first != SITES
    found = functions(expanded(first))
    # three of @loss's sites share one pair of functions; the one on (%wv,
    # %w) is inlined (%wv depends on %w, also an argument of that call: %wv's
    # share to %w would arrive amid the callee's), and @pick too (it returns
    # its argument); @norm's pair serves the site in @loss__aug_1 and the one
    # inlined with @loss
    assert {k: v for k, v in found.items() if "__" in k} == {
        "loss__aug_1": 3,
        "loss__rev_1": 3,
        "norm__aug_1": 2,
        "norm__rev_1": 2,
    }
    args = (f32(3), f32(3), f32(3))
    for text in (first, SITES):  # SITES: the second gradient inlines the
        # first one's functions (several results each)
        assert same_bits(results(expanded(text), *args), results(inlined(text), *args))


# Where the order matters: @f's body reaches %b before %a, so the walk must
# take the call's arguments in that order (%p's and %rq's shares to %w
# arrive in the inlined order); @g's site on (%zw, %u), %u computed from
# %zw, is inlined: the inlined body reaches %u between its own uses of %zw,
# so %u's share to %zw arrives amid @g's shares to %zw.
ORDER = """
func.func @f(%a: tensor<64xf32>, %b: tensor<64xf32>) -> tensor<f32> {
  %t1 = grad.mul %b, %a : tensor<64xf32>
  %t2 = grad.mul %t1, %a : tensor<64xf32>
  %t3 = grad.mul %t2, %b : tensor<64xf32>
  %r = grad.reduce add %t3 [0] : tensor<64xf32> to tensor<f32>
  func.return %r : tensor<f32>
}
func.func @g(%a: tensor<64xf32>, %b: tensor<64xf32>) -> tensor<f32> {
  %t1 = grad.mul %a, %a : tensor<64xf32>
  %t2 = grad.mul %t1, %b : tensor<64xf32>
  %t3 = grad.mul %t2, %a : tensor<64xf32>
  %r = grad.reduce add %t3 [0] : tensor<64xf32> to tensor<f32>
  func.return %r : tensor<f32>
}
func.func @main(%w: tensor<64xf32>, %x: tensor<64xf32>) -> tensor<64xf32> {
  %r = grad.mul %w, %w : tensor<64xf32>
  %p = grad.sin %w : tensor<64xf32>
  %q = grad.mul %w, %x : tensor<64xf32>
  %rq = grad.add %r, %q : tensor<64xf32>
  %l1 = func.call @f(%p, %rq) : (tensor<64xf32>, tensor<64xf32>) -> tensor<f32>
  %z = grad.sin %x : tensor<64xf32>
  %zw = grad.mul %z, %w : tensor<64xf32>
  %u = grad.mul %zw, %x : tensor<64xf32>
  %l2 = func.call @g(%zw, %u) : (tensor<64xf32>, tensor<64xf32>) -> tensor<f32>
  %l = grad.add %l1, %l2 : tensor<f32>
  %g = grad.gradient %l wrt %w control_flow : tensor<f32>, tensor<64xf32>
  func.return %g : tensor<64xf32>
}
"""


def test_the_walk_meets_a_kept_calls_shares_in_the_inlined_order() -> None:
    found = functions(expanded(ORDER))
    assert found["f__aug_1"] == 1 and found["f__rev_1"] == 1
    assert "g__aug_1" not in found
    for _ in range(3):
        args = (f32(64), f32(64))
        assert same_bits(
            results(expanded(ORDER), *args), results(inlined(ORDER), *args)
        )


def test_a_function_of_the_users_name_is_not_taken_for_a_derivative() -> None:
    text = ORDER.replace(
        "func.func @main(",
        "func.func @f__aug_1(%a: tensor<64xf32>) -> tensor<64xf32> {\n"
        "  func.return %a : tensor<64xf32>\n}\nfunc.func @main(",
    )
    found = functions(expanded(text))
    assert found["f__aug_1"] == 0 and found["f__aug_1_"] == 1
    args = (f32(64), f32(64))
    assert same_bits(results(expanded(text), *args), results(expanded(ORDER), *args))
