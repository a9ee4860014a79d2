"""`vmap`, `jacfwd`, `jacrev` and `hessian`, as in JAX.

`vmap(f, in_axes, out_axes)` traces f once on one example into a block of its
own (the enclosing trace's block is swapped out meanwhile, so f may use the
enclosing function's arrays), expands the differentiation ops it made there,
and replays the block on the whole batch by `batching`'s rules. `jacfwd` is
`vmap` of `jvp` over the basis tangents and `jacrev` `vmap` of the pullback
over the basis cotangents, so a Jacobian is one batched forward or backward
pass; `hessian` is `jacfwd(jacrev(f))`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from xdsl.dialects.func import FuncOp, ReturnOp
from xdsl.ir import Block, Region

from gradopt.dialect.errors import OpError
from gradopt.frontend import batching_scf  # noqa: F401 (the rules of loops)
from gradopt.frontend.array import FLOAT32, Array, tensor, trace
from gradopt.frontend.batching import Batcher, batch, expand_in_module
from gradopt.frontend.float0 import is_float0, zeros
from gradopt.frontend.lax_numpy import asarray, full, normalize_axis, reshape
from gradopt.frontend.numpy import moveaxis
from gradopt.frontend.trace import error
from gradopt.frontend.transforms import (
    Traced,
    _argnums,
    _jvp_traced,
    _name,
    _vjp_traced,
)
from gradopt.frontend.tree import TreeDef, flatten, tree_map

Axes = Any
"""An axis (int or None), or a tree of them that is a prefix of the values'."""


def _axes_of(axes: Axes, tree: Any, what: str) -> list[int | None]:
    """One axis per leaf of `tree`, from a prefix tree of axes (JAX's rule)."""
    if axes is None or isinstance(axes, int):
        return [axes] * flatten(tree)[1].count
    if isinstance(axes, dict) and isinstance(tree, dict) and set(axes) == set(tree):
        return [a for key in sorted(tree) for a in _axes_of(axes[key], tree[key], what)]
    if (
        isinstance(axes, tuple | list)
        and isinstance(tree, tuple | list)
        and len(axes) == len(tree)
    ):
        pairs = zip(axes, tree, strict=True)
        return [a for axis, t in pairs for a in _axes_of(axis, t, what)]
    raise error(f"vmap: {what} {axes!r} does not match the structure of the values")


