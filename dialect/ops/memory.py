"""SPEC §3.3: `load` and `store` of slots."""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

import numpy as np
from xdsl.dialects.builtin import (
    IndexType,
    MemRefType,
    TensorType,
)
from xdsl.ir import Attribute, SSAValue
from xdsl.irdl import (
    AnyAttr,
    irdl_op_definition,
    operand_def,
    result_def,
    traits_def,
    var_operand_def,
)
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.traits import (
    MemoryReadEffect,
    MemoryWriteEffect,
)
from xdsl.utils.exceptions import VerifyException

from gradopt.dialect.kernels import Kernel, check_indices
from gradopt.dialect.ops.base import KernelOp, shape_of
from gradopt.dialect.syntax import (
    parse_attributes,
    print_attributes,
)
from gradopt.dialect.types import (
    check_slot,
)


def _indexed_type(slot: MemRefType, count: int) -> TensorType:
    """The tensor type of a slot indexed at its `count` leading dims."""
    return TensorType(slot.get_element_type(), slot.get_shape()[count:])


def _parse_slot_access(
    parser: Parser,
) -> tuple[SSAValue, Sequence[SSAValue], MemRefType, dict[str, Attribute]]:
    """Parse `%slot[%i, ...] attr-dict : memref<...>` (the indices optional)."""
    slot = parser.parse_unresolved_operand()
    indices = parser.parse_optional_comma_separated_list(
        parser.Delimiter.SQUARE, parser.parse_unresolved_operand
    )
    attrs = parse_attributes(parser, KernelOp)
    parser.parse_punctuation(":")
    start = parser.pos
    type = parser.parse_type()
    if not isinstance(type, MemRefType):
        parser.raise_error(f"expected a memref type, got {type}", start)
    indices = indices or []
    if len(indices) > type.get_num_dims():
        parser.raise_error(
            f"too many indices for {type}: expected at most {type.get_num_dims()}, "
            f"got {len(indices)}",
            start,
        )
    index_values = [parser.resolve_operand(i, IndexType()) for i in indices]
    return parser.resolve_operand(slot, type), index_values, type, attrs


def _print_slot_access(printer: Printer, slot: SSAValue, indices: Sequence[SSAValue]):
    printer.print_operand(slot)
    if indices:
        printer.print_string("[")
        printer.print_list(indices, printer.print_operand)
        printer.print_string("]")


def _check_slot_access(
    slot: SSAValue, indices: Sequence[SSAValue], name: str, value: SSAValue
) -> None:
    """The slot, its indices, and the tensor read or written (`name`)."""
    type = check_slot("slot", slot.type)
    if len(indices) > type.get_num_dims():
        raise VerifyException(
            f"too many indices for {type}: expected at most {type.get_num_dims()}, "
            f"got {len(indices)}"
        )
    for i, index in enumerate(indices):
        if not isinstance(index.type, IndexType):
            raise VerifyException(f"index {i} must be of type index, got {index.type}")
    expected = _indexed_type(type, len(indices))
    if value.type != expected:
        raise VerifyException(f"{name} must be {expected}, got {value.type}")


@irdl_op_definition
class LoadOp(KernelOp):
    """The whole slot as a tensor, or the sub-tensor at the leading indices."""

    name = "grad.load"
    slot = operand_def(MemRefType)
    indices = var_operand_def(AnyAttr())  # checked in verify_, naming the index
    result = result_def(TensorType)
    # A load reads its slot, and SPEC §3.3 says it is never merged or removed (an
    # out-of-range index must still fail at run time). xDSL's cse merges, and dce
    # removes, ops whose only effect is a read, so a load also declares a write,
    # as MLIR ops that must stay do.
    traits = traits_def(MemoryReadEffect(), MemoryWriteEffect())

    def __init__(self, slot: SSAValue, indices: Sequence[SSAValue] = ()):
        assert isinstance(slot.type, MemRefType)
        super().__init__(
            operands=[slot, indices],
            result_types=[_indexed_type(slot.type, len(indices))],
        )

    def verify_(self) -> None:
        _check_slot_access(self.slot, self.indices, "result", self.result)

    @classmethod
    def parse(cls, parser: Parser) -> LoadOp:
        slot, indices, _, attrs = _parse_slot_access(parser)
        op = cls(slot, indices)
        op.attributes.update(attrs)
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        _print_slot_access(printer, self.slot, self.indices)
        print_attributes(printer, self)
        printer.print_string(" : ")
        printer.print_attribute(self.slot.type)

    def kernel(self) -> Kernel:
        shape = shape_of(self.slot)
        if not self.indices and shape:
            return np.ndarray.copy

        def load(slot: np.ndarray, *indices: int) -> np.ndarray:
            return slot[check_indices(self, shape, indices)].copy()

        return load

    def fresh_result(self) -> bool:
        return True

    def view_kernel(self) -> Kernel:
        """Like `kernel`, but a read-only view of the slot rather than a copy."""
        shape = shape_of(self.slot)

        def load_view(slot: np.ndarray, *indices: int) -> np.ndarray:
            view = slot[check_indices(self, shape, indices)] if indices else slot
            if isinstance(view, np.ndarray):
                view = view.view()
                view.flags.writeable = False
            return view

        return load_view


@irdl_op_definition
class StoreOp(KernelOp):
    """Writes the whole slot, or the part at the leading indices."""

    name = "grad.store"
    value = operand_def(TensorType)
    slot = operand_def(MemRefType)
    indices = var_operand_def(AnyAttr())  # checked in verify_, naming the index
    traits = traits_def(MemoryWriteEffect())
    WRITES_SLOT: ClassVar = True

    def __init__(
        self, value: SSAValue, slot: SSAValue, indices: Sequence[SSAValue] = ()
    ):
        super().__init__(operands=[value, slot, indices])

    def verify_(self) -> None:
        _check_slot_access(self.slot, self.indices, "value", self.value)

    @classmethod
    def parse(cls, parser: Parser) -> StoreOp:
        value = parser.parse_unresolved_operand()
        parser.parse_punctuation(",")
        slot, indices, type, attrs = _parse_slot_access(parser)
        op = cls(
            parser.resolve_operand(value, _indexed_type(type, len(indices))),
            slot,
            indices,
        )
        op.attributes.update(attrs)
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.value)
        printer.print_string(", ")
        _print_slot_access(printer, self.slot, self.indices)
        print_attributes(printer, self)
        printer.print_string(" : ")
        printer.print_attribute(self.slot.type)

    def kernel(self) -> Kernel:
        shape = shape_of(self.slot)

        def store(value: np.ndarray, slot: np.ndarray, *indices: int) -> None:
            slot[check_indices(self, shape, indices) if indices else ...] = value

        return store

    def whole_store(self) -> tuple[int, int] | None:
        return None if self.indices or not shape_of(self.slot) else (0, 1)
