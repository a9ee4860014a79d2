"""`gradopt.lax`'s loops and branches: `fori_loop`, `scan`, `while_loop`,
`cond` and `switch`, with JAX's signatures and semantics, emitted as `scf.for`,
`scf.while` and `scf.if` (SPEC §3.5, §11).

Each body is traced once into the op's region, never unrolled: the trace's
block is swapped for the region's block while the body runs (as `vmap` does),
so the body may read the enclosing function's arrays directly (regions are not
isolated from above), make constants, call traced functions, nest loops and
take gradients. Carries and branch results are pytrees whose leaves keep their
types across the body; a Python number in a carry takes the dtype it has on
its own (`0.0` float32, `0` int32), as in JAX.

Python ints for the bounds of `fori_loop` give an `index` loop with a static
trip count; traced int32 bounds give `i32` bounds known only at run time. The
loop index reaches `body_fun` as an int32 scalar. `scan` reads each slice of
`xs` with `tensor.extract_slice` at the iteration's index and stacks the
outputs into buffers carried by the loop with `tensor.insert_slice`, the form
IREE gives a `jax.lax.scan`.

A trace that has traced a body marks its differentiation ops `control_flow`
(`marked`), so that programs without loops print and run as
before.
"""

from __future__ import annotations

import operator
import weakref
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

import numpy as np
from xdsl.dialects import arith
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    IndexType,
    IntegerAttr,
    StringAttr,
    TensorType,
    UnitAttr,
    i1,
    i32,
    i64,
)
from xdsl.dialects.scf import ConditionOp, ForOp, IfOp, WhileOp, YieldOp
from xdsl.dialects.tensor import (
    ExtractOp,
    ExtractSliceOp,
    FromElementsOp,
    InsertSliceOp,
)
from xdsl.ir import Attribute, Block, Operation, SSAValue

from gradopt.dialect.differentiation import DifferentiationOp
from gradopt.frontend.array import (
    BOOL,
    DTYPES,
    INT32,
    Array,
    is_scalar,
    trace,
)
from gradopt.frontend.lax_numpy import asarray, full
from gradopt.frontend.trace import Trace, current_trace, error
from gradopt.frontend.tree import TreeDef, flatten
from gradopt.frontend.ufuncs import clip, not_equal

INDEX = IndexType()

_WITH_CONTROL_FLOW: weakref.WeakSet[Trace] = weakref.WeakSet()
"""The traces that have traced a loop or branch body."""


def marked(op: DifferentiationOp) -> DifferentiationOp:
    """`op`, said `control_flow` if the active trace has traced a body, so
    that a loop or branch may lie on its path or `op` in a body (SPEC §11);
    other programs stay as they were."""
    if trace() in _WITH_CONTROL_FLOW:
        op.control_flow = UnitAttr()
    return op


@contextmanager
def _body(block: Block) -> Iterator[None]:
    """Trace into `block`: constants made inside stay inside, the enclosing
    ones remain usable."""
    active = trace()
    _WITH_CONTROL_FLOW.add(active)
    saved = active.block, active.constants
    active.block, active.constants = block, dict(active.constants)
    try:
        yield
    finally:
        active.block, active.constants = saved


_CHECKPOINT: ContextVar[dict[str, Attribute] | None] = ContextVar(
    "gradopt_checkpoint", default=None
)
"""The `grad.checkpoint` attributes of the loops being traced (`checkpoint`)."""

POLICIES = ("periodic", "binomial")


def checkpoint(
    fun: Callable[..., Any] | None = None,
    policy: str = "periodic",
    period: int | None = None,
    snapshots: int | None = None,
) -> Any:
    """`fun` whose loops (`fori_loop`, `scan`, `while_loop`, traced while it
    runs) are differentiated with checkpointing (SPEC §11): `"periodic"`
    keeps every `period`-th iteration's carried values (default ⌈√N⌉),
    `"binomial"` `snapshots` of them (revolve); the gradient's bits do not
    change, its memory does. Without `fun`, a decorator."""
    if policy not in POLICIES:
        raise error(
            f"checkpoint: policy must be 'periodic' or 'binomial', not {policy!r}"
        )
    attributes: dict[str, Attribute] = {"grad.checkpoint": StringAttr(policy)}
    for name, value in (("period", period), ("snapshots", snapshots)):
        if value is None:
            continue
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise error(f"checkpoint: {name} must be a positive int, got {value!r}")
        attributes[f"grad.{name}"] = IntegerAttr(value, i64)
    if snapshots is not None and policy != "binomial":
        raise error("checkpoint: snapshots is for the 'binomial' policy")
    if fun is None:
        return lambda f: checkpoint(f, policy, period, snapshots)
    user = fun

    def checkpointed(*args: Any, **kwargs: Any) -> Any:
        if current_trace() is None:
            from gradopt.frontend.transforms import jit

            return jit(checkpointed)(*args, **kwargs)
        token = _CHECKPOINT.set(attributes)
        try:
            return user(*args, **kwargs)
        finally:
            _CHECKPOINT.reset(token)

    checkpointed.__name__ = getattr(fun, "__name__", type(fun).__name__)
    checkpointed.__doc__ = getattr(fun, "__doc__", None)
    return checkpointed


