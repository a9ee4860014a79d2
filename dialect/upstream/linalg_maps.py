"""The named `linalg` ops that MLIR defines in TableGen rather than OpDSL and
whose indexing maps a program may give (`indexing_maps = [...]` before the
operands): the contractions `matmul`, `batch_matmul`, `batch_reduce_matmul`
and `contract` (transposed or broadcast operands), and `elementwise`, whose
`kind` (`<exp>`, `<add>`, ...) picks its body. The custom form prints the
maps only when they differ from the op's default, as MLIR does; the generic
form always holds them as the `indexing_maps` property.

xDSL 0.74's `linalg.matmul` has the property but reads no `indexing_maps =`
and prints none, so a transposed matmul could neither be read nor written
back; gradopt's keeps xDSL's class and its generic form and adds the syntax.
"""

from __future__ import annotations

from abc import ABC
from collections.abc import Callable, Sequence
from enum import auto
from typing import ClassVar

from xdsl.builder import ImplicitBuilder
from xdsl.dialects import arith, math
from xdsl.dialects.builtin import (
    AffineMapAttr,
    AnyFloat,
    ArrayAttr,
    FloatAttr,
    ShapedType,
    TensorType,
)
from xdsl.dialects.linalg.abstract_ops import NamedOperation
from xdsl.dialects.linalg.attrs import IteratorTypeAttr
from xdsl.dialects.linalg.ops import MatmulOp as XdslMatmulOp
from xdsl.dialects.linalg.ops import YieldOp
from xdsl.dialects.utils import EnumAttribute
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.ir.affine import AffineMap
from xdsl.irdl import (
    irdl_attr_definition,
    irdl_op_definition,
    opt_prop_def,
    prop_def,
    region_def,
    var_operand_def,
    var_result_def,
)
from xdsl.parser import AttrParser, Parser
from xdsl.printer import Printer
from xdsl.utils.exceptions import ParseError, VerifyException
from xdsl.utils.str_enum import StrEnum

from gradopt.dialect.upstream.linalg import ContractionOperation


class _GivenMaps(NamedOperation, ABC):
    """A named op that reads `indexing_maps = [...]` before its attributes
    and operands, and prints it there when the maps are not the default."""

    def default_maps(self) -> Sequence[AffineMap] | None:
        """The maps the op has when none are given (None: they must be)."""
        return self.get_default_indexing_maps()

    def get_indexing_maps(self) -> ArrayAttr[AffineMapAttr]:
        given = self.properties.get("indexing_maps")
        if isinstance(given, ArrayAttr):
            return given
        return super().get_indexing_maps()

    @classmethod
    def parse(cls, parser: Parser) -> NamedOperation:
        given = None
        if parser.parse_optional_keyword("indexing_maps"):
            parser.parse_punctuation("=")
            given = parser.parse_attribute()
        op = super().parse(parser)
        assert isinstance(op, _GivenMaps)
        if given is not None:
            op.properties["indexing_maps"] = given
        elif (default := op.default_maps()) is not None:
            op.properties["indexing_maps"] = ArrayAttr(
                AffineMapAttr(m) for m in default
            )
        else:
            parser.raise_error(f"'{cls.name}' expects 'indexing_maps = [...]'")
        return op

    def print(self, printer: Printer) -> None:
        self.print_kind(printer)
        maps = self.get_indexing_maps()
        if [m.data for m in maps] != list(self.default_maps() or ()):
            printer.print_string(" indexing_maps = ")
            printer.print_attribute(maps)
        hidden = ("indexing_maps", "operandSegmentSizes", "kind")
        extra = {
            name: value
            for name, value in (self.attributes | self.properties).items()
            if name not in hidden
        }
        printer.print_op_attributes(extra)
        for keyword, values in (("ins", self.inputs), ("outs", self.outputs)):
            if values:
                printer.print_string(f" {keyword}(")
                printer.print_list(values, printer.print_ssa_value)
                printer.print_string(" : ")
                printer.print_list(values.types, printer.print_attribute)
                printer.print_string(")")
        if self.res:
            printer.print_string(" -> ")
            printer.print_list(self.res.types, printer.print_attribute)

    def print_kind(self, printer: Printer) -> None:
        """What the op prints before its maps (`elementwise`'s kind)."""


class _MappedContraction(_GivenMaps, ContractionOperation, ABC):
    """`out += a * b` through given maps (the default ones otherwise)."""

    indexing_maps = opt_prop_def(ArrayAttr[AffineMapAttr])


_XDSL_MATMUL_MAPS = XdslMatmulOp.get_irdl_definition().properties["indexing_maps"]


