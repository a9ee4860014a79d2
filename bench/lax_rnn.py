"""The issue-22 tanh RNN from Python: N steps, 16 wide (or WIDTH), written with
`gradopt.lax.scan` and differentiated by `gradopt.jit(gradopt.grad(...))`
(the gradient of the final state's squared norm with respect to the initial
state, the inputs and the weights), beside the same model in JAX with
`jax.lax.scan` under `jax.jit(jax.grad(...))`, float32, in one run.

For each: the preparation (the first call: trace, prepare or compile, run)
and the steady-state time of a call (median of 7; JAX's results waited for
with `block_until_ready`), for gradopt on the NumPy interpreter and on IREE
(`backend="iree"`), and with `backend="auto"`: its preparation is the
first call, which the interpreter answers while IREE compiles in the
background; its call is timed once the switch to IREE has come (the
seconds from the first call to it are printed). The gradients are checked
against JAX's. With `--plain`, also on IREE as lowered before
`runtime/iree_loops` (no loop rewrites, the flags of a program without
loops), for a before/after in one run; with `--host`, also on IREE
without `runtime/iree_dispatch`'s regions (every loop run on the host, as
before it). Run it with a fresh
`GRADOPT_CACHE_DIR` for a cold IREE cache ("auto" is run first, so that its
compile is not a hit on "iree"'s).

    GRADOPT_CACHE_DIR=$(mktemp -d) python bench/lax_rnn.py [N [WIDTH]] [--plain|--host]
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import numpy as np

import gradopt
import gradopt.numpy as gnp
from gradopt import lax

WIDTH = 16


def model(np_: Any, lax_: Any) -> Callable[..., Any]:
    def loss(h0: Any, xs: Any, w: Any) -> Any:
        def step(h: Any, x: Any) -> tuple[Any, None]:
            return np_.tanh(h @ w + x), None

        h, _ = lax_.scan(step, h0, xs)
        return np_.sum(h * h)

    return loss


def timed(
    call: Callable[[], Any], rounds: int = 7, between: Callable[[], Any] = list
) -> tuple[float, float]:
    """The first call's time, and the median of `rounds` more, timed once
    `between` has returned."""
    started = time.perf_counter()
    call()
    first = time.perf_counter() - started
    between()
    times = []
    for _ in range(rounds):
        started = time.perf_counter()
        call()
        times.append(time.perf_counter() - started)
    return first, float(np.median(times))


@contextmanager
def plain_lowering() -> Iterator[None]:
    """IREE's lowering and flags as before the loop rewrites."""
    from gradopt.runtime import iree

    saved = (iree.unroll_loops, iree.compile_flags, iree.dispatch_loops)
    iree.unroll_loops = iree.dispatch_loops = lambda module: 0
    iree.compile_flags = lambda text, untiled=False: iree.COMPILE_FLAGS
    try:
        yield
    finally:
        iree.unroll_loops, iree.compile_flags, iree.dispatch_loops = saved


@contextmanager
def host_loops() -> Iterator[None]:
    """IREE's lowering without dispatch regions: every loop on the host."""
    from gradopt.runtime import iree

    saved = iree.dispatch_loops
    iree.dispatch_loops = lambda module: 0
    try:
        yield
    finally:
        iree.dispatch_loops = saved


CONTEXTS = {"iree plain": plain_lowering, "iree host": host_loops}


def main() -> None:
    numbers = [a for a in sys.argv[1:] if not a.startswith("--")]
    n = int(numbers[0]) if numbers else 1000
    width = int(numbers[1]) if len(numbers) > 1 else WIDTH
    rng = np.random.default_rng(0)
    h0 = rng.uniform(-1, 1, width).astype(np.float32)
    xs = rng.uniform(-1, 1, (n, width)).astype(np.float32)
    w = (rng.uniform(-1, 1, (width, width)) / np.sqrt(width)).astype(np.float32)
    args = (h0, xs, w)
    rows: list[tuple[str, float, float]] = []
    found: dict[str, Any] = {}

    try:
        import jax

        jax_grad = jax.jit(jax.grad(model(jax.numpy, jax.lax), (0, 1, 2)))

        def jax_call() -> Any:
            found["jax"] = jax.block_until_ready(jax_grad(*args))
            return found["jax"]

        rows.append(("JAX lax.scan, jit(grad)", *timed(jax_call)))
    except ImportError:
        print("(JAX not installed: no reference)")

    backends = ["auto", "numpy", "iree"]
    backends += ["iree plain"] if "--plain" in sys.argv else []
    backends += ["iree host"] if "--host" in sys.argv else []
    for backend in backends:
        traced = gradopt.jit(
            gradopt.grad(model(gnp, lax), (0, 1, 2)), backend.split()[0]
        )
        started = time.perf_counter()

        def switched(traced: Any = traced, started: float = started) -> None:
            if not traced.compile(args, {}).program.ready():
                raise SystemExit("backend auto: IREE did not compile the program")
            print(f"auto: on IREE {time.perf_counter() - started:.2f} s after its call")

        def call(traced: Any = traced, backend: str = backend) -> Any:
            if backend in CONTEXTS:
                with CONTEXTS[backend]():
                    found[backend] = traced(*args)
            else:
                found[backend] = traced(*args)
            return found[backend]

        between = switched if backend == "auto" else list
        rows.append(
            (f"gradopt lax.scan, jit(grad), {backend}", *timed(call, 7, between))
        )

    print(f"tanh RNN, {n} steps, {width} wide: the gradient of |h_N|^2")
    print(f"{'':38} {'preparation':>12} {'call':>10} {'per step':>10}")
    for name, first, steady in rows:
        print(
            f"{name:38} {first:10.3f} s {steady * 1e3:7.2f} ms"
            f" {steady / n * 1e6:7.1f} us"
        )
    if "jax" in found:
        for backend in backends:
            error = max(
                float(np.max(np.abs(np.asarray(a) - np.asarray(b))))
                for a, b in zip(found[backend], found["jax"], strict=True)
            )
            print(f"largest difference from JAX ({backend}): {error:.2e}")


if __name__ == "__main__":
    main()
