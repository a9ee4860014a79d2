"""Buffers that a plan keeps from run to run for its large intermediates.

A new NumPy array of more than about a hundred KB is memory that no one has
touched: glibc maps it afresh (or gets back what it returned to the system at
the last free), and every page of it faults, to be zeroed by the kernel, on
its first write. The large MLP step of `bench/interpreter_speed.py` took 950
such faults a run, a third of its time; hand-written NumPy takes as many.

So a plan writes each large value that a kernel would put in a new array
(its op `takes_out`, and the value is static, of `POOLED_BYTES` or more) into a
buffer of its type with `out=`, and keeps the buffers for the next run, in
runs that ask for it (`keeping`: every `Program.run`, and `jit`'s calls).
Other runs (an `Interpreter.call` of its own) pass `out=None`: new arrays.
Kept buffers made the large MLP step in place, GradBench's gmm and kmeans
gradients 1.2-2.9x faster; and once a `grad.concat` wrote into one,
GradBench's llsq gradient twice as fast (bench/RESULTS.md).

The buffers are chosen when planning: values whose lives do not overlap share
one (greedy interval colouring in program order; a value's life runs from
its step to the last read of it or of anything that may share its memory,
and the values that later steps write into its memory, `out=`, live in it
too). A value that leaves the run, or something that may share its memory
does (an output of the plan: a result, a yield), keeps a new array.

Nothing computed changes: the same kernel runs on the same operands and
writes its result into other memory. Each run takes a set of buffers from
the pool and gives it back when it ends, so that runs under way at once
(threads, a function that calls itself) never share a set; the pool keeps
as many sets as runs were ever under way at once.
"""

from __future__ import annotations

import math
import weakref
from collections.abc import Callable, Iterable, Sequence
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Protocol

import numpy as np
from xdsl.dialects.builtin import TensorType
from xdsl.ir import Operation

from gradopt.dialect.ops import KernelOp
from gradopt.dialect.types import dtype_of

POOLED_BYTES = 1 << 19
"""The smallest value given a kept buffer (512 KiB). glibc maps an array of
128 KiB or more afresh, or takes it from the top of its heap, which it
gives back to the system once the top's free memory passes a threshold
that follows the largest block freed; what is left to come and go decides
the faults. The large MLP step in place, in a loop of its own, took 700
page faults a run with buffers kept from 1 MiB on (its 512 KiB activations
came and went) and none from 512 KiB on: 4.5 against 3.4 ms, where
hand-written NumPy took 4.2 ms and 752 faults. Kept from 128 KiB on,
GradBench's gmm at d = 64 was up to 1.4x slower (bench/RESULTS.md)."""

POOL_LIMIT = 1 << 26
"""The most memory a plan's buffers may take (64 MiB): a plan whose buffers
would take more keeps none, so that a huge program leaves no more memory
taken after a run than it did before (the programs that `gradopt.run` and
`jit` keep prepared keep their buffers too)."""

HELD_LIMIT = 1 << 28
"""The most memory the kept buffers of all plans may hold together (256
MiB): a run that would pass it makes new arrays. The caches of prepared
programs (`gradopt.run`'s, each `jit`'s) count their programs' text, not
their buffers, and a `jit` called on many shapes keeps a program for each."""

_held = [0]
"""The bytes all plans' kept buffers hold now."""

Layout = tuple[tuple[int, ...], np.dtype]
"""A buffer's shape and dtype."""


def _nbytes(layout: Layout) -> int:
    shape, dtype = layout
    return math.prod(shape) * dtype.itemsize


ENABLED = True
"""Whether plans keep buffers (tests compare the bits both ways)."""

_keeping: ContextVar[bool] = ContextVar("keeping", default=False)


class keeping:
    """Runs (of every plan, loop bodies and callees included) started inside
    use their plans' kept buffers.

    A class rather than a `contextmanager` generator: inside one of those,
    the small MLP step's plan ran 7 us (6%) slower (bench/RESULTS.md)."""

    __slots__ = ("token",)

    def __enter__(self) -> None:
        self.token = _keeping.set(True)

    def __exit__(self, *exception: object) -> None:
        _keeping.reset(self.token)


