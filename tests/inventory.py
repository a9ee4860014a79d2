"""The ops of the `grad` dialect as the tests see them: one `Entry` per op.

Every list of ops in the tests that stands for "the ops with such facts" is
derived from `INVENTORY` here: the fuzzer's vocabulary of op names, the
interpreter's per-op semantics, the random program generator's choices and
float64 reference (`programs.py`), the executor's chains of ops, and which ops
IREE lowers exactly. So an op added to the dialect is one entry here, and every
test that covers "each elementwise op", "each op with a domain", ... covers it;
`test_inventory.py` fails while an op of `Grad` has no entry, or an entry names
no op, and checks each entry's element types, derivative and commutativity
against the dialect (`test_dialect.py` checks its purity). Names that select
code of their own (a generator's actions, such as `Builder.dot`) stay with
that code.

The facts are SPEC §3, §5 and §6 restated for the tests, not read from gradopt:
a test that derived them from the code under test could not catch it wrong.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from enum import Enum
from itertools import product
from math import prod
from typing import Any, Protocol

import numpy as np
from xdsl.dialects.builtin import TensorType
from xdsl.ir import Operation

import gradopt.dialect.ops

Element = str
"""An element type by its MLIR name: "f32", "i32" or "i1"."""
F32, I32, I1 = "f32", "i32", "i1"
ELEMENTS: tuple[Element, ...] = (F32, I32, I1)


class Form(Enum):
    """How an op is written and how its operands relate (SPEC §3): the tests
    render lines and choose operands by it."""

    CONST = "%r = grad.const LITERAL : T"
    ELEMENTWISE = "%r = grad.OP %a[, %b] : T (operands and result all T)"
    COMPARE = "%r = grad.OP %a, %b : T (result: T's shape with i1)"
    WHERE = "%r = grad.where %c, %a, %b : T"
    CONVERSION = "%r = grad.OP %a : T1 to T2 (same shape)"
    RESHAPE = "%r = grad.reshape %a : T1 to T2 (same element count)"
    REDUCE = "%r = grad.reduce KIND %a [axes] : T1 to T2"
    LIST = "%r = grad.OP %a [ints]... : T1 to T2 (one list per `lists` name)"
    PAD = "%r = grad.pad %a low [..] high [..] interior [..] value LIT : T1 to T2"
    REVERSE = "%r = grad.reverse %a [dims] : T"
    CONCAT = "%r = grad.concat %a, %b, ... [dim] : T1, T2, ... to T"
    DOT = "%r = grad.dot %a, %b : T1, T2 to T3"
    INDEXING = "%r = grad.OP %a[, %i, ...] [axis] : T1[, ...] to T (SPEC §3.6)"
    LOAD = "%r = grad.load %slot[indices] : M"
    STORE = "grad.store %x, %slot[indices] : M"
    DIFFERENTIATION = "grad.gradient, grad.vjp, grad.jvp (SPEC §3.4, §5.5, §5.6)"
    CUSTOM = "%r = grad.custom @f(%a, ...) [vjp @f_vjp] [jvp @f_jvp] : (T...) -> R"


class Domain(Enum):
    """Where an op's last operand must lie: for the f32 ops, where its value
    stays moderate and well conditioned (the random program generator adapts
    an operand outside it, and its float64 reference does not difference
    across the edge); for the i32 ops, where the interpreter does not stop
    with a run-time error.

    The members are in order from the least to the most restricted f32
    domain: `by_domain` sorts by it."""

    ANY = "any value"
    MODERATE = "moderate values (2^x of a large x overflows)"
    NONZERO = "values away from 0"
    POSITIVE = "values away from 0, above it"
    DIVISOR = "a nonzero divisor (0 is a run-time error)"
    SHIFT = "a shift amount in 0..31 (others are a run-time error)"

    def errors(self, values: np.ndarray) -> np.ndarray:
        """Where the interpreter stops with a run-time error for these values
        of the last operand (a mask)."""
        values = np.asarray(values)
        if self is Domain.DIVISOR:
            return values == 0
        if self is Domain.SHIFT:
            return (values < 0) | (values > 31)
        return np.zeros(values.shape, bool)

    def admits(self, values: Iterable[int]) -> bool:
        """Whether every one of these i32 values is a valid last operand."""
        return not self.errors(np.array(list(values))).any()


class Derivative(Enum):
    """How derivatives pass an op (SPEC §5.3, §5.6)."""

    RULES = "a reverse rule and a tangent rule"
    STOPS = "none: the op cuts the path (`detach`)"
    DEAD_END = "none: its results carry no derivative (i32, i1, literals)"
    NONE = "no rule: invalid on a path"
    EXPANDED = "needs none: expanded before anything else (differentiation ops)"


class Typed(Protocol):
    """A value as a float64 reference sees it (`programs.Value` is one)."""

    @property
    def shape(self) -> tuple[int, ...]: ...

    @property
    def dtype(self) -> Element: ...


class Node(Protocol):
    """An op as a float64 reference sees it besides its operand values: its
    attributes, and the types of its operands and results (`programs.Op` is
    one)."""

    @property
    def attrs(self) -> Mapping[str, Any]: ...

    @property
    def operands(self) -> Sequence[Typed]: ...

    @property
    def results(self) -> Sequence[Typed]: ...


Reference = Callable[..., np.ndarray]
"""`reference(node, *operand_values)`: an op's value in float64 (int64 for i32,
bool for i1), as `programs.Reference` computes a program independently of
gradopt."""

IreeExact = bool | Callable[[Operation], bool]
"""Whether IREE's code for an op gives the interpreter's bits: always, never,
or as a function of the op."""


def _same(*elements: Element) -> frozenset[tuple[Element, Element]]:
    """Operand and result of one element type, any of `elements`."""
    return frozenset((e, e) for e in elements)


def _to(result: Element, *elements: Element) -> frozenset[tuple[Element, Element]]:
    return frozenset((e, result) for e in elements)


def literal(element: Element, value: int) -> str:
    """A scalar literal of `element` (0 or 1) as `grad.const` writes it."""
    if element == F32:
        return f"{float(value)}"
    if element == I1:
        return "true" if value else "false"
    return str(value)


# --- float64 references (they take the node first) ----------------------------


def _numpy_type(element: Element) -> type[np.generic]:
    return {F32: np.float64, I32: np.int64, I1: np.bool_}[element]


def _const(node: Node) -> np.ndarray:
    result = node.results[0]
    value = np.asarray(node.attrs["value"], _numpy_type(result.dtype))
    return np.broadcast_to(value, result.shape)


def _convert(node: Node, a: np.ndarray) -> np.ndarray:
    target = node.results[0].dtype
    if target == I1:
        return np.asarray(a) != 0
    if target == I32:
        return np.trunc(a).astype(np.int64)
    return np.asarray(a, np.float64)


def _bitcast(node: Node, a: np.ndarray) -> np.ndarray:
    source, target = node.operands[0].dtype, node.results[0].dtype
    if source == target:
        return _convert(node, a)
    if source == F32:
        return np.asarray(a, np.float32).view(np.int32).astype(np.int64)
    return np.asarray(a, np.int32).view(np.float32).astype(np.float64)


def _c_division(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return np.trunc(a / b).astype(np.int64)


def _reduce(node: Node, a: np.ndarray) -> np.ndarray:
    reduction = {"add": np.sum, "max": np.max, "mul": np.prod}[node.attrs["kind"]]
    return reduction(a, axis=tuple(node.attrs["axes"]))


def _broadcast(node: Node, a: np.ndarray) -> np.ndarray:
    target = node.results[0].shape
    placed = [1] * len(target)
    for size, d in zip(node.operands[0].shape, node.attrs["dims"], strict=True):
        placed[d] = size
    return np.broadcast_to(np.reshape(a, placed), target)


def _load(node: Node, slot: np.ndarray) -> np.ndarray:
    return slot[node.attrs["index"]] if "index" in node.attrs else slot


# --- IREE exactness -----------------------------------------------------------


def _dot_exact(op: Operation) -> bool:
    """A product of one term per element; more may be summed in another order
    or with fused multiply-adds."""
    lhs = op.operands[0].type
    assert isinstance(lhs, TensorType)
    return lhs.get_shape()[-1] <= 1


def _reduce_exact(op: Operation) -> bool:
    """`max`, or a sum or product of at most two terms (more may be combined
    in another order)."""
    assert isinstance(op, gradopt.dialect.ops.ReduceOp)
    shape = op.input.type.get_shape()
    return op.kind.data == "max" or prod(shape[axis] for axis in op.ints("axes")) <= 2


# --- the entry ----------------------------------------------------------------

SAMPLE_ARGUMENTS = (
    "%a: tensor<2x3x{S}>, %b: tensor<2x3x{S}>, %c: tensor<2x3xi1>, "
    "%m: tensor<3x2x{S}>, %p: tensor<2x2x3x{S}>, %q: tensor<2x3x2x{S}>, "
    "%z: tensor<{S}>, %s: memref<2x3x{S}>, %i: tensor<2xi32>"
)
"""The arguments a sample line may use: `{S}` is the operand element type."""

SAMPLE_FUNCTION = (
    "func.func @sample_f(%x: tensor<2x3x{S}>) -> tensor<2x3x{S}> {{\n"
    "  func.return %x : tensor<2x3x{S}>\n}}\n"
)
"""A function beside the sample, for the ops that call one (`grad.custom`)."""


def _default_samples(form: Form, arity: int) -> tuple[str, ...]:
    if form is Form.ELEMENTWISE and arity == 1:
        return ("%r = grad.{name} %a : tensor<2x3x{S}>",)
    if form in (Form.ELEMENTWISE, Form.COMPARE):
        return ("%r = grad.{name} %a, %b : tensor<2x3x{S}>",)
    if form is Form.CONVERSION:
        return ("%r = grad.{name} %a : tensor<2x3x{S}> to tensor<2x3x{R}>",)
    raise ValueError(f"an entry of form {form.name} needs its samples written out")


@dataclass(frozen=True)
class Entry:
    """What the tests need to know of one op."""

    name: str
    """The mnemonic: `sqrt` for `grad.sqrt`."""
    form: Form
    arity: int
    """Its tensor operands (at least that many for `concat` and the
    differentiation ops; a slot for `load`, a value and a slot for `store`)."""
    types: frozenset[tuple[Element, Element]]
    """The (operand, result) element types it takes: the data operands' and
    the result's (a slot's for `load` and `store`, the targets' for the
    differentiation ops)."""
    derivative: Derivative
    pure: bool = True
    """`Pure` (SPEC §3.1, §3.2, §3.4) rather than touching memory (§3.3)."""
    numpy: Callable[..., np.ndarray] | None = None
    """The op's meaning on NumPy arrays, elementwise ops only: bit for bit in
    float32 (SPEC §6, what the interpreter must compute), and in float64 the
    reference's meaning unless `float64` says otherwise."""
    float64: Reference | None = None
    """The float64 reference where `numpy` does not give it (see `reference`)."""
    domain: Domain = Domain.ANY
    kink: bool = False
    """Its derivative jumps where two operands tie (`max`): a finite
    difference must not cross a tie."""
    commutative: bool = False
    """Its two operands may be swapped without changing the result."""
    lists: tuple[str, ...] = ()
    """Its integer-list properties, in the order the syntax writes them."""
    iree_exact: IreeExact = True
    """Whether IREE gives the interpreter's bits (see `test_iree.py`)."""
    samples: tuple[str, ...] = ()
    """Lines using the op, for `test_inventory.py` to parse with each element
    type (`{S}` the operand's, `{R}` the result's where the syntax writes it;
    `{one}` and `{zero}` literals of `{S}`), over `SAMPLE_ARGUMENTS`. By
    default one line of its form."""

    def __post_init__(self) -> None:
        if not self.samples:
            object.__setattr__(self, "samples", _default_samples(self.form, self.arity))

    @property
    def op_name(self) -> str:
        return f"grad.{self.name}"

    @property
    def sources(self) -> tuple[Element, ...]:
        """The element types of its operands, in the order of `ELEMENTS`."""
        return tuple(e for e in ELEMENTS if any(s == e for s, _ in self.types))

    def accepts(self, element: Element) -> bool:
        return element in self.sources

    @property
    def reference(self) -> Reference | None:
        """Its float64 reference: `float64`, or `numpy` applied to the values."""
        if self.float64 is not None:
            return self.float64
        function = self.numpy
        if function is None:
            return None
        return lambda node, *values: function(*values)


