"""The kernels of IREE's `iree_linalg_ext` ops (SPEC §10.5), whole-array
NumPy, never a Python loop per element:

- `scan` with an `arith.addf` body is `np.add.accumulate` along its
  dimension in float32: a sequential sum in the op's order (`out[i] =
  out[i-1] + x[i]`), whose bits NumPy's accumulate gives (it never sums
  pairwise, as `np.add.reduce` does; `tests/test_linalg_ext.py` checks it
  against the step-by-step fold). Any other body is folded along the
  dimension, one NumPy step per position over all the other dims at once.
- `sort` realizes its comparator as keys: a comparator that compares
  (`cmpf`/`cmpi`, less or greater) a function of one operand's element a
  with the same function of its element b (a plain `cmpf olt`, JAX's total
  order through `arith.bitcast`, a descending `cmpi sgt`) sorts by that
  function's value, computed on the whole operand; a chain `lt0 or (eq0 and
  rest)` sorts by several keys (an index tie-break). Each key is one
  `np.argsort(kind="stable")`, so ties keep their order. Any other
  comparator is refused with a located error.
- `scatter` computes the element each update lands on as index arrays; an
  `addf` (or other combining op) body is the ufunc's `at` (updates applied
  one by one in order), a body yielding the update assigns it, the last
  write to an element winning.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from xdsl.dialects import arith
from xdsl.dialects.linalg.ops import IndexOp
from xdsl.ir import Block, BlockArgument, Operation, SSAValue
from xdsl.traits import IsTerminator

from gradopt.autodiff.paths import captured
from gradopt.dialect.errors import OpError
from gradopt.dialect.upstream.iree_attention import AttentionOp
from gradopt.dialect.upstream.iree_linalg_ext import ScanOp, ScatterOp, SortOp
from gradopt.interpreter.attention import attention_kernel
from gradopt.interpreter.scalar import Value, constant, dtype_of, function_of

Kernel = Callable[..., Value]
Env = dict[SSAValue, Value]


def kernel_of(op: Operation) -> tuple[Kernel, list[SSAValue]] | None:
    """The kernel of an `iree_linalg_ext` op and the values it takes (its
    operands, then the outer values its body reads), None for another op."""
    if isinstance(op, ScanOp):
        return _scan(op), [*op.operands, *captured(op)]
    if isinstance(op, SortOp):
        return _sort(op), [*op.outputs, *captured(op)]
    if isinstance(op, ScatterOp):
        return _scatter(op), list(op.operands)
    if isinstance(op, AttentionOp):
        return attention_kernel(op), list(op.operands)
    return None


def block_program(
    op: Operation, block: Block, index: Callable[[int], Value] | None = None
) -> Callable[[Env], None]:
    """Runs the ops of `block` (but its terminator) on whole arrays, adding
    each result to the environment; `index(d)` is what `linalg.index d`
    gives. An op that is not an `arith`/`math` op is a located error."""
    steps: list[Callable[[Env], None]] = []
    for inner in block.ops:
        if inner.has_trait(IsTerminator):
            continue
        result = inner.results[0] if len(inner.results) == 1 else None
        if isinstance(inner, arith.ConstantOp) and result is not None:
            value = constant(inner)
            steps.append(lambda env, r=result, v=value: env.__setitem__(r, v))
        elif isinstance(inner, IndexOp) and index is not None:
            dim = inner.dim.value.data
            steps.append(
                lambda env, r=inner.result, d=dim: env.__setitem__(r, index(d))
            )
        elif (function := function_of(inner)) is not None and result is not None:
            operands = tuple(inner.operands)
            steps.append(
                lambda env, r=result, f=function, ops=operands: env.__setitem__(
                    r, f(*(env[v] for v in ops))
                )
            )
        else:
            raise OpError(op, f"cannot be run: its body holds '{inner.name}'")

    def run(env: Env) -> None:
        for step in steps:
            step(env)

    return run


def arguments_read(value: SSAValue, block: Block) -> set[BlockArgument]:
    """The arguments of `block` that `value` is computed from."""
    found: set[BlockArgument] = set()
    todo, seen = [value], set()
    while todo:
        v = todo.pop()
        if v in seen:
            continue
        seen.add(v)
        if isinstance(v, BlockArgument) and v.block is block:
            found.add(v)
        elif isinstance(v.owner, Operation) and v.owner.parent_block() is block:
            todo.extend(v.owner.operands)
    return found


def _yielded(block: Block) -> SSAValue:
    terminator = block.last_op
    assert terminator is not None
    return terminator.operands[0]


def _is_sum(value: SSAValue, a: SSAValue, b: SSAValue) -> bool:
    owner = value.owner
    return isinstance(owner, arith.AddfOp) and {owner.lhs, owner.rhs} == {a, b}


# --- scan ------------------------------------------------------------------------


def _scan(op: ScanOp) -> Kernel:
    block, axis, inclusive = op.region.block, op.dim, op.is_inclusive
    previous, element = block.args
    yielded = _yielded(block)
    outer = captured(op)
    dtype = dtype_of(op.input.type, op)
    summed = inclusive and _is_sum(yielded, previous, element)
    program = block_program(op, block)

    def kernel(x: Value, _: Value, acc: Value, *values: Value) -> Value:
        x = np.asarray(x)
        count = x.shape[axis]
        if summed:
            out = np.add.accumulate(x, axis=axis, dtype=dtype)
        else:
            out = np.empty(x.shape, dtype)
            steps, xs = np.moveaxis(out, axis, 0), np.moveaxis(x, axis, 0)
            env: Env = dict(zip(outer, values, strict=True))
            if count:
                steps[0] = xs[0] if inclusive else acc
            for i in range(1, count):
                env[previous], env[element] = (
                    steps[i - 1],
                    xs[i if inclusive else i - 1],
                )
                program(env)
                steps[i] = env[yielded]
        last = np.take(out, count - 1, axis=axis) if count else np.asarray(acc)
        return out, np.array(last, dtype)

    return kernel


# --- sort ------------------------------------------------------------------------

_INTEGER = ("eq", "ne", "slt", "sle", "sgt", "sge", "ult", "ule", "ugt", "uge")
_FLOAT = (
    *("false", "oeq", "ogt", "oge", "olt", "ole", "one", "ord"),
    *("ueq", "ugt", "uge", "ult", "ule", "une", "uno", "true"),
)
_STRICT = {"slt", "sgt", "ult", "ugt", "olt", "ogt"}
_EQUAL = {"eq", "oeq", "ueq"}


@dataclass(frozen=True)
class _Key:
    """One comparison of the comparator: `lhs` (a function of element a of
    operand `operand`) against `rhs` (the same function of element b)."""

    lhs: SSAValue
    rhs: SSAValue
    descending: bool
    unsigned: bool


def _comparison(value: SSAValue) -> tuple[SSAValue, SSAValue, str] | None:
    owner = value.owner
    if isinstance(owner, arith.CmpiOp):
        return owner.lhs, owner.rhs, _INTEGER[owner.predicate.value.data]
    if isinstance(owner, arith.CmpfOp):
        return owner.lhs, owner.rhs, _FLOAT[owner.predicate.value.data]
    return None


def _key(block: Block, value: SSAValue) -> _Key | None:
    """`value` as a strict comparison of a key of element a with the same
    key of element b (of one operand), or None."""
    found = _comparison(value)
    if found is None or found[2] not in _STRICT:
        return None
    lhs, rhs, predicate = found
    left, right = arguments_read(lhs, block), arguments_read(rhs, block)
    if len(left) != 1 or len(right) != 1:
        return None
    (a,), (b,) = left, right
    if a.index // 2 != b.index // 2 or a.index == b.index:
        return None
    descending = predicate in ("sgt", "ugt", "ogt")
    if a.index % 2:  # b's key compared with a's: the order turns around
        lhs, rhs, descending = rhs, lhs, not descending
    unsigned = isinstance(value.owner, arith.CmpiOp) and predicate.startswith("u")
    return _Key(lhs, rhs, descending, unsigned)


def _keys(block: Block, value: SSAValue) -> list[_Key] | None:
    """The keys a comparator sorts by, most significant first: one strict
    comparison, or `lt0 or (eq0 and rest)` (in any operand order)."""
    if (key := _key(block, value)) is not None:
        return [key]
    owner = value.owner
    if not isinstance(owner, arith.OrIOp):
        return None
    for first, rest in ((owner.lhs, owner.rhs), (owner.rhs, owner.lhs)):
        key, both = _key(block, first), rest.owner
        if key is None or not isinstance(both, arith.AndIOp):
            continue
        for equal, tail in ((both.lhs, both.rhs), (both.rhs, both.lhs)):
            found = _comparison(equal)
            if found is None or found[2] not in _EQUAL:
                continue
            if {found[0], found[1]} != {key.lhs, key.rhs}:
                continue
            if (more := _keys(block, tail)) is not None:
                return [key, *more]
    return None


def _ascending(key: np.ndarray, spec: _Key, is_float: bool) -> np.ndarray:
    """`key` as values whose ascending order is the comparator's."""
    if not is_float:
        unsigned = key.view(f"uint{key.dtype.itemsize * 8}") if spec.unsigned else key
        key = unsigned.astype(np.int64)
    return -key if spec.descending else key


