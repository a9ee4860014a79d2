"""Steps a plan leaves out because NumPy does their work implicitly.

A small program is one NumPy call a step, each about a microsecond of
Python and dispatch whatever its size (the 64 -> 32 -> 10 MLP step of
`bench/small_step.py` runs 62), so a call saved is time saved where a
hand-written NumPy step would not make it:

- A `grad.detach` gives back its operand: its readers read the operand.
- A `grad.broadcast` that puts its operand's dims last, in order (a bias
  added to each row), is the broadcast NumPy makes implicitly: when only
  two-operand ufuncs read it, each beside an operand of the broadcast's
  full type, they read its operand as it is.

No bit changes: the same ufunc runs on the same elements (NumPy iterates
an implicitly broadcast operand as the stride-0 view the broadcast makes),
and a detach's reader gets the very array it got before. The executor's
later analyses (buffer reuse, views of slots, frees) run on the rewritten
steps, so they see who really reads what.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Protocol, TypeVar

import numpy as np
from xdsl.dialects.builtin import TensorType
from xdsl.ir import Operation

from gradopt.dialect.ops import KernelOp
from gradopt.dialect.ops.elementwise import DetachOp
from gradopt.dialect.ops.shapes import BroadcastOp


class _Kind(Protocol):
    @property
    def reusable(self) -> tuple[int, ...]: ...

    def _replace(self, *, reusable: tuple[int, ...]) -> Any: ...


class _Step(Protocol):
    """What this module reads of a step of the executor (`_Raw`)."""

    @property
    def action(self) -> Callable[..., object]: ...
    @property
    def operands(self) -> tuple[int, ...]: ...
    @property
    def result(self) -> int: ...
    @property
    def op(self) -> Operation: ...
    @property
    def kind(self) -> _Kind: ...

    def _replace(self, *, operands: tuple[int, ...], kind: Any = ...) -> Any: ...


StepT = TypeVar("StepT", bound=_Step)

ENABLED = True
"""Whether plans leave these steps out (the tests compare plans with and
without)."""


def implicit_steps(
    steps: list[StepT], constants: dict[int, object], outputs: tuple[int, ...]
) -> tuple[list[StepT], tuple[int, ...]]:
    """`steps` without the detaches and implicit broadcasts (see the module's
    docstring), their readers and `outputs` rewritten to read what those
    steps read."""
    if not ENABLED:
        return steps, outputs
    same = {
        raw.result: raw.operands[0]
        for raw in steps
        if isinstance(raw.op, DetachOp) and raw.result not in constants
    }

    def source(index: int) -> int:
        while index in same:
            index = same[index]
        return index

    steps = [
        raw._replace(operands=tuple(map(source, raw.operands)))
        for raw in steps
        if raw.result not in same
    ]
    outputs = tuple(map(source, outputs))
    implicit = _implicit_broadcasts(steps, constants, outputs)
    rewritten: list[StepT] = []
    for raw in steps:
        if raw.result in implicit:
            continue
        read = [i for i, index in enumerate(raw.operands) if index in implicit]
        if read:
            reusable = tuple(i for i in raw.kind.reusable if i not in read)
            raw = raw._replace(
                operands=tuple(implicit.get(i, i) for i in raw.operands),
                kind=raw.kind._replace(reusable=reusable),
            )
        rewritten.append(raw)
    return rewritten, outputs


def _implicit_broadcasts(
    steps: Sequence[_Step], constants: dict[int, object], outputs: tuple[int, ...]
) -> dict[int, int]:
    """The results of the broadcasts that NumPy can make implicitly where
    they are read, with their operands."""
    candidates = {
        raw.result: raw.operands[0]
        for raw in steps
        if isinstance(raw.op, BroadcastOp)
        and raw.result not in constants
        and raw.result not in outputs
        and _trailing(raw.op)
    }
    readers: dict[int, list[tuple[_Step, int]]] = {}
    for raw in steps:
        for position, index in enumerate(raw.operands):
            if index in candidates:
                readers.setdefault(index, []).append((raw, position))
    return {
        index: operand
        for index, operand in candidates.items()
        if index in readers
        and all(_full_beside(raw, at, candidates) for raw, at in readers[index])
    }


def _trailing(op: BroadcastOp) -> bool:
    """Whether `op` places its operand's dims last, in order, as NumPy
    aligns a smaller operand."""
    source, target = op.types()
    rank = target.get_num_dims()
    return op.ints("dims") == tuple(range(rank - source.get_num_dims(), rank))


def _full_beside(raw: _Step, at: int, candidates: dict[int, int]) -> bool:
    """Whether `raw` is a two-operand ufunc whose other operand (not at `at`)
    has the full type of the broadcast read at `at`, and is computed as it
    is (no broadcast left out)."""
    if not isinstance(raw.op, KernelOp) or not isinstance(raw.action, np.ufunc):
        return False
    if raw.action.nin != 2 or raw.action.nout != 1 or len(raw.operands) != 2:
        return False
    other = 1 - at
    type = raw.op.operands[at].type
    return (
        isinstance(type, TensorType)
        and raw.op.operands[other].type == type
        and raw.operands[other] not in candidates
    )
