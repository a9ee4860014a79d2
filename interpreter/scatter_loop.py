"""A `scf.for` nest that adds elements into a tensor at indices it reads, run
as one `np.add.at` with the loop's bits (SPEC §10.2, §10.4).

The share of a gather (`tensor.extract` at computed indices in a
`linalg.generic` body: `jnp.take`, `x[i]`, `nn.Embedding`) is a scatter-add,
written as a nest of `scf.for` over the iteration space whose innermost body
reads an element's indices and adds its gradient at that place. Run as a
loop, that is a Python iteration of eight ops per element: seconds for an
embedding table's gradient. The nest is recognized by its structure, not by
the op that made it, so the same loop written by hand runs the same way:

    scf.for %i0 = 0 to %n0 step 1 iter_args(%a0 = %init) {
      [arith.constant ...]                        (an inner loop's bounds)
      scf.for %i1 = 0 to N1 step 1 iter_args(%a1 = %a0) { ... }
      scf.yield ...
    }

around an innermost body of, per coordinate, `arith.index_cast` of
`tensor.extract %W[%i0, ..., %ik]` (or an induction variable itself, or an
`index` tensor's element), then `tensor.extract %a[coordinates]`, `tensor
.extract %V[%i0, ..., %ik]`, their `arith.addf`, `tensor.insert` of the sum at
the same coordinates, and `scf.yield` of it: nothing else, one carried f32
tensor, the inner bounds constants, and W and V defined outside the nest.

NumPy's `np.add.at` is unbuffered: it adds the values one at a time, in the
order of the (C-ordered) index array, each as `a[c] = a[c] + v` in float32.
That is the loop's order of iterations, row-major, and its float32 adds, so
duplicate indices accumulate in the same order and the result has the same
bits: IEEE addition is commutative, and exact up to the payload of a NaN when
two NaNs meet, which NumPy's loops pick differently (by operand order, and
by whether `add.at` indexes one dim or several). So whenever a run is not of
that form (a bound that is not 0..n by 1, an index out of range, a tensor
smaller than the iteration space, or a NaN among the values), the loop runs
as before and reports what it reports.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
from xdsl.dialects import arith, scf, tensor
from xdsl.dialects.builtin import Float32Type, IndexType, IntegerType, TensorType
from xdsl.ir import Operation, SSAValue

from gradopt.interpreter.scalar import constant

ENABLED = True
"""Whether plans run a recognized nest as one `np.add.at` (the tests compare
the bits of runs with and without)."""

Loop = Callable[..., object]
"""The kernel of a `scf.for`: `(lower, upper, step, *iter_args, *outer)`."""


class _Coordinate(NamedTuple):
    """Where the innermost body takes one coordinate of the accumulator:
    `read` from the outer value at position `at` (an element, at the
    induction variables), or else the induction variable at depth `at`."""

    read: bool
    at: int


@dataclass(frozen=True)
class _Nest:
    """A recognized nest: the trip counts of its inner loops, and what the
    innermost body reads (positions among the outer values)."""

    inner_trips: tuple[int, ...]
    coordinates: tuple[_Coordinate, ...]
    values: int
    """The outer value V whose elements are added."""


def _constant_int(value: SSAValue) -> int | None:
    owner = value.owner
    if isinstance(owner, arith.ConstantOp) and isinstance(value.type, IndexType):
        result = constant(owner)
        return result if isinstance(result, int) else None
    return None


def _carried_f32(loop: scf.ForOp) -> bool:
    """Whether `loop` carries one statically shaped f32 tensor of rank >= 1,
    its induction variable an `index`."""
    if len(loop.iter_args) != 1 or not isinstance(loop.lb.type, IndexType):
        return False
    type = loop.iter_args[0].type
    return (
        isinstance(type, TensorType)
        and isinstance(type.get_element_type(), Float32Type)
        and bool(type.get_shape())
        and all(d >= 0 for d in type.get_shape())
    )


def _from_zero_by_one(loop: scf.ForOp, outermost: bool) -> bool:
    """Whether `loop` runs from 0 by 1 to a constant; the outermost loop's
    bounds may instead be known only when it runs (and are checked then)."""
    lower, step = _constant_int(loop.lb), _constant_int(loop.step)
    if outermost:
        return lower in (0, None) and step in (1, None)
    return lower == 0 and step == 1 and _constant_int(loop.ub) is not None


def _loops(op: scf.ForOp) -> list[scf.ForOp] | None:
    """The loops of the nest `op` heads, outermost first, when each body
    but the innermost is constants, the next loop (carrying the body's
    carried value) and the yield of its result."""
    loops = [op]
    while _carried_f32(loop := loops[-1]) and _from_zero_by_one(loop, loop is op):
        block = loop.body.block
        inner = [o for o in block.ops if isinstance(o, scf.ForOp)]
        if not inner:
            return loops
        nested = inner[0]
        if len(inner) > 1 or tuple(nested.iter_args) != (block.args[1],):
            return None
        if not all(
            isinstance(o, arith.ConstantOp)
            or o is nested
            or (isinstance(o, scf.YieldOp) and tuple(o.operands) == tuple(nested.res))
            for o in block.ops
        ):
            return None
        loops.append(nested)
    return None


def _read_at(
    value: SSAValue, ivs: Sequence[SSAValue], outer: list[SSAValue]
) -> tensor.ExtractOp | None:
    """The `tensor.extract` that makes `value` if it reads an outer tensor
    at exactly the induction variables `ivs`, else None."""
    read = value.owner
    if (
        isinstance(read, tensor.ExtractOp)
        and read.tensor in outer
        and tuple(read.indices) == tuple(ivs)
    ):
        return read
    return None


def _coordinate(
    value: SSAValue, ivs: Sequence[SSAValue], outer: list[SSAValue]
) -> tuple[list[Operation], _Coordinate] | None:
    """How the innermost body computes one coordinate, and its ops."""
    if value in ivs:
        return [], _Coordinate(False, list(ivs).index(value))
    ops: list[Operation] = []
    if isinstance(cast := value.owner, arith.IndexCastOp):
        if not isinstance(cast.input.type, IntegerType):
            return None
        ops.append(cast)
        value = cast.input
    elif not isinstance(value.type, IndexType):
        return None
    read = _read_at(value, ivs, outer)
    if read is None:
        return None
    return [*ops, read], _Coordinate(True, outer.index(read.tensor))


def _recognized(op: scf.ForOp, outer: list[SSAValue]) -> _Nest | None:
    """The nest `op` heads, if its innermost body is the scatter-add (see the
    module's docstring) and nothing else."""
    loops = _loops(op)
    if loops is None:
        return None
    ivs = [loop.body.block.args[0] for loop in loops]
    block = loops[-1].body.block
    acc = block.args[1]
    done = block.last_op
    if not isinstance(done, scf.YieldOp) or len(done.operands) != 1:
        return None
    insert = done.operands[0].owner
    if not isinstance(insert, tensor.InsertOp) or insert.dest is not acc:
        return None
    add = insert.scalar.owner
    if not isinstance(add, arith.AddfOp):
        return None

    def running(value: SSAValue) -> tensor.ExtractOp | None:
        old = value.owner
        if (
            isinstance(old, tensor.ExtractOp)
            and old.tensor is acc
            and tuple(old.indices) == tuple(insert.indices)
        ):
            return old
        return None

    old, new = (add.rhs, add.lhs) if running(add.lhs) is None else (add.lhs, add.rhs)
    old, read = running(old), _read_at(new, ivs, outer)
    if old is None or read is None:
        return None
    ops: list[Operation] = [done, insert, add, old, read]
    coordinates: list[_Coordinate] = []
    for index in insert.indices:
        found = _coordinate(index, ivs, outer)
        if found is None:
            return None
        ops += found[0]
        coordinates.append(found[1])
    if set(ops) != set(block.ops):
        return None
    trips = tuple(max(0, _constant_int(loop.ub) or 0) for loop in loops[1:])
    return _Nest(trips, tuple(coordinates), outer.index(read.tensor))


def vectorized(op: scf.ForOp, outer: list[SSAValue], loop: Loop) -> Loop | None:
    """A kernel that runs the nest `op` heads as one `np.add.at`, falling back
    to `loop` (its kernel as a loop, taking the same operands: the bounds,
    the initial tensor, then the `outer` values) whenever a run is not of the
    recognized form; None if `op` does not head such a nest."""
    nest = _recognized(op, outer) if ENABLED else None
    if nest is None:
        return None

    def scatter_add(
        lower: int, upper: int, step: int, init: object, *values: object
    ) -> object:
        if lower != 0 or step != 1 or upper <= 0 or 0 in nest.inner_trips:
            return loop(lower, upper, step, init, *values)
        result = _scatter_added(nest, (upper, *nest.inner_trips), init, values)
        return loop(lower, upper, step, init, *values) if result is None else result

    return scatter_add


def _scatter_added(
    nest: _Nest, trips: tuple[int, ...], init: object, values: Sequence[object]
) -> np.ndarray | None:
    """`init` with the nest's values added at its coordinates, or None if a
    tensor is smaller than the iteration space `trips`, a coordinate is out
    of range, or a value is NaN (see the module's docstring). The adds go
    through one flat index, where NumPy takes its fast indexed loop."""
    region = tuple(slice(0, n) for n in trips)

    def covered(array: np.ndarray) -> bool:
        return all(s >= n for s, n in zip(array.shape, trips, strict=True))

    added = np.asarray(values[nest.values])
    if not covered(added):
        return None
    added = added[region]
    if np.isnan(added).any():
        return None
    result = np.array(init, order="C")
    flat: np.ndarray = np.zeros((), np.int64)
    for dim, coordinate in enumerate(nest.coordinates):
        if coordinate.read:
            where = np.asarray(values[coordinate.at])
            if not covered(where):
                return None
            index = where[region].astype(np.int64)
            if not (index.min() >= 0 and index.max() < result.shape[dim]):
                return None
        else:
            along = [-1 if d == coordinate.at else 1 for d in range(len(trips))]
            index = np.arange(trips[coordinate.at], dtype=np.int64).reshape(along)
        flat = flat * result.shape[dim] + index
    np.add.at(result.reshape(-1), np.broadcast_to(flat, trips).ravel(), added.ravel())
    return result
