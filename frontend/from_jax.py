"""`gradopt.from_jax`: a JAX function as a gradopt traced function.

`jax.make_jaxpr` gives the function's jaxpr; evaluating it on traced arrays,
each primitive by its `gradopt.numpy` counterpart, traces the same kind of
function as `gradopt.jit` does, so `gradopt.grad(gradopt.from_jax(f, x))`
differentiates it with gradopt's own rules (those of scans, sorting, dynamic
slices, gathers, scatters, convolutions and windowed reductions are in
`jax_primitives`; JAX's `scan`, `while` and `cond` become `gradopt.lax`'s
loops and branches, in `jax_control_flow`). Calls (`jit`, `pjit`,
`closed_call`, `remat`) are inlined. A function with a custom derivative
(`custom_jvp_call`, `custom_vjp_call`) becomes a `grad.custom` whose vjp and
jvp functions are the jaxprs JAX makes of the user's rule (`jax.vjp` and
`jax.jvp` of that one equation), so the rule is what gets differentiated.
A few equations of constants are computed when traced (the padding value of
`jnp.pad`, a literal to convert); the others become ops like the rest.

Each op gets the source line of its JAX equation (as JAX reports it), so that
an error points at the line of the JAX function. JAX is optional (the `jax`
extra) and imported only here, only when `from_jax` is called.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from contextvars import ContextVar
from typing import Any

import numpy as np

from gradopt.dialect.ops import IDivOp, ModOp
from gradopt.frontend import jax_control_flow, jax_primitives, lax
from gradopt.frontend import nn as gnn
from gradopt.frontend import numpy as gnp
from gradopt.frontend.array import FLOAT32, Array, canonical_dtype, emit, is_scalar
from gradopt.frontend.lax_numpy import asarray, floating, operands
from gradopt.frontend.trace import error, located
from gradopt.frontend.transforms import Traced
from gradopt.support.diagnostics import Location

Value = Array | np.ndarray
Rule = Callable[..., "Value | Sequence[Value]"]


def _binary(f: Callable[[Value, Value], Array]) -> Rule:
    return lambda params, a, b: f(a, b)


def _unary(f: Callable[[Value], Array]) -> Rule:
    return lambda params, x: f(x)


def _div(params: dict, a: Value, b: Value) -> Array:
    """`lax.div`: true division of floats, rounded toward zero for ints."""
    a, b = operands(a, b)
    if a.dtype == FLOAT32:
        return gnp.true_divide(a, b)
    return emit(IDivOp(a.value, b.value))


def _rem(params: dict, a: Value, b: Value) -> Array:
    """`lax.rem`: C's `fmod` for floats, truncated remainder for ints."""
    a, b = operands(a, b)
    if a.dtype == FLOAT32:
        return gnp.fmod(a, b)
    return emit(ModOp(a.value, b.value))


def _pow(params: dict, x: Value, y: Value) -> Array:
    """`lax.pow`: an exponent known to be one integer is exact multiplication."""
    if isinstance(y, np.ndarray) and y.size and np.all(y == y.flat[0]):
        exponent = float(y.flat[0])
        if exponent.is_integer() and y.shape == ():
            return gnp.power(x, int(exponent))
    return gnp.power(x, y)


def _select_n(params: dict, which: Value, first: Value, *others: Value) -> Array:
    """`cases[which]`, one `where` per case after the first."""
    which, result = asarray(which), asarray(first)
    for i, case in enumerate(others, 1):
        hit = which if which.dtype == np.bool_ else gnp.equal(which, i)
        result = gnp.where(hit, case, result)
    return result


def _convert(params: dict, x: Value) -> Array:
    return gnp.astype(x, canonical_dtype(params["new_dtype"]))


def _reduce(f: Callable[..., Array]) -> Rule:
    return lambda params, x: f(x, tuple(params["axes"]))


def _arg(f: Callable[..., Array]) -> Rule:
    def rule(params: dict, x: Value) -> Array:
        (axis,) = params["axes"]
        return gnp.astype(f(x, axis), canonical_dtype(params["index_dtype"]))

    return rule


def _broadcast_in_dim(params: dict, x: Value, *dynamic: Value) -> Array:
    if dynamic:
        raise error("from_jax: dynamic shapes are not supported")
    x = asarray(x)
    shape, dims = tuple(params["shape"]), list(params["broadcast_dimensions"])
    return x if x.shape == shape else lax.broadcast_in_dim(x, shape, dims)


