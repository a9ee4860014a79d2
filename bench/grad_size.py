"""Size of gradient graphs: ops after `expand-gradient,canonicalize,cse,dce`
divided by the forward program's ops (the cheap-gradient principle, target
<= 3.0), for five programs. With JAX installed, the equation count of
`jax.make_jaxpr(jax.grad(f))` for the same functions is printed beside.

Usage: python bench/grad_size.py
"""

from __future__ import annotations

import importlib.util
from collections.abc import Callable
from typing import Any

from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import PassPipeline
from xdsl.transforms.canonicalize import CanonicalizePass
from xdsl.transforms.common_subexpression_elimination import (
    CommonSubexpressionElimination,
)
from xdsl.transforms.dead_code_elimination import DeadCodeElimination

from gradopt.dialect.context import make_context
from gradopt.dialect.differentiation import DifferentiationOp
from gradopt.dialect.ops import KernelOp
from gradopt.dialect.verifier import verify_module
from gradopt.passes import ExpandGradientPass
from gradopt.support.diagnostics import parse_module

LOG2E = 1.4426950
LN2 = 0.6931472


def polynomial(degree: int = 20) -> str:
    """Horner's rule: p = ((c0 x + c1) x + c2) x ..., summed; d/dx."""
    lines = [
        "func.func @main(%x: tensor<16xf32>, %c: tensor<16xf32>)"
        " -> (tensor<f32>, tensor<16xf32>) {"
    ]
    lines.append("  %p0 = grad.mul %c, %x : tensor<16xf32>")
    for i in range(1, degree):
        lines.append(f"  %q{i} = grad.add %p{i - 1}, %c : tensor<16xf32>")
        lines.append(f"  %p{i} = grad.mul %q{i}, %x : tensor<16xf32>")
    lines.append(
        f"  %l = grad.reduce add %p{degree - 1} [0] : tensor<16xf32> to tensor<f32>"
    )
    lines.append("  %g = grad.gradient %l wrt %x : tensor<f32>, tensor<16xf32>")
    lines += ["  func.return %l, %g : tensor<f32>, tensor<16xf32>", "}"]
    return "\n".join(lines)


def _softmax_cross_entropy(logits: str, labels: str, n: int, k: int) -> list[str]:
    """Stable softmax cross-entropy of `logits` (n x k) against one-hot `labels`,
    mean over the batch, into %loss."""
    t, r = f"tensor<{n}x{k}xf32>", f"tensor<{n}xf32>"
    return [
        f"  %m = grad.reduce max {logits} [1] : {t} to {r}",
        f"  %md = grad.detach %m : {r}",
        f"  %mb = grad.broadcast %md [0] : {r} to {t}",
        f"  %nm = grad.neg %mb : {t}",
        f"  %s = grad.add {logits}, %nm : {t}",
        f"  %log2e = grad.const {LOG2E} : {t}",
        f"  %s2 = grad.mul %s, %log2e : {t}",
        f"  %e = grad.exp2 %s2 : {t}",
        f"  %norm = grad.reduce add %e [1] : {t} to {r}",
        f"  %lz2 = grad.log2 %norm : {r}",
        f"  %ln2 = grad.const {LN2} : {r}",
        f"  %lz = grad.mul %lz2, %ln2 : {r}",
        f"  %lzb = grad.broadcast %lz [0] : {r} to {t}",
        f"  %nlz = grad.neg %lzb : {t}",
        f"  %logp = grad.add %s, %nlz : {t}",
        f"  %yl = grad.mul {labels}, %logp : {t}",
        f"  %tot = grad.reduce add %yl [0, 1] : {t} to tensor<f32>",
        f"  %scale = grad.const {-1.0 / n} : tensor<f32>",
        "  %loss = grad.mul %tot, %scale : tensor<f32>",
    ]


def softmax_cross_entropy() -> str:
    lines = [
        "func.func @main(%z: tensor<8x10xf32>, %y: tensor<8x10xf32>)"
        " -> (tensor<f32>, tensor<8x10xf32>) {"
    ]
    lines += _softmax_cross_entropy("%z", "%y", 8, 10)
    lines.append("  %g = grad.gradient %loss wrt %z : tensor<f32>, tensor<8x10xf32>")
    lines += ["  func.return %loss, %g : tensor<f32>, tensor<8x10xf32>", "}"]
    return "\n".join(lines)