_ANY = (F32, I32, I1)
_CAST_TYPES = frozenset(product(_ANY, _ANY))
_BITCAST_TYPES = _same(*_ANY) | {(F32, I32), (I32, F32)}

ALL_ENTRIES: tuple[Entry, ...] = (
    # --- §3.1 elementwise
    Entry(
        "const",
        Form.CONST,
        0,
        _same(*_ANY),
        Derivative.DEAD_END,
        float64=_const,
        samples=("%r = grad.const {one} : tensor<2x3x{S}>",),
    ),
    Entry(
        "add",
        Form.ELEMENTWISE,
        2,
        _same(F32, I32),
        Derivative.RULES,
        numpy=np.add,
        commutative=True,
    ),
    Entry(
        "mul",
        Form.ELEMENTWISE,
        2,
        _same(F32, I32),
        Derivative.RULES,
        numpy=np.multiply,
        commutative=True,
    ),
    Entry(
        "max",
        Form.ELEMENTWISE,
        2,
        _same(F32, I32),
        Derivative.RULES,
        numpy=np.maximum,
        kink=True,
        commutative=True,
    ),
    Entry(
        "neg", Form.ELEMENTWISE, 1, _same(F32, I32), Derivative.RULES, numpy=np.negative
    ),
    Entry(
        "recip",
        Form.ELEMENTWISE,
        1,
        _same(F32),
        Derivative.RULES,
        numpy=lambda a: np.float32(1) / a,
        domain=Domain.NONZERO,
    ),
    # exp2 and log2: the float64 reference keeps the formulas it has always
    # used (the same values within float64 rounding), so that the generated
    # programs, which are evaluated as they are built, stay the same
    Entry(
        "exp2",
        Form.ELEMENTWISE,
        1,
        _same(F32),
        Derivative.RULES,
        numpy=np.exp2,
        float64=lambda node, a: 2.0**a,
        domain=Domain.MODERATE,
        iree_exact=False,
    ),
    Entry(
        "log2",
        Form.ELEMENTWISE,
        1,
        _same(F32),
        Derivative.RULES,
        numpy=np.log2,
        float64=lambda node, a: np.log(a) / np.log(2.0),
        domain=Domain.POSITIVE,
        iree_exact=False,
    ),
    Entry(
        "sqrt",
        Form.ELEMENTWISE,
        1,
        _same(F32),
        Derivative.RULES,
        numpy=np.sqrt,
        domain=Domain.POSITIVE,
    ),
    Entry(
        "sin",
        Form.ELEMENTWISE,
        1,
        _same(F32),
        Derivative.RULES,
        numpy=np.sin,
        iree_exact=False,
    ),
    Entry(
        "cmplt",
        Form.COMPARE,
        2,
        _to(I1, F32, I32),
        Derivative.DEAD_END,
        numpy=np.less,
    ),
    Entry(
        "cmpeq",
        Form.COMPARE,
        2,
        _to(I1, *_ANY),
        Derivative.DEAD_END,
        numpy=np.equal,
        commutative=True,
    ),
    Entry(
        "cmpne",
        Form.COMPARE,
        2,
        _to(I1, *_ANY),
        Derivative.DEAD_END,
        numpy=np.not_equal,
        commutative=True,
    ),
    Entry(
        "where",
        Form.WHERE,
        3,
        _same(*_ANY),
        Derivative.RULES,
        numpy=np.where,
        samples=("%r = grad.where %c, %a, %b : tensor<2x3x{S}>",),
    ),
    Entry(
        "idiv",
        Form.ELEMENTWISE,
        2,
        _same(I32),
        Derivative.DEAD_END,
        float64=lambda node, a, b: _c_division(a, b),
        domain=Domain.DIVISOR,
    ),
    Entry(
        "mod",
        Form.ELEMENTWISE,
        2,
        _same(I32),
        Derivative.DEAD_END,
        float64=lambda node, a, b: a - b * _c_division(a, b),
        domain=Domain.DIVISOR,
    ),
    Entry(
        "and",
        Form.ELEMENTWISE,
        2,
        _same(I32, I1),
        Derivative.DEAD_END,
        numpy=np.bitwise_and,
        commutative=True,
    ),
    Entry(
        "or",
        Form.ELEMENTWISE,
        2,
        _same(I32, I1),
        Derivative.DEAD_END,
        numpy=np.bitwise_or,
        commutative=True,
    ),
    Entry(
        "xor",
        Form.ELEMENTWISE,
        2,
        _same(I32, I1),
        Derivative.DEAD_END,
        numpy=np.bitwise_xor,
        commutative=True,
    ),
    Entry(
        "shl", Form.ELEMENTWISE, 2, _same(I32), Derivative.DEAD_END, domain=Domain.SHIFT
    ),
    Entry(
        "shr", Form.ELEMENTWISE, 2, _same(I32), Derivative.DEAD_END, domain=Domain.SHIFT
    ),
    # f32 to f32 has the identity's rules; every other conversion is a dead end
    Entry("cast", Form.CONVERSION, 1, _CAST_TYPES, Derivative.RULES, float64=_convert),
    Entry(
        "bitcast",
        Form.CONVERSION,
        1,
        _BITCAST_TYPES,
        Derivative.RULES,
        float64=_bitcast,
    ),
    Entry(
        "detach",
        Form.ELEMENTWISE,
        1,
        _same(*_ANY),
        Derivative.STOPS,
        numpy=lambda a: a,
    ),
    # --- §3.2 shapes
    Entry(
        "reduce",
        Form.REDUCE,
        1,
        _same(F32, I32),
        Derivative.RULES,  # of add and max; `reduce mul` has none
        float64=_reduce,
        lists=("axes",),
        iree_exact=_reduce_exact,
        samples=("%r = grad.reduce add %a [0] : tensor<2x3x{S}> to tensor<3x{R}>",),
    ),
    Entry(
        "broadcast",
        Form.LIST,
        1,
        _same(*_ANY),
        Derivative.RULES,
        float64=_broadcast,
        lists=("dims",),
        samples=(
            "%r = grad.broadcast %z [] : tensor<{S}> to tensor<2x{R}>",
            "%r = grad.broadcast %a [0, 2] : tensor<2x3x{S}> to tensor<2x4x3x{R}>",
        ),
    ),
    Entry(
        "reshape",
        Form.RESHAPE,
        1,
        _same(*_ANY),
        Derivative.RULES,
        float64=lambda node, a: np.reshape(a, node.results[0].shape),
        samples=("%r = grad.reshape %a : tensor<2x3x{S}> to tensor<3x2x{R}>",),
    ),
    Entry(
        "permute",
        Form.LIST,
        1,
        _same(*_ANY),
        Derivative.RULES,
        float64=lambda node, a: np.transpose(a, node.attrs["perm"]),
        lists=("perm",),
        samples=("%r = grad.permute %a [1, 0] : tensor<2x3x{S}> to tensor<3x2x{R}>",),
    ),
    Entry(
        "dot",
        Form.DOT,
        2,
        _same(F32),
        Derivative.RULES,
        float64=lambda node, a, b: a @ b,
        iree_exact=_dot_exact,
        samples=(
            "%r = grad.dot %a, %m : tensor<2x3x{S}>, tensor<3x2x{S}> to "
            "tensor<2x2x{R}>",
            "%r = grad.dot %p, %q : tensor<2x2x3x{S}>, tensor<2x3x2x{S}> "
            "to tensor<2x2x2x{R}>",
        ),
    ),
    Entry(
        "slice",
        Form.LIST,
        1,
        _same(*_ANY),
        Derivative.RULES,
        lists=("start", "limit", "stride"),
        samples=(
            "%r = grad.slice %a [1, 0] [2, 3] [1, 2] : tensor<2x3x{S}> to "
            "tensor<1x2x{R}>",
        ),
    ),
    Entry(
        "pad",
        Form.PAD,
        1,
        _same(*_ANY),
        Derivative.RULES,
        lists=("low", "high", "interior"),
        samples=(
            "%r = grad.pad %a low [1, 0] high [0, 2] interior [0, 1] value {zero} : "
            "tensor<2x3x{S}> to tensor<3x7x{R}>",
        ),
    ),
    Entry(
        "reverse",
        Form.REVERSE,
        1,
        _same(*_ANY),
        Derivative.RULES,
        lists=("dims",),
        samples=("%r = grad.reverse %a [1] : tensor<2x3x{S}>",),
    ),
    Entry(
        "concat",
        Form.CONCAT,
        2,
        _same(*_ANY),
        Derivative.RULES,
        samples=(
            "%r = grad.concat %a, %b [0] : tensor<2x3x{S}>, tensor<2x3x{S}> to "
            "tensor<4x3x{R}>",
            "%r = grad.concat %a, %b, %a [1] : tensor<2x3x{S}>, tensor<2x3x{S}>, "
            "tensor<2x3x{S}> to tensor<2x9x{R}>",
        ),
    ),
    # --- §3.6 indexing and sorting
    Entry(
        "gather",
        Form.INDEXING,
        2,
        _same(*_ANY),
        Derivative.RULES,
        samples=(
            "%r = grad.gather %a, %i [1] : tensor<2x3x{S}>, tensor<2xi32> to "
            "tensor<2x2x{R}>",
        ),
    ),
    Entry(
        "scatter_add",
        Form.INDEXING,
        3,
        _same(F32, I32),
        Derivative.RULES,
        samples=(
            "%r = grad.scatter_add %a, %i, %b [0] : tensor<2x3x{S}>, tensor<2xi32>, "
            "tensor<2x3x{S}> to tensor<2x3x{R}>",
        ),
    ),
    Entry(
        "iota",
        Form.INDEXING,
        0,
        _same(F32, I32),
        Derivative.DEAD_END,
        samples=("%r = grad.iota [1] : tensor<2x3x{S}>",),
    ),
    Entry(
        "argsort",
        Form.INDEXING,
        1,
        _to(I32, F32, I32),
        Derivative.DEAD_END,
        samples=("%r = grad.argsort %a [1] : tensor<2x3x{S}> to tensor<2x3x{R}>",),
    ),
    # --- §3.3 memory
    Entry(
        "load",
        Form.LOAD,
        1,
        _same(*_ANY),
        Derivative.NONE,
        pure=False,
        float64=_load,
        samples=("%r = grad.load %s : memref<2x3x{S}>",),
    ),
    Entry(
        "store",
        Form.STORE,
        2,
        _same(*_ANY),
        Derivative.NONE,
        pure=False,
        samples=("grad.store %a, %s : memref<2x3x{S}>",),
    ),
    # --- §3.4 differentiation
    Entry(
        "gradient",
        Form.DIFFERENTIATION,
        2,
        _same(F32),
        Derivative.EXPANDED,
        samples=("%r = grad.gradient %z wrt %a : tensor<{S}>, tensor<2x3x{S}>",),
    ),
    Entry(
        "vjp",
        Form.DIFFERENTIATION,
        3,
        _same(F32),
        Derivative.EXPANDED,
        samples=("%r = grad.vjp %a, %b wrt %a : tensor<2x3x{S}>, tensor<2x3x{S}>",),
    ),
    Entry(
        "jvp",
        Form.DIFFERENTIATION,
        3,
        _same(F32),
        Derivative.EXPANDED,
        samples=("%r = grad.jvp %a wrt %a, %b : tensor<2x3x{S}>, tensor<2x3x{S}>",),
    ),
    # --- §3.7 custom derivatives
    Entry(
        "custom",
        Form.CUSTOM,
        1,
        _same(*_ANY),
        Derivative.RULES,
        samples=(
            "%r = grad.custom @sample_f(%a) : (tensor<2x3x{S}>) -> tensor<2x3x{S}>",
        ),
    ),
)

