"""gradopt's implementations of GradBench's evals, one module per eval.

Each module has `FUNCTIONS`, the eval's functions by the names the eval sends
in `evaluate` messages. A `Function` keeps apart what GradBench keeps apart:
reading the float64 JSON input into float32 arrays, the traceable computation
(which `tool.py` jits on the chosen backend and times), and turning the result
back into the eval's JSON shape.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from types import ModuleType
from typing import Any

import numpy as np

Json = Any
"""A value as `json.loads` gives it."""


@dataclass(frozen=True)
class Function:
    """One function of an eval.

    `compute` is traced by `gradopt.jit` (its derivatives come from
    `gradopt.grad`, `vjp` or `jvp` inside it), `arguments` turns the eval's
    input into its arguments (float32 arrays, and the Python values listed in
    `static_argnums`, which select the traced signature), and `output` turns
    its result into the eval's output (by default the result itself, as
    float64 JSON).
    """

    compute: Callable[..., Any]
    arguments: Callable[[Json], tuple[Any, ...]]
    output: Callable[[Any, Json], Json] = lambda result, input: to_json(result)
    static_argnums: tuple[int, ...] = ()


IMPLEMENTED = (
    "hello", "lse", "llsq", "gmm", "kmeans", "det", "ba", "ht", "ode", "lstm",
    "particle", "saddle",
)  # fmt: skip


def load(name: str) -> ModuleType:
    """The module of eval `name`; `KeyError` with the reason if gradopt has
    none."""
    if name not in IMPLEMENTED:
        raise KeyError(f"gradopt knows no eval named {name!r}")
    return importlib.import_module(f"{__name__}.{name}")


def floats(values: Json) -> np.ndarray:
    """JSON numbers (nested lists) as a float32 array."""
    return np.asarray(values, dtype=np.float64).astype(np.float32)


def to_json(values: Any) -> Json:
    """A result (array or number) as float64 JSON numbers (a float for a
    rank-0 array)."""
    return np.asarray(values, dtype=np.float64).tolist()