@irdl_op_definition
class MatmulOp(_GivenMaps, XdslMatmulOp):
    """xDSL's `linalg.matmul`, which also reads and prints its maps."""

    name = "linalg.matmul"
    inputs = var_operand_def()
    outputs = var_operand_def(ShapedType)
    res = var_result_def(TensorType)
    body = region_def("single_block")
    indexing_maps = prop_def(
        ArrayAttr[AffineMapAttr], default_value=_XDSL_MATMUL_MAPS.default_value
    )

    def default_maps(self) -> Sequence[AffineMap]:
        value = _XDSL_MATMUL_MAPS.default_value
        assert isinstance(value, ArrayAttr)
        return [m.data for m in value]

    def get_indexing_maps(self) -> ArrayAttr[AffineMapAttr]:
        return self.indexing_maps


@irdl_op_definition
class BatchMatmulOp(_MappedContraction):
    """`out[b, m, n] += a[b, m, k] * b[b, k, n]`."""

    name = "linalg.batch_matmul"
    DIMS: ClassVar = 4
    RESULTS: ClassVar = ((0, 1, 3), (0, 3, 2), (0, 1, 2))


@irdl_op_definition
class BatchReduceMatmulOp(_MappedContraction):
    """`out[m, n] += a[b, m, k] * b[b, k, n]`: the batch is summed too."""

    name = "linalg.batch_reduce_matmul"
    DIMS: ClassVar = 4
    RESULTS: ClassVar = ((0, 1, 3), (0, 3, 2), (1, 2))


@irdl_op_definition
class ContractOp(_MappedContraction):
    """`linalg.contract`: `out += a * b` through the maps it is given; the
    dims of the output's map are parallel, the others reductions."""

    name = "linalg.contract"
    indexing_maps = prop_def(ArrayAttr[AffineMapAttr])

    def default_maps(self) -> None:
        return None


class ElementwiseKind(StrEnum):
    """The kinds of `linalg.elementwise` with a float body (the unsigned
    ones, `div_unsigned`, `max_unsigned`, `min_unsigned`, are for integers)."""

    EXP = auto()
    LOG = auto()
    ABS = auto()
    CEIL = auto()
    FLOOR = auto()
    NEGF = auto()
    RECIPROCAL = auto()
    ROUND = auto()
    SQRT = auto()
    RSQRT = auto()
    SQUARE = auto()
    TANH = auto()
    ERF = auto()
    SIN = auto()
    COS = auto()
    TAN = auto()
    ACOS = auto()
    ACOSH = auto()
    ASIN = auto()
    ASINH = auto()
    ATAN = auto()
    ATANH = auto()
    LOG10 = auto()
    LOG1P = auto()
    LOG2 = auto()
    ADD = auto()
    SUB = auto()
    MUL = auto()
    DIV = auto()
    MAX_SIGNED = auto()
    MIN_SIGNED = auto()
    POWF = auto()
    SELECT = auto()


@irdl_attr_definition
class ElementwiseKindAttr(EnumAttribute[ElementwiseKind]):
    """`#linalg.elementwise_kind<exp>`."""

    name = "linalg.elementwise_kind"

    @classmethod
    def parse_parameter(cls, parser: AttrParser) -> ElementwiseKind:
        with parser.in_angle_brackets():
            return super().parse_parameter(parser)

    def print_parameter(self, printer: Printer) -> None:
        with printer.in_angle_brackets():
            super().print_parameter(printer)


def _reciprocal(args: Sequence[SSAValue]) -> Operation:
    type = args[0].type
    assert isinstance(type, AnyFloat)
    return arith.DivfOp(arith.ConstantOp(FloatAttr(1.0, type)), args[0])


BODIES: dict[ElementwiseKind, Callable[[Sequence[SSAValue]], Operation]] = {
    ElementwiseKind.EXP: lambda a: math.ExpOp(a[0]),
    ElementwiseKind.LOG: lambda a: math.LogOp(a[0]),
    ElementwiseKind.ABS: lambda a: math.AbsFOp(a[0]),
    ElementwiseKind.CEIL: lambda a: math.CeilOp(a[0]),
    ElementwiseKind.FLOOR: lambda a: math.FloorOp(a[0]),
    ElementwiseKind.NEGF: lambda a: arith.NegfOp(a[0]),
    ElementwiseKind.RECIPROCAL: _reciprocal,
    ElementwiseKind.ROUND: lambda a: math.RoundOp(a[0]),
    ElementwiseKind.SQRT: lambda a: math.SqrtOp(a[0]),
    ElementwiseKind.RSQRT: lambda a: math.RsqrtOp(a[0]),
    ElementwiseKind.SQUARE: lambda a: arith.MulfOp(a[0], a[0]),
    ElementwiseKind.TANH: lambda a: math.TanhOp(a[0]),
    ElementwiseKind.ERF: lambda a: math.ErfOp(a[0]),
    ElementwiseKind.SIN: lambda a: math.SinOp(a[0]),
    ElementwiseKind.COS: lambda a: math.CosOp(a[0]),
    ElementwiseKind.TAN: lambda a: math.TanOp(a[0]),
    ElementwiseKind.ACOS: lambda a: math.AcosOp(a[0]),
    ElementwiseKind.ACOSH: lambda a: math.AcoshOp(a[0]),
    ElementwiseKind.ASIN: lambda a: math.AsinOp(a[0]),
    ElementwiseKind.ASINH: lambda a: math.AsinhOp(a[0]),
    ElementwiseKind.ATAN: lambda a: math.AtanOp(a[0]),
    ElementwiseKind.ATANH: lambda a: math.AtanhOp(a[0]),
    ElementwiseKind.LOG10: lambda a: math.Log10Op(a[0]),
    ElementwiseKind.LOG1P: lambda a: math.Log1pOp(a[0]),
    ElementwiseKind.LOG2: lambda a: math.Log2Op(a[0]),
    ElementwiseKind.ADD: lambda a: arith.AddfOp(a[0], a[1]),
    ElementwiseKind.SUB: lambda a: arith.SubfOp(a[0], a[1]),
    ElementwiseKind.MUL: lambda a: arith.MulfOp(a[0], a[1]),
    ElementwiseKind.DIV: lambda a: arith.DivfOp(a[0], a[1]),
    ElementwiseKind.MAX_SIGNED: lambda a: arith.MaximumfOp(a[0], a[1]),
    ElementwiseKind.MIN_SIGNED: lambda a: arith.MinimumfOp(a[0], a[1]),
    ElementwiseKind.POWF: lambda a: math.PowFOp(a[0], a[1]),
    ElementwiseKind.SELECT: lambda a: arith.SelectOp(a[0], a[1], a[2]),
}
"""Each kind's body on float elements, as MLIR builds it."""

