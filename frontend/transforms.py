"""`jit`, `grad`, `value_and_grad`, `vjp`, `jvp` and `stop_gradient`.

Each transform returns a `Traced` function. Called with NumPy arrays and Python
numbers, it traces its body once per input signature into a `func.func @main`,
prepares it with `gradopt.Program` (verify, expand every differentiation op)
and runs it; the prepared program is cached. Called while another function is
traced, it is inlined into that trace instead, which is how transforms nest:
`grad(grad(f))` traces the inner gradient into the outer one's graph, and the
differentiation ops (`grad.gradient`, `grad.vjp`, `grad.jvp`) are then expanded
inner first, with the bits of SPEC §5.

Inside an enclosing trace, the values a transform differentiates with respect
to are fresh copies (`grad.cast` to their own type) of the arguments: the
function may also close over the argument itself, which must count as a
constant for this derivative, as in JAX. The block arguments of the transform's
own top-level trace need no copy: nothing else can refer to them.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, cast

import numpy as np
from xdsl.dialects.builtin import IntegerAttr, ModuleOp, TensorType, i64
from xdsl.dialects.func import FuncOp, ReturnOp
from xdsl.ir import Region

from gradopt.dialect.differentiation import (
    DifferentiationOp,
    GradientOp,
    JvpOp,
    VjpOp,
)
from gradopt.dialect.ops import CastOp, DetachOp
from gradopt.dialect.types import fits_i32
from gradopt.frontend.array import (
    ELEMENTS,
    FLOAT32,
    Array,
    canonical_dtype,
    emit,
    is_scalar,
    scalar_dtype,
    tensor,
    trace,
)
from gradopt.frontend.control_flow import marked
from gradopt.frontend.float0 import FLOAT0, integral, is_float0, placed, zeros
from gradopt.frontend.lax_numpy import asarray, full
from gradopt.frontend.trace import (
    Trace,
    current_trace,
    error,
    relocated,
    tracing,
    user_traceback,
)
from gradopt.frontend.tree import TreeDef, flatten, tree_map
from gradopt.frontend.ufuncs import add
from gradopt.runtime.program import RUN_BACKENDS, GradoptError, Program
from gradopt.support import environment
from gradopt.support.caches import BoundedCache, module_bytes

Body = Callable[[tuple[Any, ...], dict[str, Any], bool], Any]
"""What a `Traced` function computes, from its positional and keyword
arguments and whether they are the fresh block arguments of its own trace."""


@dataclass(frozen=True)
class Compiled:
    """One traced signature: its module as traced, the prepared program, and
    the structure of the results."""

    module: ModuleOp
    program: Program
    out_tree: TreeDef
    float0s: tuple[np.ndarray | None, ...] | None = None
    """The float0 leaves of the results (None for the others), which the
    program does not return; None if there are none."""
    match: Match | None = None
    """Whether arguments have this signature, without building their key
    (`_matcher`); None where the signature holds other leaves than arrays of
    gradopt's element types."""


@dataclass(frozen=True)
class Lowered:
    """What `Traced.lower` gives: the traced module, before its
    differentiation ops are expanded."""

    module: ModuleOp

    def as_text(self) -> str:
        return str(self.module)


