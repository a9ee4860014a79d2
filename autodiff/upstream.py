"""Building derivatives out of the upstream dialects (SPEC §10): which values
carry gradients there, which values add their shares with `arith.addf`, and
the `arith`/`math`/`tensor`/`linalg` builders that rules call as tersely as
the `grad` ones (`e.mulf(g, b)`, `e.select(c, g, 0.0)`).

A float literal operand becomes an `arith.constant` of the other operand's
type (a scalar `f32` or a dense splat), created once per value and type in
each block, as `grad.const` is (SPEC §5.3).
"""

from __future__ import annotations

import struct
from collections.abc import Callable, Hashable, Sequence

from typing_extensions import Self
from xdsl.dialects import arith, math, tensor
from xdsl.dialects.builtin import (
    AffineMapAttr,
    DenseArrayBase,
    DenseIntOrFPElementsAttr,
    Float32Type,
    FloatAttr,
    IndexType,
    LocationAttr,
    TensorType,
    f32,
    i1,
    i64,
)
from xdsl.dialects.linalg.attrs import IteratorType, IteratorTypeAttr
from xdsl.dialects.linalg.ops import YieldOp
from xdsl.ir import (
    Attribute,
    Block,
    BlockArgument,
    Operation,
    OpResult,
    Region,
    SSAValue,
)
from xdsl.ir.affine import AffineDimExpr, AffineMap

from gradopt.dialect.differentiation import DifferentiationOp

UPSTREAM_DIALECTS = frozenset({"arith", "math", "tensor", "linalg"})
"""The dialects whose values add their shares with `arith.addf`."""

FloatType = TensorType | Float32Type
"""The type of a value that carries a gradient: an f32 tensor or scalar."""

Operand = SSAValue | float


def is_f32_value(type: Attribute) -> bool:
    """Whether values of `type` carry gradients (SPEC §10.1): f32 scalars and
    f32 tensors; other floats are dead ends like integers."""
    if isinstance(type, TensorType):
        return isinstance(type.get_element_type(), Float32Type)
    return isinstance(type, Float32Type)


def is_dynamic(type: Attribute) -> bool:
    return isinstance(type, TensorType) and any(d < 0 for d in type.get_shape())


def float_type(value: SSAValue) -> FloatType:
    """The type of a value known (verified) to carry gradients."""
    assert isinstance(value.type, TensorType | Float32Type)
    return value.type


def made_upstream(value: SSAValue) -> bool:
    return isinstance(value, OpResult) and value.op.dialect_name() in UPSTREAM_DIALECTS


def function_of(op: Operation) -> Operation:
    """The op right below the module that holds `op` (its function)."""
    while (parent := op.parent_op()) is not None and parent.parent_op() is not None:
        op = parent
    return op


def holds_grad_compute(function: Operation) -> bool:
    """Whether `function` holds a `grad` op other than a differentiation op."""
    return any(
        o.dialect_name() == "grad" and not isinstance(o, DifferentiationOp)
        for o in function.walk()
    )


def splat(value: float, type: TensorType) -> DenseIntOrFPElementsAttr:
    """A dense f32 attribute of `type` holding `value` once (MLIR's splat form,
    printed `dense<v>`, O(1) in the shape)."""
    one = DenseIntOrFPElementsAttr.from_list(TensorType(f32, []), [value])  # pyright: ignore[reportCallIssue, reportArgumentType]
    return DenseIntOrFPElementsAttr(type, one.data)  # pyright: ignore[reportArgumentType]


def element_of(value: SSAValue) -> Attribute:
    """A tensor's element type, or a scalar's own type."""
    type = value.type
    return type.get_element_type() if isinstance(type, TensorType) else type


def static_array(values: Sequence[int]) -> DenseArrayBase:
    return DenseArrayBase.from_list(i64, values)


def _told(map: AffineMap) -> set[int]:
    """The loops whose range an operand read through `map` gives: those that
    are a result of the map as they are."""
    return {r.position for r in map.results if isinstance(r, AffineDimExpr)}


def _unread(block: Block, inputs: int, maps: Sequence[AffineMap]) -> set[int]:
    """The inputs of a generic that its body does not read, and whose ranges
    other operands give too (so that the iteration space stays as it is).

    A rule's generic is handed every operand of the op it differentiates, and
    its body reads few of them (the share of `x + y` reads the gradient
    alone); an input it does not read would keep that value alive and give
    it a second user, which stops the interpreter fusing a chain of generics
    (`interpreter.fusion`) and writing over a dying operand."""
    unread: set[int] = set()
    for k in range(inputs):
        if block.args[k].uses:
            continue
        others = [m for j, m in enumerate(maps) if j != k and j not in unread]
        if _told(maps[k]) <= set().union(*map(_told, others)):
            unread.add(k)
    return unread


