"""Train a two-layer MLP with gradopt's Python front end.

    python examples/train_mlp.py                 # digits if scikit-learn is there
    python examples/train_mlp.py --data synthetic --epochs 5

The model and the loss are written with `gradopt.numpy` and `gradopt.nn`;
`gradopt.jit(gradopt.value_and_grad(loss))` traces them once into a `grad`
module (the forward graph and one `grad.gradient` op), which gradopt expands
and runs with its NumPy interpreter at every step. The update is
`gradopt.optim.adam` (optax's formulas) on the NumPy parameters. The data set
is scikit-learn's bundled 8x8 digits (the `examples` extra:
`pip install 'gradopt[examples]'`), or, without scikit-learn or with
`--data synthetic`, ten Gaussian clusters in 64 dimensions.
"""

from __future__ import annotations

import argparse
import time
from itertools import pairwise
from typing import Any

import numpy as np

import gradopt
import gradopt.nn as gnn
import gradopt.numpy as gnp
import gradopt.optim as optim

Params = dict[str, np.ndarray]


def load(kind: str, seed: int) -> tuple[np.ndarray, np.ndarray, str]:
    """Inputs (float32, scaled to about unit range) and int32 labels."""
    if kind in ("auto", "digits"):
        try:
            from sklearn.datasets import load_digits
        except ImportError:
            if kind == "digits":
                raise SystemExit(
                    "--data digits needs scikit-learn: pip install 'gradopt[examples]'"
                ) from None
        else:
            digits = load_digits()
            x = (digits.data / 16.0).astype(np.float32)
            return x, digits.target.astype(np.int32), "scikit-learn digits"
    rng = np.random.default_rng(seed)
    centers = rng.normal(0.0, 1.0, (10, 64))
    labels = rng.integers(0, 10, 1800)
    x = centers[labels] + rng.normal(0.0, 1.5, (1800, 64))
    return x.astype(np.float32), labels.astype(np.int32), "synthetic clusters"


def init(sizes: list[int], seed: int) -> Params:
    rng = np.random.default_rng(seed)
    params: Params = {}
    for i, (m, n) in enumerate(pairwise(sizes)):
        params[f"w{i}"] = (rng.normal(0, 1, (m, n)) * np.sqrt(2 / m)).astype(np.float32)
        params[f"b{i}"] = np.zeros(n, np.float32)
    return params


def predict(params: Any, x: Any) -> Any:
    hidden = gnn.relu(x @ params["w0"] + params["b0"])
    return hidden @ params["w1"] + params["b1"]


def loss(params: Any, x: Any, labels: Any) -> Any:
    """Mean cross-entropy of the logits against the labels."""
    targets = gnn.one_hot(labels, 10)
    return -gnp.mean(gnp.sum(targets * gnn.log_softmax(predict(params, x)), axis=-1))


def accuracy(params: Any, x: Any, labels: Any) -> Any:
    return gnp.mean(gnp.argmax(predict(params, x), axis=-1) == labels)


def export(
    folder: str,
    x: np.ndarray,
    labels: np.ndarray,
    train: np.ndarray,
    test: np.ndarray,
    params: Params,
) -> None:
    """The inputs of examples/train_loop.mlir: the training examples in their
    shuffled order, as many as fill batches of 64 (1408), the first 360 test
    examples, labels one-hot, and the initial weights."""
    from pathlib import Path

    out = Path(folder)
    out.mkdir(parents=True, exist_ok=True)
    one_hot = np.eye(10, dtype=np.float32)
    kept_train, kept_test = train[:1408], test[:360]
    arrays = {
        "x_train": x[kept_train],
        "y_train": one_hot[labels[kept_train]],
        "x_test": x[kept_test],
        "y_test": one_hot[labels[kept_test]],
        **params,
    }
    for name, array in arrays.items():
        np.save(out / f"{name}.npy", np.ascontiguousarray(array, np.float32))
    print(f"wrote {', '.join(arrays)} into {out}")


def main(argv: list[str] | None = None) -> float:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "--data", choices=["auto", "digits", "synthetic"], default="auto"
    )
    parser.add_argument("--epochs", type=int, default=10)
    parser.add_argument("--batch", type=int, default=64)
    parser.add_argument("--hidden", type=int, default=64)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--export",
        metavar="DIR",
        help="write the data and the initial weights for examples/train_loop.mlir "
        "as .npy files into DIR, and stop",
    )
    args = parser.parse_args(argv)

    x, labels, name = load(args.data, args.seed)
    order = np.random.default_rng(args.seed).permutation(len(x))
    split = len(x) * 4 // 5
    train, test = order[:split], order[split:]
    params = init([x.shape[1], args.hidden, 10], args.seed)
    if args.export:
        export(args.export, x, labels, train, test, params)
        return 0.0
    optimizer = optim.adam(3e-3)
    state = optimizer.init(params)
    step = gradopt.jit(gradopt.value_and_grad(loss))  # traced once: one batch shape
    evaluate = gradopt.jit(accuracy)
    print(f"{name}: {len(train)} training and {len(test)} test examples")

    rng = np.random.default_rng(args.seed + 1)
    for epoch in range(1, args.epochs + 1):
        start, losses = time.perf_counter(), []
        shuffled = rng.permutation(train)
        for i in range(0, len(shuffled) - args.batch + 1, args.batch):  # full batches
            batch = shuffled[i : i + args.batch]
            value, grads = step(params, x[batch], labels[batch])
            updates, state = optimizer.update(grads, state, params)
            params = optim.apply_updates(params, updates)
            losses.append(float(value))
        seconds = time.perf_counter() - start
        test_accuracy = float(evaluate(params, x[test], labels[test]))
        print(
            f"epoch {epoch:2d}  loss {np.mean(losses):.4f}  "
            f"test accuracy {test_accuracy:.3f}  ({seconds:.2f} s)"
        )
    print(f"final test accuracy: {test_accuracy:.3f}")
    return test_accuracy


if __name__ == "__main__":
    main()