class Traced:
    """A function traced into a `grad` module once per input signature (the
    shapes and dtypes of the array arguments, the types of the Python numbers,
    the values of the static arguments) and cached, like `jax.jit`."""

    def __init__(
        self,
        body: Body,
        name: str,
        backend: str = "numpy",
        static_argnums: Sequence[int] = (),
    ) -> None:
        if backend not in RUN_BACKENDS:
            raise error(f"unknown backend {backend!r}: expected numpy, iree or auto")
        self.body, self.name, self.backend = body, name, backend
        self.static_argnums = tuple(static_argnums)
        self.cache: BoundedCache[object, Compiled] = BoundedCache()
        self.last: tuple[Compiled, tuple[tuple[int, Any], ...]] | None = None
        """The signature of the last call and its static arguments, tried
        first (`Compiled.match`, `_last_if_it_matches`):
        building and looking up a small MLP step's key took 15 us of its
        jitted call's 62 on IREE, its match 3 (bench/RESULTS.md)."""

    def __repr__(self) -> str:
        return f"<gradopt.Traced {self.name}>"

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if current_trace() is not None:
            return self.body(args, kwargs, False)
        try:
            leaves: list[Any] = []
            dynamic, static = self._split(args, kwargs)
            compiled = self._last_if_it_matches(dynamic, static, leaves)
            if compiled is None:
                structure = _structure(dynamic, leaves)
                compiled = self._compiled(dynamic, structure, leaves, static)
            try:
                results = compiled.program.run_staged(leaves, self.backend)
            except GradoptError as failure:
                raise relocated(failure) from None
            if compiled.float0s is not None:
                return compiled.out_tree.unflatten(placed(compiled.float0s, results))
            return compiled.out_tree.unflatten(iter(results))
        except GradoptError as failure:
            raise failure.with_traceback(
                user_traceback(failure.__traceback__)
            ) from None

    def lower(self, *args: Any, **kwargs: Any) -> Lowered:
        """The module traced for these arguments' signature."""
        try:
            return Lowered(self.compile(args, kwargs).module)
        except GradoptError as failure:
            raise failure.with_traceback(
                user_traceback(failure.__traceback__)
            ) from None

    def _split(
        self, args: Sequence[Any], kwargs: dict[str, Any]
    ) -> tuple[tuple[Any, ...], tuple[tuple[int, Any], ...]]:
        """The traced arguments (positional, keyword) and the static ones with
        their positions."""
        if not self.static_argnums:
            return (tuple(args), kwargs), ()
        statics = sorted(
            {i % len(args) for i in self.static_argnums if -len(args) <= i < len(args)}
        )
        dynamic = tuple(a for i, a in enumerate(args) if i not in statics)
        return (dynamic, kwargs), tuple((i, args[i]) for i in statics)

    def _last_if_it_matches(
        self,
        dynamic: Any,
        static: tuple[tuple[int, Any], ...],
        leaves: list[Any],
    ) -> Compiled | None:
        """The last call's signature if `dynamic` matches it (its leaves then
        appended to `leaves`) and `static` equals its static arguments."""
        if (last := self.last) is None:
            return None
        compiled, known = last
        try:
            same = known == static
        except (TypeError, ValueError):  # an array: the key refuses it
            return None
        if same and cast(Match, compiled.match)(dynamic, leaves):
            return compiled
        leaves.clear()
        return None

    def compile(self, args: Sequence[Any], kwargs: dict[str, Any]) -> Compiled:
        dynamic, static = self._split(args, kwargs)
        leaves: list[Any] = []
        return self._compiled(dynamic, _structure(dynamic, leaves), leaves, static)

    def _compiled(
        self,
        dynamic: Any,
        structure: object,
        leaves: list[Any],
        static: tuple[tuple[int, Any], ...],
    ) -> Compiled:
        """The cached signature of `dynamic`, whose `_structure` and leaves
        are given, traced and prepared on a miss."""
        try:
            key = (structure, static)
            hash(key)
        except TypeError:
            raise error("static arguments must be hashable") from None
        if (known := self.cache.get(key)) is not None:
            if known.match is not None:
                self.last = known, static
            return known
        all_leaves, in_tree = flatten(dynamic)
        types = [_input_type(leaf) for leaf in leaves]
        active = Trace(types)
        with tracing(active):
            inputs = (Array(active, a) for a in active.block.args)
            template = [leaf if is_float0(leaf) else None for leaf in all_leaves]
            positional, keywords = in_tree.unflatten(placed(template, inputs))
            rebuilt = list(positional)
            for i, value in static:
                rebuilt.insert(i, value)
            out = self.body(tuple(rebuilt), keywords, True)
            out_leaves, out_tree = flatten(out)
            float0s = tuple(leaf if is_float0(leaf) else None for leaf in out_leaves)
            results = [_output(leaf) for leaf in out_leaves if not is_float0(leaf)]
            active.emit(ReturnOp(*(r.value for r in results)))
        function = FuncOp(
            "main", (types, [r.type for r in results]), Region(active.block)
        )
        module = ModuleOp([function, *active.functions.ops])
        try:
            program = Program(module, self.name)
        except GradoptError as failure:
            raise relocated(failure) from None
        kept = float0s if any(leaf is not None for leaf in float0s) else None
        match = _matcher(structure)
        if match is not None and not match(dynamic, []):
            match = None  # a Python number where the key holds its dtype
        compiled = Compiled(module, program, out_tree, kept, match)
        self.cache.put(
            key, compiled, module_bytes(program.module), JIT_CACHE_ENTRIES, _budget()
        )
        # what the cache keeps, as the cache (which drops entries only here)
        kept_now = self.cache.get(key) is compiled
        self.last = (compiled, static) if match is not None and kept_now else None
        return compiled