_ARITY = {ElementwiseKind.SELECT: 3} | {
    kind: 2
    for kind in (
        ElementwiseKind.ADD,
        ElementwiseKind.SUB,
        ElementwiseKind.MUL,
        ElementwiseKind.DIV,
        ElementwiseKind.MAX_SIGNED,
        ElementwiseKind.MIN_SIGNED,
        ElementwiseKind.POWF,
    )
}


def _wrong_arity(kind: ElementwiseKindAttr, inputs: int) -> str | None:
    """What is wrong with `inputs` inputs for `kind`, if anything."""
    arity = _ARITY.get(kind.data, 1)
    if inputs == arity:
        return None
    return f"kind {kind.data} takes {arity} inputs, got {inputs}"


@irdl_op_definition
class ElementwiseOp(_GivenMaps):
    """`linalg.elementwise <kind> ins(...) outs(%init : T)`: the kind's body
    on the inputs' elements, over parallel loops of the init's rank; an
    input of lower rank is read through a given map (a broadcast)."""

    name = "linalg.elementwise"
    PRINT_ATTRS_IN_FRONT: ClassVar[bool] = True
    kind = prop_def(ElementwiseKindAttr)
    indexing_maps = opt_prop_def(ArrayAttr[AffineMapAttr])

    @classmethod
    def parse(cls, parser: Parser) -> NamedOperation:
        position = parser.pos
        try:
            kind = ElementwiseKindAttr(ElementwiseKindAttr.parse_parameter(parser))
        except ParseError:
            kinds = ", ".join(f"<{kind}>" for kind in ElementwiseKind)
            parser.raise_error(
                f"'linalg.elementwise' expects its kind, one of {kinds}", position
            )
        position = parser.pos
        op = super().parse(parser)
        if (wrong := _wrong_arity(kind, len(op.inputs))) is not None:
            parser.raise_error(f"'linalg.elementwise' of {wrong}", position)
        op.properties["kind"] = kind
        with ImplicitBuilder(op.body.block):
            YieldOp(BODIES[kind.data](op.body.block.args[: len(op.inputs)]))
        return op

    @classmethod
    def get_hidden_region(
        cls, inputs: Sequence[SSAValue], outputs: Sequence[SSAValue]
    ) -> Region:
        """The body's block, empty: `parse` fills it once the kind is known."""
        return Region(Block(arg_types=cls.body_arg_types((*inputs, *outputs))))

    def get_default_indexing_maps(self) -> Sequence[AffineMap]:
        out = self.outputs[0].type
        assert isinstance(out, ShapedType)
        return (AffineMap.identity(out.get_num_dims()),) * len(self.operands)

    def get_iterator_types(self) -> ArrayAttr[IteratorTypeAttr]:
        return ArrayAttr((IteratorTypeAttr.parallel(),) * self.get_num_loops())

    def print_kind(self, printer: Printer) -> None:
        printer.print_string(" ")
        self.kind.print_parameter(printer)

    def verify_(self) -> None:
        if (wrong := _wrong_arity(self.kind, len(self.inputs))) is not None:
            raise VerifyException(wrong)
        super().verify_()


OPS: tuple[type[Operation], ...] = (
    MatmulOp,
    BatchMatmulOp,
    BatchReduceMatmulOp,
    ContractOp,
    ElementwiseOp,
)
ATTRIBUTES: tuple[type[Attribute], ...] = (ElementwiseKindAttr,)