def _loop(op: ForOp | WhileOp) -> list[SSAValue]:
    """Emit a loop, with the checkpointing asked for."""
    op.attributes.update(_CHECKPOINT.get() or {})
    return _emit(op)


def _emit(op: Operation) -> list[SSAValue]:
    trace().emit(op)
    return list(op.results)


def _array(value: SSAValue) -> Array:
    return Array(trace(), value)


def _scalar_of(x: Array, type: Attribute) -> SSAValue:
    """The element of the rank-0 `x`, as a scalar of `type` (an `i1` or `i32`)."""
    return _emit(ExtractOp(x.value, [], type))[0]


def _index(value: int) -> SSAValue:
    return _emit(arith.ConstantOp(IntegerAttr(value, INDEX)))[0]


def _leaves(tree: Any, what: str) -> tuple[list[Array], TreeDef]:
    """The leaves of a carry or operand tree, as arrays."""
    leaves, structure = flatten(tree)
    for leaf in leaves:
        if not (isinstance(leaf, Array | np.ndarray | np.generic) or is_scalar(leaf)):
            raise error(
                f"{what}: a {type(leaf).__name__} is not an array: carries and "
                "outputs are arrays, numbers and tuples, lists or dicts of them"
            )
    return [asarray(leaf) for leaf in leaves], structure


def _matching(
    tree: Any, structure: TreeDef, types: Sequence[Attribute], what: str, part: str
) -> list[Array]:
    """The leaves of `tree`, which must have `structure` and `types` (a Python
    number takes the dtype expected of it)."""
    leaves, found = flatten(tree)
    if found != structure:
        raise error(
            f"{what}: {part} must have the structure of the carry going in: "
            f"expected {structure.unflatten(iter(['*'] * structure.count))!r}, "
            f"got {found.unflatten(iter(['*'] * found.count))!r}"
        )
    arrays = []
    for k, (leaf, type) in enumerate(zip(leaves, types, strict=True)):
        assert isinstance(type, TensorType)
        dtype = DTYPES[type.get_element_type()]
        x = asarray(leaf, dtype) if is_scalar(leaf) else asarray(leaf)
        if x.type != type:
            raise error(
                f"{what}: {part} changes the type of leaf {k} of the carry from "
                f"{type} to {x.type}: a carry keeps its shape and "
                "dtype across the body"
            )
        arrays.append(x)
    return arrays


def _bound(value: Any, what: str) -> Array | int:
    """A loop bound: a Python int, or an int32 scalar array."""
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    if isinstance(value, np.integer):
        return int(value)
    x = asarray(value)
    if x.shape != () or x.dtype != INT32:
        raise error(
            f"{what}: a loop bound must be an int or an int32 scalar, got "
            f"{x.dtype} data of shape {x.shape}"
        )
    return x


def _i32(bound: Array | int) -> SSAValue:
    if isinstance(bound, int):
        return _emit(arith.ConstantOp(IntegerAttr(bound, i32)))[0]
    return _scalar_of(bound, i32)


def fori_loop(
    lower: Any,
    upper: Any,
    body_fun: Callable[..., Any],
    init_val: Any,
    *,
    unroll: int | bool | None = None,
) -> Any:
    """`body_fun(i, carry)` for i from `lower` to `upper - 1`, starting from
    `init_val`, as `jax.lax.fori_loop`: one `scf.for`. `unroll` is accepted
    for JAX's signature, as `scan`'s is."""
    if unroll is not None:
        _check_unroll(unroll, "fori_loop")
    low, high = _bound(lower, "fori_loop"), _bound(upper, "fori_loop")
    carries, structure = _leaves(init_val, "fori_loop")
    if isinstance(low, int) and isinstance(high, int):
        bounds = [_index(low), _index(high), _index(1)]
        index_type: Attribute = INDEX
    else:
        bounds = [_i32(low), _i32(high), _i32(1)]
        index_type = i32
    types = [c.type for c in carries]
    block = Block(arg_types=[index_type, *types])
    with _body(block):
        iv, *args = block.args
        if index_type == INDEX:
            (iv,) = _emit(arith.IndexCastOp(iv, i32))
        i = _array(_emit(FromElementsOp(iv, result_type=TensorType(i32, [])))[0])
        out = body_fun(i, structure.unflatten(_array(a) for a in args))
        yielded = _matching(out, structure, types, "fori_loop", "body_fun's result")
        _emit(YieldOp(*(y.value for y in yielded)))
    loop = ForOp(bounds[0], bounds[1], bounds[2], [c.value for c in carries], block)
    return structure.unflatten(_array(r) for r in _loop(loop))