JIT_CACHE_ENTRIES = 1 << 16
"""The most signatures a traced function keeps (its bytes bound it first)."""

JIT_CACHE_BYTES = 256 << 20
"""How many bytes of prepared programs each traced function keeps, as
`caches.module_bytes` estimates them (`GRADOPT_JIT_CACHE_BYTES`; 0 keeps
none): its least recently used signatures are traced again if called."""


def _budget() -> int:
    try:
        return environment.integer("GRADOPT_JIT_CACHE_BYTES", JIT_CACHE_BYTES)
    except environment.SettingError as failure:
        raise error(str(failure)) from None


def _structure(tree: Any, leaves: list[Any]) -> object:
    """What of `tree` selects the traced signature, with its leaves appended
    to `leaves` in `flatten`'s order: its structure as `flatten` reads it
    (the kind of each tuple or list, the sorted keys of each dict) and each
    leaf's `_signature`, as nested tuples, which Python hashes and compares
    in C, where the `TreeDef` that `flatten` builds is built, hashed and
    compared field by field in Python (`bench/jit_call.py`: the lookup of a
    small step's signature took 54 us, 15 us with this key, at load 18)."""
    if type(tree) is np.ndarray:  # most leaves: checked first
        dtype = tree.dtype
        if dtype in ELEMENTS:
            leaves.append(tree)
            return dtype, tree.shape
        if dtype == FLOAT0:  # a constant of the trace, not an argument
            return dtype, tree.shape
        leaves.append(tree)
        return canonical_dtype(dtype), tree.shape
    if isinstance(tree, (tuple, list)):
        return (type(tree), *[_structure(child, leaves) for child in tree])
    if isinstance(tree, dict):
        keys = tuple(sorted(tree))
        return (dict, keys, *[_structure(tree[key], leaves) for key in keys])
    if tree is None:
        return None
    if is_float0(tree):
        return FLOAT0, np.shape(tree)
    leaves.append(tree)
    return _signature(tree)


Match = Callable[[Any, list[Any]], bool]
"""Whether a tree has a given `_structure`: if so, its leaves are appended
to the list in `_structure`'s order."""


def _matcher(structure: object) -> Match | None:
    """A `Match` for the trees whose `_structure` is `structure`, made of
    tuples, lists, dicts (of exactly these types) and arrays of gradopt's
    element types, or None for any other: a Python number, None, a float0 or
    an array of another dtype take the general path. It is Python made for
    the structure, a line a node, which builds nothing (the key is built
    anew and hashed): 1.1 us for the small MLP step's nine nodes, where a
    function a node took 5."""
    lines: list[str] = []
    constants: dict[str, object] = {"ndarray": np.ndarray, "MISSING": _MISSING}
    leaves: list[str] = []
    if not _match_lines(structure, "tree", lines, constants, leaves):
        return None
    if leaves:
        lines.append(f"out.extend(({', '.join(leaves)},))")
    body = "\n    ".join([*lines, "return True"])
    exec(
        compile(f"def match(tree, out):\n    {body}\n", "<gradopt match>", "exec"),
        constants,
    )
    return cast(Match, constants["match"])


_MISSING = object()


