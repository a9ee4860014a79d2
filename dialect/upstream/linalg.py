"""The `linalg` ops of SPEC §10.2 that xDSL 0.74 lacks (`map`, the
contractions, convolutions, poolings and named elementwise ops below), and a
`linalg.generic`
that also reads the parenthesized result list of a generic with several
results (`-> (tensor<4xf32>, tensor<4xf32>)`), which xDSL's parser refuses.

Each named op is defined as MLIR defines it (OpDSL): its indexing maps,
iterator types and hidden body, so that anything that reads a structured op
through its maps and body (the interpreter, the gradient rules) reads these
too. They join xDSL's own `linalg` ops in gradopt's context only (see
`gradopt.dialect.upstream`).
"""

from __future__ import annotations

from abc import ABC
from collections.abc import Callable, Sequence
from typing import ClassVar

from xdsl.builder import Builder
from xdsl.dialects import arith, math
from xdsl.dialects.builtin import (
    AffineMapAttr,
    AnyFloat,
    ArrayAttr,
    FloatAttr,
    ShapedType,
    StringAttr,
    TensorType,
)
from xdsl.dialects.linalg.abstract_ops import (
    ConvOperation,
    ElementwiseOperation,
    NamedOperation,
    PoolingOperation,
)
from xdsl.dialects.linalg.attrs import IteratorType, IteratorTypeAttr
from xdsl.dialects.linalg.ops import GenericOp as XdslGenericOp
from xdsl.dialects.linalg.ops import YieldOp
from xdsl.ir import Attribute, BlockArgument, Operation, Region, SSAValue
from xdsl.ir.affine import AffineDimExpr, AffineExpr, AffineMap
from xdsl.irdl import (
    AttrSizedOperandSegments,
    IRDLOperation,
    irdl_op_definition,
    operand_def,
    opt_prop_def,
    prop_def,
    region_def,
    var_operand_def,
    var_result_def,
)
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.utils.exceptions import VerifyException


@irdl_op_definition
class GenericOp(XdslGenericOp):
    """xDSL's `linalg.generic`, whose parser also takes `-> (T1, T2)`."""

    name = "linalg.generic"
    inputs = var_operand_def()
    outputs = var_operand_def(ShapedType)
    res = var_result_def(TensorType)
    body = region_def("single_block")
    indexing_maps = prop_def(ArrayAttr[AffineMapAttr])
    iterator_types = prop_def(ArrayAttr[IteratorTypeAttr])
    doc = opt_prop_def(StringAttr)
    library_call = opt_prop_def(StringAttr)

    @classmethod
    def parse(cls, parser: Parser) -> GenericOp:
        attributes = parser.expect(
            parser.parse_optional_attr_dict, "expected the attributes of the generic"
        )
        names = ("indexing_maps", "iterator_types", "doc", "library_call")
        properties: dict[str, Attribute] = {
            name: attributes.pop(name) for name in names if name in attributes
        }
        iterators = properties.get("iterator_types")
        if isinstance(iterators, ArrayAttr):
            properties["iterator_types"] = ArrayAttr(
                _iterator(parser, i) for i in iterators
            )
        ins = _operand_group(parser, "ins")
        outs = _operand_group(parser, "outs")
        if parser.parse_optional_keyword("attrs"):
            parser.parse_punctuation("=")
            attributes |= parser.expect(
                parser.parse_optional_attr_dict, "expected extra attributes"
            )
        body = parser.parse_region()
        results: list[Attribute] = []
        if parser.parse_optional_punctuation("->"):
            listed = parser.parse_optional_comma_separated_list(
                Parser.Delimiter.PAREN, parser.parse_type
            )
            results = [*listed] if listed is not None else [parser.parse_type()]
        for name in ("indexing_maps", "iterator_types"):
            if name not in properties:
                parser.raise_error(f"expected {name} for linalg.generic")
        return cls.build(
            operands=(ins, outs),
            result_types=(results,),
            properties=properties,
            attributes=attributes,
            regions=(body,),
        )


def _iterator(parser: Parser, iterator: Attribute) -> Attribute:
    """`"parallel"` as the iterator type it names."""
    if not isinstance(iterator, StringAttr):
        return iterator
    try:
        return IteratorTypeAttr(IteratorType(iterator.data))
    except ValueError:
        parser.raise_error(f"unknown iterator type {iterator}")


