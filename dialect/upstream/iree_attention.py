"""`iree_linalg_ext.attention`, as IREE's torch input conversion makes it of
`F.scaled_dot_product_attention` and `nn.MultiheadAttention` (SPEC §10.5):

    %o = iree_linalg_ext.attention <indexing_maps = [Q, K, V, S, O]>
           ins(%q, %k, %v, %scale : T, T, T, f32) outs(%init : T) {
         ^bb0(%score: f32):
           iree_linalg_ext.yield %score : f32
         } -> T

is `softmax(scale * Q Kᵀ) V` over one iteration space: the dims Q and K
share but O lacks are the product's (k1), those K and V share but Q lacks
are the softmax's (k2); the body may rewrite each score. A fifth input is a
mask. The init is not read. What gradopt runs and differentiates of it is
in `gradopt.interpreter.attention` and `gradopt.autodiff.rules.attention`.
"""

from __future__ import annotations

from xdsl.dialects.builtin import (
    AffineMapAttr,
    ArrayAttr,
    DictionaryAttr,
    TensorType,
    f32,
)
from xdsl.ir import Attribute
from xdsl.ir.affine import AffineDimExpr, AffineMap
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

from gradopt.dialect.upstream.iree_linalg_ext import (
    check_results,
    print_group,
    print_tail,
    result_types,
    tensor_operand,
)
from gradopt.dialect.upstream.linalg import operand_group


@irdl_op_definition
class AttentionOp(IRDLOperation):
    """`softmax(scale * Q Kᵀ) V`, through its indexing maps (the module
    docstring)."""

    name = "iree_linalg_ext.attention"
    inputs = var_operand_def()
    output = operand_def(TensorType)
    results_ = var_result_def(TensorType)
    indexing_maps = prop_def(ArrayAttr[AffineMapAttr])
    decomposition_config = opt_prop_def(DictionaryAttr)
    region = region_def("single_block")

    @property
    def maps(self) -> list[AffineMap]:
        return [m.data for m in self.indexing_maps.data]

    def unsupported(self) -> str | None:
        """Why gradopt cannot run or differentiate this attention, or None:
        a mask, a body that rewrites the scores, a map that is not a
        projected permutation, or an element type other than f32."""
        if len(self.inputs) != 4:
            return "an attention with a mask is not supported"
        block = self.region.block
        terminator = block.last_op
        if (
            len(block.args) != 1
            or terminator is None
            or list(terminator.operands) != [block.args[0]]
        ):
            return "an attention whose body rewrites the scores is not supported"
        for map in self.maps:
            dims = dims_of(map)
            if len(dims) != len(map.results) or len(set(dims)) != len(dims):
                return f"indexing map {map} is not a projected permutation"
        for value in [*self.inputs, self.output]:
            type = value.type
            element = type.get_element_type() if isinstance(type, TensorType) else type
            if element != f32:
                return f"only f32 attention is supported, not {value.type}"
        return None

    def verify_(self) -> None:
        if len(self.inputs) not in (4, 5):
            raise VerifyException(
                "an attention takes ins(query, key, value, scale) and maybe a mask, "
                f"not {len(self.inputs)} operands"
            )
        maps = self.maps
        operands = [*self.inputs, self.output]
        if len(maps) != len(operands):
            raise VerifyException(
                f"{len(maps)} indexing maps for {len(operands)} operands"
            )
        for k, (map, value) in enumerate(zip(maps, operands, strict=True)):
            rank = (
                value.type.get_num_dims() if isinstance(value.type, TensorType) else 0
            )
            if map.num_dims != maps[0].num_dims or len(map.results) != rank:
                raise VerifyException(
                    f"indexing map {k} ({map}) does not fit operand {k} of rank {rank}"
                )
        for k in (0, 1, 2):
            tensor_operand(self.inputs[k], ("query", "key", "value")[k])
        check_results(self.results, [self.output])

    @classmethod
    def parse(cls, parser: Parser) -> AttentionOp:
        attributes = parser.parse_optional_attr_dict()
        properties: dict[str, Attribute] = {}
        parser.parse_punctuation("<")
        while True:
            name = parser.parse_identifier()
            parser.parse_punctuation("=")
            properties[name] = parser.parse_attribute()
            if not parser.parse_optional_punctuation(","):
                break
        parser.parse_punctuation(">")
        position = parser.pos
        if "indexing_maps" not in properties:
            parser.raise_error("an attention needs indexing_maps", position)
        ins, outs = operand_group(parser, "ins"), operand_group(parser, "outs")
        if len(outs) != 1:
            parser.raise_error("an attention takes one outs operand", position)
        region = parser.parse_region()
        return cls.create(
            operands=[*ins, *outs],
            properties=properties,
            attributes=attributes,
            regions=[region],
            result_types=result_types(parser),
        )

    def print(self, printer: Printer) -> None:
        printer.print_op_attributes(self.attributes)
        printer.print_string(" <indexing_maps = ")
        printer.print_attribute(self.indexing_maps)
        if self.decomposition_config is not None:
            printer.print_string(", decomposition_config = ")
            printer.print_attribute(self.decomposition_config)
        printer.print_string(">")
        print_group(printer, "ins", self.inputs)
        print_group(printer, "outs", [self.output])
        print_tail(printer, self.region, self.results)


def dims_of(map: AffineMap) -> list[int]:
    """The dims a projected permutation reads, in its order."""
    return [r.position for r in map.results if isinstance(r, AffineDimExpr)]