def mlp(n: int = 32, d: int = 64, h: int = 32, k: int = 10) -> str:
    """Two layers with ReLU, softmax cross-entropy; gradients of all weights."""
    x, w1, b1 = f"tensor<{n}x{d}xf32>", f"tensor<{d}x{h}xf32>", f"tensor<{h}xf32>"
    w2, b2, hid, out = (
        f"tensor<{h}x{k}xf32>",
        f"tensor<{k}xf32>",
        f"tensor<{n}x{h}xf32>",
        f"tensor<{n}x{k}xf32>",
    )
    lines = [
        f"func.func @main(%x: {x}, %y: {out}, %w1: {w1}, %b1: {b1}, %w2: {w2}, "
        f"%b2: {b2}) -> (tensor<f32>, {w1}, {b1}, {w2}, {b2}) {{",
        f"  %a1 = grad.dot %x, %w1 : {x}, {w1} to {hid}",
        f"  %bb1 = grad.broadcast %b1 [1] : {b1} to {hid}",
        f"  %p1 = grad.add %a1, %bb1 : {hid}",
        f"  %zero = grad.const 0.0 : {hid}",
        f"  %r1 = grad.max %p1, %zero : {hid}",
        f"  %a2 = grad.dot %r1, %w2 : {hid}, {w2} to {out}",
        f"  %bb2 = grad.broadcast %b2 [1] : {b2} to {out}",
        f"  %logits = grad.add %a2, %bb2 : {out}",
    ]
    lines += _softmax_cross_entropy("%logits", "%y", n, k)
    lines.append(
        "  %g1, %gb1, %g2, %gb2 = grad.gradient %loss wrt %w1, %b1, %w2, %b2 : "
        f"tensor<f32>, {w1}, {b1}, {w2}, {b2}"
    )
    lines += [
        f"  func.return %loss, %g1, %gb1, %g2, %gb2 : tensor<f32>, {w1}, {b1}, {w2}, "
        f"{b2}",
        "}",
    ]
    return "\n".join(lines)


def residual_chain(steps: int = 50) -> str:
    """h <- h + sin(h * w_i), 50 times; gradient w.r.t. the input and every w_i."""
    t = "tensor<16xf32>"
    args = ", ".join(f"%w{i}: {t}" for i in range(steps))
    returned = ", ".join(["tensor<f32>"] + [t] * (steps + 1))
    lines = [
        f"func.func @main(%x: {t}, {args}) -> ({returned}) {{",
        f"  %h0 = grad.sin %x : {t}",
    ]
    for i in range(steps):
        lines.append(f"  %m{i} = grad.mul %h{i}, %w{i} : {t}")
        lines.append(f"  %s{i} = grad.sin %m{i} : {t}")
        lines.append(f"  %h{i + 1} = grad.add %h{i}, %s{i} : {t}")
    lines.append(f"  %l = grad.reduce add %h{steps} [0] : {t} to tensor<f32>")
    wrt = ", ".join(["%x"] + [f"%w{i}" for i in range(steps)])
    results = ", ".join(f"%g{i}" for i in range(steps + 1))
    types = ", ".join([t] * (steps + 1))
    lines.append(f"  {results} = grad.gradient %l wrt {wrt} : tensor<f32>, {types}")
    lines += [f"  func.return %l, {results} : {returned}", "}"]
    return "\n".join(lines)


def many_weights(count: int = 50) -> str:
    """The sum of (w_i * x)^2 over 50 weight tensors; gradient of every w_i."""
    t = "tensor<16xf32>"
    args = ", ".join(f"%w{i}: {t}" for i in range(count))
    returned = ", ".join(["tensor<f32>"] + [t] * count)
    lines = [f"func.func @main(%x: {t}, {args}) -> ({returned}) {{"]
    for i in range(count):
        lines.append(f"  %p{i} = grad.mul %w{i}, %x : {t}")
        lines.append(f"  %q{i} = grad.mul %p{i}, %p{i} : {t}")
    lines.append(f"  %a0 = grad.add %q0, %q1 : {t}")
    for i in range(2, count):
        lines.append(f"  %a{i - 1} = grad.add %a{i - 2}, %q{i} : {t}")
    lines.append(f"  %l = grad.reduce add %a{count - 2} [0] : {t} to tensor<f32>")
    wrt = ", ".join(f"%w{i}" for i in range(count))
    results = ", ".join(f"%g{i}" for i in range(count))
    types = ", ".join([t] * count)
    lines.append(f"  {results} = grad.gradient %l wrt {wrt} : tensor<f32>, {types}")
    lines += [f"  func.return %l, {results} : {returned}", "}"]
    return "\n".join(lines)


