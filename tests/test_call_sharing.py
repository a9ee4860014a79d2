# ruff: noqa: E501 (MLIR text: one op a line, as MLIR prints it)
"""Calls outside loops (SPEC §11): both modes differentiate a call
by functions made once per callee and pattern wherever that keeps the bits of
inlining every call first, which random call graphs check bit for bit with
-0.0, NaN and inf among their inputs; the count of functions and calls checks
that the expansion does not copy a callee's derivative per site."""

from __future__ import annotations

import os

import numpy as np
import pytest
from test_calls import functions, inlined
from test_control_flow import expanded, results, same_bits
from xdsl.dialects.func import FuncOp

EXAMPLES = int(os.environ.get("GRADOPT_PROPERTY_EXAMPLES", "8"))
N = 16
T = f"tensor<{N}xf32>"
T3 = "tensor<3xf32>"


class _Function:
    """Random straight-line code over `tensor<16xf32>` values, with calls."""

    def __init__(self, rng: np.random.Generator, values: list[str]):
        self.rng = rng
        self.values = list(values)
        self.lines: list[str] = []
        self.calls: list[list[str]] = []

    def pick(self) -> str:
        return self.values[int(self.rng.integers(len(self.values)))]

    def new(self) -> str:
        name = f"%v{len(self.lines)}_{len(self.values)}"
        self.values.append(name)
        return name

    def op(self) -> None:
        kind = ("add", "mul", "sin", "neg", "max")[int(self.rng.integers(5))]
        operands = (
            [self.pick()] if kind in ("sin", "neg") else [self.pick(), self.pick()]
        )
        self.lines.append(f"{self.new()} = grad.{kind} {', '.join(operands)} : {T}")

    def call(self, name: str, arity: int, count: int) -> None:
        arguments = [self.pick() for _ in range(arity)]
        if arity > 1 and self.rng.random() < 0.3:
            arguments[1] = arguments[0]  # the same value twice
        out = [self.new() for _ in range(count)]
        self.calls.append(out)
        self.lines.append(
            f"{', '.join(out)} = func.call @{name}({', '.join(arguments)}) : "
            f"({', '.join([T] * arity)}) -> ({', '.join([T] * count)})"
        )


def random_program(seed: int) -> str:
    """Callees of one to three arguments and one or two results (a result may
    be an argument), calling earlier callees; @main calls them at several
    sites; the loss sums some of the values nothing reads (some call results
    stay unread); a gradient w.r.t. every input and a jvp, in either order."""
    rng = np.random.default_rng(seed)
    callees: list[tuple[str, int, int]] = []
    text: list[str] = []
    for k in range(3):
        arity = int(rng.integers(1, 4))
        body = _Function(rng, [f"%a{j}" for j in range(arity)])
        for _ in range(int(rng.integers(2, 5))):
            if callees and rng.random() < 0.35:
                body.call(*callees[int(rng.integers(len(callees)))])
            else:
                body.op()
        count = int(rng.integers(1, 3))
        returned = [body.values[-1], body.pick()][:count]
        params = ", ".join(f"%a{j}: {T}" for j in range(arity))
        text += [
            f"func.func @f{k}({params}) -> ({', '.join([T] * count)}) {{",
            *body.lines,
            f"  func.return {', '.join(returned)} : {', '.join([T] * count)}",
            "}",
        ]
        callees.append((f"f{k}", arity, count))
    main = _Function(rng, ["%x0", "%x1", "%x2", "%y0", "%y1"])
    main.lines += [f"%y0 = grad.mul %x0, %x1 : {T}", f"%y1 = grad.add %x1, %x2 : {T}"]
    for _ in range(int(rng.integers(5, 9))):
        if rng.random() < 0.5:
            main.call(*callees[int(rng.integers(len(callees)))])
        else:
            main.op()
    read = {
        v
        for line in main.lines
        for v in line.split("=", 1)[1]
        .replace(",", " ")
        .replace("(", " ")
        .replace(")", " ")
        .split()
    }
    unread = {v for out in main.calls for v in out if rng.random() < 0.5}
    leaves = [v for v in main.values[5:] if v not in read and v not in unread]
    leaves = leaves or [main.values[-1]]
    total = leaves[0]
    for k, leaf in enumerate(leaves[1:]):
        main.lines.append(f"%s{k} = grad.add {total}, {leaf} : {T}")
        total = f"%s{k}"
    jvp = f"%j = grad.jvp {total} wrt %x{seed % 3}, %t control_flow : {T}, {T}"
    gradient = f"%g0, %g1, %g2 = grad.gradient %l wrt %x0, %x1, %x2 control_flow : tensor<f32>, {T}, {T}, {T}"
    ops = [jvp, gradient] if seed % 2 == 0 else [gradient, jvp]
    text += [
        f"func.func @main(%x0: {T}, %x1: {T}, %x2: {T}, %t: {T}) -> ({T}, {T}, {T}, {T}) {{",
        *main.lines,
        f"%l = grad.reduce add {total} [0] : {T} to tensor<f32>",
        *ops,
        f"func.return %g0, %g1, %g2, %j : {T}, {T}, {T}, {T}",
        "}",
    ]
    return "\n".join(text)