@irdl_op_definition
class MapOp(IRDLOperation):
    """`%r = linalg.map ins(%a, %b : T, T) outs(%init : T) (%x: f32, %y: f32,
    %o: f32) { ... linalg.yield %v : f32 }`: the body applied to the elements
    of the inputs, all of the init's shape. The body takes the init's element
    last, as MLIR (and IREE 3.13) now writes it, or not at all, as MLIR
    wrote it before."""

    name = "linalg.map"
    inputs = var_operand_def()
    init = operand_def(TensorType)
    result = var_result_def(TensorType)
    mapper = region_def("single_block")
    irdl_options = (AttrSizedOperandSegments(as_property=True),)

    def verify_(self) -> None:
        shape = self.init.type
        assert isinstance(shape, TensorType)
        for index, value in enumerate(self.inputs):
            if not isinstance(value.type, TensorType) or (
                value.type.get_shape() != shape.get_shape()
            ):
                raise VerifyException(
                    f"input {index} must have the shape of the init ({shape}), got "
                    f"{value.type}"
                )
        arguments = len(self.mapper.block.args)
        if arguments not in (len(self.inputs), len(self.inputs) + 1):
            raise VerifyException(
                f"the body takes {arguments} arguments for {len(self.inputs)} "
                "inputs: one per input, and one for the init's element or none"
            )
        if [r.type for r in self.result] != [shape]:
            raise VerifyException(f"the result must be of the init's type {shape}")

    @classmethod
    def parse(cls, parser: Parser) -> MapOp:
        ins = _operand_group(parser, "ins")
        outs = _operand_group(parser, "outs")
        if len(outs) != 1:
            parser.raise_error("linalg.map takes one init in outs(...)")
        attributes = parser.parse_optional_attr_dict()
        arguments = parser.parse_comma_separated_list(
            Parser.Delimiter.PAREN, parser.parse_argument
        )
        body = parser.parse_region(arguments)
        op = cls.build(
            operands=(ins, outs[0]), result_types=([outs[0].type],), regions=(body,)
        )
        op.attributes |= attributes
        return op

    def print(self, printer: Printer) -> None:
        if self.inputs:
            printer.print_string(" ins(")
            printer.print_list(self.inputs, printer.print_ssa_value)
            printer.print_string(" : ")
            printer.print_list(self.inputs.types, printer.print_attribute)
            printer.print_string(")")
        printer.print_string(" outs(")
        printer.print_ssa_value(self.init)
        printer.print_string(" : ")
        printer.print_attribute(self.init.type)
        printer.print_string(")")
        printer.print_op_attributes(self.attributes)
        printer.print_string(" ")
        with printer.in_parens():
            printer.print_list(self.mapper.block.args, printer.print_block_argument)
        printer.print_string(" ")
        printer.print_region(self.mapper, print_entry_block_args=False)


def _operand_group(parser: Parser, keyword: str) -> Sequence[SSAValue]:
    """`ins(%a, %b : T1, T2)`, or nothing when `keyword` is not there."""
    position = parser.pos
    if not parser.parse_optional_characters(keyword):
        return ()
    parser.parse_punctuation("(")
    names = parser.parse_comma_separated_list(
        Parser.Delimiter.NONE, parser.parse_unresolved_operand
    )
    parser.parse_punctuation(":")
    types = parser.parse_comma_separated_list(Parser.Delimiter.NONE, parser.parse_type)
    parser.parse_punctuation(")")
    return parser.resolve_operands(names, types, position)


def _maps(dims: int, *results: Sequence[AffineExpr]) -> tuple[AffineMap, ...]:
    return tuple(AffineMap(dims, 0, tuple(r)) for r in results)


def _iterators(parallel: int, reduction: int) -> ArrayAttr[IteratorTypeAttr]:
    return ArrayAttr(
        (IteratorTypeAttr.parallel(),) * parallel
        + (IteratorTypeAttr.reduction(),) * reduction
    )


def _body(
    inputs: Sequence[SSAValue],
    outputs: Sequence[SSAValue],
    compute: Callable[[Sequence[SSAValue], bool], Operation],
) -> Region:
    """A hidden region yielding `compute(block arguments, is_float)`."""
    types = NamedOperation.body_arg_types((*inputs, *outputs))

    @Builder.implicit_region(types)
    def region(args: tuple[BlockArgument, ...]) -> None:
        YieldOp(compute(args, isinstance(types[-1], AnyFloat)))

    return region


def _multiply_add(args: Sequence[SSAValue], is_float: bool) -> Operation:
    if is_float:
        return arith.AddfOp(args[2], arith.MulfOp(args[0], args[1]))
    return arith.AddiOp(args[2], arith.MuliOp(args[0], args[1]))