INVENTORY: dict[str, Entry] = {e.name: e for e in ALL_ENTRIES}
"""The entries of the ops in the dialect, by mnemonic, in SPEC §3's order (the
order of the fuzzer's vocabulary and of every list derived from it)."""

BY_OP_NAME: dict[str, Entry] = {e.op_name: e for e in INVENTORY.values()}


def entries(
    form: Form | tuple[Form, ...] | None = None,
    *,
    arity: int | None = None,
    accepts: Element | None = None,
    derivative: Derivative | None = None,
) -> list[Entry]:
    """The entries with these facts, in inventory order."""
    forms = (form,) if isinstance(form, Form) else form
    return [
        e
        for e in INVENTORY.values()
        if (forms is None or e.form in forms)
        and (arity is None or e.arity == arity)
        and (accepts is None or e.accepts(accepts))
        and (derivative is None or e.derivative is derivative)
    ]


def names(selected: Iterable[Entry]) -> list[str]:
    return [e.name for e in selected]


def by_domain(selected: Iterable[Entry]) -> list[Entry]:
    """The entries from the least to the most restricted domain, otherwise in
    inventory order. Hypothesis shrinks a choice toward its first option, so
    a failing example shrinks toward ops that need no adapted operand; and a
    chain of the f32 unary ops in this order keeps each input in its domain."""
    order = list(Domain)
    return sorted(selected, key=lambda e: order.index(e.domain))