def _reshape(params: dict, x: Value, *dynamic: Value) -> Array:
    if dynamic:
        raise error("from_jax: dynamic shapes are not supported")
    if params.get("dimensions") is not None:
        x = gnp.transpose(x, params["dimensions"])
    return gnp.reshape(x, params["new_sizes"])


def _dot_general(params: dict, a: Value, b: Value) -> Array:
    """`dot_general` as one `grad.dot`: each side permuted to (batch, free,
    contracted) or (batch, contracted, free) and reshaped to rank 2 or 3."""
    (lc, rc), (lb, rb) = params["dimension_numbers"]
    a, b = floating(a), floating(b)
    free_a = [i for i in range(a.ndim) if i not in lc and i not in lb]
    free_b = [i for i in range(b.ndim) if i not in rc and i not in rb]
    batch = [a.shape[i] for i in lb]
    m = math.prod(a.shape[i] for i in free_a)
    k = math.prod(a.shape[i] for i in lc)
    n = math.prod(b.shape[i] for i in free_b)
    a = gnp.transpose(a, [*lb, *free_a, *lc])
    b = gnp.transpose(b, [*rb, *rc, *free_b])
    if batch:
        size = math.prod(batch)
        product = lax.dot(gnp.reshape(a, (size, m, k)), gnp.reshape(b, (size, k, n)))
    else:
        product = lax.dot(gnp.reshape(a, (m, k)), gnp.reshape(b, (k, n)))
    shape = [*batch, *(a.shape[len(lb) + i] for i in range(len(free_a)))]
    shape += [b.shape[len(rb) + len(rc) + i] for i in range(len(free_b))]
    result = gnp.reshape(product, shape)
    preferred = params.get("preferred_element_type")
    return (
        result if preferred is None else gnp.astype(result, canonical_dtype(preferred))
    )


def _slice(params: dict, x: Value) -> Array:
    x = asarray(x)
    strides = params["strides"] or [1] * x.ndim
    return lax.slice(x, params["start_indices"], params["limit_indices"], strides)


def _pad(params: dict, x: Value, value: Value) -> Array:
    """`lax.pad`; negative low or high amounts crop, by a slice after it."""
    if not isinstance(value, np.ndarray):
        raise error("from_jax: a 'pad' value computed at run time is not supported")
    x = asarray(x)
    config = [tuple(int(v) for v in c) for c in params["padding_config"]]
    low = [max(lo, 0) for lo, _, _ in config]
    high = [max(hi, 0) for _, hi, _ in config]
    interior = [i for _, _, i in config]
    padded = (
        lax.pad(x, low, high, interior, value.item())
        if any(low + high + interior)
        else x
    )
    if all(lo >= 0 and hi >= 0 for lo, hi, _ in config):
        return padded
    start = [-min(lo, 0) for lo, _, _ in config]
    limit = [d + min(hi, 0) for d, (_, hi, _) in zip(padded.shape, config, strict=True)]
    return lax.slice(padded, start, limit, [1] * x.ndim)


def _concatenate(params: dict, *xs: Value) -> Array:
    return lax.concatenate([asarray(x) for x in xs], int(params["dimension"]))


def _split(params: dict, x: Value) -> list[Array]:
    x, axis = asarray(x), int(params["axis"])
    parts, offset = [], 0
    for size in params["sizes"]:
        start = [offset if d == axis else 0 for d in range(x.ndim)]
        limit = [offset + size if d == axis else s for d, s in enumerate(x.shape)]
        parts.append(lax.slice(x, start, limit, [1] * x.ndim))
        offset += size
    return parts


def _rev(params: dict, x: Value) -> Array:
    dims = list(params["dimensions"])
    return lax.rev(asarray(x), dims) if dims else asarray(x)


def _erfc(x: Value) -> Array:
    return gnp.subtract(1.0, gnp.erf(x))


