"""A subset of IREE's `iree_linalg_ext` dialect: the ops IREE's input
conversion makes from JAX's `cumsum` (`scan`), `sort`/`top_k`/`argsort`
(`sort`) and `x.at[i].add/set` (`scatter`) (SPEC §10.5).

Each op prints and parses as IREE prints it (`--compile-to=input`), and its
generic form is IREE's: `scan` takes its input, output and accumulator as
three operands, `scatter` its updates, indices and original, `sort` its
`ins` and `outs` with `operandSegmentSizes`. The verifiers check what IREE's
check, with messages that say what is wrong. What the ops compute is
written beside their kernels (`gradopt.interpreter.linalg_ext`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TypeVar

from xdsl.dialects.builtin import (
    BoolAttr,
    DenseArrayBase,
    IntegerAttr,
    IntegerType,
    TensorType,
    i64,
)
from xdsl.ir import Attribute, Dialect, Region, SSAValue
from xdsl.irdl import (
    AttrSizedOperandSegments,
    IRDLOperation,
    irdl_op_definition,
    operand_def,
    prop_def,
    region_def,
    traits_def,
    var_operand_def,
    var_result_def,
)
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.traits import IsTerminator, Pure
from xdsl.utils.exceptions import VerifyException

from gradopt.dialect.upstream.linalg import operand_group


@irdl_op_definition
class YieldOp(IRDLOperation):
    """`iree_linalg_ext.yield %v : f32`, the terminator of the ops' bodies."""

    name = "iree_linalg_ext.yield"
    values = var_operand_def()
    traits = traits_def(IsTerminator(), Pure())
    assembly_format = "attr-dict ($values^ `:` type($values))?"

    def __init__(self, *values: SSAValue):
        super().__init__(operands=[values])


def _operands(
    parser: Parser, inputs: int, outputs: int, message: str
) -> tuple[list[SSAValue], Region, list[Attribute]]:
    """`ins(...) outs(...) { body } -> types` of an op with fixed operand
    counts: its operands, body and result types."""
    position = parser.pos
    ins, outs = operand_group(parser, "ins"), operand_group(parser, "outs")
    if len(ins) != inputs or len(outs) != outputs:
        parser.raise_error(message, position, parser.pos)
    region = parser.parse_region()
    return [*ins, *outs], region, result_types(parser)


def print_group(printer: Printer, keyword: str, values: Sequence[SSAValue]) -> None:
    printer.print_string(f" {keyword}(")
    printer.print_list(values, printer.print_ssa_value)
    printer.print_string(" : ")
    printer.print_list([v.type for v in values], printer.print_attribute)
    printer.print_string(")")


_T = TypeVar("_T")


def _parenthesized(parser: Parser, keyword: str, parse: Callable[[], _T]) -> _T:
    """`keyword(value)`, the value read by `parse`."""
    parser.parse_keyword(keyword)
    parser.parse_punctuation("(")
    value = parse()
    parser.parse_punctuation(")")
    return value


def result_types(parser: Parser) -> list[Attribute]:
    """`-> T1, T2`, or nothing (on memrefs)."""
    if not parser.parse_optional_punctuation("->"):
        return []
    return parser.parse_comma_separated_list(Parser.Delimiter.NONE, parser.parse_type)


def print_tail(printer: Printer, region: Region, results: Sequence[SSAValue]) -> None:
    printer.print_string(" ")
    printer.print_region(region)
    if results:
        printer.print_string(" -> ")
        printer.print_list([r.type for r in results], printer.print_attribute)


def tensor_operand(value: SSAValue, what: str) -> TensorType:
    if not isinstance(value.type, TensorType):
        raise VerifyException(f"the {what} must be a ranked tensor, got {value.type}")
    return value.type


def _check_body(
    region: Region, arguments: Sequence[Attribute], yields: Attribute, what: str
) -> None:
    """The body takes `arguments` and yields one `yields`."""
    block = region.block
    got = [a.type for a in block.args]
    if got != list(arguments):
        raise VerifyException(
            f"the {what} must take ({', '.join(map(str, arguments))}), got "
            f"({', '.join(map(str, got))})"
        )
    terminator = block.last_op
    if not isinstance(terminator, YieldOp) or [v.type for v in terminator.values] != [
        yields
    ]:
        raise VerifyException(
            f"the {what} must end in 'iree_linalg_ext.yield' of one {yields}"
        )


def check_results(results: Sequence[SSAValue], outs: Sequence[SSAValue]) -> None:
    if [r.type for r in results] != [o.type for o in outs]:
        raise VerifyException(
            "the results must have the types of the outs operands "
            f"({', '.join(str(o.type) for o in outs)})"
        )