class UpstreamBuilder:
    """The upstream half of `Emitter` (`gradopt.autodiff.emitter`): builders of
    `arith`, `math`, `tensor` and `linalg` ops, and the choice between them and
    `grad` ops for accumulation, seeds and zeros."""

    block: Block
    anchor: Operation
    location: LocationAttr

    def insert(self, op: Operation) -> SSAValue:
        raise NotImplementedError

    def cached(self, key: Hashable, build: Callable[[], Operation]) -> SSAValue:
        raise NotImplementedError

    def at(self, anchor: Operation) -> Self:
        """A builder of the same kind inserting before `anchor`."""
        raise NotImplementedError

    # --- which family a value's shares, seed and zeros come from ------------

    def adds_upstream(self, value: SSAValue) -> bool:
        """Whether `value`'s shares are added with `arith.addf` (SPEC §10.2):
        it is a scalar, made by an upstream op, or a block argument or a loop
        or branch result in a function that holds no `grad` compute op."""
        if not isinstance(value.type, TensorType) or made_upstream(value):
            return True
        if not isinstance(value, BlockArgument) and not (
            isinstance(value, OpResult) and value.op.dialect_name() == "scf"
        ):
            return False
        function = function_of(self.anchor)
        known = self.__dict__.setdefault("_holds_grad", {})
        if function not in known:
            known[function] = holds_grad_compute(function)
        return not known[function]

    def fconst(self, value: float, type: FloatType) -> SSAValue:
        """An `arith.constant` of `type` holding `value` everywhere."""
        bits = struct.unpack("<I", struct.pack("<f", value))[0]
        attr = (
            splat(value, type)
            if isinstance(type, TensorType)
            else FloatAttr(value, f32)
        )
        return self.cached(("arith", bits, type), lambda: arith.ConstantOp(attr, type))

    def fzeros(self, value: SSAValue) -> SSAValue:
        return self.fconst(0.0, float_type(value))

    def _like(self, operand: Operand, like: SSAValue) -> SSAValue:
        if isinstance(operand, SSAValue):
            return operand
        return self.fconst(operand, float_type(like))

    def _pair(self, a: Operand, b: Operand) -> tuple[SSAValue, SSAValue]:
        like = a if isinstance(a, SSAValue) else b
        assert isinstance(like, SSAValue)
        return self._like(a, like), self._like(b, like)

    # --- arith ----------------------------------------------------------------

    def addf(self, a: Operand, b: Operand) -> SSAValue:
        return self.insert(arith.AddfOp(*self._pair(a, b)))

    def subf(self, a: Operand, b: Operand) -> SSAValue:
        return self.insert(arith.SubfOp(*self._pair(a, b)))

    def mulf(self, a: Operand, b: Operand) -> SSAValue:
        return self.insert(arith.MulfOp(*self._pair(a, b)))

    def divf(self, a: Operand, b: Operand) -> SSAValue:
        return self.insert(arith.DivfOp(*self._pair(a, b)))

    def negf(self, a: SSAValue) -> SSAValue:
        return self.insert(arith.NegfOp(a))

    def cmpf(self, predicate: str, a: Operand, b: Operand) -> SSAValue:
        """`arith.cmpf`; of tensors, elementwise by a `linalg.generic` (xDSL's
        `arith.cmpf` and `select` take and give `i1` alone)."""
        a, b = self._pair(a, b)
        if isinstance(a.type, TensorType):
            return self._elementwise(
                [a, b], i1, lambda e, args: e.cmpf(predicate, *args)
            )
        return self.insert(arith.CmpfOp(a, b, predicate))

    def select(self, condition: SSAValue, a: Operand, b: Operand) -> SSAValue:
        """`arith.select`; with two literal sides, of the condition's shape; of
        a tensor condition, elementwise by a `linalg.generic`."""
        type = condition.type
        if not isinstance(a, SSAValue) and not isinstance(b, SSAValue):
            shaped = (
                TensorType(f32, type.get_shape())
                if isinstance(type, TensorType)
                else f32
            )
            a = self.fconst(a, shaped)
        a, b = self._pair(a, b)
        if isinstance(type, TensorType):
            return self._elementwise(
                [condition, a, b], f32, lambda e, args: e.select(*args)
            )
        return self.insert(arith.SelectOp(condition, a, b))

    def _elementwise(
        self,
        operands: Sequence[SSAValue],
        element: Attribute,
        scalar: Callable[[Self, Sequence[SSAValue]], SSAValue],
    ) -> SSAValue:
        """A parallel `linalg.generic` applying `scalar` to the elements of
        `operands` (tensors of one shape), giving a tensor of `element`."""
        type = operands[-1].type
        assert isinstance(type, TensorType)
        rank = type.get_num_dims()
        init = self.empty(TensorType(element, type.get_shape()))
        (result,) = self.generic(
            operands,
            [init],
            [AffineMap.identity(rank)] * (len(operands) + 1),
            [IteratorType.PARALLEL] * rank,
            lambda e, args: [scalar(e, args[: len(operands)])],
        )
        return result

    def cos(self, a: SSAValue) -> SSAValue:
        return self.insert(math.CosOp(a))

    def sin_(self, a: SSAValue) -> SSAValue:
        return self.insert(math.SinOp(a))

    def exp(self, a: SSAValue) -> SSAValue:
        return self.insert(math.ExpOp(a))

    def log(self, a: SSAValue) -> SSAValue:
        return self.insert(math.LogOp(a))

    def trunc(self, a: SSAValue) -> SSAValue:
        return self.insert(math.TruncOp(a))

    def powf(self, a: SSAValue, b: SSAValue) -> SSAValue:
        return self.insert(math.PowFOp(a, b))

    def copysign(self, a: Operand, b: Operand) -> SSAValue:
        return self.insert(math.CopySignOp(*self._pair(a, b)))

    # --- tensor -----------------------------------------------------------------

    def index(self, value: int) -> SSAValue:
        return self.cached(
            ("index", value),
            lambda: arith.ConstantOp.from_int_and_width(value, IndexType()),
        )

    def extract(self, t: SSAValue, indices: Sequence[SSAValue]) -> SSAValue:
        element = float_type(t)
        assert isinstance(element, TensorType)
        return self.insert(tensor.ExtractOp(t, indices, element.get_element_type()))

    def insert_element(
        self, scalar: SSAValue, t: SSAValue, indices: Sequence[SSAValue]
    ) -> SSAValue:
        return self.insert(tensor.InsertOp(scalar, t, indices))

    def static_slice(
        self,
        source: SSAValue,
        dest: SSAValue | None,
        offsets: Sequence[int],
        sizes: Sequence[int],
        strides: Sequence[int],
        type: TensorType,
    ) -> SSAValue:
        """`tensor.extract_slice` of `source` (of `type`), or with `dest`, a
        `tensor.insert_slice` of `source` into it, at static positions."""
        properties = {
            "static_offsets": static_array(offsets),
            "static_sizes": static_array(sizes),
            "static_strides": static_array(strides),
        }
        if dest is None:
            return self.insert(
                tensor.ExtractSliceOp.build(
                    operands=[source, [], [], []],
                    result_types=[type],
                    properties=properties,
                )
            )
        return self.insert(
            tensor.InsertSliceOp.build(
                operands=[source, dest, [], [], []],
                result_types=[dest.type],
                properties=properties,
            )
        )

    def empty(self, type: TensorType) -> SSAValue:
        return self.insert(tensor.EmptyOp((), type))

    # --- linalg -----------------------------------------------------------------

    def generic(
        self,
        inputs: Sequence[SSAValue],
        outputs: Sequence[SSAValue],
        maps: Sequence[AffineMap],
        iterators: Sequence[IteratorType],
        body: Callable[[Self, Sequence[BlockArgument]], Sequence[SSAValue]],
    ) -> list[SSAValue]:
        """A `linalg.generic` whose body `body` builds with an emitter of its
        own from the block's arguments (the scalars of inputs and outputs).
        The inputs that the body does not read are left out (`_unread`)."""
        from gradopt.dialect.upstream.linalg import GenericOp

        types = [element_of(v) for v in (*inputs, *outputs)]
        block = Block(arg_types=types)
        placeholder = YieldOp()
        placeholder.location = self.location
        block.add_op(placeholder)
        yielded = body(self.at(placeholder), block.args)
        block.insert_op_before(YieldOp(*yielded), placeholder)
        block.erase_op(placeholder)
        for dead in reversed(list(block.ops)[:-1]):
            if not dead.regions and not any(r.uses for r in dead.results):
                block.erase_op(dead)
        unread = _unread(block, len(inputs), maps)
        for k in sorted(unread, reverse=True):
            block.erase_arg(block.args[k])
        inputs = [v for k, v in enumerate(inputs) if k not in unread]
        maps = [m for k, m in enumerate(maps) if k not in unread]
        op = GenericOp(
            inputs,
            outputs,
            Region(block),
            [AffineMapAttr(m) for m in maps],
            [IteratorTypeAttr(i) for i in iterators],
            [o.type for o in outputs],
        )
        self.insert(op)
        return list(op.results)

    def sum_elements(self, g: SSAValue) -> SSAValue:
        """The sum of `g`'s elements, an f32 scalar: a reduction `generic`
        over all of g into `tensor<f32>` and its element."""
        rank = len(float_type(g).get_shape())  # pyright: ignore[reportAttributeAccessIssue]
        init = self.fconst(0.0, TensorType(f32, []))
        (total,) = self.generic(
            [g],
            [init],
            [AffineMap.identity(rank), AffineMap(rank, 0, ())],
            [IteratorType.REDUCTION] * rank,
            lambda e, args: [e.addf(args[1], args[0])],
        )
        return self.extract(total, [])
