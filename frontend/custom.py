"""`custom_vjp` and `custom_jvp`: functions whose derivatives the user gives,
emitted as `grad.custom` (SPEC §3.7) with JAX's semantics and signatures.

The function, its vjp and its jvp are each traced once per signature into a
`func.func` of the module being traced (`Trace.functions`; in a trace of their
own, so they cannot read the caller's traced arrays: those are arguments), and
each call becomes `grad.custom @f(operands) vjp @f_vjp jvp @f_jvp`, whose derivatives
the expansion takes from those functions, never from f's body:

- `custom_vjp`: the vjp function runs `fwd` on the operands and `bwd` on its
  residuals and the cotangents (so the residuals are recomputed where the
  cotangents are known); there is no jvp function, as in JAX, whose forward
  mode refuses a `custom_vjp` function too.
- `custom_jvp`: the jvp function is the rule; the vjp function is its
  transpose, taken as a `grad.vjp` of the rule's tangent output with respect
  to tangent inputs, which is exact because the rule is linear in them (JAX
  transposes the rule the same way).

`emit_custom` is the shared part, also used by `from_jax` for JAX's
`custom_jvp_call` and `custom_vjp_call`.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from xdsl.dialects.builtin import TensorType
from xdsl.dialects.func import FuncOp, ReturnOp
from xdsl.ir import Attribute, Region

from gradopt.dialect.differentiation import VjpOp
from gradopt.dialect.ops import CastOp
from gradopt.dialect.ops.custom import CustomOp
from gradopt.frontend.array import DTYPES, FLOAT32, Array, ArrayLike, emit
from gradopt.frontend.control_flow import marked
from gradopt.frontend.lax_numpy import asarray, full
from gradopt.frontend.trace import Trace, current_trace, error, tracing
from gradopt.frontend.tree import TreeDef, flatten
from gradopt.frontend.ufuncs import add

FunctionBody = Callable[[list[Array]], Sequence[ArrayLike]]
"""Computes a function's results from its arguments, as traced arrays."""

Rule = Callable[[list[Array], list[Array]], Sequence[ArrayLike]]
"""A vjp or jvp function: from the operands and the cotangents or tangents."""


def trace_function(name: str, types: Sequence[Attribute], body: FunctionBody) -> FuncOp:
    """The `func.func` `name` of the module being traced, whose arguments have
    `types` and whose body `body` traces (in a trace of its own: it must not
    use arrays of the caller)."""
    outer = current_trace()
    assert outer is not None
    inner = Trace(types, outer.functions)
    with tracing(inner):
        arguments = [Array(inner, a) for a in inner.block.args]
        results = [asarray(r) for r in body(arguments)]
        inner.emit(ReturnOp(*(r.value for r in results)))
    function = FuncOp(name, (types, [r.type for r in results]), Region(inner.block))
    outer.functions.ops.append(function)
    return function


def zeros_of(type: Attribute) -> Array:
    """Zeros (or false) of a tensor type."""
    assert isinstance(type, TensorType)
    return full(type.get_shape(), 0, DTYPES[type.get_element_type()])


@dataclass
class _Made:
    """The functions of one custom function for one signature: the names of
    @f, its vjp and its jvp, and @f's result types once traced."""

    names: dict[str, str]
    results: list[Attribute] | None = None


