"""Reduction generics whose body is not `acc = op(acc, e)`, run as a fold
(SPEC §10.4).

IREE writes `jnp.argmax` as one reduction `linalg.generic` with two results,
the running maximum and its index, whose body compares and selects with NaN
and tie handling that reads both accumulators. No NumPy reduction computes
that, so the body is folded over the reduction loops in their order (the
last loop innermost, as the generic's loop nest runs): one step per
reduction position, each running the body once on whole arrays over all
the parallel positions. Every element therefore sees exactly the sequence
of body evaluations the loop nest gives it, and any pure body runs.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

import numpy as np
from xdsl.dialects.linalg.attrs import IteratorType
from xdsl.dialects.linalg.ops import GenericOp
from xdsl.ir import Operation, SSAValue
from xdsl.ir.affine import AffineConstantExpr, AffineDimExpr, AffineMap

from gradopt.autodiff.paths import captured
from gradopt.dialect.errors import OpError
from gradopt.dialect.types import tensor_type
from gradopt.interpreter.linalg_ext import Env, Kernel, arguments_read, block_program
from gradopt.interpreter.scalar import REDUCTIONS, Value, dtype_of


def folds(op: Operation) -> bool:
    """Whether `op` is a reduction generic on tensors with a result that is
    not its accumulator combined with a value that does not read it (the
    form the whole-array kernels reduce at once, and refuse otherwise: so no
    producer is fused into an op that folds)."""
    if not isinstance(op, GenericOp) or not op.res:
        return False
    if all(k.data != IteratorType.REDUCTION for k in op.get_iterator_types()):
        return False
    block, inputs = op.body.block, len(op.inputs)
    terminator = block.last_op
    assert terminator is not None
    for j, value in enumerate(terminator.operands):
        acc, owner = block.args[inputs + j], value.owner
        if value is acc:
            continue
        if isinstance(owner, Operation) and type(owner) in REDUCTIONS:
            lhs, rhs = owner.operands
            other = rhs if lhs is acc else lhs if rhs is acc else None
            if other is not None and acc not in arguments_read(other, block):
                continue
        return True
    return False


def _dims(op: Operation, map: AffineMap) -> list[int | None]:
    """Each result of a projected permutation: its loop, or None for `0`."""
    dims: list[int | None] = []
    for result in map.results:
        if isinstance(result, AffineDimExpr):
            dims.append(result.position)
        elif isinstance(result, AffineConstantExpr) and result.value == 0:
            dims.append(None)
        else:
            raise OpError(
                op,
                f"cannot be run: its reduction body reads through {map}, not a "
                "projected permutation",
            )
    return dims


def _in_loops(array: Value, dims: Sequence[int | None], rank: int) -> np.ndarray:
    """`array` (read through `dims`) with one axis per loop, size 1 for the
    loops it does not read."""
    array = np.asarray(array)[tuple(0 if d is None else slice(None) for d in dims)]
    kept = [d for d in dims if d is not None]
    array = array.transpose(np.argsort(kept))
    shape = [1] * rank
    for d, size in zip(sorted(kept), array.shape, strict=True):
        shape[d] = size
    return array.reshape(shape)


def fold_kernel(op: Operation) -> tuple[Kernel, list[SSAValue]]:
    """The kernel of a reduction generic that `folds`, and its values."""
    assert isinstance(op, GenericOp)
    loops = tuple(op.get_static_loop_ranges())
    rank = len(loops)
    reductions = [
        d
        for d, k in enumerate(op.get_iterator_types())
        if k.data == IteratorType.REDUCTION
    ]
    maps = [_dims(op, m.data) for m in op.get_indexing_maps()]
    block, inputs = op.body.block, len(op.inputs)
    terminator = block.last_op
    assert terminator is not None
    yielded = list(terminator.operands)
    outer = captured(op)
    dtypes = [dtype_of(r.type, op) for r in op.res]
    parallel = tuple(1 if d in reductions else n for d, n in enumerate(loops))
    position: dict[int, int] = {}

    def index(dim: int) -> Value:
        if dim in position:
            return position[dim]
        shape = [1] * rank
        shape[dim] = loops[dim]
        return np.arange(loops[dim], dtype=np.int64).reshape(shape)

    program = block_program(op, block, index)

    def kernel(*values: Value) -> Value:
        count = len(maps)
        spaces = [_in_loops(v, m, rank) for v, m in zip(values, maps, strict=True)]
        env: Env = dict(zip(outer, values[count:], strict=True))
        accs = [
            np.broadcast_to(spaces[inputs + j], parallel).astype(t)
            for j, t in enumerate(dtypes)
        ]
        for at in itertools.product(*(range(loops[d]) for d in reductions)):
            position.update(zip(reductions, at, strict=True))
            for k in range(inputs):
                space = spaces[k]
                picked = tuple(
                    slice(None)
                    if d not in position
                    else slice(0, 1)
                    if space.shape[d] == 1
                    else slice(position[d], position[d] + 1)
                    for d in range(rank)
                )
                env[block.args[k]] = space[picked]
            env.update(zip(block.args[inputs:], accs, strict=True))
            program(env)
            accs = [
                np.broadcast_to(env[v], parallel).astype(t, copy=False)
                for v, t in zip(yielded, dtypes, strict=True)
            ]
        position.clear()
        results = []
        for j, acc in enumerate(accs):
            dims = [d for d in maps[inputs + j] if d is not None]
            squeezed = acc.reshape([loops[d] for d in sorted(dims)])
            layout = np.argsort(np.argsort(dims))
            shape = tensor_type(op.res[j]).get_shape()
            results.append(
                np.ascontiguousarray(squeezed.transpose(layout)).reshape(shape)
            )
        return results[0] if len(results) == 1 else tuple(results)

    return kernel, [*op.inputs, *op.outputs, *outer]
