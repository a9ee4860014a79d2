"""`gradopt.lax`'s loops and branches (SPEC §11) from Python: gradients (and
tangents) of models written once against a NumPy-like and a lax-like module,
compared with float64 JAX (`jax.lax`'s own loops) when the `jax` extra is
present and otherwise with the same model unrolled by Python loops in gradopt;
that the loops are traced as loops, `control_flow` only where needed, and the
errors for people."""

from __future__ import annotations

import importlib.util
import types
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import pytest
from frontend_checks import f32

import gradopt
import gradopt.numpy as gnp
from gradopt import GradoptError, lax
from gradopt.tree_util import tree_leaves, tree_map

HAVE_JAX = importlib.util.find_spec("jax") is not None
Model = Callable[[Any, Any], Callable[..., Any]]
"""A model from a NumPy-like module and a lax-like module."""


def _unrolled_scan(
    f: Callable[[Any, Any], Any],
    init: Any,
    xs: Any = None,
    length: int | None = None,
    reverse: bool = False,
) -> tuple[Any, Any]:
    n = length if xs is None else len(tree_leaves(xs)[0])
    assert n is not None
    ys = []
    for k in reversed(range(n)) if reverse else range(n):
        init, y = f(init, None if xs is None else tree_map(lambda a, k=k: a[k], xs))
        ys.append(y)
    ys = ys[::-1] if reverse else ys
    return init, tree_map(lambda *leaves: gnp.stack(leaves), *ys)


def _unrolled_fori(lower: int, upper: int, body: Callable, init: Any) -> Any:
    for i in range(lower, upper):
        init = body(np.int32(i), init)
    return init


UNROLLED = types.SimpleNamespace(
    fori_loop=_unrolled_fori,
    scan=_unrolled_scan,
    cond=lambda pred, t, f, *xs: tree_map(
        lambda a, b: gnp.where(pred, a, b), t(*xs), f(*xs)
    ),
)
"""`gradopt.lax` by Python loops: the reference when JAX is absent."""


def check_gradient(
    model: Model,
    args: Sequence[np.ndarray],
    argnums: tuple[int, ...],
    rtol: float = 1e-4,
    jax_reference: bool = False,
) -> None:
    """The value and gradient of `model(gnp, gradopt.lax)` against float64
    JAX if asked (and JAX is present: its compile is most of the time), else
    against the model unrolled in gradopt (SPEC §11: within float32
    rounding)."""
    value, grads = gradopt.value_and_grad(model(gnp, lax), argnums)(*args)
    if HAVE_JAX and jax_reference:
        import jax

        with jax.enable_x64(True):
            wide = [
                np.asarray(a, np.float64) if a.dtype == np.float32 else a for a in args
            ]
            f = model(jax.numpy, jax.lax)
            want, want_grads = jax.jit(jax.value_and_grad(f, argnums))(*wide)
    else:
        want, want_grads = gradopt.value_and_grad(model(gnp, UNROLLED), argnums)(*args)
    np.testing.assert_allclose(value, want, rtol=rtol, atol=rtol)
    for got, expected in zip(grads, want_grads, strict=True):
        np.testing.assert_allclose(got, expected, rtol=rtol, atol=rtol)


def sigmoid(N: Any, x: Any) -> Any:
    return 1 / (1 + N.exp(-x))


def rnn(N: Any, L: Any) -> Callable[..., Any]:
    """A tanh RNN whose loss reads the final state and every step's output."""

    def loss(h0: Any, xs: Any, w: Any) -> Any:
        def step(h: Any, x: Any) -> tuple[Any, Any]:
            h = N.tanh(h @ w + x)
            return h, N.sum(h * h)

        h, ys = L.scan(step, h0, xs)
        return N.sum(h) + N.sum(ys * N.arange(xs.shape[0]))

    return loss


def test_rnn_scan() -> None:
    args = [f32(4), f32(7, 4), f32(4, 4, low=-0.5, high=0.5)]
    check_gradient(rnn, args, (0, 1, 2), jax_reference=True)