def emit_custom(
    key: object,
    hint: str,
    operands: Sequence[Array],
    primal: FunctionBody,
    vjp: Rule | None,
    jvp: Rule | None,
) -> list[Array]:
    """`grad.custom` of `primal` on `operands`, with the vjp function
    `vjp(operands, cotangents)` (one cotangent per result) and the jvp
    function `jvp(operands, tangents)` (one tangent per operand). The
    functions are traced once per `key` and operand types in a module, so a
    rule may call the function it is the rule of."""
    trace = current_trace()
    assert trace is not None
    types = [o.type for o in operands]
    made = trace.functions.known.get((key, tuple(types)))
    if made is None:
        modes = {"vjp": vjp, "jvp": jvp}
        made = _Made({"f": trace.functions.fresh(hint)})
        for mode, rule in modes.items():
            if rule is not None:
                made.names[mode] = trace.functions.fresh(f"{hint}_{mode}")
        trace.functions.known[key, tuple(types)] = made
        f = trace_function(made.names["f"], types, primal)
        made.results = list(f.function_type.outputs.data)
        signatures = {
            "vjp": ([*types, *made.results], types),
            "jvp": (types * 2, made.results),
        }
        for mode, rule in modes.items():
            if rule is not None:
                inputs, outputs = signatures[mode]
                body = _split(len(operands), rule, outputs)
                trace_function(made.names[mode], inputs, body)
    elif made.results is None:
        raise error(f"{hint} calls itself: a custom function cannot be recursive")
    op = CustomOp(
        made.names["f"],
        [o.value for o in operands],
        made.results,
        vjp=made.names.get("vjp"),
        jvp=made.names.get("jvp"),
    )
    trace.emit(op)
    return [Array(trace, r) for r in op.results]


def _split(
    count: int,
    rule: Callable[[list[Array], list[Array]], Sequence[ArrayLike]],
    types: Sequence[Attribute],
) -> FunctionBody:
    """A function body of `count` operands then the rule's other arguments,
    whose results must have `types`."""

    def body(args: list[Array]) -> list[Array]:
        results = [asarray(r) for r in rule(args[:count], args[count:])]
        if [r.type for r in results] != list(types):
            raise error(
                "a custom derivative rule returned values of types "
                f"{[str(r.type) for r in results]}, expected {[str(t) for t in types]}"
            )
        return results

    return body


class _Custom(ABC):
    """What `custom_vjp` and `custom_jvp` share: the call, which traces the
    function as `grad.custom` inside a trace and runs it as `jit` outside."""

    def __init__(self, fun: Callable[..., Any], nondiff_argnums: Sequence[int]) -> None:
        self.fun = fun
        self.nondiff = tuple(sorted({int(i) for i in nondiff_argnums}))
        self.__name__ = getattr(fun, "__name__", type(fun).__name__)
        self.__doc__ = getattr(fun, "__doc__", None)
        self._jitted: dict[tuple[int, ...], Any] = {}
        self._out_trees: dict[object, list[TreeDef]] = {}

    @abstractmethod
    def rules(self, call: Call) -> tuple[Rule | None, Rule | None]:
        """The vjp and jvp functions' bodies for `call`."""

    def __call__(self, *args: Any) -> Any:
        for i in self.nondiff:
            if not -len(args) <= i < len(args):
                raise error(f"{self.__name__}: nondiff_argnums {i} is out of range "
                            f"for {len(args)} arguments")  # fmt: skip
        fixed = tuple(i % len(args) for i in self.nondiff if _is_static(args[i]))
        if current_trace() is None:
            if fixed not in self._jitted:
                from gradopt.frontend.transforms import jit

                self._jitted[fixed] = jit(self, static_argnums=fixed)
            return self._jitted[fixed](*args)
        static = tuple((i, args[i]) for i in fixed)
        dynamic = tuple(a for i, a in enumerate(args) if i not in fixed)
        leaves, tree = flatten(dynamic)
        operands = [asarray(leaf) for leaf in leaves]
        try:
            key = (tree, tuple(o.type for o in operands), static)
            hash(key)
        except TypeError:
            raise error(f"{self.__name__}: an argument in nondiff_argnums that is "
                        "not an array must be hashable") from None  # fmt: skip
        call = Call(
            len(args), self.nondiff, static, tree, self._out_trees.setdefault(key, [])
        )

        def primal(xs: list[Array]) -> list[Any]:
            out_leaves, structure = flatten(self.fun(*call.arguments(xs)))
            call.out_tree.append(structure)
            return out_leaves

        vjp, jvp = self.rules(call)
        results = emit_custom(
            (self, tree, static), self.__name__, operands, primal, vjp, jvp
        )
        return call.out_tree[0].unflatten(iter(results))