def _match_lines(
    structure: object,
    name: str,
    lines: list[str],
    constants: dict[str, object],
    leaves: list[str],
) -> bool:
    """Append to `lines` the checks that the value `name` has `structure`,
    and to `leaves` the names of its leaves; False if `structure` holds what
    `_matcher` leaves to the general path."""
    if not isinstance(structure, tuple) or not structure:
        return False
    head = structure[0]
    if isinstance(head, np.dtype):
        if head not in ELEMENTS:
            return False
        constants[f"d_{name}"], constants[f"s_{name}"] = structure
        lines.append(
            f"if type({name}) is not ndarray or {name}.shape != s_{name} "
            f"or {name}.dtype != d_{name}: return False"
        )
        leaves.append(name)
        return True
    if head is dict:
        keys, children = structure[1], structure[2:]
        kind = "dict"
    elif isinstance(head, type) and issubclass(head, tuple | list):
        keys, children = None, structure[1:]
        kind = f"k_{name}"
        constants[kind] = head
    else:
        return False
    lines.append(
        f"if type({name}) is not {kind} or len({name}) != {len(children)}: return False"
    )
    names = [f"{name}_{i}" for i in range(len(children))]
    if keys is None:
        if names:
            lines.append(f"{', '.join(names)}, = {name}")
    else:
        for child, key in zip(names, keys, strict=True):
            constants[f"key_{child}"] = key
            lines.append(f"{child} = {name}.get(key_{child}, MISSING)")
    return all(
        _match_lines(child, child_name, lines, constants, leaves)
        for child, child_name in zip(children, names, strict=True)
    )


def _signature(leaf: object) -> object:
    """What of `leaf` selects the traced signature, as `_input_type` reads
    it: the canonical dtype and the shape (its errors where it has some)."""
    if isinstance(leaf, np.ndarray | np.generic):
        return canonical_dtype(leaf.dtype), leaf.shape
    if is_scalar(leaf) and (not isinstance(leaf, int) or fits_i32(leaf)):
        return scalar_dtype(leaf), ()
    return _input_type(leaf)


def _input_type(leaf: object) -> TensorType:
    if isinstance(leaf, Array):
        raise error("a traced array was passed to a function called outside any trace")
    if is_scalar(leaf):
        if isinstance(leaf, int) and not fits_i32(leaf):
            raise error(f"the argument {leaf} is out of range for int32")
        return tensor(scalar_dtype(leaf), ())
    if not isinstance(leaf, np.ndarray | np.generic) and not hasattr(leaf, "__array__"):
        raise error(
            f"an argument of type {type(leaf).__name__} is not an array: pass "
            "NumPy arrays or Python numbers (or mark it with static_argnums)"
        )
    array = np.asarray(leaf)
    return tensor(canonical_dtype(array.dtype), array.shape)


def _output(leaf: object) -> Array:
    if not isinstance(leaf, Array | np.ndarray | np.generic) and not is_scalar(leaf):
        raise error(
            f"a traced function returned a {type(leaf).__name__}: it can "
            "return arrays, numbers and tuples, lists or dicts of them"
        )
    return asarray(leaf)


def _name(f: Callable[..., Any]) -> str:
    if isinstance(f, Traced):
        return f.name
    return getattr(f, "__name__", type(f).__name__)


def jit(
    fun: Callable[..., Any],
    backend: str = "numpy",
    static_argnums: int | Sequence[int] = (),
) -> Traced:
    """`fun` traced once per input signature and run as a gradopt program
    (`backend` "numpy": the interpreter, "iree", or "auto": the interpreter
    until IREE has compiled the signature's program in the background, see
    `Program.run`; `f.compile(args, {}).program.ready()` waits for it)."""
    statics = (static_argnums,) if isinstance(static_argnums, int) else static_argnums
    if isinstance(fun, Traced):
        return Traced(fun.body, fun.name, backend, statics)
    return Traced(
        lambda args, kwargs, fresh: fun(*args, **kwargs), _name(fun), backend, statics
    )


# --- Differentiation -------------------------------------------------------------


def _results(op: DifferentiationOp) -> list[Array]:
    trace().emit(marked(op))
    return [Array(trace(), r) for r in op.results]


@dataclass
class Targets:
    """The arguments of a differentiated call, with the differentiated ones
    as arrays (the float32 ones fresh copies unless the call's own block
    arguments); the leaves of those, in order, and their structures; the
    float32 leaves, which it differentiates with respect to; and, leaf by
    leaf, None for such a target or the float0 zeros that stand for the
    derivative of an int32 or bool one."""

    values: list[Any]
    leaves: list[Array]
    trees: list[TreeDef]
    arrays: list[Array]
    float0s: list[np.ndarray | None]

    def unflatten(self, derivatives: Sequence[Any]) -> list[Any]:
        """The differentiated arguments' structures holding `derivatives`
        (one per target) and the float0 zeros."""
        leaves = placed(self.float0s, derivatives)
        return [tree.unflatten(leaves) for tree in self.trees]


