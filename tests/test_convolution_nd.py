"""`gnn.conv1d`/`conv3d` and the 1- and 3-D pools (`frontend/convolution.py`,
PyTorch's channels-first layout and options) against float64 JAX
(`lax.conv_general_dilated`, `lax.reduce_window`), values and gradients, in
one trace; skipped without the `jax` extra."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from frontend_checks import import_jax

import gradopt
import gradopt.nn as gnn
from gradopt import GradoptError

RNG = np.random.default_rng(11)
X3 = RNG.standard_normal((2, 4, 5, 6, 5)).astype(np.float32)  # N C D H W
W3 = RNG.standard_normal((6, 2, 2, 3, 2)).astype(np.float32)  # groups of 2
B3 = RNG.standard_normal(6).astype(np.float32)
X1 = RNG.standard_normal((2, 3, 9)).astype(np.float32)
W1 = RNG.standard_normal((4, 3, 3)).astype(np.float32)


def _ours(x3: Any, w3: Any, b3: Any, x1: Any, w1: Any) -> list[Any]:
    return [
        gnn.conv3d(
            x3,
            w3,
            b3,
            stride=(1, 2, 1),
            padding=(1, 0, 2),
            dilation=(2, 1, 1),
            groups=2,
        ),
        gnn.conv1d(x1, w1, None, stride=2, padding=1, dilation=2),
        gnn.max_pool3d(x3, (2, 3, 2), (1, 2, 2), (1, 1, 0), ceil_mode=True),
        gnn.avg_pool3d(x3, (2, 2, 3), (2, 1, 2), (1, 0, 1), count_include_pad=False),
        gnn.avg_pool3d(x3, 2),
        gnn.max_pool1d(x1, 3, 2, 1),
        gnn.avg_pool1d(x1, 2, 1, 1),
    ]


def _ceil_extra(size: int, k: int, s: int, p: int, d: int) -> int:
    """PyTorch's ceil_mode output size, as extra high padding."""
    out = -(-(size + 2 * p - d * (k - 1) - 1) // s) + 1
    if (out - 1) * s >= size + p:
        out -= 1
    return max(0, (out - 1) * s + d * (k - 1) + 1 - (size + 2 * p))


def _jax(lax: Any, jnp: Any) -> Any:
    def window(x: Any, init: float, op: Any, k: Any, s: Any, pads: Any, d: Any) -> Any:
        return lax.reduce_window(
            x, init, op, (1, 1, *k), (1, 1, *s), [(0, 0), (0, 0), *pads],
            window_dilation=(1, 1, *d),
        )  # fmt: skip

    def conv(x: Any, w: Any, s: Any, p: Any, d: Any, groups: int) -> Any:
        return lax.conv_general_dilated(
            x, w, s, [(q, q) for q in p], rhs_dilation=d, feature_group_count=groups
        )

    def reference(x3: Any, w3: Any, b3: Any, x1: Any, w1: Any) -> list[Any]:
        extra = [
            _ceil_extra(n, k, s, p, d)
            for n, k, s, p, d in zip(
                X3.shape[2:], (2, 3, 2), (1, 2, 2), (1, 1, 0), (1, 1, 1), strict=True
            )
        ]
        pads = [(p, p + e) for p, e in zip((1, 1, 0), extra, strict=True)]
        avg_pads = [(1, 1), (0, 0), (1, 1)]
        ones = jnp.ones_like(x3)
        sums = window(x3, 0.0, lax.add, (2, 2, 3), (2, 1, 2), avg_pads, (1, 1, 1))
        counts = window(ones, 0.0, lax.add, (2, 2, 3), (2, 1, 2), avg_pads, (1, 1, 1))
        plain = window(x3, 0.0, lax.add, (2, 2, 2), (2, 2, 2), [(0, 0)] * 3, (1,) * 3)
        return [
            conv(x3, w3, (1, 2, 1), (1, 0, 2), (2, 1, 1), 2) + b3[:, None, None, None],
            conv(x1, w1, (2,), (1,), (2,), 1),
            window(x3, -jnp.inf, lax.max, (2, 3, 2), (1, 2, 2), pads, (1, 1, 1)),
            sums / counts,
            plain / 8.0,
            window(x1, -jnp.inf, lax.max, (3,), (2,), [(1, 1)], (1,)),
            window(x1, 0.0, lax.add, (2,), (1,), [(1, 1)], (1,)) / 2.0,
        ]

    return reference


def test_nd_convolution_and_pooling_match_float64_jax() -> None:
    jax = import_jax()
    args = (X3, W3, B3, X1, W1)
    weights = [RNG.standard_normal(np.shape(v)) for v in gradopt.jit(_ours)(*args)]

    def loss(outputs: list[Any]) -> Any:
        return sum(
            (o * w.astype(o.dtype)).sum() for o, w in zip(outputs, weights, strict=True)
        )

    argnums = (0, 1, 2, 3, 4)
    got_value, got_grads = gradopt.value_and_grad(
        lambda *a: (loss(_ours(*a)), _ours(*a)), argnums, has_aux=True
    )(*args)
    reference = _jax(jax.lax, jax.numpy)
    with jax.enable_x64(True):
        wide = [a.astype(np.float64) for a in args]
        both = jax.value_and_grad(
            lambda *a: (loss(reference(*a)), reference(*a)), argnums, has_aux=True
        )
        (_, want_outputs), want_grads = jax.jit(both)(*wide)
    for got, want in zip(got_value[1], want_outputs, strict=True):
        assert got.shape == want.shape
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
    for got, want in zip(got_grads, want_grads, strict=True):
        np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)


def test_nd_mistakes_are_located() -> None:
    with pytest.raises(GradoptError, match=r"conv3d: the input must be NCDHW \(5-D\)"):
        gradopt.jit(lambda x: gnn.conv3d(x, W3))(X1)
    with pytest.raises(GradoptError, match=r"the weight must be \(O, C, KD, KH, KW\)"):
        gradopt.jit(lambda x: gnn.conv3d(x, W1))(X3)
    with pytest.raises(GradoptError, match="stride must be an int or 3 ints"):
        gradopt.jit(lambda x: gnn.max_pool3d(x, 2, (1, 2)))(X3)
