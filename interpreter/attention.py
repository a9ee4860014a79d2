"""The kernel of `iree_linalg_ext.attention` (SPEC §10.5): `softmax(scale *
Q Kᵀ) V` in float32 as whole-array NumPy, the product and the weighted sum
each one `np.einsum` over the op's indexing maps, the softmax over the key
dims with the row maximum subtracted first, as IREE's decomposition does."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from gradopt.dialect.errors import OpError
from gradopt.dialect.upstream.iree_attention import AttentionOp, dims_of


def _letters(dims: list[int]) -> str:
    return "".join(chr(ord("a") + d) for d in dims)


def attention_kernel(op: AttentionOp) -> Callable[..., np.ndarray]:
    """`op`'s kernel, taking its query, key, value, scale and init; a
    located error for an attention gradopt does not run (`unsupported`)."""
    if (reason := op.unsupported()) is not None:
        raise OpError(op, f"cannot be run: {reason}")
    q, k, v, _, o = (dims_of(m) for m in op.maps)
    keys = [d for d in k if d in v and d not in q]
    rows = [d for d in o if d in q]
    scores = rows + keys
    product = f"{_letters(q)},{_letters(k)}->{_letters(scores)}"
    weighted = f"{_letters(scores)},{_letters(v)}->{_letters(o)}"
    axes = tuple(range(len(rows), len(scores)))

    def kernel(
        query: np.ndarray,
        key: np.ndarray,
        value: np.ndarray,
        scale: np.ndarray,
        _init: np.ndarray,
    ) -> np.ndarray:
        s = np.einsum(product, query, key) * np.float32(scale)
        e = np.exp(s - np.max(s, axis=axes, keepdims=True))
        p = e / np.sum(e, axis=axes, keepdims=True, dtype=np.float32)
        return np.einsum(weighted, p, value).astype(np.float32, copy=False)

    return kernel
