"""Real programs from PyTorch (SPEC §10.5): models exported by iree-turbine
and lowered by IREE's torch input conversion, and torch's float64 gradients.

`python tests/torch_corpus.py` (needs `torch` and `iree-turbine`, which are
not gradopt extras, and the `iree` extra) exports each model of `_models()`
with its parameters as function arguments (`torch.func.functional_call`),
returning a scalar loss, lowers the torch dialect with

    iree-compile --iree-input-type=torch --compile-to=input
                 --iree-torch-emit-async-entry-points=false

and writes `tests/corpus/torch/NAME.mlir` with `NAME.npz`: the inputs
`arg0`, ..., torch's float32 loss `result0`, the positions `wrt` of the
parameters and inputs differentiated, and torch.autograd's gradients with
respect to them in float64 (`grad0`, ...), so that
`tests/test_torch_corpus.py` checks gradopt against torch without either.
`python tests/torch_corpus.py --check` prints, per model, whether gradopt
reads, runs and differentiates it and how close it comes to torch on both
backends, without writing anything.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

CORPUS = Path(__file__).parent / "corpus" / "torch"
FLAGS = (
    "--iree-input-type=torch",
    "--compile-to=input",
    "--iree-torch-emit-async-entry-points=false",
)


@dataclass
class Model:
    """A module, the loss of its output and inputs, its inputs, which of
    them are differentiated, and whether the export is decomposed first (an
    op that IREE's torch conversion lacks, as `aten.lstm_cell`)."""

    module: Any
    loss: Callable[..., Any]
    inputs: list[Any]
    differentiated: list[int]
    model_inputs: int = 1
    decompose: bool = False


def _models() -> dict[str, Model]:
    """Each model, with random parameters and inputs (fixed seed)."""
    import torch
    import torch.nn.functional as F
    from torch import nn

    torch.manual_seed(0)
    randn = torch.randn

    def weighted(o: Any, *_: Any) -> Any:  # every output element counts
        return (o * torch.linspace(-1.0, 1.0, o.numel()).view(o.shape)).sum()

    def squares(o: Any, *_: Any) -> Any:
        return (o**2).sum()

    class MLP(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.a, self.b = nn.Linear(6, 8), nn.Linear(8, 4)

        def forward(self, x: Any) -> Any:
            return self.b(F.relu(self.a(x)))

    def cross_entropy(o: Any, _: Any, y: Any) -> Any:
        # nn.CrossEntropyLoss does not lower (torch-mlir's NumToTensor): the
        # same loss by log_softmax and a gather of the labels
        return -F.log_softmax(o, -1).gather(1, y[:, None]).mean()

    class CNN(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.conv = nn.Conv2d(2, 3, 3, stride=2, padding=1)
            self.pool, self.linear = nn.MaxPool2d(2), nn.Linear(12, 3)

        def forward(self, x: Any) -> Any:
            y = self.pool(F.relu(self.conv(x)))
            return self.linear(torch.flatten(y, 1))

    class Attention(nn.Module):  # scaled_dot_product_attention, two heads
        def __init__(self) -> None:
            super().__init__()
            # no key bias: it adds a constant to each row of the scores,
            # which the softmax cancels (its gradient is zero up to rounding)
            self.q, self.v = nn.Linear(8, 8), nn.Linear(8, 8)
            self.k = nn.Linear(8, 8, bias=False)

        def forward(self, x: Any) -> Any:
            b, t, _ = x.shape

            def heads(z: Any) -> Any:
                return z.view(b, t, 2, 4).transpose(1, 2)

            q, k, v = heads(self.q(x)), heads(self.k(x)), heads(self.v(x))
            return F.scaled_dot_product_attention(q, k, v)

    class MultiheadAttention(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.m = nn.MultiheadAttention(8, 2, batch_first=True)

        def forward(self, x: Any) -> Any:
            return self.m(x, x, x, need_weights=False)[0]

    class Activations(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.linear = nn.Linear(5, 5)

        def forward(self, x: Any) -> Any:
            z = self.linear(x)
            return torch.stack(
                [
                    F.gelu(z),
                    F.gelu(z, approximate="tanh"),
                    torch.tanh(z),
                    torch.sigmoid(z),
                    F.softmax(z, -1),
                    F.log_softmax(z, -1),
                ]
            )

    class Embedding(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.e, self.linear = nn.Embedding(10, 4), nn.Linear(4, 2)

        def forward(self, i: Any) -> Any:
            return self.linear(self.e(i))

    class Cell(nn.Module):
        def __init__(self, cell: Any) -> None:
            super().__init__()
            self.cell = cell

        def forward(self, *state: Any) -> Any:
            x, *h = state
            return self.cell(x, tuple(h) if len(h) > 1 else h[0])

    class Pool(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.conv = nn.Conv2d(2, 2, 1)
            self.pool = nn.AvgPool2d(2, stride=2, padding=1)

        def forward(self, x: Any) -> Any:
            return self.pool(self.conv(x))

    labels, indices = (
        torch.tensor([0, 3, 1, 2, 3]),
        torch.tensor([[1, 4, 4], [9, 0, 2]]),
    )
    return {
        "mlp": Model(MLP(), cross_entropy, [randn(5, 6), labels], [0]),
        "cnn": Model(CNN(), lambda o, _: (o**2).mean(), [randn(2, 2, 8, 8)], [0]),
        "layer_norm": Model(nn.LayerNorm(6), weighted, [randn(4, 6)], [0]),
        "attention": Model(Attention(), squares, [randn(2, 3, 8)], [0]),
        "attention_decomposed": Model(  # matmuls, softmax and an i1 mask
            Attention(), squares, [randn(2, 3, 8)], [0], decompose=True
        ),
        "multihead_attention": Model(
            MultiheadAttention(), squares, [randn(2, 3, 8)], [0]
        ),
        "activations": Model(Activations(), weighted, [randn(3, 5)], [0]),
        "embedding": Model(Embedding(), squares, [indices], []),
        "batch_norm": Model(
            nn.BatchNorm2d(3, track_running_stats=False),  # training mode
            lambda o, _: weighted(o**2),
            [randn(2, 3, 3, 3)],
            [0],
        ),
        "lstm_cell": Model(
            Cell(nn.LSTMCell(4, 5)),
            lambda o, *_: (o[0] ** 2).sum() + o[1].sum(),
            [randn(2, 4), randn(2, 5), randn(2, 5)],
            [0, 1, 2],
            model_inputs=3,
            decompose=True,
        ),
        "gru_cell": Model(
            Cell(nn.GRUCell(4, 5)),
            squares,
            [randn(2, 4), randn(2, 5)],
            [0, 1],
            model_inputs=2,
            decompose=True,
        ),
        "avg_pool_mse": Model(
            Pool(),
            lambda o, _, target: F.mse_loss(o, target),
            [randn(1, 2, 5, 5), randn(1, 2, 3, 3)],
            [0],
        ),
    }


def _loss_module(model: Model) -> Any:
    """A module whose forward takes the parameters, then the inputs, and
    returns the scalar loss."""
    import torch

    names = [name for name, _ in model.module.named_parameters()]

    class Loss(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.model = model.module

        def forward(self, *args: Any) -> Any:
            params, inputs = args[: len(names)], args[len(names) :]
            named = dict(zip(names, params, strict=True))
            output = torch.func.functional_call(
                self.model, named, inputs[: model.model_inputs]
            )
            return model.loss(output, *inputs)

    return Loss()


def iree_input(torch_text: str) -> str:
    """Torch-dialect text lowered by IREE's torch input conversion."""
    compiler = shutil.which("iree-compile")
    if compiler is None:
        raise FileNotFoundError("iree-compile (the iree extra) is not installed")
    done = subprocess.run(
        [compiler, *FLAGS, "-"], input=torch_text.encode(), capture_output=True
    )
    if done.returncode:
        raise RuntimeError(done.stderr.decode())
    return done.stdout.decode()


def lower(model: Model, args: list[Any]) -> str:
    """The model's loss as IREE's input form (linalg on tensors)."""
    import torch
    from iree.turbine import aot

    module = _loss_module(model)
    if model.decompose:
        exported = torch.export.export(module, tuple(args)).run_decompositions()
        return iree_input(str(aot.export(exported).mlir_module))
    return iree_input(str(aot.export(module, args=tuple(args)).mlir_module))


def generate(model: Model) -> tuple[str, dict[str, np.ndarray]]:
    """A model's IREE input text, and its inputs, loss and float64 gradients."""
    import torch

    params = [p.detach().clone() for p in model.module.parameters()]
    args = [*params, *model.inputs]
    text = lower(model, args)
    wrt = [*range(len(params)), *(len(params) + i for i in model.differentiated)]
    loss = _loss_module(model)(*args)
    wide_module = model.module.double()
    wide = [a.double() if a.is_floating_point() else a for a in args]
    for i in wrt:
        wide[i].requires_grad_(True)
    model.module = wide_module
    grads = torch.autograd.grad(_loss_module(model)(*wide), [wide[i] for i in wrt])
    model.module = wide_module.float()
    arrays = {f"arg{i}": a.detach().numpy() for i, a in enumerate(args)}
    arrays |= {"result0": loss.detach().numpy(), "wrt": np.array(wrt)}
    arrays |= {f"grad{i}": g.numpy() for i, g in enumerate(grads)}
    return text, arrays


def check(name: str, text: str, arrays: dict[str, np.ndarray]) -> str:
    """One row of the table: read, run, differentiate, match on both backends."""
    import gradopt

    args = [arrays[f"arg{i}"] for i in range(sum(k.startswith("arg") for k in arrays))]
    wrt = [int(i) for i in arrays["wrt"]]
    row = [name]
    try:
        gradopt.Program(text, f"{name}.mlir").run(args=args)
        row.append("reads, runs")
        program = gradopt.Program(
            gradopt.differentiate_module(text, wrt=wrt, filename=f"{name}.mlir")
        )
        row.append("differentiates")
        for backend in ("numpy", "iree"):
            _, *grads = program.run(args=args, backend=backend).results
            worst = max(
                relative_error(g, arrays[f"grad{i}"]) for i, g in enumerate(grads)
            )
            row.append(f"{backend} {worst:.1e}")
    except Exception as error:
        row.append(f"FAILS: {str(error).splitlines()[0]}")
    return " | ".join(row)


def relative_error(found: np.ndarray, expected: np.ndarray) -> float:
    scale = max(float(np.max(np.abs(expected))), 1e-30)
    return float(np.max(np.abs(found.astype(np.float64) - expected))) / scale


def main(argv: list[str]) -> int:
    only = [a for a in argv if not a.startswith("--")]
    for name, model in _models().items():
        if only and name not in only:
            continue
        try:
            text, arrays = generate(model)
        except Exception as error:
            print(f"{name} | does not lower: {str(error).splitlines()[0]}")
            continue
        if "--check" in argv:
            print(check(name, text, arrays), flush=True)
            continue
        CORPUS.mkdir(parents=True, exist_ok=True)
        (CORPUS / f"{name}.mlir").write_text(text)
        np.savez_compressed(CORPUS / f"{name}.npz", **arrays)  # pyright: ignore[reportArgumentType]
        print(f"wrote {CORPUS / name}.mlir and .npz", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