def _sort(op: SortOp) -> Kernel:
    block, axis, count = op.region.block, op.dim, len(op.outputs)
    keys = _keys(block, _yielded(block))
    if keys is None:
        raise OpError(
            op,
            "cannot be run: its comparator must compare (cmpf/cmpi lt or gt) a "
            "function of an operand's element a with the same function of its "
            "element b, or chain such comparisons as 'lt0 or (eq0 and lt1)'",
        )
    outer = captured(op)
    program = block_program(op, block)

    def kernel(*values: Value) -> Value:
        arrays = [np.asarray(v) for v in values[:count]]
        env: Env = dict(zip(outer, values[count:], strict=True))
        for k, array in enumerate(arrays):
            env[block.args[2 * k]] = env[block.args[2 * k + 1]] = array
        program(env)
        shape = arrays[0].shape
        order: np.ndarray | None = None
        for spec in reversed(keys):
            key = np.broadcast_to(np.asarray(env[spec.lhs]), shape)
            other = np.broadcast_to(np.asarray(env[spec.rhs]), shape)
            if key.tobytes() != other.tobytes():
                raise OpError(
                    op,
                    "cannot be run: its comparator compares different functions "
                    "of elements a and b",
                    at_run_time=True,
                )
            key = _ascending(key, spec, key.dtype.kind == "f")
            if order is None:
                order = np.argsort(key, axis=axis, kind="stable")
            else:
                moved = np.take_along_axis(key, order, axis)
                step = np.argsort(moved, axis=axis, kind="stable")
                order = np.take_along_axis(order, step, axis)
        assert order is not None
        sorted_ = tuple(np.take_along_axis(a, order, axis) for a in arrays)
        return sorted_ if count > 1 else sorted_[0]

    return kernel