RULES: dict[str, Rule] = {
    "add": _binary(gnp.add),
    "add_any": _binary(gnp.add),
    "sub": _binary(gnp.subtract),
    "mul": _binary(gnp.multiply),
    "div": _div,
    "rem": _rem,
    "neg": _unary(gnp.negative),
    "max": _binary(gnp.maximum),
    "min": _binary(gnp.minimum),
    "abs": _unary(gnp.absolute),
    "sign": _unary(gnp.sign),
    "exp": _unary(gnp.exp),
    "exp2": _unary(gnp.exp2),
    "expm1": _unary(gnp.expm1),
    "log": _unary(gnp.log),
    "log1p": _unary(gnp.log1p),
    "sqrt": _unary(gnp.sqrt),
    "rsqrt": _unary(gnp.rsqrt),
    "square": _unary(gnp.square),
    "sin": _unary(gnp.sin),
    "cos": _unary(gnp.cos),
    "tan": _unary(gnp.tan),
    "tanh": _unary(gnp.tanh),
    "sinh": _unary(gnp.sinh),
    "cosh": _unary(gnp.cosh),
    "logistic": _unary(gnn.sigmoid),
    "erf": _unary(gnp.erf),
    "erfc": _unary(_erfc),
    "integer_pow": lambda params, x: gnp.power(x, int(params["y"])),
    "pow": _pow,
    "is_finite": _unary(gnp.isfinite),
    "eq": _binary(gnp.equal),
    "ne": _binary(gnp.not_equal),
    "lt": _binary(gnp.less),
    "le": _binary(gnp.less_equal),
    "gt": _binary(gnp.greater),
    "ge": _binary(gnp.greater_equal),
    "and": _binary(gnp.bitwise_and),
    "or": _binary(gnp.bitwise_or),
    "xor": _binary(gnp.bitwise_xor),
    "not": _unary(gnp.invert),
    "select_n": _select_n,
    "clamp": lambda params, lo, x, hi: gnp.clip(x, lo, hi),
    "convert_element_type": _convert,
    "stop_gradient": _unary(gnp.stop_gradient),
    "reduce_sum": _reduce(gnp.sum),
    "reduce_max": _reduce(gnp.max),
    "reduce_min": _reduce(gnp.min),
    "reduce_prod": _reduce(gnp.prod),
    "reduce_and": _reduce(gnp.all),
    "reduce_or": _reduce(gnp.any),
    "argmax": _arg(gnp.argmax),
    "argmin": _arg(gnp.argmin),
    "broadcast_in_dim": _broadcast_in_dim,
    "reshape": _reshape,
    "transpose": lambda params, x: gnp.transpose(x, params["permutation"]),
    "squeeze": lambda params, x: gnp.squeeze(x, tuple(params["dimensions"])),
    "expand_dims": lambda params, x: gnp.expand_dims(x, tuple(params["dimensions"])),
    "dot_general": _dot_general,
    "slice": _slice,
    "pad": _pad,
    "concatenate": _concatenate,
    "split": _split,
    "rev": _rev,
    **jax_primitives.RULES,
}
IDENTITIES = (
    "copy",
    "copy_p",
    "device_put",
    "optimization_barrier",
    "sharding_constraint",
)
"""Primitives whose results are their operands."""
CALLS = (
    "jit",
    "pjit",
    "closed_call",
    "core_call",
    "remat",
    "remat2",
    "checkpoint",
    "custom_jvp_call",
    "custom_vjp_call",
    "custom_vjp_call_jaxpr",
)
"""Call primitives, whose body (param `jaxpr`, `call_jaxpr` or `fun_jaxpr`) is
inlined, but for those of `CUSTOM`."""
CUSTOM = ("custom_jvp_call", "custom_vjp_call", "custom_vjp_call_jaxpr")
"""Calls of a function with a user-given derivative: `grad.custom`."""

_IN_RULE: ContextVar[bool] = ContextVar("gradopt_from_jax_rule", default=False)
"""Whether a rule's jaxpr is being evaluated: the custom calls in it (the
primal a jvp rule computes, say) only give values there, so they are inlined
(their derivative is the rule's own, which JAX has applied already)."""


def _rule_jaxpr(eqn: Any, mode: str) -> Any:
    """The closed jaxpr of the vjp function (operands, then one cotangent per
    result, to one cotangent per operand) or of the jvp function (operands,
    then one tangent per operand, to the results' tangents) of a custom call:
    JAX's own `vjp` or `jvp` of the equation, which applies the user's rule.
    Only float32 values carry derivatives: the others get zeros."""
    import jax  # pyright: ignore[reportMissingImports]

    params = eqn.primitive.get_bind_params(eqn.params)

    def avals(variables: Sequence[Any]) -> list[Any]:
        return [jax.ShapeDtypeStruct(v.aval.shape, v.aval.dtype) for v in variables]

    ins, outs = avals(eqn.invars), avals(eqn.outvars)
    floats = [i for i, a in enumerate(ins) if a.dtype == np.float32]

    def of_floats(primals: Sequence[Any]) -> Callable[..., Any]:
        def f(*xs: Any) -> Any:
            args = list(primals)
            for i, x in zip(floats, xs, strict=True):
                args[i] = x
            return eqn.primitive.bind(*args, **params)

        return f

    def vjp(primals: list[Any], cotangents: list[Any]) -> list[Any]:
        _, pullback = jax.vjp(of_floats(primals), *[primals[i] for i in floats])
        found = dict(zip(floats, pullback(list(cotangents)), strict=True))
        return [found.get(i, jax.numpy.zeros_like(p)) for i, p in enumerate(primals)]

    def jvp(primals: list[Any], tangents: list[Any]) -> list[Any]:
        chosen = [primals[i] for i in floats], [tangents[i] for i in floats]
        return list(jax.jvp(of_floats(primals), chosen[0], chosen[1])[1])

    if mode == "vjp":
        return jax.make_jaxpr(vjp)(ins, outs)
    return jax.make_jaxpr(jvp)(ins, ins)