def _count(length: object) -> int:
    """`scan`'s `length` as an int, as JAX takes it (`operator.index`)."""
    try:
        if isinstance(length, bool):
            raise TypeError
        count = operator.index(length)  # pyright: ignore[reportArgumentType]
    except TypeError:
        count = -1
    if count < 0:
        raise error(f"scan: length must be an int >= 0, got {length!r}")
    return count


def _check_unroll(unroll: object, name: str) -> None:
    if not isinstance(unroll, bool) and not (isinstance(unroll, int) and unroll > 0):
        raise error(f"{name}: unroll must be a positive int or a bool, got {unroll!r}")


def _stacked(x: Array, k: SSAValue) -> Array:
    """Row `k` of `x` (along its first dim)."""
    shape = list(x.shape[1:])
    row = TensorType(x.type.get_element_type(), shape)
    offsets: list[SSAValue | int] = [k, *[0] * len(shape)]
    return _array(
        _emit(
            ExtractSliceOp(x.value, offsets, [1, *shape], [1] * (len(shape) + 1), row)
        )[0]
    )


def _stack_into(y: Array, buffer: SSAValue, k: SSAValue) -> SSAValue:
    """`buffer` with `y` as its row `k`."""
    return _emit(
        InsertSliceOp.get(
            y.value,
            buffer,
            static_sizes=[1, *y.shape],
            static_offsets=[DYNAMIC_INDEX] + [0] * len(y.shape),
            offsets=[k],
        )
    )[0]


def scan(
    f: Callable[[Any, Any], tuple[Any, Any]],
    init: Any,
    xs: Any = None,
    length: int | None = None,
    reverse: bool = False,
    unroll: int | bool = 1,
) -> tuple[Any, Any]:
    """`f(carry, x) -> (carry, y)` over the leading axis of `xs` (a pytree of
    arrays; None with `length`), as `jax.lax.scan`: `(final carry, ys)`, the
    ys stacked along a new leading axis. `reverse` runs from the last slice
    to the first (ys stay in slice order). `unroll` is accepted for JAX's
    signature; the loop is never unrolled, which gives the same values."""
    _check_unroll(unroll, "scan")
    if length is not None:
        length = _count(length)
    carries, structure = _leaves(init, "scan")
    x_leaves, x_tree = _leaves(xs, "scan") if xs is not None else ([], None)
    if any(x.ndim == 0 for x in x_leaves):
        raise error("scan: every leaf of xs must have a leading axis to scan over")
    lengths = {x.shape[0] for x in x_leaves}
    if length is not None:
        lengths.add(length)
    if len(lengths) != 1:
        raise error(
            "scan: the leaves of xs and length must agree on the number of steps, "
            f"got {sorted(lengths) if lengths else 'neither xs nor length'}"
        )
    n = lengths.pop()
    types = [c.type for c in carries]
    block = Block(arg_types=[INDEX, *types])
    with _body(block):
        iv, *args = block.args
        k = iv
        if reverse:
            (k,) = _emit(arith.SubiOp(_index(n - 1), iv))
        x = (
            None
            if x_tree is None
            else x_tree.unflatten(_stacked(a, k) for a in x_leaves)
        )
        out = f(structure.unflatten(_array(a) for a in args), x)
        if not isinstance(out, tuple | list) or len(out) != 2:
            raise error("scan: f must return a pair (carry, y)")
        yielded = _matching(out[0], structure, types, "scan", "f's carry")
        y_leaves, y_tree = _leaves(out[1], "scan")
        buffers = [
            block.insert_arg(
                TensorType(y.type.get_element_type(), [n, *y.shape]), len(block.args)
            )
            for y in y_leaves
        ]
        stacked = [_stack_into(y, b, k) for y, b in zip(y_leaves, buffers, strict=True)]
        _emit(YieldOp(*(y.value for y in yielded), *stacked))
    zeros = [full((n, *y.shape), 0, y.dtype).value for y in y_leaves]
    loop = ForOp(
        _index(0), _index(n), _index(1), [c.value for c in carries] + zeros, block
    )
    results = [_array(r) for r in _loop(loop)]
    final = structure.unflatten(iter(results[: len(carries)]))
    return final, y_tree.unflatten(iter(results[len(carries) :]))