def _vmap_traced(
    f: Callable[..., Any],
    args: tuple[Any, ...],
    kwargs: dict[str, Any],
    in_axes: Axes,
    out_axes: Axes,
) -> Any:
    active = trace()
    leaves, in_tree = flatten((args, kwargs))
    axes = _axes_of(in_axes, args, "in_axes") + [0] * flatten(kwargs)[1].count
    moved: list[Array | None] = []
    sizes: set[int] = set()
    for i, (leaf, axis) in enumerate(zip(leaves, axes, strict=True)):
        if axis is None:
            moved.append(None)
            continue
        x = leaf if is_float0(leaf) else asarray(leaf)
        if x.ndim == 0:
            raise error("vmap: a batched argument must have at least one axis")
        if is_float0(x):  # no data: its example is a constant, as a leaf
            shape = list(x.shape)
            sizes.add(shape.pop(normalize_axis(axis, x.ndim)))
            leaves[i] = zeros(shape)
            moved.append(None)
            continue
        moved.append(moveaxis(x, normalize_axis(axis, x.ndim), 0))
    sizes |= {x.shape[0] for x in moved if x is not None}
    if len(sizes) != 1:
        raise error(
            "vmap: the batched axes must have one size, got "
            + (", ".join(str(s) for s in sorted(sizes)) or "no batched argument")
        )
    block = Block(
        arg_types=[tensor(x.dtype, x.shape[1:]) for x in moved if x is not None]
    )
    inner = iter(block.args)
    saved = active.block, active.constants
    active.block, active.constants = block, dict(active.constants)
    try:
        example = [
            leaf if x is None else Array(active, next(inner))
            for leaf, x in zip(leaves, moved, strict=True)
        ]
        positional, keywords = in_tree.unflatten(iter(example))
        out_leaves, out_tree = flatten(f(*positional, **keywords))
        outputs = [asarray(leaf) for leaf in out_leaves if not is_float0(leaf)]
        active.emit(ReturnOp(*(o.value for o in outputs)))
    finally:
        active.block, active.constants = saved
    function = FuncOp("vmap", (block.arg_types, []), Region(block))
    try:
        try:
            expand_in_module(function, active.functions)
        except OpError as failure:
            raise error(f"vmap: {failure.describe()}") from None
        size = sizes.pop()
        b = Batcher(active, size)
        batched = [(x.value, True) for x in moved if x is not None]
        terminator = block.last_op
        assert isinstance(terminator, ReturnOp)
        results = batch(b, block, batched, terminator.operands)
    finally:
        function.erase(safe_erase=False)
    final = []
    shape_of_outputs = out_tree.unflatten(iter(range(len(out_leaves))))
    placed = _axes_of(out_axes, shape_of_outputs, "out_axes")
    computed = iter(results)
    for leaf, axis in zip(out_leaves, placed, strict=True):
        if is_float0(leaf):  # no data: the batch's float0 zeros
            shape = list(np.shape(leaf))
            if axis is not None:
                shape.insert(normalize_axis(axis, len(shape) + 1), size)
            final.append(zeros(shape))
            continue
        value, is_batched = next(computed)
        if axis is None:
            if is_batched:
                raise error("vmap: out_axes is None for an output that is batched")
            final.append(Array(active, value))
            continue
        lifted = Array(active, b.lift((value, is_batched)))
        final.append(moveaxis(lifted, 0, normalize_axis(axis, lifted.ndim)))
    return out_tree.unflatten(iter(final))


def vmap(f: Callable[..., Any], in_axes: Axes = 0, out_axes: Axes = 0) -> Traced:
    """`f` mapped over an axis of its arguments (`in_axes`: an axis or None
    per argument, or one for all; keyword arguments along axis 0), the
    results stacked along `out_axes`, as `jax.vmap`."""
    if isinstance(in_axes, list):
        in_axes = tuple(in_axes)

    def body(args: tuple[Any, ...], kwargs: dict[str, Any], fresh: bool) -> Any:
        if isinstance(in_axes, tuple) and len(in_axes) != len(args):
            raise error(
                f"vmap: in_axes has {len(in_axes)} entries for {len(args)} arguments"
            )
        return _vmap_traced(f, args, kwargs, in_axes, out_axes)

    return Traced(body, f"vmap({_name(f)})")


def _differentiated(
    args: Sequence[Any], argnums: int | Sequence[int], what: str
) -> tuple[list[Array], TreeDef, Callable[[Any], list[Any]]]:
    """The leaves of the differentiated arguments (argument `argnums`, or the
    tuple of them for a sequence: JAX's structure of a Jacobian's inner
    part), their structure, and a function that puts values of that
    structure in their places among `args`."""
    nums = _argnums(argnums)
    for i in nums:
        if not -len(args) <= i < len(args):
            raise error(
                f"{what}: argnums {i} is out of range for {len(args)} arguments"
            )
    chosen = args[nums[0]] if isinstance(argnums, int) else tuple(args[i] for i in nums)
    leaves, tree = flatten(chosen)
    xs = [asarray(leaf) for leaf in leaves]
    for x in xs:
        if x.dtype != FLOAT32:
            raise error(f"{what}: the differentiated arguments must hold float32 "
                        f"data, not {x.dtype}")  # fmt: skip

    def rebuild(values: Any) -> list[Any]:
        rebuilt = list(args)
        for i, value in zip(nums, [values] if isinstance(argnums, int) else values,
                            strict=True):  # fmt: skip
            rebuilt[i] = value
        return rebuilt

    return xs, tree, rebuild


