"""Real programs in the upstream dialects, as IREE's input conversion makes
them from JAX (SPEC §10.5), and the values JAX computes for them.

`python tests/upstream_corpus.py` (with the `jax` and `iree` extras) lowers
each function of `FUNCTIONS` with `jax.jit(f).lower(*xs).as_text()`, pipes it
through `iree-compile --iree-input-type=stablehlo --compile-to=input`, and
writes `tests/corpus/NAME.mlir` with `NAME.npz` (the inputs `arg0`, ... and
JAX's results `result0`, ...; for `GRADIENTS` also float64 `jax.grad`), so
that `tests/test_upstream_corpus.py` checks
gradopt against JAX without either installed. The test also regenerates the
programs when both are installed, to catch a change in what IREE prints.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

CORPUS = Path(__file__).parent / "corpus"


def _functions() -> dict[str, tuple[Callable[..., Any], list[np.ndarray]]]:
    """Each program's JAX function and inputs (random, fixed seed)."""
    import jax
    import jax.numpy as jnp

    rng = np.random.default_rng(0)

    def normal(*shape: int) -> np.ndarray:
        return rng.standard_normal(shape).astype(np.float32)

    def mlp(w1, b1, w2, b2, x, y):  # softmax cross-entropy of a 2-layer MLP
        h = jnp.tanh(x @ w1 + b1)
        logp = jax.nn.log_softmax(h @ w2 + b2)
        return -jnp.mean(jnp.sum(logp * y, axis=-1))

    def cnn(k, x):  # strided conv, relu, max pool and sum pool
        y = jax.lax.conv_general_dilated(
            x, k, (2, 2), "VALID", dimension_numbers=("NCHW", "OIHW", "NCHW")
        )
        y = jax.nn.relu(y)
        p = jax.lax.reduce_window(
            y, -jnp.inf, jax.lax.max, (1, 1, 2, 2), (1, 1, 2, 2), "VALID"
        )
        s = jax.lax.reduce_window(
            y, 0.0, jax.lax.add, (1, 1, 2, 2), (1, 1, 1, 1), "VALID"
        )
        return jnp.sum(p) + jnp.mean(s)

    def attention(q, k, v):  # two heads
        s = jnp.einsum("bhqd,bhkd->bhqk", q, k) / 2.0
        return jnp.einsum("bhqk,bhkd->bhqd", jax.nn.softmax(s, axis=-1), v)

    def layer_norm(x, g, b):
        m = x.mean(-1, keepdims=True)
        v = ((x - m) ** 2).mean(-1, keepdims=True)
        return (x - m) * jax.lax.rsqrt(v + 1e-5) * g + b

    def scan(w, xs):  # scf.for with i32 bounds, dynamic slice offsets, a flip
        def body(c, x):
            c = jnp.tanh(c * w + x)
            return c, c

        c, ys = jax.lax.scan(body, jnp.zeros(3, jnp.float32), xs)
        return jnp.sum(ys) + c[1] + xs[::-1].sum() * xs[2, 1]

    def linalg_ext(x, s, b, u, c, v, m):  # iree_linalg_ext scan, sort, scatter
        cumsum = jnp.sum(jnp.cumsum(x, axis=1) ** 2)
        ordered = jnp.sum(jnp.sort(s) * jnp.arange(8.0))
        top = jnp.sum(jax.lax.top_k(s, 3)[0] ** 2)
        added = jnp.sum(jnp.asarray(b).at[jnp.array([0, 2, 2])].add(u) ** 2)  # repeated
        put = jnp.sum(
            jnp.asarray(c).at[jnp.array([1, 3, 1])].set(v) ** 2
        )  # the last wins
        hot = jnp.sum(jax.nn.one_hot(jnp.argmax(m, -1), 4) * m)  # argmax
        return cumsum + ordered + top + added + put + hot

    def argsort(a, w):  # a sort carrying its iota, and a gather
        return jnp.sum(jnp.take_along_axis(a, jnp.argsort(a, axis=1), axis=1) * w)

    one_hot = np.eye(3, dtype=np.float32)[rng.integers(0, 3, 5)]
    return {
        "mlp": (
            mlp,
            [normal(4, 8), normal(8), normal(8, 3), normal(3), normal(5, 4), one_hot],
        ),
        "cnn": (cnn, [normal(4, 3, 3, 3), normal(2, 3, 11, 11)]),
        "attention": (
            attention,
            [normal(2, 2, 4, 8), normal(2, 2, 6, 8), normal(2, 2, 6, 8)],
        ),
        "layer_norm": (layer_norm, [normal(4, 6), normal(6), normal(6)]),
        "scan": (scan, [normal(3), normal(5, 3)]),
        "linalg_ext": (
            linalg_ext,
            [
                *(normal(3, 7), normal(8), normal(4, 3), normal(3, 3)),
                *(normal(5, 2), normal(3, 2), normal(3, 4)),
            ],
        ),
        "argsort": (argsort, [normal(3, 4), normal(3, 4)]),
    }


def iree_input(text: str) -> str:
    """StableHLO text lowered by IREE's input conversion."""
    compiler = shutil.which("iree-compile")
    if compiler is None:
        raise FileNotFoundError("iree-compile (the iree extra) is not installed")
    done = subprocess.run(
        [compiler, "--iree-input-type=stablehlo", "--compile-to=input", "-"],
        input=text.encode(),
        capture_output=True,
        check=True,
    )
    return done.stdout.decode()


def generate() -> dict[str, tuple[str, dict[str, np.ndarray]]]:
    """Each program's IREE input text, and its inputs and JAX's results."""
    import jax

    programs = {}
    for name, (function, inputs) in _functions().items():
        text = iree_input(jax.jit(function).lower(*inputs).as_text())
        outputs = function(*inputs)
        outputs = outputs if isinstance(outputs, tuple) else (outputs,)
        arrays = {f"arg{i}": x for i, x in enumerate(inputs)}
        arrays |= {f"result{i}": np.asarray(r) for i, r in enumerate(outputs)}
        programs[name] = (text, arrays)
    return programs


GRADIENTS = ("linalg_ext", "argsort")
"""The programs whose `.npz` also holds float64 `jax.grad` of the result
with respect to every argument (`grad0`, ...), which
`tests/test_linalg_ext.py` checks gradopt's gradients against."""


def gradients(name: str) -> dict[str, np.ndarray]:
    """Float64 `jax.grad` of program `name` at its inputs."""
    import jax

    function, inputs = _functions()[name]
    with jax.enable_x64(True):
        wide = [np.asarray(x, np.float64) for x in inputs]
        found = jax.jit(jax.grad(function, argnums=tuple(range(len(wide)))))(*wide)
    return {f"grad{i}": np.asarray(g) for i, g in enumerate(found)}


def main() -> int:
    CORPUS.mkdir(exist_ok=True)
    for name, (text, arrays) in generate().items():
        if name in GRADIENTS:
            arrays |= gradients(name)
        (CORPUS / f"{name}.mlir").write_text(text)
        np.savez(CORPUS / f"{name}.npz", **arrays)  # pyright: ignore[reportArgumentType]
        print(f"wrote {CORPUS / name}.mlir and .npz")
    return 0


if __name__ == "__main__":
    sys.exit(main())