PROGRAMS = {
    "polynomial chain": polynomial,
    "softmax cross-entropy": softmax_cross_entropy,
    "2-layer MLP": mlp,
    "50-step residual chain": residual_chain,
    "50 weight tensors": many_weights,
}


def computing_ops(module: ModuleOp) -> int:
    """`grad` ops other than differentiation ops."""
    return sum(
        isinstance(op, KernelOp) and not isinstance(op, DifferentiationOp)
        for op in module.walk()
    )


def sizes(text: str) -> tuple[int, int]:
    ctx = make_context()
    module = parse_module(ctx, text, "grad_size.mlir")
    verify_module(module)
    forward = computing_ops(module)
    PassPipeline(
        (
            ExpandGradientPass(),
            CanonicalizePass(),
            CommonSubexpressionElimination(),
            DeadCodeElimination(),
        )
    ).apply(ctx, module)
    verify_module(module)
    return forward, computing_ops(module)


def jax_functions() -> dict[str, tuple[Callable[..., Any], list[Any], tuple[int, ...]]]:
    """The five programs as JAX functions: (f, example arguments, argnums)."""
    import jax.numpy as jnp
    from jax import lax

    def polynomial(x, c):
        p = c * x
        for _ in range(1, 20):
            p = (p + c) * x
        return jnp.sum(p)

    def cross_entropy(logits, labels):
        m = lax.stop_gradient(jnp.max(logits, axis=1, keepdims=True))
        s = logits - m
        lse = jnp.log2(jnp.sum(jnp.exp2(s * LOG2E), axis=1, keepdims=True)) * LN2
        return -jnp.sum(labels * (s - lse)) / logits.shape[0]

    def mlp(x, y, w1, b1, w2, b2):
        hidden = jnp.maximum(x @ w1 + b1, 0.0)
        return cross_entropy(hidden @ w2 + b2, y)

    def residual(x, *ws):
        h = jnp.sin(x)
        for w in ws:
            h = h + jnp.sin(h * w)
        return jnp.sum(h)

    def weights(x, *ws):
        squares = [(w * x) * (w * x) for w in ws]
        total = squares[0] + squares[1]
        for q in squares[2:]:
            total = total + q
        return jnp.sum(total)

    v16, z = jnp.ones(16), jnp.ones((8, 10))
    mlp_args = [
        jnp.ones(s) for s in ((32, 64), (32, 10), (64, 32), (32,), (32, 10), (10,))
    ]
    return {
        "polynomial chain": (polynomial, [v16, v16], (0,)),
        "softmax cross-entropy": (cross_entropy, [z, z], (0,)),
        "2-layer MLP": (mlp, mlp_args, (2, 3, 4, 5)),
        "50-step residual chain": (residual, [v16] * 51, tuple(range(51))),
        "50 weight tensors": (weights, [v16] * 51, tuple(range(1, 51))),
    }


def jaxpr_size(function: Callable[..., Any], arguments: list[Any]) -> int:
    """Equations of `function`'s jaxpr, those of nested jaxprs included."""
    import jax

    def count(jaxpr: Any) -> int:
        total = 0
        for equation in jaxpr.eqns:
            total += 1
            for parameter in equation.params.values():
                inner = getattr(parameter, "jaxpr", parameter)
                if hasattr(inner, "eqns"):
                    total += count(inner)
        return total

    return count(jax.make_jaxpr(function)(*arguments).jaxpr)


def main() -> None:
    has_jax = importlib.util.find_spec("jax") is not None
    jax_sizes: dict[str, tuple[int, int]] = {}
    if has_jax:
        import jax

        for name, (f, arguments, argnums) in jax_functions().items():
            gradient = jax.value_and_grad(f, argnums=argnums)
            jax_sizes[name] = (
                jaxpr_size(f, arguments),
                jaxpr_size(gradient, arguments),
            )
    print(
        f"{'program':<24} {'forward':>8} {'after':>8} {'ratio':>6}  target <= 3.0"
        + ("   jax: forward, value_and_grad, ratio" if has_jax else "")
    )
    for name, build in PROGRAMS.items():
        forward, after = sizes(build())
        verdict = "ok  " if after / forward <= 3.0 else "over"
        line = f"{name:<24} {forward:>8} {after:>8} {after / forward:>6.2f}  {verdict}"
        if name in jax_sizes:
            jf, jg = jax_sizes[name]
            line += f"          {jf:>5} {jg:>8} {jg / jf:>8.2f}"
        print(line)
    if not has_jax:
        print("(jax is not installed: no jaxpr comparison)")


if __name__ == "__main__":
    main()