class ContractionOperation(NamedOperation, ABC):
    """`out += a * b` over the maps `MAPS` of the dims `d0...`, of which the
    last `REDUCTIONS` are reductions."""

    PRINT_ATTRS_IN_FRONT: ClassVar[bool] = True
    DIMS: ClassVar[int]
    REDUCTIONS: ClassVar[int] = 1
    RESULTS: ClassVar[tuple[tuple[int, ...], ...]]

    @classmethod
    def get_hidden_region(
        cls, inputs: Sequence[SSAValue], outputs: Sequence[SSAValue]
    ) -> Region:
        return _body(inputs, outputs, _multiply_add)

    def get_default_indexing_maps(self) -> Sequence[AffineMap]:
        d = [AffineDimExpr(i) for i in range(self.DIMS)]
        return _maps(self.DIMS, *([d[i] for i in r] for r in self.RESULTS))

    def get_iterator_types(self) -> ArrayAttr[IteratorTypeAttr]:
        return _iterators(self.DIMS - self.REDUCTIONS, self.REDUCTIONS)


@irdl_op_definition
class BatchMatmulOp(ContractionOperation):
    """`out[b, m, n] += a[b, m, k] * b[b, k, n]`."""

    name = "linalg.batch_matmul"
    DIMS: ClassVar = 4
    RESULTS: ClassVar = ((0, 1, 3), (0, 3, 2), (0, 1, 2))


@irdl_op_definition
class MatvecOp(ContractionOperation):
    """`out[m] += a[m, k] * x[k]`."""

    name = "linalg.matvec"
    DIMS: ClassVar = 2
    RESULTS: ClassVar = ((0, 1), (1,), (0,))


@irdl_op_definition
class VecmatOp(ContractionOperation):
    """`out[n] += x[k] * a[k, n]`."""

    name = "linalg.vecmat"
    DIMS: ClassVar = 2
    RESULTS: ClassVar = ((1,), (1, 0), (0,))


@irdl_op_definition
class DotOp(ContractionOperation):
    """`out[] += a[k] * b[k]`."""

    name = "linalg.dot"
    DIMS: ClassVar = 1
    RESULTS: ClassVar = ((0,), (0,), ())


class _PlainConvolution(ContractionOperation, ABC):
    """`linalg.conv_1d` and `conv_2d`: no batch, no channels, stride and
    dilation 1; the input at `o + k` in each spatial dim."""

    SPATIAL: ClassVar[int]

    def get_default_indexing_maps(self) -> Sequence[AffineMap]:
        count = self.SPATIAL
        d = [AffineDimExpr(i) for i in range(2 * count)]
        out, window = d[:count], d[count:]
        input = [o + k for o, k in zip(out, window, strict=True)]
        return _maps(2 * count, input, window, out)


@irdl_op_definition
class Conv1DOp(_PlainConvolution):
    name = "linalg.conv_1d"
    DIMS: ClassVar = 2
    SPATIAL: ClassVar = 1


@irdl_op_definition
class Conv2DOp(_PlainConvolution):
    name = "linalg.conv_2d"
    DIMS: ClassVar = 4
    REDUCTIONS: ClassVar = 2
    SPATIAL: ClassVar = 2


class WindowOperation(NamedOperation, ABC):
    """A convolution or pooling over `SPATIAL` window dims: the input is read
    at `o * stride + k * dilation` in each. `LAYOUT` names the dims of the
    input, the filter (or window) and the output, in the iteration order
    `ITERATION` (parallel dims first, then the reductions); `w` and `k` with
    a digit are the output's and window's spatial dims, joined in the input
    as `w0 * stride + k0 * dilation`."""

    PRINT_ATTRS_IN_FRONT: ClassVar[bool] = True
    ITERATION: ClassVar[tuple[str, ...]]
    LAYOUT: ClassVar[tuple[tuple[str, ...], ...]]
    REDUCTIONS: ClassVar[int]

    def get_default_indexing_maps(self) -> Sequence[AffineMap]:
        dims = {name: AffineDimExpr(i) for i, name in enumerate(self.ITERATION)}
        strides = self.strides.get_values()  # pyright: ignore[reportAttributeAccessIssue]
        dilations = self.dilations.get_values()  # pyright: ignore[reportAttributeAccessIssue]

        def expr(name: str) -> AffineExpr:
            if name.startswith("i"):
                spatial = int(name[1:])
                return dims[f"w{spatial}"] * int(strides[spatial]) + dims[
                    f"k{spatial}"
                ] * int(dilations[spatial])
            return dims[name]

        count = len(self.ITERATION)
        return _maps(count, *([expr(n) for n in layout] for layout in self.LAYOUT))

    def get_iterator_types(self) -> ArrayAttr[IteratorTypeAttr]:
        return _iterators(len(self.ITERATION) - self.REDUCTIONS, self.REDUCTIONS)


