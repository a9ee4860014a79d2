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
    DenseIntElementsAttr,
    FloatAttr,
    IntegerType,
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
from xdsl.ir import Attribute, Block, BlockArgument, Operation, Region, SSAValue
from xdsl.ir.affine import AffineDimExpr, AffineExpr, AffineMap
from xdsl.irdl import (
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
        ins = operand_group(parser, "ins")
        outs = operand_group(parser, "outs")
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
        short = None
        if parser.parse_optional_punctuation("{"):
            position = parser.pos
            name = parser.parse_identifier("the name of the op to map")
            given = parser.parse_optional_attr_dict()
            parser.parse_punctuation("}")
            short = (name, given, position)
        ins = operand_group(parser, "ins")
        outs = operand_group(parser, "outs")
        if len(outs) != 1:
            parser.raise_error("linalg.map takes one init in outs(...)")
        attributes = parser.parse_optional_attr_dict()
        if short is None:
            arguments = parser.parse_comma_separated_list(
                Parser.Delimiter.PAREN, parser.parse_argument
            )
            body = parser.parse_region(arguments)
        else:
            body = Region(_short_body(parser, *short, (*ins, outs[0])))
        op = cls.build(
            operands=(ins, outs[0]), result_types=([outs[0].type],), regions=(body,)
        )
        op.attributes |= attributes
        return op

    def short_form(self) -> Operation | None:
        """The one op the body applies to the inputs' elements in order, if
        MLIR prints the map in its short form `{ arith.mulf }`: an op of no
        attributes, of default properties, whose result the body yields."""
        block = self.mapper.block
        inner, end = block.first_op, block.last_op
        count = len(self.inputs)
        if (
            inner is None
            or end is None
            or inner.next_op is not end
            or not isinstance(inner, IRDLOperation)
            or len(block.args) != count + 1
            or list(inner.operands) != list(block.args[:count])
            or list(end.operands) != list(inner.results)
            or inner.attributes
            or inner.regions
        ):
            return None
        defaults = inner.get_irdl_definition().properties
        for name, value in inner.properties.items():
            if name not in defaults or defaults[name].default_value != value:
                return None
        return inner

    def print(self, printer: Printer) -> None:
        if (short := self.short_form()) is not None:
            printer.print_string(f" {{ {short.name} }}")
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
        if short is not None:
            return
        printer.print_string(" ")
        with printer.in_parens():
            printer.print_list(self.mapper.block.args, printer.print_block_argument)
        printer.print_string(" ")
        printer.print_region(self.mapper, print_entry_block_args=False)


def _short_body(
    parser: Parser,
    name: str,
    given: dict[str, Attribute],
    position: int,
    operands: Sequence[SSAValue],
) -> Block:
    """The body of `linalg.map { name {given} }` over `operands` (the
    inputs, then the init): op `name` of the inputs' elements, yielded."""
    op_type = parser.ctx.get_optional_op(name)
    if op_type is None or not issubclass(op_type, IRDLOperation):
        parser.raise_error(f"unknown op '{name}' in linalg.map's short form", position)
    types = NamedOperation.body_arg_types(operands)
    block = Block(arg_types=types)
    names = op_type.get_irdl_definition().properties
    inner = op_type.build(
        operands=block.args[:-1],
        result_types=[types[-1]],
        properties={k: v for k, v in given.items() if k in names},
        attributes={k: v for k, v in given.items() if k not in names},
    )
    block.add_ops([inner, YieldOp(*inner.results)])
    return block


def operand_group(parser: Parser, keyword: str) -> Sequence[SSAValue]:
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


def _body(
    inputs: Sequence[SSAValue],
    outputs: Sequence[SSAValue],
    compute: Callable[[Sequence[SSAValue], bool], Operation],
) -> Region:
    """A hidden region yielding `compute(block arguments, is_float)`, the
    inputs' elements cast to the output's element type first where it is not
    theirs, as MLIR's named ops cast them (`f16` read into `f32`)."""
    types = NamedOperation.body_arg_types((*inputs, *outputs))

    @Builder.implicit_region(types)
    def region(args: tuple[BlockArgument, ...]) -> None:
        out = types[-1]
        count = len(inputs)
        values = [_cast(a, out) for a in args[:count]] + list(args[count:])
        YieldOp(compute(values, isinstance(out, AnyFloat)))

    return region


def _cast(value: SSAValue, type: AnyFloat | IntegerType) -> SSAValue:
    """`value` converted to `type` as MLIR's `cast_signed` converts it."""
    source = value.type
    if isinstance(source, AnyFloat) and isinstance(type, AnyFloat):
        if source.bitwidth == type.bitwidth:
            return value
        widens = source.bitwidth < type.bitwidth
        return (arith.ExtFOp if widens else arith.TruncFOp)(value, type).result
    if isinstance(source, IntegerType) and isinstance(type, AnyFloat):
        return arith.SIToFPOp(value, type).result
    if isinstance(source, IntegerType) and isinstance(type, IntegerType):
        if source.width == type.width:
            return value
        widens = source.width.data < type.width.data
        return (arith.ExtSIOp if widens else arith.TruncIOp)(value, type).result
    return value


def _multiply_add(args: Sequence[SSAValue], is_float: bool) -> Operation:
    if is_float:
        return arith.AddfOp(args[2], arith.MulfOp(args[0], args[1]))
    return arith.AddiOp(args[2], arith.MuliOp(args[0], args[1]))


class ContractionOperation(NamedOperation, ABC):
    """`out += a * b` over the dims `d0...` that `RESULTS` lists for each
    operand; the dims the output does not read are reductions."""

    PRINT_ATTRS_IN_FRONT: ClassVar[bool] = True
    DIMS: ClassVar[int]
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
        out = self.get_indexing_maps().data[-1].data
        kept = {r.position for r in out.results if isinstance(r, AffineDimExpr)}
        return ArrayAttr(
            IteratorTypeAttr.parallel() if d in kept else IteratorTypeAttr.reduction()
            for d in range(out.num_dims)
        )


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


@irdl_op_definition
class BatchMatvecOp(ContractionOperation):
    """`out[b, m] += a[b, m, k] * x[b, k]`."""

    name = "linalg.batch_matvec"
    DIMS: ClassVar = 3
    RESULTS: ClassVar = ((0, 1, 2), (0, 2), (0, 1))


@irdl_op_definition
class BatchVecmatOp(ContractionOperation):
    """`out[b, n] += x[b, k] * a[b, k, n]`."""

    name = "linalg.batch_vecmat"
    DIMS: ClassVar = 3
    RESULTS: ClassVar = ((0, 2), (0, 2, 1), (0, 1))


@irdl_op_definition
class Mmt4DOp(ContractionOperation):
    """`out[m, n, m0, n0] += lhs[m, k, m0, k0] * rhs[n, k, n0, k0]`: a matmul
    of tiled operands, the right one transposed."""

    name = "linalg.mmt4d"
    DIMS: ClassVar = 6
    RESULTS: ClassVar = ((0, 2, 3, 5), (1, 2, 4, 5), (0, 1, 3, 4))


@irdl_op_definition
class BatchMmt4DOp(ContractionOperation):
    """`linalg.mmt4d` with a batch dim first in each operand."""

    name = "linalg.batch_mmt4d"
    DIMS: ClassVar = 7
    RESULTS: ClassVar = ((0, 1, 3, 4, 6), (0, 2, 3, 5, 6), (0, 1, 2, 4, 5))


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
    SPATIAL: ClassVar = 2


@irdl_op_definition
class Conv3DOp(_PlainConvolution):
    name = "linalg.conv_3d"
    DIMS: ClassVar = 6
    SPATIAL: ClassVar = 3


class WindowOperation(NamedOperation, ABC):
    """A convolution or pooling over `SPATIAL` window dims: the input is read
    at `o * stride + k * dilation` in each. `LAYOUT` names the dims of the
    input, the filter (or window) and the output, in the iteration order
    `ITERATION` (MLIR's: the dims the output lacks are the reductions); `w`
    and `k` with a digit are the output's and window's spatial dims, joined
    in the input as `w0 * stride + k0 * dilation`."""

    PRINT_ATTRS_IN_FRONT: ClassVar[bool] = True
    ITERATION: ClassVar[tuple[str, ...]]
    LAYOUT: ClassVar[tuple[tuple[str, ...], ...]]
    strides = opt_prop_def(DenseIntElementsAttr)
    """1 in each spatial dim when not given, as in MLIR."""
    dilations = opt_prop_def(DenseIntElementsAttr)

    def get_default_indexing_maps(self) -> Sequence[AffineMap]:
        dims = {name: AffineDimExpr(i) for i, name in enumerate(self.ITERATION)}
        ones = (1,) * sum(name.startswith("w") for name in self.ITERATION)
        strides = self.strides.get_values() if self.strides else ones
        dilations = self.dilations.get_values() if self.dilations else ones

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
        return ArrayAttr(
            IteratorTypeAttr.parallel()
            if name in self.LAYOUT[-1]
            else IteratorTypeAttr.reduction()
            for name in self.ITERATION
        )


class _Conv(WindowOperation, ConvOperation, ABC):
    """A convolution whose body is MLIR's, `out + in * filter` (xDSL's
    writes the sum the other way round)."""

    @classmethod
    def get_hidden_region(
        cls, inputs: Sequence[SSAValue], outputs: Sequence[SSAValue]
    ) -> Region:
        return _body(inputs, outputs, _multiply_add)


@irdl_op_definition
class Conv1DNwcWcfOp(_Conv):
    name = "linalg.conv_1d_nwc_wcf"
    ITERATION: ClassVar = ("n", "w0", "f", "k0", "c")
    LAYOUT: ClassVar = (("n", "i0", "c"), ("k0", "c", "f"), ("n", "w0", "f"))


@irdl_op_definition
class Conv1DNcwFcwOp(_Conv):
    name = "linalg.conv_1d_ncw_fcw"
    ITERATION: ClassVar = ("n", "f", "w0", "c", "k0")
    LAYOUT: ClassVar = (("n", "c", "i0"), ("f", "c", "k0"), ("n", "f", "w0"))


@irdl_op_definition
class DepthwiseConv2DNhwcHwcOp(_Conv):
    name = "linalg.depthwise_conv_2d_nhwc_hwc"
    ITERATION: ClassVar = ("n", "w0", "w1", "c", "k0", "k1")
    LAYOUT: ClassVar = (
        ("n", "i0", "i1", "c"),
        ("k0", "k1", "c"),
        ("n", "w0", "w1", "c"),
    )


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


class _MinPooling(_Pooling, ABC):
    COMBINE: ClassVar = arith.MinimumfOp
    INTEGER: ClassVar = arith.MinSIOp


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


@irdl_op_definition
class PoolingNhwcSumOp(_SumPooling):
    name = "linalg.pooling_nhwc_sum"
    ITERATION: ClassVar = _NHWC[0]
    LAYOUT: ClassVar = _NHWC[1]


@irdl_op_definition
class PoolingNhwcMaxOp(_MaxPooling):
    name = "linalg.pooling_nhwc_max"
    ITERATION: ClassVar = _NHWC[0]
    LAYOUT: ClassVar = _NHWC[1]


@irdl_op_definition
class PoolingNcwSumOp(_SumPooling):
    name = "linalg.pooling_ncw_sum"
    ITERATION: ClassVar = _NCW[0]
    LAYOUT: ClassVar = _NCW[1]


@irdl_op_definition
class PoolingNcwMaxOp(_MaxPooling):
    name = "linalg.pooling_ncw_max"
    ITERATION: ClassVar = _NCW[0]
    LAYOUT: ClassVar = _NCW[1]


@irdl_op_definition
class PoolingNwcSumOp(_SumPooling):
    name = "linalg.pooling_nwc_sum"
    ITERATION: ClassVar = _NWC[0]
    LAYOUT: ClassVar = _NWC[1]


@irdl_op_definition
class PoolingNwcMaxOp(_MaxPooling):
    name = "linalg.pooling_nwc_max"
    ITERATION: ClassVar = _NWC[0]
    LAYOUT: ClassVar = _NWC[1]


_WINDOWS: dict[str, tuple[type[WindowOperation], str, str]] = {
    "conv_3d_ndhwc_dhwcf": (
        _Conv,
        "n w0 w1 w2 f k0 k1 k2 c",
        "n i0 i1 i2 c, k0 k1 k2 c f, n w0 w1 w2 f",
    ),
    "conv_3d_ncdhw_fcdhw": (
        _Conv,
        "n f w0 w1 w2 c k0 k1 k2",
        "n c i0 i1 i2, f c k0 k1 k2, n f w0 w1 w2",
    ),
    "depthwise_conv_1d_nwc_wc": (_Conv, "n w0 c k0", "n i0 c, k0 c, n w0 c"),
    "depthwise_conv_1d_ncw_cw": (_Conv, "n w0 c k0", "n c i0, c k0, n c w0"),
    "depthwise_conv_1d_nwc_wcm": (
        _Conv,
        "n w0 c m k0",
        "n i0 c, k0 c m, n w0 c m",
    ),
    "depthwise_conv_2d_nchw_chw": (
        _Conv,
        "n w0 w1 c k0 k1",
        "n c i0 i1, c k0 k1, n c w0 w1",
    ),
    "depthwise_conv_2d_nhwc_hwcm": (
        _Conv,
        "n w0 w1 c m k0 k1",
        "n i0 i1 c, k0 k1 c m, n w0 w1 c m",
    ),
    "depthwise_conv_3d_ndhwc_dhwc": (
        _Conv,
        "n w0 w1 w2 k0 k1 k2 c",
        "n i0 i1 i2 c, k0 k1 k2 c, n w0 w1 w2 c",
    ),
    "depthwise_conv_3d_ncdhw_cdhw": (
        _Conv,
        "n w0 w1 w2 k0 k1 k2 c",
        "n c i0 i1 i2, c k0 k1 k2, n c w0 w1 w2",
    ),
    "depthwise_conv_3d_ndhwc_dhwcm": (
        _Conv,
        "n w0 w1 w2 m k0 k1 k2 c",
        "n i0 i1 i2 c, k0 k1 k2 c m, n w0 w1 w2 c m",
    ),
    "pooling_nchw_max": (_MaxPooling, "n c w0 w1 k0 k1", "n c i0 i1, k0 k1, n c w0 w1"),
    "pooling_nhwc_min": (_MinPooling, "n w0 w1 c k0 k1", "n i0 i1 c, k0 k1, n w0 w1 c"),
    "pooling_nwc_min": (_MinPooling, "n w0 c k0", "n i0 c, k0, n w0 c"),
    **{
        f"pooling_ndhwc_{kind}": (
            base,
            "n w0 w1 w2 c k0 k1 k2",
            "n i0 i1 i2 c, k0 k1 k2, n w0 w1 w2 c",
        )
        for kind, base in (
            ("sum", _SumPooling),
            ("max", _MaxPooling),
            ("min", _MinPooling),
        )
    },
}
"""The other convolutions and poolings of MLIR's OpDSL (f32 and signed): the
base class, the iteration dims in MLIR's order, the dims of the input, the
filter (or window) and the output, named as `WindowOperation` names them."""


def _window_op(name: str) -> type[WindowOperation]:
    base, iteration, layout = _WINDOWS[name]
    return irdl_op_definition(
        type(
            "".join(part.title() for part in name.split("_")) + "Op",
            (base,),
            {
                "name": f"linalg.{name}",
                "ITERATION": tuple(iteration.split()),
                "LAYOUT": tuple(tuple(dims.split()) for dims in layout.split(",")),
                "__annotations__": {"ITERATION": ClassVar, "LAYOUT": ClassVar},
                "__doc__": f"`linalg.{name}`, as MLIR's OpDSL defines it.",
                "__module__": __name__,
            },
        )
    )


WINDOW_OPS = tuple(_window_op(name) for name in _WINDOWS)


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
    MatvecOp,
    VecmatOp,
    DotOp,
    BatchMatvecOp,
    BatchVecmatOp,
    Mmt4DOp,
    BatchMmt4DOp,
    Conv1DOp,
    Conv2DOp,
    Conv3DOp,
    Conv1DNwcWcfOp,
    Conv1DNcwFcwOp,
    DepthwiseConv2DNhwcHwcOp,
    PoolingNchwSumOp,
    PoolingNhwcSumOp,
    PoolingNhwcMaxOp,
    PoolingNcwSumOp,
    PoolingNcwMaxOp,
    PoolingNwcSumOp,
    PoolingNwcMaxOp,
    *WINDOW_OPS,
    *ELEMENTWISE_OPS,
)
"""gradopt's `linalg` ops; `GenericOp` stands for xDSL's."""
