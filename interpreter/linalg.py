"""`linalg` on tensors run as whole-array NumPy expressions (SPEC §10.4).

A structured op (`linalg.generic`, and every named op through its indexing
maps and hidden body) is compiled once, when its function is planned, into a
function of its operand arrays:

- Each operand is seen in the op's iteration space (one axis per loop) with
  no copy: a projected permutation map (`(d0, d1, d2) -> (d2, 0)`) is a
  transpose, an index and new size-1 axes to broadcast over; any other map
  whose results are sums of `c * d_i` and constants (a window,
  `d1 * 2 + d4`; a reversal, `4 - d0`) is a strided view of the operand,
  checked once to stay inside it.
- The body runs once, on those whole arrays: each `arith`/`math` op is its
  NumPy function (`interpreter.scalar`), `linalg.index` is an index array
  along its loop, `tensor.extract` a gather by index arrays.
- A parallel result is the yielded array, transposed to the output's layout.
  A reduction result must be `acc = op(acc, e)` for a combining op (`addf`,
  `maximumf`, ...) and an `e` that does not read `acc`: `e` over the whole
  iteration space, made C-contiguous, reduced by one NumPy reduction over
  the reduction loops, then combined with the init. A contraction
  (`acc + a * b`, as `matmul` and the convolutions are) is one `np.matmul` of
  the operands laid out as (batch, rows, inner) and (batch, inner, columns),
  as `grad.dot` computes it, the rows those of the operand that has the
  output's first dim (so the product comes out in the output's layout).
- A result that is always a new array (a reduction's, or a ufunc's of the
  body along every loop) is *owned* (`interpreter.owned`): the executor may
  write later results over it, and passes the op an input that dies there,
  read through the identity map, for the body to write over. A generic that
  only copies an input is no step at all (`identity_input`).

Nothing loops over elements in Python. What cannot be done this way (a map
with `mod` or `floordiv`, a reduction body of another form, a dynamic shape)
is a located error naming the op, when the function is planned.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Protocol

import numpy as np
from numpy.lib.stride_tricks import as_strided
from xdsl.dialects import arith, cf, tensor
from xdsl.dialects.builtin import (
    DenseIntOrFPElementsAttr,
    FloatAttr,
    IntegerAttr,
    ShapedType,
    f32,
)
from xdsl.dialects.linalg.abstract_ops import LinalgStructuredOperation
from xdsl.dialects.linalg.attrs import IteratorType
from xdsl.dialects.linalg.ops import FillOp, IndexOp
from xdsl.ir import Block, BlockArgument, Operation, SSAValue
from xdsl.ir.affine import (
    AffineBinaryOpExpr,
    AffineBinaryOpKind,
    AffineConstantExpr,
    AffineDimExpr,
    AffineExpr,
    AffineMap,
)
from xdsl.traits import IsTerminator

from gradopt.autodiff.paths import captured
from gradopt.dialect.errors import OpError
from gradopt.dialect.kernels import contiguous, select_bits, select_or_zero
from gradopt.dialect.ops.elementwise import SELECT_BITS_FROM
from gradopt.dialect.upstream.linalg import MapOp
from gradopt.interpreter.owned import Owned
from gradopt.interpreter.scalar import (
    REDUCTIONS,
    Value,
    constant,
    dtype_of,
    function_of,
)

Kernel = Callable[..., Value]

Viewer = Callable[[np.ndarray], np.ndarray]
"""Sees an operand in the iteration space of a structured op."""


# --- operands in the iteration space -----------------------------------------


@dataclass(frozen=True)
class _Linear:
    """One map result as `constant + sum(coefficients[d] * d)`."""

    coefficients: dict[int, int]
    constant: int


def _linear(op: Operation, expr: AffineExpr, map: AffineMap) -> _Linear:
    """`expr` as a linear form of the dims, or an error naming the map."""
    if isinstance(expr, AffineDimExpr):
        return _Linear({expr.position: 1}, 0)
    if isinstance(expr, AffineConstantExpr):
        return _Linear({}, expr.value)
    if isinstance(expr, AffineBinaryOpExpr):
        lhs, rhs = _linear(op, expr.lhs, map), _linear(op, expr.rhs, map)
        if expr.kind == AffineBinaryOpKind.Add:
            dims = dict(lhs.coefficients)
            for d, c in rhs.coefficients.items():
                dims[d] = dims.get(d, 0) + c
            return _Linear(dims, lhs.constant + rhs.constant)
        if expr.kind == AffineBinaryOpKind.Mul and not (
            lhs.coefficients and rhs.coefficients
        ):
            factor, form = (lhs, rhs) if not lhs.coefficients else (rhs, lhs)
            scale = factor.constant
            return _Linear(
                {d: c * scale for d, c in form.coefficients.items()},
                form.constant * scale,
            )
    raise OpError(
        op,
        f"cannot be run: its indexing map {map} is not a projected permutation "
        f"nor a sum of dims times constants",
    )


def _is_projection(forms: Sequence[_Linear]) -> bool:
    """Each result a distinct dim, or a constant."""
    dims = [d for f in forms for d in f.coefficients]
    return len(dims) == len(set(dims)) and all(
        (not f.coefficients and f.constant >= 0)
        or (f.constant == 0 and list(f.coefficients.values()) == [1])
        for f in forms
    )


def _viewer(
    op: Operation, map: AffineMap, loops: Sequence[int], shape: Sequence[int] | None
) -> Viewer:
    """The function that sees an operand of `shape`, read through `map`, in
    the iteration space of `loops` (axes of size 1 for the loops it does not
    depend on); a scalar operand (no shape) is seen as it is."""
    if shape is None:
        return lambda value: value
    forms = [_linear(op, r, map) for r in map.results]
    count = len(loops)
    if _is_projection(forms):
        index = tuple(f.constant if not f.coefficients else slice(None) for f in forms)
        dims = [next(iter(f.coefficients)) for f in forms if f.coefficients]
        order = tuple(np.argsort(dims))
        expanded = [1] * count
        for d in dims:
            expanded[d] = loops[d]
        identity = index == (slice(None),) * len(forms) and dims == list(range(count))
        if identity:
            return lambda array: array
        return lambda array: np.asarray(array)[index].transpose(order).reshape(expanded)
    for axis, (form, size) in enumerate(zip(forms, shape, strict=True)):
        low = form.constant + sum(
            min(0, c * (loops[d] - 1)) for d, c in form.coefficients.items()
        )
        high = form.constant + sum(
            max(0, c * (loops[d] - 1)) for d, c in form.coefficients.items()
        )
        if math.prod(loops) and not 0 <= low <= high < size:
            raise OpError(
                op,
                f"reads operand dim {axis} of size {size} at {low}..{high} "
                f"through {map}",
            )
    read = {d for f in forms for d in f.coefficients}
    view_shape = tuple(n if d in read else 1 for d, n in enumerate(loops))

    def view(array: np.ndarray) -> np.ndarray:
        array = np.asarray(array)
        if not array.size:
            return np.zeros(view_shape, array.dtype)
        strides = [0] * count
        for form, stride in zip(forms, array.strides, strict=True):
            for d, c in form.coefficients.items():
                strides[d] += c * stride
        base = array[tuple(slice(f.constant, f.constant + 1) for f in forms)]
        return as_strided(base, view_shape, strides, writeable=False)

    return view


# --- the body ------------------------------------------------------------------


Env = dict[SSAValue, Value]


class Body(Protocol):
    """A body compiled by `body_program`: runs on the arrays in `env`, adding
    its values there; `out` is the array of an operand that the body may
    write over (one of its `writable` block arguments), or None."""

    def __call__(self, env: Env, out: np.ndarray | None = None) -> None: ...


Step = Callable[[Env, "np.ndarray | None"], None]


def body_program(
    op: Operation,
    block: Block,
    loops: Sequence[int],
    skip: set[Operation],
    writable: Collection[BlockArgument] = (),
) -> Body:
    """A function that runs the body's ops (but those in `skip`) on whole
    arrays, adding each result to the environment. An op computed by a NumPy
    ufunc writes its result over an operand that an earlier ufunc of the
    body made and nothing reads later (as NumPy's own expressions reuse
    their temporaries): a chain of ops keeps one array alive, not one each.

    It may also write over the array of a `writable` block argument, when
    the run passes that array as `out` (an operand of the op that dies
    there, see `interpreter.owned`): the last op to read the argument does,
    if it reads it and nothing reads it after the body."""
    ops = [o for o in block.ops if o not in skip and not o.has_trait(IsTerminator)]
    last: dict[SSAValue, Operation] = {}
    for inner in ops:
        last.update(dict.fromkeys(inner.operands, inner))
    # read once the body has run: by the yield, or by a reduction's results
    kept = {v for o in block.ops if o not in ops for v in o.operands}
    made = {
        o.results[0]
        for o in ops
        if len(o.results) == 1 and _takes_out(_selector(o, loops) or function_of(o))
    }
    steps: list[Step] = []
    count = len(loops)
    for inner in ops:
        reusable, given = (
            ()
            if not inner.results  # a `cf.assert`
            else tuple(
                i
                for i, v in enumerate(inner.operands)
                if v in values
                and v not in kept
                and last[v] is inner
                and v.type == inner.results[0].type
            )
            for values in (made, writable)
        )
        steps.append(_body_step(op, inner, loops, count, reusable, given))

    def run(env: Env, out: np.ndarray | None = None) -> None:
        for step in steps:
            step(env, out)

    return run


def _body_step(
    op: Operation,
    inner: Operation,
    loops: Sequence[int],
    count: int,
    reusable: tuple[int, ...],
    given: tuple[int, ...],
) -> Step:
    """The step of `inner`; it writes over the operands at `reusable` (the
    body's own temporaries) or, if the run passes the array of the operand
    at `given` as `out`, over that one, when the result has its shape."""
    if isinstance(inner, cf.AssertOp):
        condition, message = inner.arg, inner.msg.data

        def check(env: Env, out: np.ndarray | None) -> None:
            if not np.all(env[condition]):
                raise OpError(inner, f"failed: {message}", at_run_time=True)

        return check
    result = inner.results[0] if len(inner.results) == 1 else None
    if result is None:
        raise OpError(inner, "cannot be run in a linalg body: it has no single result")
    if isinstance(inner, IndexOp):
        dim = inner.dim.value.data
        shape = [1] * count
        shape[dim] = loops[dim]
        indices = np.arange(loops[dim], dtype=np.int64).reshape(shape)
        indices.flags.writeable = False

        def index(env: Env, out: np.ndarray | None) -> None:
            env[result] = indices

        return index
    if isinstance(inner, arith.ConstantOp):
        value = constant(inner)

        def literal(env: Env, out: np.ndarray | None) -> None:
            env[result] = value

        return literal
    if isinstance(inner, tensor.ExtractOp):
        source, indices = inner.tensor, tuple(inner.indices)
        shape = _shape(source)

        def gather(env: Env, out: np.ndarray | None) -> None:
            at = tuple(env[i] for i in indices)
            for axis, (where, size) in enumerate(zip(at, shape, strict=True)):
                if np.any(np.less(where, 0)) or np.any(np.greater_equal(where, size)):
                    raise OpError(
                        inner,
                        f"reads index {int(np.max(where))} of dim {axis}, of size "
                        f"{size}",
                        at_run_time=True,
                    )
            env[result] = np.asarray(env[source])[at]

        return gather
    function = _selector(inner, loops) or function_of(inner)
    if function is None:
        raise OpError(op, f"cannot be run: its body holds '{inner.name}'")
    operands = tuple(inner.operands)
    if not _takes_out(function) or (
        isinstance(inner, arith.SelectOp) and inner.lhs is inner.rhs
    ):  # bits are selected from both sides before either is written
        reusable = given = ()

    def apply(env: Env, out: np.ndarray | None) -> None:
        values = [env[v] for v in operands]
        for i in reusable:
            target = values[i]
            shape = np.broadcast_shapes(*(np.shape(v) for v in values))
            if isinstance(target, np.ndarray) and target.shape == shape:
                env[result] = function(*values, out=target)
                return
        if out is not None:
            for i in given:
                if values[i] is out and out.shape == np.broadcast_shapes(
                    *(np.shape(v) for v in values)
                ):
                    env[result] = function(*values, out=out)
                    return
        env[result] = function(*values)

    return apply


def _selector(inner: Operation, loops: Sequence[int]) -> Kernel | None:
    """The kernel of an `arith.select` of 4-byte values over at least
    `SELECT_BITS_FROM` elements: it selects bits, as `grad.where` does (one
    multiply where a side is a literal of zero bits), the bits `np.where`
    takes without its branch on each element. None for any other op."""
    if not isinstance(inner, arith.SelectOp) or math.prod(loops) < SELECT_BITS_FROM:
        return None
    dtype = dtype_of(inner.result.type, inner)
    if dtype.itemsize != 4:
        return None
    zero = [i for i in (1, 2) if _zero_bits(inner.operands[i], dtype) is not None]
    if len(zero) == 1:
        return partial(select_or_zero, dtype=dtype.type, zero=zero[0])
    return partial(_select_bits, bits=np.dtype(f"i{dtype.itemsize}"), dtype=dtype)


def _select_bits(
    condition: Value,
    on_true: Value,
    on_false: Value,
    out: np.ndarray | None = None,
    *,
    bits: np.dtype,
    dtype: np.dtype,
) -> Value:
    """`kernels.select_bits` for operands that broadcast to the condition's
    shape (a body's values need not have the iteration space's shape):
    `b ^ ((a ^ b) * c)`, the bits of `a` where `c`, else those of `b`."""
    if out is not None:  # of the whole shape: the selecting kernel's own way
        return select_bits(condition, on_true, on_false, out, dtype=dtype.type)
    low = np.asarray(on_false).view(bits)
    high = np.asarray(on_true).view(bits)
    selected = np.multiply(np.bitwise_xor(high, low), condition)
    out = selected if isinstance(selected, np.ndarray) else None
    return np.bitwise_xor(selected, low, out=out).view(dtype)


def _takes_out(function: Kernel | None) -> bool:
    """Whether `function` can write its result into an operand (`out=`): a
    ufunc, or a bit-selecting `arith.select`, which reads each element of
    its operands before it writes it."""
    if isinstance(function, partial):
        return function.func in (select_or_zero, _select_bits)
    return isinstance(function, np.ufunc)


def _shape(value: SSAValue) -> tuple[int, ...]:
    type = value.type
    assert isinstance(type, ShapedType)
    return tuple(type.get_shape())


def _depends_on(value: SSAValue, argument: BlockArgument, block: Block) -> bool:
    """Whether `value` is computed from `argument` inside `block`."""
    todo, seen = [value], set[SSAValue]()
    while todo:
        v = todo.pop()
        if v is argument:
            return True
        if v in seen:
            continue
        seen.add(v)
        owner = v.owner
        if isinstance(owner, Operation) and owner.parent_block() is block:
            todo.extend(owner.operands)
    return False


# --- results -------------------------------------------------------------------


@dataclass(frozen=True)
class _Reduction:
    """Result `j` = `combine(init, reduce(e))`."""

    combine: Kernel
    reduce: Callable[[np.ndarray, tuple[int, ...]], np.ndarray]
    operand: SSAValue
    op: Operation


def _reduction_of(
    op: Operation, block: Block, value: SSAValue, accumulator: BlockArgument
) -> _Reduction | None:
    """How a reduction body yields `value` from its accumulator, or None when
    `value` is the accumulator itself (the init passes through)."""
    if value is accumulator:
        return None
    owner = value.owner
    reduce = REDUCTIONS.get(type(owner)) if isinstance(owner, Operation) else None
    if isinstance(owner, Operation) and reduce is not None:
        lhs, rhs = owner.operands
        other = rhs if lhs is accumulator else lhs if rhs is accumulator else None
        if other is not None and not _depends_on(other, accumulator, block):
            combine = function_of(owner)
            assert combine is not None
            return _Reduction(combine, reduce, other, owner)
    raise OpError(
        op,
        "cannot be run: a reduction must yield 'op(acc, e)' for a combining op "
        "(arith.addf, mulf, maximumf, minimumf, maxnumf, minnumf, addi, muli, "
        "maxsi, minsi, andi, ori, xori) and an 'e' that does not read 'acc'",
    )


def _contraction_of(
    block: Block, reduction: _Reduction, inputs: int
) -> tuple[int, int] | None:
    """The positions of inputs `a` and `b` of a body `acc + a * b` (f32),
    which runs as a matrix product."""
    if not isinstance(reduction.op, arith.AddfOp):
        return None
    product = reduction.operand.owner
    if not isinstance(product, arith.MulfOp) or product.parent_block() is not block:
        return None
    lhs, rhs = product.operands
    positions = [
        v.index
        for v in (lhs, rhs)
        if isinstance(v, BlockArgument) and v.block is block and v.index < inputs
    ]
    if len(positions) != 2 or positions[0] == positions[1]:
        return None
    if any(block.args[i].type != f32 for i in positions):
        return None
    return positions[0], positions[1]


def _contract(
    a: np.ndarray,
    b: np.ndarray,
    dims_a: Sequence[int],
    dims_b: Sequence[int],
    layout: Sequence[int],
    loops: Sequence[int],
) -> np.ndarray:
    """sum over the dims not in `layout` of a * b, each operand given over
    its own dims (in increasing order); the result over the dims of
    `layout` in increasing order, broadcast where neither operand has a dim.

    The product is laid out as the output is (`layout`, its axes as loops):
    its rows are the dims of whichever operand has the output's first dim
    that is not a batch dim. So `x^T g` into a `(d2, d1)` output is computed
    as `grad.dot` computes it, row-major, not as `(g^T x)^T`."""
    set_a, set_b = set(dims_a), set(dims_b)
    batch = [d for d in layout if d in set_a and d in set_b]
    first = next((d for d in layout if d not in batch and d in set_a | set_b), None)
    if first is not None and first not in set_a:
        a, b, dims_a, dims_b, set_a, set_b = b, a, dims_b, dims_a, set_b, set_a
    set_out = set(layout)
    rows = [d for d in layout if d in set_a and d not in set_b]
    columns = [d for d in layout if d in set_b and d not in set_a]
    inner = [d for d in dims_a if d in set_b and d not in set_out]
    only_a = [d for d in dims_a if d not in set_b and d not in set_out]
    only_b = [d for d in dims_b if d not in set_a and d not in set_out]
    if only_a:
        a = np.add.reduce(
            np.ascontiguousarray(a), tuple(dims_a.index(d) for d in only_a), a.dtype
        )
        dims_a = [d for d in dims_a if d not in only_a]
    if only_b:
        b = np.add.reduce(
            np.ascontiguousarray(b), tuple(dims_b.index(d) for d in only_b), b.dtype
        )
        dims_b = [d for d in dims_b if d not in only_b]

    def size(dims: Sequence[int]) -> int:
        return math.prod(loops[d] for d in dims)

    left = np.transpose(a, [dims_a.index(d) for d in (*batch, *rows, *inner)])
    right = np.transpose(b, [dims_b.index(d) for d in (*batch, *inner, *columns)])
    left = contiguous(left).reshape(size(batch), size(rows), size(inner))
    right = contiguous(right).reshape(size(batch), size(inner), size(columns))
    # a single product as `grad.dot` computes it: one 2-D matmul
    product = np.matmul(left, right) if batch else np.matmul(left[0], right[0])
    order = [*batch, *rows, *columns]
    product = product.reshape([loops[d] for d in order])
    product = np.transpose(product, [order.index(d) for d in sorted(order)])
    shape = [loops[d] if d in order else 1 for d in sorted(layout)]
    return product.reshape(shape)


# --- the kernel ----------------------------------------------------------------


def map_kernel(op: MapOp) -> tuple[Kernel, list[SSAValue]]:
    """`linalg.map`: its body on the whole input arrays (of one shape)."""
    block, shape = op.mapper.block, _shape(op.init)
    for value in (*op.inputs, op.init):
        if any(d < 0 for d in _shape(value)):
            raise OpError(op, "cannot be run: dynamic shapes are not supported")
    body = body_program(op, block, shape, set())
    terminator = block.last_op
    assert terminator is not None
    (yielded,) = terminator.operands
    dtype, outer, count = dtype_of(op.init.type, op), captured(op), len(op.inputs)

    def kernel(*values: Value) -> np.ndarray:
        env: Env = dict(zip(block.args, values[: count + 1], strict=False))
        env.update(zip(outer, values[count + 1 :], strict=True))
        body(env)
        return np.asarray(np.broadcast_to(env[yielded], shape)).astype(
            dtype, copy=False
        )

    return kernel, [*op.inputs, op.init, *outer]


def _loop_ranges(op: LinalgStructuredOperation) -> tuple[int, ...]:
    for operand in op.operands:
        type = operand.type
        if isinstance(type, ShapedType) and any(d < 0 for d in type.get_shape()):
            raise OpError(op, "cannot be run: dynamic shapes are not supported")
    try:
        return tuple(op.get_static_loop_ranges())
    except (NotImplementedError, ValueError, IndexError):
        raise OpError(
            op, "cannot be run: its loop ranges cannot be read off its operands"
        ) from None


@dataclass(frozen=True)
class Structured:
    """A structured op prepared for running: the block arguments its body
    reads with the viewers that see their operands in the iteration space,
    the outer values the body reads, the body, and how each result is made
    from the operand values and the body's arrays."""

    op: LinalgStructuredOperation
    loops: tuple[int, ...]
    views: tuple[tuple[BlockArgument, Viewer], ...]
    outer: tuple[SSAValue, ...]
    body: Body
    results: tuple[_Result, ...]
    span: frozenset[int]
    """The loops along which the array that the body yields (the first)
    varies (see `_spans`)."""
    owned: bool
    """Whether its one result is a new array of rank >= 1 that nothing else
    refers to (see `interpreter.owned`)."""
    writable: tuple[BlockArgument, ...]
    """The block arguments whose arrays the body may write over (`out`)."""

    def finish(self, values: Sequence[Value], env: Env) -> Value:
        """The op's result (a tuple for several) once its body has run."""
        if len(self.results) == 1:
            return self.results[0].compute(values, env)
        return tuple(r.compute(values, env) for r in self.results)


def prepare(
    op: LinalgStructuredOperation,
    writable: Collection[BlockArgument] = (),
    fed: Mapping[BlockArgument, frozenset[int]] | None = None,
) -> Structured:
    """`op` prepared for running; an `OpError` for a form this module does
    not run. `writable`: the block arguments that may be written over if
    the result is owned (candidates from `writable_inputs`); `fed`: the
    spans of the block arguments that an earlier op of a fused chain gives
    their arrays as they are (`interpreter.fusion`)."""
    if not op.res:
        raise OpError(op, "cannot be run: only linalg on tensors runs, not on memrefs")
    maps = [m.data for m in op.get_indexing_maps()]
    loops = _loop_ranges(op)
    reductions = tuple(
        d
        for d, kind in enumerate(op.get_iterator_types())
        if kind.data == IteratorType.REDUCTION
    )
    block = op.body.block
    inputs, operands = len(op.inputs), [*op.inputs, *op.outputs]
    viewers = [
        _viewer(op, m, loops, _shape(v) if isinstance(v.type, ShapedType) else None)
        for m, v in zip(maps, operands, strict=True)
    ]
    terminator = block.last_op
    assert terminator is not None
    results = tuple(
        _result(op, j, value, maps, loops, reductions, inputs, viewers)
        for j, value in enumerate(terminator.operands)
    )
    skip = {o for r in results for o in r.skipped}
    read = {
        a: frozenset(
            d
            for r in maps[a.index].results
            for d in _linear(op, r, maps[a.index]).coefficients
        )
        if isinstance(operands[a.index].type, ShapedType)
        else frozenset()
        for a in block.args
    }
    spans = _spans(block, {**read, **(fed or {})})
    span = spans.get(terminator.operands[0], frozenset()) if results else frozenset()
    owned = len(results) == 1 and _owned(results[0], span, loops, skip, block)
    writable = tuple(writable) if owned else ()
    body = body_program(op, block, loops, skip, writable)
    views = tuple((a, viewers[a.index]) for a in block.args if a.uses)
    return Structured(
        op, loops, views, tuple(captured(op)), body, results, span, owned, writable
    )


def _spans(
    block: Block, read: Mapping[BlockArgument, frozenset[int]]
) -> dict[SSAValue, frozenset[int]]:
    """The loops along which each value of the body varies (its array has
    their sizes on those axes and 1 on the others): a block argument along
    those in `read` (the loops its map reads, or for one fed by an earlier
    op of a fused chain, those of that op's array), `linalg.index d` along
    d, a literal or an outer value along none, any other op along those of
    its operands."""
    spans: dict[SSAValue, frozenset[int]] = {a: span for a, span in read.items()}
    for inner in block.ops:
        if isinstance(inner, IndexOp):
            span = frozenset((inner.dim.value.data,))
        else:
            span = frozenset().union(
                *(spans.get(v, frozenset()) for v in inner.operands)
            )
        spans.update(dict.fromkeys(inner.results, span))
    return spans


def _owned(
    result: _Result,
    span: frozenset[int],
    loops: Sequence[int],
    skip: set[Operation],
    block: Block,
) -> bool:
    """Whether `result` is always a new array of rank >= 1 that nothing else
    refers to: a reduction's (a NumPy reduction or matrix product, combined
    with the init by a ufunc or a function that makes a new array), or a
    parallel result that a ufunc of the body (or a bit-selecting select)
    computes along every loop, so that it is no broadcast."""
    if not result.shape:
        return False
    if result.reduction is not None:
        return True
    if result.reductions:  # the init passes through
        return False
    owner = result.yielded.owner
    if (
        not isinstance(owner, Operation)
        or owner in skip
        or owner.parent_block() is not block
    ):
        return False
    function = _selector(owner, loops) or function_of(owner)
    full = all(d in span or n == 1 for d, n in enumerate(loops))
    return full and _takes_out(function)


def writable_inputs(op: LinalgStructuredOperation) -> list[BlockArgument]:
    """The block arguments of `op` whose operand arrays its body could write
    over: those of inputs read through identity maps (the operand's array
    is the body's value), when `op` has one result and no reduction loop (a
    reduction may read its inputs again once the body has run). The caller
    keeps those whose operand no other block argument or outer use reads."""
    if len(op.res) != 1 or any(
        kind.data != IteratorType.PARALLEL for kind in op.get_iterator_types()
    ):
        return []
    maps = op.get_indexing_maps().data
    block = op.body.block
    return [
        block.args[k]
        for k in range(len(op.inputs))
        if block.args[k].uses
        and maps[k].data == AffineMap.identity(maps[k].data.num_dims)
        and isinstance(op.inputs[k].type, ShapedType)
    ]


def identity_input(op: Operation) -> SSAValue | None:
    """The input that `op` gives back as it is, if it is a structured op of
    parallel loops whose body only yields the element of an input read
    through the identity map, written through the identity map into a
    result of the input's type (a copy, as IREE writes them and as a share
    that is the gradient itself is); None for any other op."""
    if not isinstance(op, LinalgStructuredOperation) or len(op.res) != 1:
        return None
    block = op.body.block
    if block.first_op is not block.last_op or block.last_op is None:
        return None
    (yielded,) = block.last_op.operands
    if not isinstance(yielded, BlockArgument) or yielded.index >= len(op.inputs):
        return None
    maps = op.get_indexing_maps().data
    identity = AffineMap.identity(len(op.get_iterator_types()))
    source = op.inputs[yielded.index]
    if (
        maps[yielded.index].data != identity
        or maps[-1].data != identity
        or source.type != op.res[0].type
        or any(k.data != IteratorType.PARALLEL for k in op.get_iterator_types())
    ):
        return None
    return source


def structured_kernel(
    op: LinalgStructuredOperation,
) -> tuple[Kernel | Owned, list[SSAValue]]:
    """The kernel of a structured op on tensors, and the values it takes: the
    inputs, the outputs, then the outer values its body reads. An owned
    result (`Structured.owned`) may be written over an input that it alone
    reads, through an identity map, if it dies there."""
    operands = [*op.inputs, *op.outputs, *captured(op)]
    values_of = [*op.inputs, *op.outputs]
    writable = [
        a for a in writable_inputs(op) if operands.count(values_of[a.index]) == 1
    ]
    prepared = prepare(op, writable)
    views, outer, body = prepared.views, prepared.outer, prepared.body
    finish, count = prepared.finish, len(op.inputs) + len(op.outputs)

    def kernel(*values: Value, out: np.ndarray | None = None) -> Value:
        env: Env = {arg: view(values[arg.index]) for arg, view in views}
        env.update(zip(outer, values[count:], strict=True))
        body(env, out)
        return finish(values, env)

    if not prepared.owned:
        return kernel, operands
    return Owned(kernel, tuple(a.index for a in prepared.writable)), operands


@dataclass(frozen=True)
class _Result:
    """How one result of a structured op is computed from the operand values
    and the body's arrays."""

    yielded: SSAValue
    loops: tuple[int, ...]
    reductions: tuple[int, ...]
    layout: tuple[int, ...]
    """The output's axes as positions among the parallel loops."""
    shape: tuple[int, ...]
    dtype: np.dtype
    init: int
    reduction: _Reduction | None
    direct: Callable[[Sequence[Value]], np.ndarray] | None
    """Computes the reduced value, over the parallel loops in order, from the
    operands alone: a contraction, or a reduction of an input as it is."""
    skipped: tuple[Operation, ...]

    parallel: tuple[int, ...]
    """The sizes of the parallel loops, in order."""
    permutes: bool
    """Whether the output's axes are not the parallel loops in order."""
    zero: Value | None
    """For a reduction, the init as a scalar when it is a literal of zero
    bits (`dense<0.0>`, a fill of `0.0`), which the combining op then reads
    instead of an array of zeros."""

    def compute(self, values: Sequence[Value], env: Env) -> np.ndarray:
        reduction = self.reduction
        if self.direct is not None:
            total = self.direct(values)
        elif reduction is not None:
            e = env[reduction.operand]
            if np.shape(e) != self.loops:
                e = np.broadcast_to(e, self.loops)
            total = reduction.reduce(np.ascontiguousarray(e), self.reductions)
        elif self.reductions:  # the init passes through
            return np.asarray(values[self.init])
        else:
            total = env[self.yielded]
            if not (isinstance(total, np.ndarray) and total.shape == self.loops):
                total = np.broadcast_to(total, self.loops)
        if self.permutes or np.shape(total) != self.parallel:
            if np.size(total) != math.prod(self.parallel):  # a loop no operand reads
                total = np.broadcast_to(total, self.parallel)
            total = np.transpose(np.reshape(total, self.parallel), self.layout)
        if np.shape(total) != self.shape:  # size-1 axes of constant-0 results
            total = np.reshape(total, self.shape)
        if reduction is not None:
            total = self.combined(reduction.combine, values[self.init], total)
        result = np.asarray(total)
        if result.dtype != self.dtype:
            result = result.astype(self.dtype)
        return result.reshape(self.shape) if result.shape != self.shape else result

    def combined(self, combine: Kernel, init: Value, total: Value) -> Value:
        """`combine(init, total)`. A reduced `total` is a new array (a
        NumPy reduction's or matrix product's, or a view of one) that nothing
        else holds, so a ufunc writes the result over it rather than into
        another new array: the same operation on the same operands."""
        if (
            isinstance(combine, np.ufunc)
            and isinstance(total, np.ndarray)
            and total.shape == self.shape
            and total.dtype == self.dtype
            and total.flags.writeable
        ):
            return combine(init if self.zero is None else self.zero, total, out=total)
        return combine(np.asarray(init), total)


def _result(
    op: LinalgStructuredOperation,
    index: int,
    value: SSAValue,
    maps: Sequence[AffineMap],
    loops: tuple[int, ...],
    reductions: tuple[int, ...],
    inputs: int,
    viewers: Sequence[Viewer],
) -> _Result:
    """How result `index`, yielded as `value`, is computed; an `OpError` for a
    form this module does not run."""
    parallel = [d for d in range(len(loops)) if d not in reductions]
    out_map = maps[inputs + index]
    forms = [_linear(op, r, out_map) for r in out_map.results]
    dims = [next(iter(f.coefficients)) for f in forms if len(f.coefficients) == 1]
    kept = sum(1 for f in forms if f.coefficients or f.constant != 0)
    if len(dims) != kept or sorted(dims) != parallel:
        raise OpError(
            op,
            f"cannot be run: output map {out_map} is not a permutation of the "
            "parallel loops",
        )
    block = op.body.block
    reduction = direct = None
    skipped: tuple[Operation, ...] = ()
    if reductions:
        reduction = _reduction_of(op, block, value, block.args[inputs + index])
    if reduction is not None:
        skipped = (reduction.op,)
        found = _contraction_of(block, reduction, inputs)
        if found is not None:
            direct = _contraction(op, found, maps, viewers, dims, loops)
            product = reduction.operand.owner
            assert isinstance(product, Operation)
            skipped += (product,)
        else:
            direct = _direct_reduction(op, reduction, maps, inputs, reductions)
    type = op.res[index].type
    dtype = dtype_of(type, op)
    layout = tuple(parallel.index(d) for d in dims)
    return _Result(
        value,
        loops,
        reductions,
        layout,
        _shape(op.res[index]),
        dtype,
        inputs + index,
        reduction,
        direct,
        skipped,
        tuple(loops[d] for d in parallel),
        layout != tuple(range(len(layout))),
        _zero_bits(op.outputs[index], dtype) if reduction is not None else None,
    )


def _zero_bits(value: SSAValue, dtype: np.dtype) -> Value | None:
    """A scalar of zero bits if `value` is a literal tensor of zero bits
    (`arith.constant dense<0.0>`, or `linalg.fill` of `0.0`; not `-0.0`),
    else None."""
    owner = value.owner
    if isinstance(owner, FillOp):
        owner = owner.inputs[0].owner
    if not isinstance(owner, arith.ConstantOp):
        return None
    attr = owner.value
    if isinstance(attr, DenseIntOrFPElementsAttr):
        if attr.data.data.strip(b"\0"):  # every element's bytes, as stored
            return None
    elif not isinstance(attr, IntegerAttr | FloatAttr) or (
        dtype.type(attr.value.data).tobytes().strip(b"\0")
    ):
        return None
    return dtype.type(0)


def _contraction(
    op: LinalgStructuredOperation,
    operands: tuple[int, int],
    maps: Sequence[AffineMap],
    viewers: Sequence[Viewer],
    layout: Sequence[int],
    loops: Sequence[int],
) -> Callable[[Sequence[Value]], np.ndarray]:
    """The matrix product of inputs `operands` (`acc + a * b`) into an output
    whose axes are the loops `layout`."""
    dims = [
        sorted(d for r in maps[k].results for d in _linear(op, r, maps[k]).coefficients)
        for k in operands
    ]

    def contract(values: Sequence[Value]) -> np.ndarray:
        a, b = (
            _squeezed(viewers[k](np.asarray(values[k])), d)
            for k, d in zip(operands, dims, strict=True)
        )
        return _contract(a, b, dims[0], dims[1], layout, loops)

    return contract


def _direct_reduction(
    op: LinalgStructuredOperation,
    reduction: _Reduction,
    maps: Sequence[AffineMap],
    inputs: int,
    reductions: tuple[int, ...],
) -> Callable[[Sequence[Value]], np.ndarray] | None:
    """For a body that reduces an input as it is (`acc + x`) through a
    permutation: that input reduced over its own axes, C-contiguous in its
    own layout, as `grad.reduce` reduces it (so `jnp.sum(x, 0)` as IREE
    writes it, reduction loops last, has the bits of `grad.reduce add x
    [0]`). None for any other body."""
    value = reduction.operand
    block = op.body.block
    if not isinstance(value, BlockArgument) or value.block is not block:
        return None
    if value.index >= inputs:
        return None
    map = maps[value.index]
    forms = [_linear(op, r, map) for r in map.results]
    if not all(f.constant == 0 and list(f.coefficients.values()) == [1] for f in forms):
        return None
    dims = [next(iter(f.coefficients)) for f in forms]
    if sorted(dims) != list(range(map.num_dims)):
        return None
    axes = tuple(dims.index(d) for d in reductions)
    order = tuple(np.argsort([d for d in dims if d not in reductions]))
    reduce, position = reduction.reduce, value.index
    return lambda values: np.transpose(
        reduce(np.ascontiguousarray(values[position]), axes), order
    )


def direct_inputs(op: LinalgStructuredOperation) -> set[int]:
    """The inputs that a reduction of `op` reads as they are rather than
    through its body (a contraction's two operands, `x` of `acc + x`)."""
    iterators = op.get_iterator_types()
    reductions = tuple(
        d for d, kind in enumerate(iterators) if kind.data == IteratorType.REDUCTION
    )
    if not reductions:
        return set()
    block, inputs = op.body.block, len(op.inputs)
    maps = [m.data for m in op.get_indexing_maps()]
    terminator = block.last_op
    assert terminator is not None
    read: set[int] = set()
    for j, value in enumerate(terminator.operands):
        reduction = _reduction_of(op, block, value, block.args[inputs + j])
        if reduction is None:
            continue
        if (pair := _contraction_of(block, reduction, inputs)) is not None:
            read.update(pair)
        elif _direct_reduction(op, reduction, maps, inputs, reductions) is not None:
            operand = reduction.operand
            assert isinstance(operand, BlockArgument)
            read.add(operand.index)
    return read


def _summed(
    array: np.ndarray, dims: Sequence[int], summed: Sequence[int]
) -> tuple[np.ndarray, list[int]]:
    """`array` (over `dims`) summed over `summed`, which only it reads."""
    if not summed:
        return array, list(dims)
    axes = tuple(dims.index(d) for d in summed)
    total = np.add.reduce(np.ascontiguousarray(array), axes, array.dtype)
    return total, [d for d in dims if d not in summed]


def _squeezed(view: np.ndarray, dims: Sequence[int]) -> np.ndarray:
    """An operand's view over its own dims only (the size-1 axes of the loops
    it does not read dropped)."""
    return view.reshape([view.shape[d] for d in dims])