def inputs(seed: int) -> list[np.ndarray]:
    """Three inputs and a tangent, with -0.0 among them and, for some
    seeds, NaN or an infinity."""
    rng = np.random.default_rng(1000 + seed)
    x = rng.uniform(-2.0, 2.0, (4, N)).astype(np.float32)
    x[rng.integers(4), rng.integers(N)] = -0.0
    x[3, rng.integers(N, size=4)] = -0.0
    if seed % 3 == 1:
        x[rng.integers(3), rng.integers(N)] = (np.nan, np.inf, -np.inf)[seed % 9 // 3]
    return list(x)


@pytest.mark.parametrize("seed", range(EXAMPLES))
def test_random_call_graphs_have_the_bits_of_inlining(seed: int) -> None:
    text = random_program(seed)
    args = inputs(seed)
    assert same_bits(results(expanded(text), *args), results(inlined(text), *args))


# @f at three sites, one of them with the same value twice, then @g of two
# results, the second of which carries no tangent (a zero tangent added to
# the first's would turn a -0.0 into +0.0); the same calls again for a
# gradient, which reaches @g's first result only.
SITES = f"""
func.func @f(%a: {T3}, %b: {T3}) -> {T3} {{
  %m = grad.mul %a, %b : {T3}
  %s = grad.sin %m : {T3}
  %r = grad.add %s, %a : {T3}
  func.return %r : {T3}
}}
func.func @g(%a: {T3}, %b: {T3}) -> ({T3}, {T3}) {{
  %m = grad.mul %a, %a : {T3}
  %n = grad.neg %b : {T3}
  func.return %m, %n : {T3}, {T3}
}}
func.func @main(%x: {T3}, %w: {T3}, %t: {T3}) -> ({T3}, {T3}) {{
  %p = func.call @f(%x, %w) : ({T3}, {T3}) -> {T3}
  %q = func.call @f(%p, %w) : ({T3}, {T3}) -> {T3}
  %r = func.call @f(%q, %q) : ({T3}, {T3}) -> {T3}
  %u, %v = func.call @g(%r, %w) : ({T3}, {T3}) -> ({T3}, {T3})
  %y = grad.add %u, %v : {T3}
  %j = grad.jvp %y wrt %x, %t control_flow : {T3}, {T3}
  %p2 = func.call @f(%x, %w) : ({T3}, {T3}) -> {T3}
  %q2 = func.call @f(%p2, %w) : ({T3}, {T3}) -> {T3}
  %r2 = func.call @f(%q2, %q2) : ({T3}, {T3}) -> {T3}
  %u2, %v2 = func.call @g(%r2, %w) : ({T3}, {T3}) -> ({T3}, {T3})
  %l = grad.reduce add %u2 [0] : {T3} to tensor<f32>
  %gx = grad.gradient %l wrt %x control_flow : tensor<f32>, {T3}
  func.return %j, %gx : {T3}, {T3}
}}
"""


def test_k_sites_share_one_tangent_function_and_one_reverse_pair() -> None:
    module = expanded(SITES)
    found = {k: v for k, v in functions(module).items() if "__" in k}
    assert found == {
        # forward: @f's sites pass a tangent for the first argument only
        # (%w has none), then for both (%q twice); each site calls the
        # forward function (in place of the call) and the tangent function
        "f__fwd_10_1": 2,
        "f__tan_10_1": 2,
        "f__fwd_11_1": 1,
        "f__tan_11_1": 1,
        "g__fwd_10_11": 1,
        "g__tan_10_11": 1,
        # reverse: the walk reaches @g's first result only, and one pair of
        # @f's functions serves its three sites
        "f__aug_1": 3,
        "f__rev_1": 3,
        "g__aug_10": 1,
        "g__rev_10": 1,
    }
    (g_tan,) = (
        op
        for op in module.ops
        if isinstance(op, FuncOp) and op.sym_name.data == "g__tan_10_11"
    )
    assert str(g_tan.attributes["grad.tangents"]) == "[0 : i64]"
    x = np.float32([0.5, 0.0, 2.0])
    w = np.float32([1.5, 0.25, -1.0])
    t = np.float32([-0.0, -0.0, 1.0])
    found_values = results(module, x, w, t)
    assert np.signbit(found_values[0][1])  # the -0.0 tangent stays -0.0
    assert same_bits(found_values, results(inlined(SITES), x, w, t))


# @h's arguments depend on each other through a comparison only, which sends
# no share: the reverse keeps that site, with the bits of inlining it.
COMPARED = f"""
func.func @h(%a: {T3}, %b: {T3}) -> {T3} {{
  %m = grad.mul %a, %b : {T3}
  %r = grad.mul %m, %a : {T3}
  func.return %r : {T3}
}}
func.func @main(%x: {T3}, %w: {T3}) -> ({T3}, {T3}) {{
  %lt = grad.cmplt %x, %w : {T3}
  %s = grad.sin %w : {T3}
  %b = grad.where %lt, %s, %w : {T3}
  %q = func.call @h(%x, %b) : ({T3}, {T3}) -> {T3}
  %y = grad.mul %q, %x : {T3}
  %l = grad.reduce add %y [0] : {T3} to tensor<f32>
  %gx, %gw = grad.gradient %l wrt %x, %w control_flow : tensor<f32>, {T3}, {T3}
  func.return %gx, %gw : {T3}, {T3}
}}
"""


def test_arguments_compared_with_each_other_keep_the_call() -> None:
    module = expanded(COMPARED)
    found = {k: v for k, v in functions(module).items() if "__" in k}
    assert found == {"h__aug_1": 1, "h__rev_1": 1}
    for x in (np.float32([0.5, -0.0, 3.0]), np.float32([np.inf, 1.0, -0.0])):
        w = np.float32([1.5, -0.0, -1.0])
        assert same_bits(results(module, x, w), results(inlined(COMPARED), x, w))


# @two's second result reaches %a before %b, its first (%b itself, which the
# walk does not reach) %b alone: the walk must take the arguments in the
# order the reached result's body reaches them, as %c's shares (two through
# %a, one through %b) arrive in that order.
TWO = """
func.func @two(%a: tensor<64xf32>, %b: tensor<64xf32>) -> (tensor<64xf32>, tensor<64xf32>) {
  %m = grad.mul %a, %b : tensor<64xf32>
  func.return %b, %m : tensor<64xf32>, tensor<64xf32>
}
func.func @main(%x: tensor<64xf32>, %w: tensor<64xf32>) -> tensor<64xf32> {
  %c = grad.sin %x : tensor<64xf32>
  %a = grad.mul %c, %c : tensor<64xf32>
  %b = grad.mul %c, %w : tensor<64xf32>
  %u, %v = func.call @two(%a, %b) : (tensor<64xf32>, tensor<64xf32>) -> (tensor<64xf32>, tensor<64xf32>)
  %l = grad.reduce add %v [0] : tensor<64xf32> to tensor<f32>
  %g = grad.gradient %l wrt %x control_flow : tensor<f32>, tensor<64xf32>
  func.return %g : tensor<64xf32>
}
"""


def test_a_call_of_two_results_takes_its_arguments_in_the_reached_order() -> None:
    module = expanded(TWO)
    found = {k: v for k, v in functions(module).items() if "__" in k}
    assert found == {"two__aug_01": 1, "two__rev_01": 1}
    rng = np.random.default_rng(5)
    x, w = rng.uniform(-3.0, 3.0, (2, 64)).astype(np.float32)
    assert same_bits(results(module, x, w), results(inlined(TWO), x, w))


# A Hessian-vector product through calls: the gradient of a jvp walks the
# forward and tangent functions that the jvp's expansion made (here it
# inlines them: each returns a tape beside its result), and gets the bits
# of inlining every call first, as the tangent function reads the primal
# values from the tape rather than computing them again.
HVP = """
func.func @f(%a: tensor<16xf32>, %b: tensor<16xf32>) -> tensor<16xf32> {
  %m = grad.mul %a, %b : tensor<16xf32>
  %s = grad.sin %m : tensor<16xf32>
  %r = grad.mul %s, %a : tensor<16xf32>
  func.return %r : tensor<16xf32>
}
func.func @main(%x: tensor<16xf32>, %w: tensor<16xf32>, %t: tensor<16xf32>) -> (tensor<16xf32>, tensor<16xf32>) {
  %p = func.call @f(%x, %w) : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %q = func.call @f(%p, %x) : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %r = func.call @f(%q, %w) : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %l = grad.reduce add %r [0] : tensor<16xf32> to tensor<f32>
  %j = grad.jvp %l wrt %x, %t control_flow : tensor<f32>, tensor<16xf32>
  %h, %hw = grad.gradient %j wrt %x, %w control_flow : tensor<f32>, tensor<16xf32>, tensor<16xf32>
  func.return %h, %hw : tensor<16xf32>, tensor<16xf32>
}
"""


def test_the_gradient_of_a_jvp_through_calls_has_the_bits_of_inlining() -> None:
    module = expanded(HVP)
    assert not [k for k in functions(module) if "__" in k]  # none left unused
    x, w, t = inputs(0)[:3]
    assert same_bits(results(module, x, w, t), results(inlined(HVP), x, w, t))


# Calls in the branches of an `scf.if` (outside loops): the branches of its
# tangent share the pairs of functions, whose gradient (the reverse inlines
# the calls in branches) has the bits of inlining every call first.
BRANCHES = """
func.func @f(%a: tensor<16xf32>, %b: tensor<16xf32>) -> tensor<16xf32> {
  %m = grad.mul %a, %b : tensor<16xf32>
  %s = grad.sin %m : tensor<16xf32>
  %r = grad.mul %s, %a : tensor<16xf32>
  func.return %r : tensor<16xf32>
}
func.func @main(%x: tensor<16xf32>, %w: tensor<16xf32>, %t: tensor<16xf32>, %c: i1) -> (tensor<16xf32>, tensor<16xf32>) {
  %y = scf.if %c -> (tensor<16xf32>) {
    %p = func.call @f(%x, %w) : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
    %q = func.call @f(%p, %w) : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
    scf.yield %q : tensor<16xf32>
  } else {
    %p = func.call @f(%w, %x) : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
    scf.yield %p : tensor<16xf32>
  }
  %j = grad.jvp %y wrt %x, %t control_flow : tensor<16xf32>, tensor<16xf32>
  %l = grad.reduce add %j [0] : tensor<16xf32> to tensor<f32>
  %g = grad.gradient %l wrt %x control_flow : tensor<f32>, tensor<16xf32>
  func.return %j, %g : tensor<16xf32>, tensor<16xf32>
}
"""


def test_calls_in_branches_share_the_functions_of_their_tangents() -> None:
    first = BRANCHES.replace(
        "%g = grad.gradient %l wrt %x control_flow : tensor<f32>, tensor<16xf32>",
        "%g = grad.mul %j, %x : tensor<16xf32>",
    )
    found = {k: v for k, v in functions(expanded(first)).items() if "__" in k}
    assert found == {
        "f__fwd_10_1": 2,
        "f__tan_10_1": 2,
        "f__fwd_01_1": 1,
        "f__tan_01_1": 1,
    }
    x, w, t = inputs(0)[:3]
    for c in (np.bool_(True), np.bool_(False)):
        expected = results(inlined(BRANCHES), x, w, t, c)
        assert same_bits(results(expanded(BRANCHES), x, w, t, c), expected)