def _custom(eqn: Any, inputs: list[Value], where: Location | None) -> list[Array]:
    """A custom call as `grad.custom`, its functions made once per custom
    function in a module (its jvp jaxpr calls the function again)."""
    from gradopt.frontend.custom import emit_custom

    jaxpr, consts = _body(eqn)

    def rule(mode: str) -> Callable[[list[Array], list[Array]], list[Value]]:
        def function(xs: list[Array], ys: list[Array]) -> list[Value]:
            closed = _rule_jaxpr(eqn, mode)
            _check(closed.jaxpr, where)
            token = _IN_RULE.set(True)
            try:
                arguments = [*xs, *ys]
                return _evaluate(closed.jaxpr, closed.consts, arguments, where, True)
            finally:
                _IN_RULE.reset(token)

        return function

    return emit_custom(
        ("from_jax", id(eqn.params.get("call_jaxpr", eqn))),
        str(eqn.params.get("name", eqn.primitive.name)),
        [asarray(x) for x in inputs],
        lambda xs: _evaluate(jaxpr, consts, xs, where),
        rule("vjp"),
        rule("jvp") if eqn.primitive.name == "custom_jvp_call" else None,
    )


def _body(eqn: Any) -> tuple[Any, Sequence[Any]]:
    """The jaxpr and constants of a call equation."""
    for name in ("jaxpr", "call_jaxpr", "fun_jaxpr"):
        if (body := eqn.params.get(name)) is not None:
            if hasattr(body, "consts"):  # a ClosedJaxpr
                return body.jaxpr, body.consts
            return body, ()
    raise error(f"from_jax: no body found in '{eqn.primitive.name}'", _where(eqn))


def _where(eqn: Any) -> Location | None:
    """The user's line of a JAX equation, from JAX's source information (an
    internal API: without it, the op is at the line calling the function)."""
    try:
        from jax._src import source_info_util  # pyright: ignore[reportMissingImports]

        frame = source_info_util.user_frame(eqn.source_info.traceback)
    except Exception:
        return None
    if frame is None:
        return None
    return Location(frame.file_name, frame.start_line, frame.start_column + 1)


def _check(jaxpr: Any, outer: Location | None = None) -> None:
    """Raise an error at the first equation without a gradopt counterpart
    (at the line of the call it is in, if JAX knows no line of its own)."""
    for eqn in jaxpr.eqns:
        name, where = eqn.primitive.name, _where(eqn) or outer
        if name in CALLS:
            _check(_body(eqn)[0], where)
        elif name not in RULES and name not in IDENTITIES:
            raise error(
                f"from_jax: the JAX primitive '{name}' has no gradopt counterpart",
                where,
            )
        for body in jax_control_flow.bodies(eqn):
            _check(body, where)


def _live(jaxpr: Any) -> list[Any]:
    """The equations of `jaxpr` whose results its outputs depend on."""
    from jax.extend.core import Var  # pyright: ignore[reportMissingImports]

    needed = {v for v in jaxpr.outvars if isinstance(v, Var)}
    live = []
    for eqn in reversed(jaxpr.eqns):
        if eqn.effects or any(v in needed for v in eqn.outvars):
            live.append(eqn)
            needed.update(v for v in eqn.invars if isinstance(v, Var))
    return live[::-1]