class _Conv(WindowOperation, ConvOperation, ABC):
    pass


@irdl_op_definition
class Conv1DNwcWcfOp(_Conv):
    name = "linalg.conv_1d_nwc_wcf"
    ITERATION: ClassVar = ("n", "w0", "f", "k0", "c")
    LAYOUT: ClassVar = (("n", "i0", "c"), ("k0", "c", "f"), ("n", "w0", "f"))
    REDUCTIONS: ClassVar = 2


@irdl_op_definition
class Conv1DNcwFcwOp(_Conv):
    name = "linalg.conv_1d_ncw_fcw"
    ITERATION: ClassVar = ("n", "f", "w0", "c", "k0")
    LAYOUT: ClassVar = (("n", "c", "i0"), ("f", "c", "k0"), ("n", "f", "w0"))
    REDUCTIONS: ClassVar = 2


@irdl_op_definition
class DepthwiseConv2DNhwcHwcOp(_Conv):
    name = "linalg.depthwise_conv_2d_nhwc_hwc"
    ITERATION: ClassVar = ("n", "w0", "w1", "c", "k0", "k1")
    LAYOUT: ClassVar = (
        ("n", "i0", "i1", "c"),
        ("k0", "k1", "c"),
        ("n", "w0", "w1", "c"),
    )
    REDUCTIONS: ClassVar = 2


class _Pooling(WindowOperation, PoolingOperation, ABC):
    """A pooling whose body combines the output with the input by `COMBINE`
    (float) or `INTEGER` (integer)."""

    COMBINE: ClassVar[type[arith.FloatingPointLikeBinaryOperation]]
    INTEGER: ClassVar[type[arith.SignlessIntegerBinaryOperation]]

    @classmethod
    def get_hidden_region(
        cls, inputs: Sequence[SSAValue], outputs: Sequence[SSAValue]
    ) -> Region:
        def combine(args: Sequence[SSAValue], is_float: bool) -> Operation:
            return (cls.COMBINE if is_float else cls.INTEGER)(args[2], args[0])

        return _body(inputs, outputs, combine)


class _SumPooling(_Pooling, ABC):
    COMBINE: ClassVar = arith.AddfOp
    INTEGER: ClassVar = arith.AddiOp


class _MaxPooling(_Pooling, ABC):
    COMBINE: ClassVar = arith.MaximumfOp
    INTEGER: ClassVar = arith.MaxSIOp


_Layout = tuple[tuple[str, ...], tuple[tuple[str, ...], ...]]
"""A pooling's iteration dims, and the dims of its input, window, output."""

_NCHW: _Layout = (
    ("n", "c", "w0", "w1", "k0", "k1"),
    (("n", "c", "i0", "i1"), ("k0", "k1"), ("n", "c", "w0", "w1")),
)
_NHWC: _Layout = (
    ("n", "w0", "w1", "c", "k0", "k1"),
    (("n", "i0", "i1", "c"), ("k0", "k1"), ("n", "w0", "w1", "c")),
)
_NCW: _Layout = (
    ("n", "c", "w0", "k0"),
    (("n", "c", "i0"), ("k0",), ("n", "c", "w0")),
)
_NWC: _Layout = (
    ("n", "w0", "c", "k0"),
    (("n", "i0", "c"), ("k0",), ("n", "w0", "c")),
)


@irdl_op_definition
class PoolingNchwSumOp(_SumPooling):
    name = "linalg.pooling_nchw_sum"
    ITERATION: ClassVar = _NCHW[0]
    LAYOUT: ClassVar = _NCHW[1]
    REDUCTIONS: ClassVar = 2


@irdl_op_definition
class PoolingNchwMaxOp(_MaxPooling):
    """xDSL's has a body that reads the window operand, not the output."""

    name = "linalg.pooling_nchw_max"
    ITERATION: ClassVar = _NCHW[0]
    LAYOUT: ClassVar = _NCHW[1]
    REDUCTIONS: ClassVar = 2


@irdl_op_definition
class PoolingNhwcSumOp(_SumPooling):
    name = "linalg.pooling_nhwc_sum"
    ITERATION: ClassVar = _NHWC[0]
    LAYOUT: ClassVar = _NHWC[1]
    REDUCTIONS: ClassVar = 2