# --- scatter ---------------------------------------------------------------------


def scatter_positions(
    op: ScatterOp,
    indices: np.ndarray,
    updates: tuple[int, ...],
    original: tuple[int, ...],
) -> tuple[np.ndarray, ...]:
    """For each element of the updates, the index of the element of the
    original it lands on (one array per dim of the original, each of the
    updates' shape); out of range is a run-time error."""
    batch = op.batch_rank
    window = updates[batch:]
    offset = len(original) - len(window)
    coordinates: list[np.ndarray | None] = [None] * len(original)
    for j, grid in enumerate(np.indices(window, sparse=True)):
        coordinates[offset + j] = grid.reshape((1,) * batch + grid.shape)
    picked = np.asarray(indices).astype(np.int64)
    for k, dim in enumerate(op.dims):
        at = picked[..., k].reshape(picked.shape[:-1] + (1,) * len(window))
        known = coordinates[dim]
        coordinates[dim] = at if known is None else at + known
    result = []
    for dim, (where, size) in enumerate(zip(coordinates, original, strict=True)):
        assert where is not None  # the verifier: every dim is indexed or sliced
        where = np.broadcast_to(where, updates)
        if where.size and (where.min() < 0 or where.max() >= size):
            bad = int(where.min() if where.min() < 0 else where.max())
            raise OpError(
                op,
                f"scatters to index {bad} of dim {dim}, of size {size}",
                at_run_time=True,
            )
        result.append(where)
    return tuple(result)


def _combiner(op: ScatterOp) -> np.ufunc | None:
    """The ufunc the body applies as `f(current, update)`, None for a body
    that yields the update."""
    update, current = op.region.block.args
    value = _yielded(op.region.block)
    if value is update:
        return None
    owner = value.owner
    function = function_of(owner) if isinstance(owner, Operation) else None
    if isinstance(owner, Operation) and isinstance(function, np.ufunc):
        operands = list(owner.operands)
        commutes = function in (np.add, np.multiply)
        if operands == [current, update] or (
            commutes and operands == [update, current]
        ):
            return function
    raise OpError(
        op,
        "cannot be run: its body must yield the update, or combine the current "
        "element with it by one op (arith.addf %cur, %upd, ...)",
    )


def _scatter(op: ScatterOp) -> Kernel:
    combine = _combiner(op)

    def kernel(updates: Value, indices: Value, original: Value) -> Value:
        updates, out = np.asarray(updates), np.array(original, copy=True)
        where = scatter_positions(op, indices, updates.shape, out.shape)
        if combine is not None:
            combine.at(out, where, updates)
            return out
        flat = np.ravel_multi_index(where, out.shape).ravel()
        last = flat.size - 1 - np.unique(flat[::-1], return_index=True)[1]
        out.flat[flat[last]] = updates.ravel()[last]
        return out

    return kernel