def lstm(N: Any, L: Any) -> Callable[..., Any]:
    """ADBench's diagonal LSTM (`lstm_objective`): two layers, the state and
    the running log-likelihood carried by a scan over the sequence."""

    def cell(weight: Any, bias: Any, hidden: Any, memory: Any, x: Any) -> Any:
        h = hidden.shape[0]
        gates = N.concatenate([x, hidden, x, hidden]) * weight + bias
        forget, ingate = sigmoid(N, gates[:h]), sigmoid(N, gates[h : 2 * h])
        outgate, change = sigmoid(N, gates[2 * h : 3 * h]), N.tanh(gates[3 * h :])
        memory = memory * forget + ingate * change
        return outgate * N.tanh(memory), memory

    def objective(main: Any, extra: Any, state: Any, sequence: Any) -> Any:
        def step(carry: Any, pair: Any) -> tuple[Any, Any]:
            (s, total), (x, gold) = carry, pair
            x = x * extra[0]
            layers = []
            for i in range(main.shape[0] // 2):
                hidden, memory = cell(
                    main[2 * i], main[2 * i + 1], s[2 * i], s[2 * i + 1], x
                )
                layers += [hidden, memory]
                x = hidden
            y = x * extra[1] + extra[2]
            normalized = y - N.log(N.sum(N.exp(y)))
            return (N.stack(layers), total + N.sum(gold * normalized)), None

        (_, total), _ = L.scan(step, (state, 0.0), (sequence[:-1], sequence[1:]))
        return -total / (sequence.shape[0] - 1)

    return objective


def test_adbench_lstm_scan() -> None:
    hidden = 3
    args = [f32(4, 4 * hidden), f32(3, hidden), f32(4, hidden), f32(5, hidden)]
    check_gradient(lstm, args, (0, 1, 2))


def rk4(N: Any, L: Any) -> Callable[..., Any]:
    """RK4 integration of dy/dt = -θ y + sin(y) over 12 steps by `fori_loop`
    (the step index scales the time step, so the body reads it)."""

    def final(y0: Any, theta: Any) -> Any:
        def f(y: Any) -> Any:
            return -theta * y + N.sin(y)

        def step(i: Any, y: Any) -> Any:
            dt = 0.05 + 0.001 * i
            k1 = f(y)
            k2 = f(y + dt / 2 * k1)
            k3 = f(y + dt / 2 * k2)
            k4 = f(y + dt * k3)
            return y + dt / 6 * (k1 + 2 * k2 + 2 * k3 + k4)

        return N.sum(L.fori_loop(0, 12, step, y0) ** 2)

    return final


def test_rk4_fori_loop() -> None:
    check_gradient(rk4, [f32(3), f32(3, low=0.5, high=1.5)], (0, 1), jax_reference=True)


def counted(N: Any, L: Any, dynamic: bool) -> Callable[..., Any]:
    """A damped oscillation run `n` times: by `while_loop` (or `fori_loop`
    with traced bounds) when `dynamic`, else by `fori_loop(0, 5, ...)`."""

    def step(z: Any) -> Any:
        return N.cos(z) * 1.5 + 0.1 * z

    def loss(x: Any, n: Any) -> Any:
        if not dynamic:
            return N.sum(L.fori_loop(0, 5, lambda i, z: step(z), x))
        by_while = L.while_loop(
            lambda c: c[0] < n, lambda c: (c[0] + 1, step(c[1])), (0, x)
        )[1]
        by_fori = L.fori_loop(n - n, n, lambda i, z: step(z), x)
        return N.sum(by_while) + N.sum(by_fori)

    return loss


def test_while_loop_and_traced_bounds_run_a_dynamic_trip_count() -> None:
    """The trip count is an argument: a `while_loop` and a `fori_loop` with
    traced bounds (`scf.while`, `i32` bounds) run 0 or 5 times, both modes."""
    x, t = f32(3), f32(3)
    dynamic = counted(gnp, lax, True)
    grad = gradopt.grad(dynamic)
    module = grad.lower(x, np.int32(5)).as_text()
    assert "scf.while" in module and " : i32 {" in module
    five = gradopt.grad(lambda x: 2 * counted(gnp, UNROLLED, False)(x, 0))(x)
    for n, want in ((0, np.full(3, 2.0, np.float32)), (5, five)):
        np.testing.assert_allclose(grad(x, np.int32(n)), want, rtol=1e-5)
        _, tangent = gradopt.jvp(lambda x, n=n: dynamic(x, np.int32(n)), (x,), (t,))
        np.testing.assert_allclose(tangent, np.vdot(want, t), rtol=1e-5)


def branchy(N: Any, L: Any) -> Callable[..., Any]:
    def loss(x: Any, p: Any) -> Any:
        y = L.cond(p > 0, lambda a, b: a * b, lambda a, b: a - N.exp(b), x, x * 3)
        return N.sum(y)

    return loss


@pytest.mark.parametrize("p", [1.0, -1.0])
def test_cond_in_both_modes(p: float) -> None:
    x = f32(3)
    check_gradient(branchy, [x, np.float32(p)], (0,))
    t = f32(3)
    _, tangent = gradopt.jvp(lambda x: branchy(gnp, lax)(x, p), (x,), (t,))
    g = gradopt.grad(branchy(gnp, lax))(x, np.float32(p))
    np.testing.assert_allclose(tangent, np.vdot(g, t), rtol=1e-5)


def test_switch_clamps_its_index() -> None:
    x = f32(3)
    branches = [lambda a: a * 2, gnp.sin, lambda a: a * a]
    grad = gradopt.grad(lambda x, i: gnp.sum(lax.switch(i, branches, x)))
    for i, want in ((-1, np.full(3, 2.0)), (1, np.cos(x)), (7, 2 * x)):
        np.testing.assert_allclose(grad(x, np.int32(i)), want, rtol=1e-6)


def nested(N: Any, L: Any) -> Callable[..., Any]:
    """A `fori_loop` in a reverse `scan` body over pytrees of carries and of
    outputs, closing over an outer array."""

    def loss(x: Any, w: Any) -> Any:
        def step(c: Any, xs: Any) -> tuple[Any, Any]:
            a, b = xs
            h = L.fori_loop(0, 3, lambda i, h: N.sin(h * w) + a, c["h"])
            c = {"h": N.tanh(h * a + b), "s": c["s"] + N.sum(c["h"])}
            return c, (c["h"] * 2, c["s"])

        xs = (x[:, None] * N.ones((3, 3), np.float32), N.full((3, 3), 0.5, np.float32))
        c, (ys, ss) = L.scan(step, {"h": x, "s": 0.0}, xs, reverse=True)
        return c["s"] + N.sum(ys**2) + N.sum(ss * N.arange(3))

    return loss


def test_nested_loops_pytrees_and_reverse_scan() -> None:
    check_gradient(nested, [f32(3), f32(3)], (0, 1))


def test_grad_of_grad_through_a_loop() -> None:
    def f(N: Any, L: Any) -> Callable[..., Any]:
        inner = rk4(N, L)
        return lambda y0, theta: inner(y0, theta)

    y0, theta = f32(3), f32(3, low=0.5, high=1.5)
    hvp = gradopt.grad(lambda y: gnp.sum(gradopt.grad(f(gnp, lax))(y, theta) ** 2))
    reference = gradopt.grad(
        lambda y: gnp.sum(gradopt.grad(f(gnp, UNROLLED))(y, theta) ** 2)
    )
    np.testing.assert_allclose(hvp(y0), reference(y0), rtol=2e-5, atol=1e-6)


def test_a_gradient_in_a_loop_body_trains() -> None:
    """SGD in a `fori_loop`: the loss depends on the step (SPEC §11)."""
    data = f32(5, 3)

    def train(N: Any, L: Any) -> Callable[..., Any]:
        def sgd(w: Any) -> Any:
            def step(i: Any, w: Any) -> Any:
                def loss(w: Any) -> Any:
                    return N.sum((N.asarray(data)[i % 5] * w - 1.0) ** 2)

                return w - 0.1 * gradopt.grad(loss)(w)

            return L.fori_loop(0, 6, step, w)

        return sgd

    w = f32(3)
    np.testing.assert_allclose(
        gradopt.jit(train(gnp, lax))(w), gradopt.jit(train(gnp, UNROLLED))(w), rtol=1e-6
    )


def test_loops_are_traced_once_and_marked_only_where_needed() -> None:
    x = f32(100, 3)
    text = gradopt.grad(rnn(gnp, lax), 2).lower(f32(3), x, f32(3, 3)).as_text()
    assert text.count("scf.for") == 1 and text.count("math.tanh") <= 1
    assert "control_flow" in text
    plain = gradopt.grad(lambda w: gnp.sum(gnp.tanh(w))).lower(f32(3)).as_text()
    assert "control_flow" not in plain


def test_errors_are_located() -> None:
    x = f32(3)
    cases: list[tuple[Callable[[Any], Any], str]] = [
        (
            lambda x: lax.fori_loop(0, 3, lambda i, c: gnp.sum(c), x),
            "changes the type of leaf 0 of the carry from tensor<3xf32> to tensor<f32>",
        ),
        (
            lambda x: lax.fori_loop(0, 3, lambda i, c: (c, c), x),
            "must have the structure of the carry going in",
        ),
        (lambda x: lax.scan(lambda c, _: c, x, length=2), "must return a pair"),
        (lambda x: lax.scan(lambda c, y: (c, y), x, x[None], length=2), "agree"),
        (
            lambda x: lax.cond(x > 0, lambda: x, lambda: x),
            "the predicate must be a scalar, got shape (3,)",
        ),
        (lambda x: lax.cond(x[0], lambda: x, lambda: x), "bool (or int) scalar"),
        (
            lambda x: lax.cond(True, lambda: x, lambda: x[0]),
            "the branches return output 0 as tensor<3xf32> and tensor<f32>",
        ),
        (
            lambda x: lax.while_loop(lambda c: c, lambda c: c, x),
            "the predicate must be a scalar",
        ),
        (lambda x: lax.fori_loop(0.5, 3, lambda i, c: c, x), "loop bound"),
        (
            lambda x: lax.scan(lambda c, _: (c, c), x, length=-1),
            "scan: length must be an int >= 0, got -1",
        ),
        (
            lambda x: lax.scan(lambda c, _: (c, c), x, length=2.5),
            "scan: length must be an int >= 0, got 2.5",
        ),
        (
            lambda x: lax.fori_loop(0, 2, lambda i, c: c, x, unroll=0),
            "fori_loop: unroll must be a positive int or a bool, got 0",
        ),
    ]
    for f, message in cases:
        with pytest.raises(GradoptError) as caught:
            gradopt.jit(f)(x)
        assert message in str(caught.value)
        assert "test_lax.py:" in str(caught.value)


def test_vmap_jacobians_and_hessian_batch_the_loop() -> None:
    """`vmap` batches a loop's body (a counter that no example changes stays
    unbatched), and `jacfwd`/`jacrev`/`hessian`, which are `vmap`s of the
    expanded loops, agree with the unrolled model."""
    xs, w = f32(4, 3, 2), f32(2, 2, low=-0.5, high=0.5)

    def model(L: Any) -> Callable[..., Any]:
        def f(xs: Any, w: Any) -> Any:
            h, ys = L.scan(
                lambda h, x: (gnp.tanh(h @ w + x), gnp.sum(h)),
                gnp.zeros(2, np.float32),
                xs,
                reverse=True,
            )
            return h * 2 + gnp.sum(ys)

        return f

    batched = gradopt.vmap(model(lax), in_axes=(0, None))
    want = [gradopt.jit(model(UNROLLED))(x, w) for x in xs]
    np.testing.assert_allclose(batched(xs, w), want, rtol=1e-5)
    for jacobian, argnum in ((gradopt.jacfwd, 0), (gradopt.jacrev, 1)):
        np.testing.assert_allclose(
            jacobian(model(lax), argnum)(xs[0], w),
            jacobian(model(UNROLLED), argnum)(xs[0], w),
            rtol=1e-5,
            atol=1e-6,
        )
    loss = lambda L: lambda w: gnp.sum(model(L)(xs[0], w) ** 2)  # noqa: E731
    np.testing.assert_allclose(
        gradopt.hessian(loss(lax))(w), gradopt.hessian(loss(UNROLLED))(w), rtol=1e-4
    )
    counted = gradopt.vmap(
        lambda x: lax.fori_loop(0, 3, lambda i, c: (c[0] + x, c[1] + 1), (0.0, 0))
    )
    assert "-> (tensor<2xf32>, tensor<i32>)" in counted.lower(xs[0, 0]).as_text()
    kept = gradopt.vmap(gradopt.checkpoint(model(lax), period=2), in_axes=(0, None))
    assert 'grad.checkpoint = "periodic"' in kept.lower(xs, w).as_text()
    with pytest.raises(GradoptError, match="cond predicate that differs"):
        gradopt.vmap(lambda x: lax.cond(x > 0, lambda: x, lambda: -x))(xs[0, 0])


def test_checkpoint_sets_the_loop_attributes_and_keeps_the_bits() -> None:
    x = f32(3)

    def f(x: Any) -> Any:
        inner = lambda i, c: lax.fori_loop(0, 2, lambda j, d: gnp.sin(d) * 1.1 + x, c)  # noqa: E731
        return gnp.sum(lax.fori_loop(0, 10, inner, x))

    plain = gradopt.grad(f)(x)
    for periodic in (gradopt.checkpoint(f), gradopt.checkpoint(f, period=3)):
        assert gradopt.grad(periodic)(x).tobytes() == plain.tobytes()
    text = gradopt.grad(gradopt.checkpoint(f, period=3)).lower(x).as_text()
    assert text.count('grad.checkpoint = "periodic", grad.period = 3 : i64}') == 2
    binomial = gradopt.checkpoint(policy="binomial", snapshots=4)(f)
    np.testing.assert_array_equal(binomial(x), gradopt.jit(f)(x))
    text = gradopt.jit(binomial).lower(x).as_text()
    assert text.count('{grad.checkpoint = "binomial", grad.snapshots = 4 : i64}') == 2
    assert "grad.checkpoint" not in gradopt.jit(f).lower(x).as_text()
    for kwargs, message in (
        ({"policy": "revolve"}, "policy must be 'periodic' or 'binomial'"),
        ({"period": 0}, "period must be a positive int"),
        ({"snapshots": 2}, "snapshots is for the 'binomial' policy"),
    ):
        with pytest.raises(GradoptError, match=message):
            gradopt.checkpoint(f, **kwargs)


@pytest.mark.skipif(not HAVE_JAX, reason="needs the jax extra")
def test_from_jax_maps_scan_while_and_cond_onto_loops() -> None:
    """JAX's `scan` (also `fori_loop` with static bounds), `while` (also
    `fori_loop` with traced bounds) and `cond`/`switch` become `scf` loops and
    branches whose gradient is JAX's (for a `while`, which JAX cannot
    reverse, JAX's gradient of the same loop with static bounds)."""
    import jax
    import jax.numpy as jnp

    def f(x: Any, n: Any, dynamic: bool) -> Any:
        a = jax.lax.fori_loop(0, 3, lambda i, c: c * jnp.sin(c) + i, x)
        c = jax.lax.cond(x[0] > 0, lambda: x * x, lambda: -x)
        d = jax.lax.switch(n, [lambda: x, lambda: jnp.exp(x), lambda: x * 2])
        e, ys = jax.lax.scan(lambda c, x: (c + x * c, c * x), 1.0, x, reverse=True)
        step = lambda c: c * jnp.tanh(c) + 0.5  # noqa: E731
        w = (
            jax.lax.while_loop(
                lambda c: c[0] < n, lambda c: (c[0] + 1, step(c[1])), (0, x)
            )[1]
            if dynamic
            else jax.lax.fori_loop(0, 2, lambda i, c: step(c), x)
        )
        return jnp.sum(a + c + d + e + ys + w)

    x = np.array([0.3, -0.2, 0.5], np.float32)
    imported = gradopt.from_jax(lambda x, n: f(x, n, True), x, np.int32(1))
    text = gradopt.grad(imported).lower(x, np.int32(1)).as_text()
    for op in ("scf.for", "scf.while", "scf.if"):
        assert op in text
    got = gradopt.grad(imported)(x, np.int32(2))
    with jax.enable_x64(True):
        want = jax.jit(jax.grad(f), static_argnums=(1, 2))(
            x.astype(np.float64), 2, False
        )
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
    value = jax.jit(f, static_argnums=(1, 2))(x, 2, False)
    np.testing.assert_allclose(imported(x, np.int32(2)), value, rtol=1e-6)


HAVE_IREE = importlib.util.find_spec("iree") is not None and all(
    importlib.util.find_spec(m) for m in ("iree.compiler", "iree.runtime")
)


@pytest.mark.skipif(not HAVE_IREE, reason="needs the iree extra")
def test_iree_runs_the_loops_and_their_derivatives() -> None:
    """One program with a scan (no ys), a `while_loop` and a `cond`, and its
    gradient, on IREE against the interpreter (one IREE compile)."""

    def f(x: Any, n: Any) -> Any:
        h, _ = lax.scan(lambda h, x: (gnp.sin(h * x) + x, None), x[0], x)
        h = lax.while_loop(lambda c: c[0] < n, lambda c: (c[0] + 1, c[1] * 0.9), (0, h))
        return gnp.sum(lax.cond(h[1][0] > 0, lambda: h[1] * 2, lambda: -h[1]))

    both = gradopt.value_and_grad(f)
    x = f32(3, 2)
    on_iree = gradopt.jit(both, backend="iree")(x, np.int32(3))
    here = gradopt.jit(both)(x, np.int32(3))
    for a, b in zip(tree_leaves(on_iree), tree_leaves(here), strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-6)


def test_scan_of_length_without_xs_and_forward_mode() -> None:
    def model(N: Any, L: Any) -> Callable[..., Any]:
        def f(x: Any) -> Any:
            c, ys = L.scan(lambda c, _: (N.sin(c) * 0.5 + 1.0, c * c), x, length=4)
            return N.sum(ys) + N.sum(c)

        return f

    x, t = f32(3), f32(3)
    check_gradient(model, [x], (0,))
    looped, unrolled = (
        gradopt.jvp(model(gnp, L), (x,), (t,))[1] for L in (lax, UNROLLED)
    )
    np.testing.assert_allclose(looped, unrolled, rtol=1e-6)


def test_stacked_outputs_are_not_cached_per_iteration() -> None:
    """The buffer a scan stacks its ys into is only written by the loop, so the
    reverse caches the carry's iterations (tensor<7x3xf32>) but not the
    buffer's (which would be tensor<7x7x3xf32>, O(N²))."""

    def f(h: Any, xs: Any) -> Any:
        _, ys = lax.scan(lambda h, x: (gnp.sin(h * x),) * 2, h, xs)
        return gnp.sum(ys * ys)

    traced = gradopt.grad(f)
    args = (f32(3), f32(7, 3))
    expanded = str(traced.compile(args, {}).program.module)
    assert "tensor.empty() : tensor<7x3xf32>" in expanded
    assert "tensor<7x7x3xf32>" not in expanded
    want = gradopt.grad(
        lambda h, xs: gnp.sum(
            _unrolled_scan(lambda h, x: (gnp.sin(h * x),) * 2, h, xs)[1] ** 2
        )
    )
    np.testing.assert_allclose(traced(*args), want(*args), rtol=1e-6)
    periodic = gradopt.grad(gradopt.checkpoint(f, period=3))
    assert periodic(*args).tobytes() == traced(*args).tobytes()
