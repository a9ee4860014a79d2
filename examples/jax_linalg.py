"""Differentiate what IREE makes of a JAX model: JAX → StableHLO → linalg → gradopt.

    pip install -e '.[jax,iree]'
    python examples/jax_linalg.py                   # the NumPy interpreter
    python examples/jax_linalg.py --backend iree    # compiled by IREE
    python examples/jax_linalg.py --print-ir        # and show the IR

The loss of a two-layer MLP with softmax cross-entropy is written in JAX and
lowered to StableHLO by `jax.jit(...).lower(...)`; IREE's input conversion
(`iree-compile --compile-to=input`) turns that into `linalg` on tensors with
`arith`/`math` bodies, `tensor` data movement and a `util.func`, which has no
derivative in it. `gradopt.differentiate_module` appends one `grad.gradient`
of the loss with respect to the weights; gradopt expands it into more
`linalg`/`arith`/`math`/`tensor` ops (no `grad` compute op appears) and runs
the result. The gradients are compared with `jax.grad` in float64.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

import numpy as np

import gradopt


def loss_fn(w1: Any, b1: Any, w2: Any, x: Any, labels: Any) -> Any:
    """Mean softmax cross-entropy of a ReLU MLP; `labels` one-hot."""
    import jax
    import jax.numpy as jnp

    hidden = jax.nn.relu(x @ w1 + b1)
    logits = hidden @ w2
    return -jnp.mean(jnp.sum(labels * jax.nn.log_softmax(logits), axis=-1))


def arguments(seed: int = 0) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    batch, inputs, hidden, classes = 32, 20, 16, 5
    labels = np.eye(classes, dtype=np.float32)[rng.integers(0, classes, batch)]
    return [
        rng.normal(0, 0.3, (inputs, hidden)).astype(np.float32),
        np.zeros(hidden, np.float32),
        rng.normal(0, 0.3, (hidden, classes)).astype(np.float32),
        rng.normal(0, 1, (batch, inputs)).astype(np.float32),
        labels,
    ]


def linalg_of(args: list[np.ndarray]) -> str:
    """The loss as IREE's input conversion prints it (linalg on tensors)."""
    import jax
    from iree.compiler.tools import compile_str

    stablehlo = jax.jit(loss_fn).lower(*args).as_text()
    output = compile_str(
        stablehlo, input_type="stablehlo", extra_args=["--compile-to=input"]
    )
    return output.decode() if isinstance(output, bytes) else str(output)


def reference(args: list[np.ndarray]) -> list[np.ndarray]:
    """`jax.grad` of the loss with respect to w1, b1, w2, in float64."""
    import jax

    wide = [np.asarray(a, np.float64) for a in args]
    with jax.enable_x64(True):
        return [np.asarray(g) for g in jax.grad(loss_fn, argnums=(0, 1, 2))(*wide)]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--backend", choices=["numpy", "iree"], default="numpy")
    parser.add_argument("--print-ir", action="store_true")
    options = parser.parse_args(argv)

    args = arguments()
    ir = linalg_of(args)
    differentiated = gradopt.differentiate_module(ir, loss=0, wrt=[0, 1, 2])
    program = gradopt.Program(differentiated)
    if options.print_ir:  # the loss as IREE printed it, then with its gradient
        print(ir)
        print(program.module)
    loss, *grads = program.run(args=args, backend=options.backend).results
    expected = reference(args)
    print(f"loss {float(loss):.6f} ({options.backend})")
    worst = 0.0
    for name, got, want in zip(("w1", "b1", "w2"), grads, expected, strict=True):
        error = float(np.max(np.abs(got - want)) / max(np.max(np.abs(want)), 1e-30))
        worst = max(worst, error)
        print(f"d loss / d {name}: {got.shape}, relative error to jax.grad {error:.1e}")
    return 0 if worst <= 1e-4 else 1


if __name__ == "__main__":
    sys.exit(main())