@irdl_op_definition
class ScanOp(IRDLOperation):
    """`%r:2 = iree_linalg_ext.scan dimension(1) inclusive(true) ins(%x : T)
    outs(%out, %acc : T, A) { ^bb0(%prev: f32, %e: f32): ... }`: along
    `dimension`, `out[0] = x[0]` and `out[i] = body(out[i-1], x[i])`
    (inclusive), or `out[0] = acc` and `out[i] = body(out[i-1], x[i-1])`
    (exclusive); the second result is the last `out` along the dimension."""

    name = "iree_linalg_ext.scan"
    input = operand_def(TensorType)
    output = operand_def(TensorType)
    accumulator = operand_def(TensorType)
    results_ = var_result_def(TensorType)
    dimension = prop_def(IntegerAttr[IntegerType])
    inclusive = prop_def(BoolAttr)
    region = region_def("single_block")

    @property
    def dim(self) -> int:
        return self.dimension.value.data

    @property
    def is_inclusive(self) -> bool:
        return bool(self.inclusive.value.data)

    def verify_(self) -> None:
        x = tensor_operand(self.input, "input")
        out = tensor_operand(self.output, "output")
        acc = tensor_operand(self.accumulator, "accumulator")
        shape, d = x.get_shape(), self.dim
        if not 0 <= d < len(shape):
            raise VerifyException(
                f"dimension {d} is outside the input's rank {len(shape)}"
            )
        if out.get_shape() != shape:
            raise VerifyException(f"the output {out} must have the input's shape")
        if acc.get_shape() != shape[:d] + shape[d + 1 :]:
            raise VerifyException(
                f"the accumulator {acc} must have the input's shape without "
                f"dimension {d}"
            )
        element = x.get_element_type()
        if out.get_element_type() != element or acc.get_element_type() != element:
            raise VerifyException(f"the outputs must have the input's type {element}")
        _check_body(self.region, [element, element], element, "body")
        check_results(self.results, [self.output, self.accumulator])

    @classmethod
    def parse(cls, parser: Parser) -> ScanOp:
        attributes = parser.parse_optional_attr_dict()
        dimension = _parenthesized(parser, "dimension", parser.parse_integer)
        inclusive = _parenthesized(parser, "inclusive", parser.parse_boolean)
        operands, region, results = _operands(
            parser,
            1,
            2,
            "a scan takes one input and two outs (the output and the accumulator)",
        )
        return cls.create(
            operands=operands,
            result_types=results,
            properties={
                "dimension": IntegerAttr(dimension, i64),
                "inclusive": IntegerAttr.from_bool(inclusive),
            },
            attributes=attributes,
            regions=[region],
        )

    def print(self, printer: Printer) -> None:
        printer.print_op_attributes(self.attributes)
        printer.print_string(f" dimension({self.dim})")
        printer.print_string(f" inclusive({'true' if self.is_inclusive else 'false'})")
        print_group(printer, "ins", [self.input])
        print_group(printer, "outs", [self.output, self.accumulator])
        print_tail(printer, self.region, self.results)


@irdl_op_definition
class SortOp(IRDLOperation):
    """`%r:2 = iree_linalg_ext.sort dimension(0) outs(%v, %i : T, U) {
    ^bb0(%a0: f32, %b0: f32, %a1: i32, %b1: i32): ... yield %lt : i1 }`: the
    outs sorted together along `dimension`, the comparator saying whether
    element a goes before element b (a strict order; XLA's `sort`)."""

    name = "iree_linalg_ext.sort"
    inputs = var_operand_def()
    outputs = var_operand_def(TensorType)
    results_ = var_result_def(TensorType)
    dimension = prop_def(IntegerAttr[IntegerType])
    region = region_def("single_block")
    irdl_options = (AttrSizedOperandSegments(as_property=True),)

    @property
    def dim(self) -> int:
        return self.dimension.value.data

    def verify_(self) -> None:
        if self.inputs:
            raise VerifyException("a sort takes no ins, only outs")
        if not self.outputs:
            raise VerifyException("a sort takes at least one outs operand")
        types = [
            tensor_operand(v, f"outs operand {k}") for k, v in enumerate(self.outputs)
        ]
        shape = types[0].get_shape()
        for k, type in enumerate(types):
            if type.get_shape() != shape:
                raise VerifyException(
                    f"outs operand {k} ({type}) must have the shape of operand 0 "
                    f"({types[0]})"
                )
        if not 0 <= self.dim < len(shape):
            raise VerifyException(
                f"dimension {self.dim} is outside the operands' rank {len(shape)}"
            )
        arguments = [t.get_element_type() for t in types for _ in range(2)]
        _check_body(self.region, arguments, IntegerType(1), "comparator")
        check_results(self.results, self.outputs)

    @classmethod
    def parse(cls, parser: Parser) -> SortOp:
        attributes = parser.parse_optional_attr_dict()
        dimension = _parenthesized(parser, "dimension", parser.parse_integer)
        ins = operand_group(parser, "ins")
        outs = operand_group(parser, "outs")
        region = parser.parse_region()
        return cls.build(
            operands=[ins, outs],
            result_types=[result_types(parser)],
            properties={"dimension": IntegerAttr(dimension, i64)},
            attributes=attributes,
            regions=[region],
        )

    def print(self, printer: Printer) -> None:
        printer.print_op_attributes(self.attributes)
        printer.print_string(f" dimension({self.dim})")
        if self.inputs:
            print_group(printer, "ins", self.inputs)
        print_group(printer, "outs", self.outputs)
        print_tail(printer, self.region, self.results)