def _is_static(value: Any) -> bool:
    """A `nondiff_argnums` value that is not an array (a function, a number, a
    string): fixed into the traced functions, not an operand."""
    return not isinstance(value, Array | np.ndarray | np.generic)


@dataclass(frozen=True)
class Call:
    """One call of a custom function: `count` arguments, those at `nondiff`
    not differentiated, those of `static` (position, value) fixed at trace
    time; the others, flattened with `tree`, are the operands. `out_tree`
    gets the output's structure once f is traced."""

    count: int
    nondiff: tuple[int, ...]
    static: tuple[tuple[int, Any], ...]
    tree: TreeDef
    out_tree: list[TreeDef]

    def arguments(self, xs: list[Array]) -> list[Any]:
        """All the arguments, from the operands."""
        values = list(self.tree.unflatten(iter(xs)))
        for i, value in self.static:
            values.insert(i, value)
        return values

    def split(self, values: list[Any]) -> tuple[list[Any], tuple[Any, ...]]:
        """The nondiff arguments, and the others as a tuple."""
        nondiff = [values[i] for i in self.nondiff]
        return nondiff, tuple(v for i, v in enumerate(values) if i not in self.nondiff)

    def operand_cotangents(self, cotangents: tuple[Any, ...]) -> tuple[Any, ...]:
        """One cotangent per dynamic argument from one per differentiated
        argument (None, zeros, for a nondiff one)."""
        given = iter(cotangents)
        per_argument = [None if i in self.nondiff else next(given)
                        for i in range(self.count)]  # fmt: skip
        fixed = {i for i, _ in self.static}
        return tuple(c for i, c in enumerate(per_argument) if i not in fixed)


def _per_operand(
    args: tuple[Any, ...], xs: list[Array], cotangents: Any, what: str
) -> list[Array]:
    """The cotangents `bwd` returned (a tuple with one tree per argument, None
    for zeros) as one array per operand; zeros for operands that are not
    float32, which carry none."""
    if not isinstance(cotangents, tuple | list) or len(cotangents) != len(args):
        raise error(
            f"{what}: bwd must return a tuple of {len(args)} cotangents, one per "
            "argument"
        )
    flat: list[Any] = []
    for arg, ct in zip(args, cotangents, strict=True):
        structure = flatten(arg)[1]
        if ct is None:
            flat += [None] * structure.count
            continue
        leaves, given = flatten(ct)
        if given != structure:
            raise error(f"{what}: a cotangent of bwd has not its argument's structure")
        flat += leaves
    return [
        asarray(ct) if ct is not None and x.dtype == FLOAT32 else zeros_of(x.type)
        for x, ct in zip(xs, flat, strict=True)
    ]


class custom_vjp(_Custom):
    """A function with a user-given reverse-mode rule, as `jax.custom_vjp`:
    `f.defvjp(fwd, bwd)` with `fwd(*args) -> (out, residuals)` and
    `bwd(residuals, out_cotangent) -> (one cotangent per argument,)`."""

    def __init__(
        self, fun: Callable[..., Any], nondiff_argnums: Sequence[int] = ()
    ) -> None:
        super().__init__(fun, nondiff_argnums)
        self.fwd: Callable[..., Any] | None = None
        self.bwd: Callable[..., Any] | None = None

    def defvjp(self, fwd: Callable[..., Any], bwd: Callable[..., Any]) -> None:
        self.fwd, self.bwd = fwd, bwd

    def rules(self, call: Call) -> tuple[Rule | None, Rule | None]:
        fwd, bwd = self.fwd, self.bwd
        if fwd is None or bwd is None:
            raise error(f"custom_vjp {self.__name__}: call defvjp(fwd, bwd) first")
        differentiated = call.count - len(call.nondiff)

        def vjp(xs: list[Array], cts: list[Array]) -> list[Array]:
            values = call.arguments(xs)
            out = fwd(*values)
            if not isinstance(out, tuple | list) or len(out) != 2:
                raise error("custom_vjp: fwd must return a pair (out, residuals)")
            nondiff, _ = call.split(values)
            grads = bwd(*nondiff, out[1], call.out_tree[0].unflatten(iter(cts)))
            if not isinstance(grads, tuple | list) or len(grads) != differentiated:
                raise error(
                    f"custom_vjp: bwd must return a tuple of {differentiated} "
                    "cotangents, one per argument not in nondiff_argnums"
                )
            dynamic = call.tree.unflatten(iter(xs))
            return _per_operand(dynamic, xs, call.operand_cotangents(tuple(grads)),
                                "custom_vjp")  # fmt: skip

        return vjp, None