def _targets(
    args: tuple[Any, ...],
    argnums: Sequence[int],
    fresh: bool,
    what: str,
    allow_int: bool,
) -> Targets:
    """The arguments `argnums` of `args` made ready to differentiate with
    respect to (see `Targets`); an int32 or bool one is an error unless
    `allow_int`, as in JAX."""
    values = list(args)
    targets = Targets(values, [], [], [], [])
    for i in argnums:
        if not -len(values) <= i < len(values):
            raise error(
                f"{what}: argnums {i} is out of range for {len(values)} arguments"
            )
        leaves, tree = flatten(values[i])
        arrays = [asarray(leaf) for leaf in leaves]
        integers = [a.dtype for a in arrays if a.dtype != FLOAT32]
        if integers and not allow_int:
            raise error(
                f"{what}: argument {i} holds {integers[0]} data: only float32 "
                "values can be differentiated (allow_int=True gives float0 "
                "zeros for an int32 or bool one, as in JAX)"
            )
        copies = [a if a.dtype != FLOAT32 or fresh else _target_copy(a) for a in arrays]
        values[i] = tree.unflatten(iter(copies))
        targets.leaves += copies
        for a in copies:
            if a.dtype == FLOAT32:
                targets.arrays.append(a)
                targets.float0s.append(None)
            else:
                targets.float0s.append(zeros(a.shape))
        targets.trees.append(tree)
    return targets


def _target_copy(x: Array) -> Array:
    """A copy of `x` to differentiate with respect to, numbered so that no
    two copies are twins (SPEC §4 rule 6): two gradients taken at one point
    are two targets, as in JAX, whatever `cse` would make of equal copies."""
    copy = CastOp(x.value, x.type)
    copy.attributes["grad.copy"] = IntegerAttr(trace().fresh_copy(), i64)
    return emit(copy)


def _argnums(argnums: int | Sequence[int]) -> tuple[int, ...]:
    return (argnums,) if isinstance(argnums, int) else tuple(argnums)


def _split_aux(out: Any, has_aux: bool, what: str) -> tuple[Any, Any]:
    if not has_aux:
        return out, None
    if not isinstance(out, tuple | list) or len(out) != 2:
        raise error(f"{what} with has_aux=True: the function must return a pair")
    return out[0], out[1]


def _value_and_grad_body(
    f: Callable[..., Any],
    argnums: int | Sequence[int],
    has_aux: bool,
    allow_int: bool,
    what: str,
) -> Callable[[tuple[Any, ...], dict[str, Any], bool], tuple[Any, Any, Any]]:
    def body(
        args: tuple[Any, ...], kwargs: dict[str, Any], fresh: bool
    ) -> tuple[Any, Any, Any]:
        targets = _targets(args, _argnums(argnums), fresh, what, allow_int)
        loss, aux = _split_aux(f(*targets.values, **kwargs), has_aux, what)
        loss = asarray(loss)
        if loss.shape != () or loss.dtype != FLOAT32:
            raise error(
                f"{what}: {_name(f)} must return a float32 scalar, got "
                f"{loss.dtype} data of shape {loss.shape}"
            )
        grads = (
            _results(GradientOp(loss.value, [t.value for t in targets.arrays]))
            if targets.arrays
            else []
        )
        trees_out = targets.unflatten(grads)
        result = trees_out[0] if isinstance(argnums, int) else tuple(trees_out)
        return loss, aux, result

    return body


def grad(
    f: Callable[..., Any],
    argnums: int | Sequence[int] = 0,
    has_aux: bool = False,
    allow_int: bool = False,
) -> Traced:
    """The gradient of `f` (a float32 scalar) with respect to argument
    `argnums` (a tuple of them gives a tuple), as `jax.grad`: an int32 or
    bool argument is an error, or with `allow_int` has float0 zeros."""
    body = _value_and_grad_body(f, argnums, has_aux, allow_int, "grad")

    def gradient(args: tuple[Any, ...], kwargs: dict[str, Any], fresh: bool) -> Any:
        _, aux, grads = body(args, kwargs, fresh)
        return (grads, aux) if has_aux else grads

    return Traced(gradient, f"grad({_name(f)})")