@irdl_op_definition
class ScatterOp(IRDLOperation):
    """`%r = iree_linalg_ext.scatter dimension_map = [0] unique_indices(false)
    ins(%upd, %idx : U, I) outs(%x : T) { ^bb0(%u: f32, %cur: f32): ... }`:
    for each update in order, the element of `x` it lands on becomes
    `body(u, cur)`. `indices` is (batch..., depth); index k of a batch
    position selects dim `dimension_map[k]` of `x`; the update slice (the
    dims of `updates` after the batch dims) covers the trailing dims of `x`,
    its positions added to the indices of the dims they share."""

    name = "iree_linalg_ext.scatter"
    updates = operand_def(TensorType)
    indices = operand_def(TensorType)
    original = operand_def(TensorType)
    results_ = var_result_def(TensorType)
    dimension_map = prop_def(DenseArrayBase.constr(i64))
    unique_indices = prop_def(BoolAttr)
    region = region_def("single_block")

    @property
    def dims(self) -> tuple[int, ...]:
        return tuple(self.dimension_map.get_values())

    @property
    def batch_rank(self) -> int:
        return tensor_operand(self.indices, "indices").get_num_dims() - 1

    def verify_(self) -> None:
        updates = tensor_operand(self.updates, "updates")
        indices = tensor_operand(self.indices, "indices")
        original = tensor_operand(self.original, "original")
        if indices.get_num_dims() < 2 or not isinstance(
            indices.get_element_type(), IntegerType
        ):
            raise VerifyException(
                f"the indices must be integers of rank 2 or more (batch..., "
                f"depth), got {indices}"
            )
        batch, depth = indices.get_shape()[:-1], indices.get_shape()[-1]
        dims, rank = self.dims, original.get_num_dims()
        if len(dims) != depth:
            raise VerifyException(
                f"dimension_map has {len(dims)} entries for an index depth of {depth}"
            )
        if len(set(dims)) != len(dims) or any(not 0 <= d < rank for d in dims):
            raise VerifyException(
                f"dimension_map {list(dims)} must name distinct dims of the "
                f"original's rank {rank}"
            )
        if updates.get_shape()[: len(batch)] != batch:
            raise VerifyException(
                f"the updates {updates} must start with the indices' batch dims "
                f"{list(batch)}"
            )
        window = updates.get_shape()[len(batch) :]
        if len(window) > rank or rank > depth + len(window):
            raise VerifyException(
                f"the update slice {list(window)} and index depth {depth} must "
                f"cover the original's rank {rank}"
            )
        shape = original.get_shape()
        for j, size in enumerate(window):
            if size > shape[rank - len(window) + j]:
                raise VerifyException(
                    f"update slice dim {j} ({size}) exceeds original dim "
                    f"{rank - len(window) + j} ({shape[rank - len(window) + j]})"
                )
        if rank - len(window) and not set(range(rank - len(window))) <= set(dims):
            raise VerifyException(
                "every original dim before the update slice must be indexed"
            )
        element = original.get_element_type()
        if updates.get_element_type() != element:
            raise VerifyException(
                f"the updates must have the original's element type {element}"
            )
        _check_body(self.region, [element, element], element, "body")
        check_results(self.results, [self.original])

    @classmethod
    def parse(cls, parser: Parser) -> ScatterOp:
        attributes = parser.parse_optional_attr_dict()
        parser.parse_keyword("dimension_map")
        parser.parse_punctuation("=")
        dims = parser.parse_comma_separated_list(
            Parser.Delimiter.SQUARE, parser.parse_integer
        )
        unique = _parenthesized(parser, "unique_indices", parser.parse_boolean)
        operands, region, results = _operands(
            parser, 2, 1, "a scatter takes ins(updates, indices) and outs(original)"
        )
        return cls.create(
            operands=operands,
            result_types=results,
            properties={
                "dimension_map": DenseArrayBase.from_list(i64, dims),
                "unique_indices": IntegerAttr.from_bool(unique),
            },
            attributes=attributes,
            regions=[region],
        )

    def print(self, printer: Printer) -> None:
        printer.print_op_attributes(self.attributes)
        printer.print_string(" dimension_map = [")
        printer.print_list(self.dims, lambda d: printer.print_string(str(d)))
        unique = "true" if self.unique_indices.value.data else "false"
        printer.print_string(f"] unique_indices({unique})")
        print_group(printer, "ins", [self.updates, self.indices])
        print_group(printer, "outs", [self.original])
        print_tail(printer, self.region, self.results)


IreeLinalgExt = Dialect("iree_linalg_ext", [YieldOp, ScanOp, SortOp, ScatterOp])