class custom_jvp(_Custom):
    """A function with a user-given forward-mode rule, as `jax.custom_jvp`:
    `f.defjvp(rule)` with `rule(primals, tangents) -> (out, tangent_out)`.
    Reverse mode transposes the rule, which must be linear in the tangents."""

    def __init__(
        self, fun: Callable[..., Any], nondiff_argnums: Sequence[int] = ()
    ) -> None:
        super().__init__(fun, nondiff_argnums)
        self.jvp: Callable[..., Any] | None = None

    def defjvp(self, jvp: Callable[..., Any]) -> Callable[..., Any]:
        self.jvp = jvp
        return jvp

    def rules(self, call: Call) -> tuple[Rule | None, Rule | None]:
        rule = self.jvp
        if rule is None:
            raise error(f"custom_jvp {self.__name__}: call defjvp(rule) first")

        def jvp(xs: list[Array], ts: list[Array]) -> list[Any]:
            nondiff, primals = call.split(call.arguments(xs))
            tangents = call.split(call.arguments(ts))[1]
            out = rule(*nondiff, primals, tangents)
            if not isinstance(out, tuple | list) or len(out) != 2:
                raise error("custom_jvp: the rule must return (out, tangent_out)")
            leaves, structure = flatten(out[1])
            if structure != call.out_tree[0]:
                raise error("custom_jvp: tangent_out must have the output's structure")
            return [
                asarray(t, FLOAT32) if y.dtype == FLOAT32 else zeros_of(y.type)
                for t, y in zip(
                    leaves, [asarray(y) for y in flatten(out[0])[0]], strict=True
                )
            ]

        def vjp(xs: list[Array], cts: list[Array]) -> list[Array]:
            return transpose(jvp, xs, cts)

        return vjp, jvp


def transpose(jvp: Rule, xs: list[Array], cts: list[Array]) -> list[Array]:
    """The vjp of a jvp rule linear in its tangents: `grad.vjp` of each f32
    tangent output, seeded with its cotangent, with respect to tangent inputs
    that are fresh values (distinct splats, so that no two are twins)."""
    targets = {
        i: emit(CastOp(full(x.shape, float(i), FLOAT32).value, x.type))
        for i, x in enumerate(xs)
        if x.dtype == FLOAT32
    }
    tangents = [
        targets[i] if i in targets else zeros_of(x.type) for i, x in enumerate(xs)
    ]
    sums: dict[int, Array] = {}
    for y, ct in zip(jvp(xs, tangents), cts, strict=True):
        y = asarray(y)
        if y.dtype != FLOAT32 or not targets:
            continue
        op = marked(VjpOp(y.value, ct.value, [t.value for t in targets.values()]))
        trace = current_trace()
        assert trace is not None
        trace.emit(op)
        for i, share in zip(targets, op.results, strict=True):
            value = Array(trace, share)
            sums[i] = add(sums[i], value) if i in sums else value
    return [sums[i] if i in sums else zeros_of(x.type) for i, x in enumerate(xs)]