def _predicate(pred: Any, what: str) -> SSAValue:
    """`pred` as an `i1`: a bool scalar, or an int32 one compared with 0."""
    x = asarray(pred)
    if x.shape != ():
        raise error(f"{what}: the predicate must be a scalar, got shape {x.shape}")
    if x.dtype == INT32:
        x = not_equal(x, 0)
    elif x.dtype != BOOL:
        raise error(
            f"{what}: the predicate must be a bool (or int) scalar, not {x.dtype}"
        )
    return _scalar_of(x, i1)


def while_loop(
    cond_fun: Callable[[Any], Any], body_fun: Callable[[Any], Any], init_val: Any
) -> Any:
    """`body_fun` applied while `cond_fun` holds, from `init_val`, as
    `jax.lax.while_loop`: one `scf.while`, whose trip count is known only when
    it runs (and which, unlike JAX's, can be differentiated in reverse mode)."""
    carries, structure = _leaves(init_val, "while_loop")
    types = [c.type for c in carries]
    before, after = Block(arg_types=types), Block(arg_types=types)
    with _body(before):
        state = structure.unflatten(_array(a) for a in before.args)
        condition = _predicate(cond_fun(state), "while_loop: cond_fun")
        _emit(ConditionOp(condition, *before.args))
    with _body(after):
        out = body_fun(structure.unflatten(_array(a) for a in after.args))
        yielded = _matching(out, structure, types, "while_loop", "body_fun's result")
        _emit(YieldOp(*(y.value for y in yielded)))
    loop = WhileOp([c.value for c in carries], types, [before], [after])
    return structure.unflatten(_array(r) for r in _loop(loop))


def _branch(
    fun: Callable[..., Any], operands: Sequence[Any], what: str
) -> tuple[Block, list[Array], TreeDef]:
    block = Block()
    with _body(block):
        leaves, structure = _leaves(fun(*operands), what)
        terminator = YieldOp(*(leaf.value for leaf in leaves))
        _emit(terminator)
    return block, leaves, structure


def _if(
    condition: SSAValue,
    branches: Sequence[Callable[..., Any]],
    operands: Sequence[Any],
    what: str,
) -> Any:
    true_block, true_leaves, true_tree = _branch(branches[0], operands, what)
    false_block, false_leaves, false_tree = _branch(branches[1], operands, what)
    if true_tree != false_tree:
        raise error(
            f"{what}: the branches must return the same structure, got "
            f"{true_tree.unflatten(iter(['*'] * true_tree.count))!r} and "
            f"{false_tree.unflatten(iter(['*'] * false_tree.count))!r}"
        )
    types = [x.type for x in true_leaves]
    for k, (a, b) in enumerate(zip(true_leaves, false_leaves, strict=True)):
        if a.type != b.type:
            raise error(
                f"{what}: the branches return output {k} as {a.type} and "
                f"{b.type}: both must give one shape and dtype"
            )
    op = IfOp(condition, types, [true_block], [false_block])
    return true_tree.unflatten(_array(r) for r in _emit(op))


def cond(
    pred: Any,
    true_fun: Callable[..., Any],
    false_fun: Callable[..., Any],
    *operands: Any,
) -> Any:
    """`true_fun(*operands)` if `pred` else `false_fun(*operands)`, as
    `jax.lax.cond`: one `scf.if`, each branch traced once into its region."""
    return _if(_predicate(pred, "cond"), [true_fun, false_fun], operands, "cond")


def switch(index: Any, branches: Sequence[Callable[..., Any]], *operands: Any) -> Any:
    """`branches[index](*operands)`, the index clamped into range, as
    `jax.lax.switch`: nested `scf.if`s, one branch each."""
    branches = list(branches)
    if not branches:
        raise error("switch: branches must not be empty")
    i = asarray(index)
    if i.shape != () or i.dtype != INT32:
        raise error(
            f"switch: the index must be an int32 scalar, got {i.dtype} data of "
            f"shape {i.shape}"
        )
    if len(branches) == 1:
        return branches[0](*operands)
    i = clip(i, 0, len(branches) - 1)
    return _switch_from(i, branches, 0, operands)


def _switch_from(
    i: Array,
    branches: Sequence[Callable[..., Any]],
    first: int,
    operands: Sequence[Any],
) -> Any:
    if first == len(branches) - 1:
        return branches[first](*operands)
    condition = _scalar_of(not_equal(i, first), i1)
    rest = lambda *xs: _switch_from(i, branches, first + 1, xs)  # noqa: E731
    return _if(condition, [rest, branches[first]], operands, "switch")