@irdl_op_definition
class PoolingNhwcMaxOp(_MaxPooling):
    name = "linalg.pooling_nhwc_max"
    ITERATION: ClassVar = _NHWC[0]
    LAYOUT: ClassVar = _NHWC[1]
    REDUCTIONS: ClassVar = 2


@irdl_op_definition
class PoolingNcwSumOp(_SumPooling):
    name = "linalg.pooling_ncw_sum"
    ITERATION: ClassVar = _NCW[0]
    LAYOUT: ClassVar = _NCW[1]
    REDUCTIONS: ClassVar = 1


@irdl_op_definition
class PoolingNcwMaxOp(_MaxPooling):
    name = "linalg.pooling_ncw_max"
    ITERATION: ClassVar = _NCW[0]
    LAYOUT: ClassVar = _NCW[1]
    REDUCTIONS: ClassVar = 1


@irdl_op_definition
class PoolingNwcSumOp(_SumPooling):
    name = "linalg.pooling_nwc_sum"
    ITERATION: ClassVar = _NWC[0]
    LAYOUT: ClassVar = _NWC[1]
    REDUCTIONS: ClassVar = 1


@irdl_op_definition
class PoolingNwcMaxOp(_MaxPooling):
    name = "linalg.pooling_nwc_max"
    ITERATION: ClassVar = _NWC[0]
    LAYOUT: ClassVar = _NWC[1]
    REDUCTIONS: ClassVar = 1


class NamedElementwiseOperation(ElementwiseOperation, ABC):
    """A named elementwise op whose body is `BODY` of the inputs (f32)."""

    PRINT_ATTRS_IN_FRONT: ClassVar[bool] = True
    BODY: ClassVar[Callable[[Sequence[SSAValue]], Operation]]

    @classmethod
    def get_hidden_region(
        cls, inputs: Sequence[SSAValue], outputs: Sequence[SSAValue]
    ) -> Region:
        return _body(inputs, outputs, lambda args, _: cls.BODY(args[: len(inputs)]))


def _reciprocal(args: Sequence[SSAValue]) -> Operation:
    type = args[0].type
    assert isinstance(type, AnyFloat)
    return arith.DivfOp(arith.ConstantOp(FloatAttr(1.0, type)), args[0])


_ELEMENTWISE: dict[str, Callable[[Sequence[SSAValue]], Operation]] = {
    "div": lambda a: arith.DivfOp(a[0], a[1]),
    "negf": lambda a: arith.NegfOp(a[0]),
    "abs": lambda a: math.AbsFOp(a[0]),
    "floor": lambda a: math.FloorOp(a[0]),
    "ceil": lambda a: math.CeilOp(a[0]),
    "round": lambda a: math.RoundOp(a[0]),
    "tanh": lambda a: math.TanhOp(a[0]),
    "rsqrt": lambda a: math.RsqrtOp(a[0]),
    "erf": lambda a: math.ErfOp(a[0]),
    "square": lambda a: arith.MulfOp(a[0], a[0]),
    "powf": lambda a: math.PowFOp(a[0], a[1]),
    "reciprocal": _reciprocal,
}


def _elementwise_op(name: str) -> type[NamedElementwiseOperation]:
    body = _ELEMENTWISE[name]
    return irdl_op_definition(
        type(
            f"{name.title()}Op",
            (NamedElementwiseOperation,),
            {
                "name": f"linalg.{name}",
                "BODY": staticmethod(body),
                "__doc__": f"`linalg.{name}`, elementwise.",
                "__module__": __name__,
            },
        )
    )


ELEMENTWISE_OPS = tuple(_elementwise_op(name) for name in _ELEMENTWISE)

OPS: tuple[type[Operation], ...] = (
    GenericOp,
    MapOp,
    BatchMatmulOp,
    MatvecOp,
    VecmatOp,
    DotOp,
    Conv1DOp,
    Conv2DOp,
    Conv1DNwcWcfOp,
    Conv1DNcwFcwOp,
    DepthwiseConv2DNhwcHwcOp,
    PoolingNchwSumOp,
    PoolingNchwMaxOp,
    PoolingNhwcSumOp,
    PoolingNhwcMaxOp,
    PoolingNcwSumOp,
    PoolingNcwMaxOp,
    PoolingNwcSumOp,
    PoolingNwcMaxOp,
    *ELEMENTWISE_OPS,
)
"""gradopt's `linalg` ops; `GenericOp` stands for xDSL's."""