def _evaluate(
    jaxpr: Any,
    consts: Sequence[Any],
    args: Sequence[Value],
    outer: Location | None = None,
    live_only: bool = False,
) -> list[Value]:
    """The jaxpr's outputs for `args`: traced arrays, or NumPy values for those
    computed from constants only (by JAX). Ops are at their equation's line,
    or that of the call they are in (`outer`). With `live_only`, equations
    whose results nothing reads are left out (a rule's jaxpr recomputes the
    custom call it is the rule of, and that call must not be traced again)."""
    from jax.extend.core import Literal  # pyright: ignore[reportMissingImports]

    env: dict[Any, Value] = {}

    def read(var: Any) -> Value:
        if isinstance(var, Literal):
            return np.asarray(var.val, dtype=var.aval.dtype)  # pyright: ignore[reportAttributeAccessIssue]
        return env[var]

    for var, value in zip(jaxpr.constvars, consts, strict=True):
        env[var] = np.asarray(value)
    for var, value in zip(jaxpr.invars, args, strict=True):
        env[var] = value
    for eqn in _live(jaxpr) if live_only else jaxpr.eqns:
        inputs = [read(v) for v in eqn.invars]
        where = _where(eqn) or outer
        with located(where):
            outputs = _apply(eqn, inputs, where)
        for var, value in zip(eqn.outvars, outputs, strict=True):
            env[var] = value
    return [read(v) for v in jaxpr.outvars]


RULES.update(jax_control_flow.rules(_evaluate))

FOLDS: dict[str, Callable[..., np.ndarray]] = {
    "convert_element_type": lambda p, x: x.astype(canonical_dtype(p["new_dtype"])),
}
"""Equations computed at trace time when their operands are constants, so
that a value `pad` needs as a literal (`jnp.pad` converts its `0` to the
operand's dtype) is one; every other equation becomes ops, constants
included."""


def _apply(eqn: Any, inputs: list[Value], where: Location | None) -> list[Any]:
    name = eqn.primitive.name
    if name in FOLDS and all(isinstance(x, np.ndarray) for x in inputs):
        return [FOLDS[name](eqn.params, *inputs)]
    if name in IDENTITIES:
        return inputs
    if name in CUSTOM and not _IN_RULE.get():
        return _custom(eqn, inputs, where)
    if name in CALLS:
        jaxpr, consts = _body(eqn)
        return _evaluate(jaxpr, consts, inputs, where)
    result = RULES[name](eqn.params, *inputs)
    return list(result) if eqn.primitive.multiple_results else [result]


def _abstract(leaf: Any) -> Any:
    import jax  # pyright: ignore[reportMissingImports]

    if is_scalar(leaf):
        dtype = {bool: np.bool_, int: np.int32}.get(type(leaf), np.float32)
        return jax.ShapeDtypeStruct((), dtype, weak_type=not isinstance(leaf, bool))
    dtype = leaf.dtype if hasattr(leaf, "dtype") else np.asarray(leaf).dtype
    return jax.ShapeDtypeStruct(tuple(np.shape(leaf)), canonical_dtype(dtype))


def from_jax(fn: Callable[..., Any], *example_args: Any) -> Traced:
    """`fn`, a JAX function, as a gradopt traced function: its jaxpr for the
    signature of `example_args` (and for any other signature it is called
    with, made when first needed) evaluated on traced arrays."""
    try:
        import jax  # pyright: ignore[reportMissingImports]
    except ImportError:
        raise error("from_jax needs JAX: pip install 'gradopt[jax]'") from None

    jaxprs: dict[object, tuple[Any, Any]] = {}

    def jaxpr_for(args: tuple[Any, ...]) -> tuple[list[Any], Any, Any]:
        leaves, tree = jax.tree_util.tree_flatten(args)
        abstract = [_abstract(leaf) for leaf in leaves]
        key = (tree, tuple((a.shape, a.dtype, a.weak_type) for a in abstract))
        if key not in jaxprs:
            closed, shapes = jax.make_jaxpr(fn, return_shape=True)(
                *jax.tree_util.tree_unflatten(tree, abstract)
            )
            _check(closed.jaxpr)
            jaxprs[key] = closed, jax.tree_util.tree_structure(shapes)
        closed, out_tree = jaxprs[key]
        return leaves, closed, out_tree

    jaxpr_for(tuple(example_args))

    def body(args: tuple[Any, ...], kwargs: dict[str, Any], fresh: bool) -> Any:
        if kwargs:
            raise error("a function from from_jax takes positional arguments only")
        leaves, closed, out_tree = jaxpr_for(args)
        values = [
            leaf if isinstance(leaf, Array) else np.asarray(leaf, _abstract(leaf).dtype)
            for leaf in leaves
        ]
        outputs = _evaluate(closed.jaxpr, closed.consts, values)
        return jax.tree_util.tree_unflatten(out_tree, outputs)

    return Traced(body, f"from_jax({getattr(fn, '__name__', 'fn')})")
