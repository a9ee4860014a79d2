"""`slots-to-tensors`: slots become tensor arguments and results.

The first step of `convert-grad-to-standard`, also a pass of its own, whose
result still holds every other `grad` op (for a lowering of those elsewhere,
or to read what the slots become).

A gradopt function reads and writes its slots (memref arguments) with
`grad.load` and `grad.store`. Upstream compilers such as IREE want a purely
functional entry point on tensors, so every function is rewritten here: each
memref argument becomes a tensor argument holding the slot's initial contents,
and a tensor result, appended after the function's own results in slot order,
holds its final contents. Inside, the current value of each slot is an ordinary
SSA value:

- a whole `grad.load` is that value, an indexed one a `tensor.extract_slice`;
- a whole `grad.store` makes the stored tensor the new value, an indexed one a
  `tensor.insert_slice` into the old value;
- an `scf.for` whose body stores into a slot, or passes it to a call, carries
  the slot's value as an extra iteration argument;
- a `func.call` passes the current values and takes the callee's final values
  back from its extra results.

Every slot of a function is returned, also one it only reads, so a call site
needs nothing but the callee's signature. Two arguments of one call naming the
same slot alias in the interpreter, which values cannot express: that call is
an error, as is any other use of a memref.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import func, scf, tensor
from xdsl.dialects.builtin import FunctionType, MemRefType, ModuleOp, TensorType
from xdsl.ir import Block, BlockArgument, Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import Rewriter

from gradopt.dialect.errors import OpError
from gradopt.dialect.ops import LoadOp, StoreOp


def tensor_of(type: MemRefType) -> TensorType:
    """The tensor type that holds the contents of a slot of memref `type`."""
    return TensorType(type.get_element_type(), type.get_shape())


def functional_type(type: FunctionType) -> FunctionType:
    """A function type with its memref inputs as tensors, and the final value
    of each of them appended to its outputs."""
    slots = [tensor_of(t) for t in type.inputs if isinstance(t, MemRefType)]
    inputs = [tensor_of(t) if isinstance(t, MemRefType) else t for t in type.inputs]
    return FunctionType.from_lists(inputs, [*type.outputs, *slots])


Slots = dict[SSAValue, SSAValue]
"""The current tensor value of each slot (a memref argument) in scope."""


def _slot_type(slot: SSAValue) -> MemRefType:
    assert isinstance(slot.type, MemRefType)
    return slot.type


def _slot_operands(op: Operation) -> list[SSAValue]:
    return [v for v in op.operands if isinstance(v.type, MemRefType)]


def _written(block: Block) -> set[SSAValue]:
    """The slots that `block`, at any depth, stores into or passes to a call."""
    written: set[SSAValue] = set()
    for op in block.walk():
        if isinstance(op, StoreOp):
            written.add(op.slot)
        elif isinstance(op, func.CallOp):
            written.update(_slot_operands(op))
    return written


def _load(op: LoadOp, current: SSAValue) -> Operation | None:
    """The op reading what `op` loads from the slot's value `current`, or None
    for a whole load (the value itself)."""
    if not op.indices:
        return None
    shape = _slot_type(op.slot).get_shape()
    count = len(op.indices)
    return tensor.ExtractSliceOp(
        current,
        [*op.indices, *[0] * (len(shape) - count)],
        [*[1] * count, *shape[count:]],
        [1] * len(shape),
        op.result.type,
    )


def _store(op: StoreOp, current: SSAValue) -> Operation | None:
    """The op giving the slot's value after `op`, from its value `current`
    before, or None for a whole store (the stored value)."""
    if not op.indices:
        return None
    shape = _slot_type(op.slot).get_shape()
    count = len(op.indices)
    return tensor.InsertSliceOp.get(
        op.value,
        current,
        static_sizes=[*[1] * count, *shape[count:]],
        offsets=op.indices,
    )


class SlotsToTensors:
    """Rewrites every function of a module as described above."""

    def __init__(self, module: ModuleOp):
        self.module = module

    def run(self) -> None:
        for op in self.module.ops:
            if isinstance(op, func.FuncOp):
                self.convert_function(op)

    def convert_function(self, function: func.FuncOp) -> None:
        type = function.function_type
        function.properties["function_type"] = functional_type(type)
        if function.is_declaration:
            return
        block = function.body.block
        current: Slots = {}
        for arg in list(block.args):
            if isinstance(arg.type, MemRefType):
                current[arg] = block.insert_arg(tensor_of(arg.type), arg.index)
                current[arg].name_hint = arg.name_hint
        self.convert_block(block, current)
        for slot in current:
            assert isinstance(slot, BlockArgument)
            block.erase_arg(slot)

    def convert_block(self, block: Block, current: Slots) -> None:
        """Rewrite the ops of `block` in order, keeping `current` up to date."""
        for op in list(block.ops):
            if isinstance(op, LoadOp):
                read = _load(op, self.value(op, op.slot, current))
                if read is None:
                    Rewriter.replace_op(op, (), [current[op.slot]])
                else:
                    Rewriter.replace_op(op, read)
            elif isinstance(op, StoreOp):
                write = _store(op, self.value(op, op.slot, current))
                if write is None:
                    current[op.slot] = op.value
                else:
                    block.insert_op_before(write, op)
                    current[op.slot] = write.results[0]
                    current[op.slot].name_hint = op.slot.name_hint
                Rewriter.erase_op(op)
            elif isinstance(op, func.CallOp):
                self.convert_call(op, current)
            elif isinstance(op, scf.ForOp):
                self.convert_loop(op, current)
            elif isinstance(op, func.ReturnOp) and not _slot_operands(op):
                returned = (*op.arguments, *current.values())
                Rewriter.replace_op(op, type(op)(*returned))  # func. or util.return
            elif any(_slot_operands(inner) for inner in op.walk()):
                raise OpError(
                    op,
                    "uses a slot: only grad.load, grad.store, func.call and "
                    "scf.for can take part in turning slots into tensors",
                )

    def value(self, op: Operation, slot: SSAValue, current: Slots) -> SSAValue:
        """The current value of `slot`, which `op` uses."""
        if slot not in current:
            raise OpError(
                op,
                f"uses {slot.type} that is not an argument of its function: "
                f"only slots passed as arguments can be turned into tensors",
            )
        return current[slot]

    def convert_call(self, op: func.CallOp, current: Slots) -> None:
        slots = _slot_operands(op)
        if len(set(slots)) != len(slots):
            raise OpError(
                op,
                "passes one slot as two arguments: aliased slots cannot be turned "
                "into tensors",
            )
        arguments = [
            self.value(op, v, current) if isinstance(v.type, MemRefType) else v
            for v in op.arguments
        ]
        call = type(op)(  # func.call or util.call
            op.callee,
            arguments,
            [*op.res.types, *(tensor_of(_slot_type(s)) for s in slots)],
        )
        count = len(op.res)
        Rewriter.replace_op(op, call, call.results[:count])
        for slot, final in zip(slots, call.results[count:], strict=True):
            current[slot] = final
            final.name_hint = slot.name_hint

    def convert_loop(self, op: scf.ForOp, current: Slots) -> None:
        body = op.body.block
        written = _written(body)
        carried = [s for s in current if s in written]
        inner = dict(current)
        for slot in carried:
            inner[slot] = body.insert_arg(current[slot].type, len(body.args))
            inner[slot].name_hint = slot.name_hint
        self.convert_block(body, inner)
        yield_op = body.last_op
        assert isinstance(yield_op, scf.YieldOp)
        Rewriter.replace_op(
            yield_op,
            scf.YieldOp(*yield_op.arguments, *(inner[s] for s in carried)),
        )
        loop = scf.ForOp(
            op.lb,
            op.ub,
            op.step,
            [*op.iter_args, *(current[s] for s in carried)],
            op.detach_region(op.body),
        )
        count = len(op.results)
        Rewriter.replace_op(op, loop, loop.results[:count])
        for slot, final in zip(carried, loop.results[count:], strict=True):
            current[slot] = final
            final.name_hint = slot.name_hint


def convert_slots(module: ModuleOp) -> None:
    """Turn the slots of every function of `module` into tensors."""
    SlotsToTensors(module).run()


@dataclass(frozen=True)
class SlotsToTensorsPass(ModulePass):
    """Turn the slots of every function into tensor arguments and results,
    leaving the other ops as they are."""

    name = "slots-to-tensors"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        convert_slots(op)