def _basis(shape: tuple[int, ...]) -> Array:
    """The unit vectors of arrays of `shape`, stacked along a new axis 0."""
    size = int(np.prod(shape))
    return asarray(np.eye(size, dtype=np.float32).reshape((size, *shape)))


def _offsets(xs: Sequence[Array]) -> list[int]:
    return [0, *np.cumsum([x.size for x in xs]).tolist()]


def jacfwd(
    f: Callable[..., Any], argnums: int | Sequence[int] = 0, has_aux: bool = False
) -> Traced:
    """The Jacobian of `f` by forward mode: one batched `jvp` over the basis
    tangents of all the differentiated leaves together. As `jax.jacfwd`:
    the output's structure outside, the arguments' inside, each leaf the
    output leaf's shape then the argument leaf's; with `has_aux`, `(jac,
    aux)`."""

    def body(args: tuple[Any, ...], kwargs: dict[str, Any], fresh: bool) -> Any:
        xs, tree, rebuild = _differentiated(args, argnums, "jacfwd")
        at = _offsets(xs)
        eye = np.eye(at[-1], dtype=np.float32)
        basis = [
            asarray(eye[:, a:b].reshape(at[-1], *x.shape))
            for x, a, b in zip(xs, at, at[1:], strict=False)
        ]

        def push(*ts: Array) -> Any:
            def g(values: Any) -> Any:
                return f(*rebuild(values), **kwargs)

            primals, tangents = tree.unflatten(iter(xs)), tree.unflatten(iter(ts))
            return _jvp_traced(g, (primals,), (tangents,), False, has_aux)[1:]

        columns = _vmap_traced(push, tuple(basis), {}, 0, (-1, None) if has_aux else -1)
        tangents = columns[0]

        def split(c: Array) -> Any:
            parts = [
                reshape(c[..., a:b], (*c.shape[:-1], *x.shape))
                for x, a, b in zip(xs, at, at[1:], strict=False)
            ]
            return tree.unflatten(iter(parts))

        jac = tree_map(split, tangents)
        return (jac, columns[1]) if has_aux else jac

    return Traced(body, f"jacfwd({_name(f)})")


def jacrev(
    f: Callable[..., Any], argnums: int | Sequence[int] = 0, has_aux: bool = False
) -> Traced:
    """The Jacobian of `f` by reverse mode: f once, then per output leaf one
    pullback batched over its basis cotangents; JAX's structure, as
    `jacfwd`."""

    def body(args: tuple[Any, ...], kwargs: dict[str, Any], fresh: bool) -> Any:
        xs, tree, rebuild = _differentiated(args, argnums, "jacrev")

        def g(values: Any) -> Any:
            return f(*rebuild(values), **kwargs)

        primals = (tree.unflatten(iter(xs)),)
        out, pullback, aux = _vjp_traced(g, primals, has_aux, False)
        out_leaves, out_tree = flatten(out)
        ys = [asarray(y) for y in out_leaves]

        def rows_of(k: int, y: Array) -> Any:
            def pull(ct: Array) -> Any:
                cts = [ct if j == k else full(z.shape, 0.0) for j, z in enumerate(ys)]
                return pullback(out_tree.unflatten(iter(cts)))[0]

            stacked = _vmap_traced(pull, (_basis(y.shape),), {}, 0, 0)
            return tree_map(lambda s: reshape(s, (*y.shape, *s.shape[1:])), stacked)

        jac = out_tree.unflatten(iter([rows_of(k, y) for k, y in enumerate(ys)]))
        return (jac, aux) if has_aux else jac

    return Traced(body, f"jacrev({_name(f)})")


def hessian(
    f: Callable[..., Any], argnums: int | Sequence[int] = 0, has_aux: bool = False
) -> Traced:
    """`jacfwd(jacrev(f))`: forward over reverse, as `jax.hessian`."""
    inner = jacrev(f, argnums, has_aux)
    return Traced(jacfwd(inner, argnums, has_aux).body, f"hessian({_name(f)})")