def value_and_grad(
    f: Callable[..., Any],
    argnums: int | Sequence[int] = 0,
    has_aux: bool = False,
    allow_int: bool = False,
) -> Traced:
    """`(f(*args), grad(f)(*args))` from one trace; with `has_aux`,
    `((loss, aux), grads)`."""
    body = _value_and_grad_body(f, argnums, has_aux, allow_int, "value_and_grad")

    def value_and_gradient(
        args: tuple[Any, ...], kwargs: dict[str, Any], fresh: bool
    ) -> Any:
        loss, aux, grads = body(args, kwargs, fresh)
        return ((loss, aux) if has_aux else loss), grads

    return Traced(value_and_gradient, f"value_and_grad({_name(f)})")


_CACHE: weakref.WeakKeyDictionary[Callable[..., Any], dict[object, Traced]] = (
    weakref.WeakKeyDictionary()
)


def _cached(f: Callable[..., Any], key: object, make: Callable[[], Traced]) -> Traced:
    """One `Traced` per function and transform, so that calling `vjp(f, x)`
    again does not trace `f` again."""
    try:
        per_function = _CACHE.setdefault(f, {})
    except TypeError:  # not weakly referable
        return make()
    if key not in per_function:
        per_function[key] = make()
    return per_function[key]


def _vjp_traced(
    f: Callable[..., Any], primals: tuple[Any, ...], has_aux: bool, fresh: bool
) -> tuple[Any, Callable[[Any], tuple[Any, ...]], Any]:
    targets = _targets(primals, range(len(primals)), fresh, "vjp", True)
    out, aux = _split_aux(f(*targets.values), has_aux, "vjp")
    out_leaves, out_tree = flatten(out)
    outputs = [asarray(leaf) for leaf in out_leaves]
    arrays = targets.arrays

    def vjp_fn(cotangent: Any) -> tuple[Any, ...]:
        leaves, tree = flatten(cotangent)
        if tree != out_tree:
            raise error("vjp: the cotangent must have the structure of the output")
        sums: list[Array | None] = [None] * len(arrays)
        for y, leaf in zip(outputs, leaves, strict=True):
            ct = leaf if is_float0(leaf) else asarray(leaf)
            if ct.shape != y.shape:
                raise error(
                    f"vjp: a cotangent of shape {ct.shape} for an output of "
                    f"shape {y.shape}"
                )
            if y.dtype != FLOAT32 or not arrays:
                continue
            if is_float0(ct):
                raise error(_float0_for_float32("vjp: a cotangent", y))
            ct = ct if ct.dtype == FLOAT32 else asarray(ct, FLOAT32)
            shares = _results(VjpOp(y.value, ct.value, [t.value for t in arrays]))
            sums = [
                g if s is None else add(s, g) for s, g in zip(sums, shares, strict=True)
            ]
        grads = [
            s if s is not None else full(t.shape, 0.0, FLOAT32)
            for s, t in zip(sums, arrays, strict=True)
        ]
        return tuple(targets.unflatten(grads))

    return out, vjp_fn, aux


def vjp(f: Callable[..., Any], *primals: Any, has_aux: bool = False) -> tuple:
    """`(f(*primals), vjp_fn)`, where `vjp_fn(ct)` is the tuple of cotangents
    of the primals for the output cotangent `ct`, as `jax.vjp`; with
    `has_aux`, `(out, vjp_fn, aux)`."""
    if current_trace() is not None:
        out, pullback, aux = _vjp_traced(f, primals, has_aux, False)
        return (out, pullback, aux) if has_aux else (out, pullback)

    def forward(args: tuple[Any, ...], kwargs: dict[str, Any], fresh: bool) -> Any:
        return f(*args)

    def backward(args: tuple[Any, ...], kwargs: dict[str, Any], fresh: bool) -> Any:
        return _vjp_traced(f, args[0], has_aux, fresh)[1](args[1])

    name = _name(f)
    out = _cached(f, "forward", lambda: Traced(forward, name))(*primals)
    out, aux = _split_aux(out, has_aux, "vjp")
    pullback = _cached(f, ("vjp", has_aux), lambda: Traced(backward, f"vjp({name})"))

    def vjp_fn(cotangent: Any) -> tuple[Any, ...]:
        return pullback(tuple(primals), cotangent)

    return (out, vjp_fn, aux) if has_aux else (out, vjp_fn)


