"""Chains of parallel `linalg` ops run as one kernel (SPEC §10.4).

IREE's input form splits a program into many small generics (the MLP step
of `bench/linalg_mlp.py` has 51), each a step of the plan whose kernel costs
10 to 15 us of Python around its NumPy calls: views, the body's
environment, the result's broadcast and layout. A structured op whose one
result feeds nothing but inputs of one later structured op of the same
iteration space, read there through identity maps, is computed by the
kernel of that later op instead (the producer is *absorbed*; the op that
absorbs a chain is its *root*): the root's kernel runs each member's body
in turn and hands a producer's yielded array to the next body as that
input, as it is (no broadcast, transpose or copy between them).

The same NumPy functions run on the same values in the same order, and a
producer's value reaches its consumer with the dtype its result has, so
every bit is what the ops give run one by one (`tests/test_fusion.py`
compares the two on random programs and on NaN, infinities and signed
zeros). What a root computes directly from its operands (a contraction, a
reduction of an input as it is) never reads an absorbed value.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from xdsl.dialects.linalg.abstract_ops import LinalgStructuredOperation
from xdsl.dialects.linalg.attrs import IteratorType
from xdsl.ir import BlockArgument, Operation, SSAValue
from xdsl.ir.affine import AffineMap

from gradopt.autodiff.paths import captured
from gradopt.dialect.errors import OpError
from gradopt.interpreter.linalg import (
    Env,
    Kernel,
    Structured,
    Viewer,
    direct_inputs,
    prepare,
    structured_kernel,
    writable_inputs,
)
from gradopt.interpreter.owned import Owned
from gradopt.interpreter.scalar import Value

ENABLED = True
"""Whether plans fuse (the tests compare fused runs with runs of one step
an op)."""


def absorbed(op: Operation) -> bool:
    """Whether the value of `op` is computed by the kernel of its one user,
    so that `op` is no step of its own."""
    return ENABLED and _consumer(op) is not None


def _consumer(op: Operation) -> LinalgStructuredOperation | None:
    """The structured op that absorbs `op` (see the module's docstring), if
    any."""
    if not isinstance(op, LinalgStructuredOperation) or len(op.res) != 1:
        return None
    if any(kind.data != IteratorType.PARALLEL for kind in op.get_iterator_types()):
        return None
    rank = len(op.get_iterator_types())
    if op.get_indexing_maps().data[-1].data != AffineMap.identity(rank):
        return None
    uses = list(op.res[0].uses)
    user = uses[0].operation if uses else None
    if not isinstance(user, LinalgStructuredOperation) or not user.res:
        return None
    if user.parent_block() is not op.parent_block():
        return None
    maps = user.get_indexing_maps().data
    inputs = len(user.inputs)
    if any(
        use.operation is not user
        or use.index >= inputs
        or maps[use.index].data != AffineMap.identity(rank)
        for use in uses
    ):
        return None
    loops = _loops(op)
    if loops is None or len(user.get_iterator_types()) != rank:
        return None
    if _loops(user) != loops:
        return None
    try:
        if {use.index for use in uses} & direct_inputs(user):
            return None
    except OpError:  # reported when `user` is planned
        return None
    return user


def _loops(op: LinalgStructuredOperation) -> tuple[int, ...] | None:
    try:
        return tuple(op.get_static_loop_ranges())
    except (NotImplementedError, ValueError, IndexError):
        return None


def members(root: LinalgStructuredOperation) -> list[LinalgStructuredOperation]:
    """The ops whose values the kernel of `root` computes, producers before
    their consumers, `root` last (without recursion: a chain may be long)."""
    found: list[LinalgStructuredOperation] = []
    todo: list[tuple[LinalgStructuredOperation, bool]] = [(root, False)]
    while todo:
        op, ready = todo.pop()
        if ready:
            found.append(op)
            continue
        todo.append((op, True))
        for value in reversed(dict.fromkeys(op.inputs)):
            producer = value.owner
            if isinstance(producer, LinalgStructuredOperation) and absorbed(producer):
                todo.append((producer, False))
    return found


@dataclass(frozen=True)
class _Member:
    """One op of a fused kernel: where its body's inputs come from, and the
    block arguments of its consumer that its value feeds."""

    prepared: Structured
    views: tuple[tuple[BlockArgument, Viewer, int], ...]
    """Block arguments read from the kernel's values: viewer, position."""
    outer: tuple[tuple[SSAValue, int], ...]
    """Outer values its body reads, and their positions."""
    feeds: tuple[BlockArgument, ...]
    dtype: np.dtype
    local: tuple[SSAValue, ...]
    """Its block arguments and body values: dropped once it has run, so
    that a chain keeps no more arrays alive than its ops one by one."""

    def run(self, values: Sequence[Value], env: Env, out: np.ndarray | None) -> None:
        """Its body, on its inputs from `values` and those already in `env`
        (`out`: an operand's array that the body may write over)."""
        for arg, view, index in self.views:
            env[arg] = view(values[index])
        for value, index in self.outer:
            env[value] = values[index]
        self.prepared.body(env, out)


def kernel_of(
    op: LinalgStructuredOperation,
) -> tuple[Kernel | Owned, list[SSAValue]]:
    """The kernel of `op` and of the ops it absorbs, and the values it
    takes."""
    chain = members(op)
    if len(chain) == 1:
        return structured_kernel(op)
    return _fused_kernel(chain)


def _fused_kernel(
    chain: list[LinalgStructuredOperation],
) -> tuple[Kernel | Owned, list[SSAValue]]:
    """The kernel of the ops of `chain` (its root last), and the values it
    takes: each operand or outer value of a member that no member makes,
    once. Its result is owned when the root's is; then a member may write
    over the array of an operand that nothing else in the chain reads and
    that it reads through an identity map (`linalg.writable_inputs`)."""
    root = chain[-1]
    made = {op.res[0]: op for op in chain[:-1]}
    operands: dict[SSAValue, int] = {}

    def position(value: SSAValue) -> int:
        return operands.setdefault(value, len(operands))

    readers = _readers(chain)
    spans: dict[SSAValue, frozenset[int]] = {}
    steps: list[_Member] = []
    reusable: list[int] = []
    for op in chain:
        values = [*op.inputs, *op.outputs]
        block = op.body.block
        fed = {a: spans[values[a.index]] for a in block.args if values[a.index] in made}
        writable = [
            a
            for a in writable_inputs(op)
            if values[a.index] not in made and readers[values[a.index]] == 1
        ]
        structured = prepare(op, writable, fed)
        spans[op.res[0]] = structured.span
        views = tuple(
            (arg, view, position(values[arg.index]))
            for arg, view in structured.views
            if values[arg.index] not in made
        )
        reusable += (position(values[a.index]) for a in structured.writable)
        outer = tuple((value, position(value)) for value in structured.outer)
        feeds: list[BlockArgument] = []
        if op is not root:
            user = next(iter(op.res[0].uses)).operation
            assert isinstance(user, LinalgStructuredOperation)
            feeds = [
                user.body.block.args[i]
                for i, value in enumerate(user.inputs)
                if value is op.res[0]
            ]
        local = (*block.args, *(r for inner in block.ops for r in inner.results))
        dtype = structured.results[0].dtype
        steps.append(_Member(structured, views, outer, tuple(feeds), dtype, local))
    last = steps[-1].prepared
    root_values = [*root.inputs, *root.outputs]
    at = tuple(None if v in made else position(v) for v in root_values)
    *producers, final = steps

    def kernel(*values: Value, out: np.ndarray | None = None) -> Value:
        env: Env = {}
        for member in producers:
            member.run(values, env, out)
            result = env[member.prepared.results[0].yielded]
            if getattr(result, "dtype", None) != member.dtype:
                result = np.asarray(result).astype(member.dtype)
            for value in member.local:
                env.pop(value, None)
            for arg in member.feeds:
                env[arg] = result
        final.run(values, env, out)
        return last.finish([None if i is None else values[i] for i in at], env)

    if not last.owned:
        return kernel, list(operands)
    return Owned(kernel, tuple(reusable)), list(operands)


def _readers(chain: Sequence[LinalgStructuredOperation]) -> Counter[SSAValue]:
    """How many times the kernel of `chain` reads each value: once for each
    block argument that reads it, or use of it inside a body, and once more
    for each operand of a root with a reduction loop (whose results read its
    operands again once the body has run)."""
    readers: Counter[SSAValue] = Counter()
    for op in chain:
        values = [*op.inputs, *op.outputs]
        readers.update(values[a.index] for a in op.body.block.args if a.uses)
        readers.update(captured(op))
    root = chain[-1]
    if any(kind.data != IteratorType.PARALLEL for kind in root.get_iterator_types()):
        readers.update([*root.inputs, *root.outputs])
    return readers