class _Step(Protocol):
    """What this module reads of a step of the executor (`Step`)."""

    @property
    def operands(self) -> tuple[int, ...]: ...
    @property
    def result(self) -> int: ...
    @property
    def op(self) -> Operation: ...
    @property
    def out(self) -> int | None: ...
    @property
    def into(self) -> int | None: ...


@dataclass
class Pool:
    """The buffers of a plan, at frame indices `first` on, of `layouts`."""

    first: int
    layouts: tuple[Layout, ...]
    sets: list[list[np.ndarray]] = field(default_factory=list)

    def take(self) -> list[np.ndarray] | None:
        """A set of buffers no other run is using (new on a first run), or
        None outside `keeping` or where a new set would pass `HELD_LIMIT`."""
        if not _keeping.get():
            return None
        try:
            return self.sets.pop()
        except IndexError:
            pass
        size = sum(map(_nbytes, self.layouts))
        if _held[0] + size > HELD_LIMIT:
            return None
        _held[0] += size
        weakref.finalize(self, _release, size)  # when the plan goes
        return [np.empty(shape, dtype) for shape, dtype in self.layouts]

    def give(self, buffers: list[np.ndarray]) -> None:
        self.sets.append(buffers)


def _release(size: int) -> None:
    _held[0] -= size


def _layout(op: Operation) -> Layout | None:
    """The layout of the result of `op` if it is a large enough value that its
    kernel writes into a given buffer."""
    if not isinstance(op, KernelOp) or len(op.results) != 1:
        return None
    if not (op.fresh_result() and op.takes_out()):
        return None
    type = op.results[0].type
    if not isinstance(type, TensorType) or not type.has_static_shape():
        return None
    layout = tuple(type.get_shape()), np.dtype(dtype_of(type.get_element_type()))
    return layout if _nbytes(layout) >= POOLED_BYTES else None


def buffers(
    steps: Sequence[_Step],
    outputs: Iterable[int],
    constants: Iterable[int],
    aliases: Callable[[int], set[int]],
) -> tuple[dict[int, int], tuple[Layout, ...]]:
    """For the steps whose result goes into a kept buffer, by position, the
    buffer's number; and the buffers' layouts. `aliases(i)`: value `i` and
    the values that may share its memory."""
    if not ENABLED:
        return {}, ()
    last: dict[int, int] = {}
    for position, step in enumerate(steps):
        for index in (*step.operands, step.result):
            last[index] = position
    leaving = set(outputs)
    home: dict[int, int] = {}  # a value -> the position of the step it lives from
    lives: dict[int, tuple[Layout, list[int]]] = {}  # by that position
    literals = set(constants)  # computed when planning: no step runs
    for position, step in enumerate(steps):
        if step.out is not None and step.operands[step.out] in home:
            home[step.result] = start = home[step.operands[step.out]]
            lives[start][1].append(step.result)
        elif (
            step.into is None
            and step.result not in literals
            and (layout := _layout(step.op)) is not None
        ):
            home[step.result] = position
            lives[position] = (layout, [step.result])
    chosen: dict[int, int] = {}
    layouts: list[Layout] = []
    free_from: list[int] = []  # per buffer, the first position it is free at
    for start, (layout, values) in sorted(lives.items()):
        shared = set().union(*map(aliases, values))
        if shared & leaving:
            continue
        end = max(last.get(index, start) for index in shared)
        buffer = next(
            (
                b
                for b, known in enumerate(layouts)
                if known == layout and free_from[b] <= start
            ),
            None,
        )
        if buffer is None:
            buffer = len(layouts)
            layouts.append(layout)
            free_from.append(0)
        free_from[buffer] = end + 1
        chosen[start] = buffer
    if sum(map(_nbytes, layouts)) > POOL_LIMIT:
        return {}, ()
    return chosen, tuple(layouts)