def _jvp_traced(
    f: Callable[..., Any],
    primals: Any,
    tangents: Any,
    fresh: bool,
    has_aux: bool = False,
) -> tuple[Any, ...]:
    if not isinstance(primals, tuple | list) or not isinstance(tangents, tuple | list):
        raise error("jvp: primals and tangents must be tuples (or lists)")
    if len(primals) != len(tangents):
        raise error(f"jvp: {len(primals)} primals but {len(tangents)} tangents")
    targets = _targets(tuple(primals), range(len(primals)), fresh, "jvp", True)
    leaves, tree = flatten(tuple(tangents))
    if tree.children != tuple(targets.trees):
        raise error("jvp: the tangents must have the structure of the primals")
    directions: list[Array] = []
    for x, t in zip(targets.leaves, leaves, strict=True):
        directions += _direction(x, t)
    out, aux = _split_aux(f(*targets.values), has_aux, "jvp")
    out_leaves, out_tree = flatten(out)
    tangents_out: list[Any] = []
    for leaf in out_leaves:
        y = asarray(leaf)
        if integral(y.dtype):
            tangents_out.append(zeros(y.shape))
            continue
        total = None
        if y.dtype == FLOAT32:
            for x, t in zip(targets.arrays, directions, strict=True):
                (term,) = _results(JvpOp(y.value, x.value, t.value))
                total = term if total is None else add(total, term)
        tangents_out.append(total if total is not None else full(y.shape, 0.0))
    tangent = out_tree.unflatten(iter(tangents_out))
    return (out, tangent, aux) if has_aux else (out, tangent)


def _float0_for_float32(what: str, x: Array) -> str:
    return (
        f"{what} of dtype float0 for a float32 value of shape {x.shape}: float0 "
        "is the derivative of int32 and bool values only"
    )


def _direction(x: Array, t: Any) -> list[Array]:
    """The tangent `t` of primal `x` as a direction to differentiate in (none
    for an int32 or bool `x`, whose tangent must be float0, as in JAX)."""
    if integral(x.dtype):
        if is_float0(t) and np.shape(t) == x.shape:
            return []
        dtype = "a float0 array" if is_float0(t) else f"{asarray(t).dtype} data"
        raise error(
            f"jvp: a tangent of {dtype} of shape {np.shape(t)} for a primal of "
            f"{x.dtype} data of shape {x.shape}: an int32 or bool primal takes "
            f"float0 zeros of its shape, np.zeros({x.shape}, gradopt.numpy.float0) "
            "(the dtype jax.dtypes.float0 is)"
        )
    if is_float0(t):
        raise error(_float0_for_float32("jvp: a tangent", x))
    direction = asarray(t)
    if direction.type != x.type:
        raise error(
            f"jvp: a tangent of {direction.dtype} data of shape {direction.shape} "
            f"for a primal of {x.dtype} data of shape {x.shape}"
        )
    return [direction]


def jvp(
    f: Callable[..., Any], primals: Any, tangents: Any, has_aux: bool = False
) -> tuple[Any, ...]:
    """`(f(*primals), J·tangents)` by forward mode, as `jax.jvp`; with
    `has_aux`, `(out, tangent, aux)`. An int32 or bool primal takes a float0
    tangent, and an int32 or bool output has one."""
    if current_trace() is not None:
        return _jvp_traced(f, primals, tangents, False, has_aux)

    def body(args: tuple[Any, ...], kwargs: dict[str, Any], fresh: bool) -> Any:
        return _jvp_traced(f, args[0], args[1], fresh, has_aux)

    traced = _cached(f, ("jvp", has_aux), lambda: Traced(body, f"jvp({_name(f)})"))
    return traced(tuple(primals), tuple(tangents))


def stop_gradient(x: Any) -> Any:
    """`x` (a tree of arrays), through which no gradient flows; outside a trace,
    `x` itself."""
    if current_trace() is None:
        return x
    return tree_map(lambda leaf: emit(DetachOp(asarray(leaf).value)), x)
