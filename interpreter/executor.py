"""Runs the functions of a module with the NumPy kernels of the `grad` ops.

xDSL's generic `Interpreter` dispatches every op through a registry (about 4 µs
an op) and keeps each SSA value alive until its function returns, so a long chain
of large tensors holds all its intermediates. Here each `func.func` is prepared
once into a `Plan`: a flat list of steps, each a kernel with the frame indices of
its operands, the index its result goes to, and the indices whose last use it is.
Running a function is then one tight loop, and each value is dropped as soon as
nothing later reads it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from operator import itemgetter
from typing import NamedTuple

import numpy as np
from xdsl.dialects.arith import ConstantOp
from xdsl.dialects.builtin import IndexType, IntegerAttr, ModuleOp
from xdsl.dialects.func import CallOp, FuncOp, ReturnOp
from xdsl.dialects.scf import ForOp, YieldOp
from xdsl.ir import Block, Operation, SSAValue

from gradopt.diagnostics import OpError
from gradopt.dialect.ops import EvaluationError, GradOp

Frame = list[object]
"""The values of one run of a plan, by index: inputs first, then op results."""

Action = Callable[..., object]
"""What a step calls: an op's kernel, or the loop, call or constant behind a
`scf.for`, `func.call` or `arith.constant`."""


class RunError(Exception):
    """A run-time error of one op: the `EvaluationError` its kernel raised."""

    def __init__(self, op: Operation, message: str):
        super().__init__(message)
        self.op = op
        self.message = message


class Step(NamedTuple):
    """One op of a plan: `frame[result] = kernel(*fetch(frame))`, then the
    `free` indices are cleared because no later step reads them."""

    kernel: Action
    operands: tuple[int, ...]
    fetch: Callable[[Frame], Sequence[object]]
    result: int
    free: tuple[int, ...]
    op: Operation


def _fetcher(operands: tuple[int, ...]) -> Callable[[Frame], Sequence[object]]:
    """A C-level function gathering `operands` from a frame as a sequence.

    `itemgetter` of one index returns the item itself, so a single operand is
    fetched as a one-element slice instead."""
    if len(operands) == 1:
        return itemgetter(slice(operands[0], operands[0] + 1))
    if not operands:
        return itemgetter(slice(0, 0))
    return itemgetter(*operands)


@dataclass(frozen=True)
class Plan:
    """A block prepared for running: its `inputs` (block arguments, and for a
    loop body the outer values it reads) fill the first frame indices."""

    steps: tuple[Step, ...]
    inputs: int
    size: int
    outputs: tuple[int, ...]

    def run(self, frame: Frame) -> list[object]:
        """The values of the block's terminator, for the inputs in `frame`.

        The plan takes `frame` over and clears each value after its last use,
        which frees it unless the caller holds another reference."""
        frame += [None] * (self.size - self.inputs)
        op: Operation | None = None
        try:
            # `op` is read only by the handlers, to name the op that failed
            for kernel, _, fetch, result, free, op in self.steps:  # noqa: B007
                frame[result] = kernel(*fetch(frame))
                for index in free:
                    frame[index] = None
        except EvaluationError as error:
            assert op is not None
            raise RunError(op, str(error)) from None
        except MemoryError:
            assert op is not None
            raise RunError(op, f"'{op.name}' ran out of memory") from None
        return [frame[index] for index in self.outputs]


def _packed(values: Sequence[object], count: int) -> object:
    """A kernel's return value for `count` results: none, the one, or a tuple."""
    if count == 1:
        return values[0]
    return tuple(values) if count else None


def _constant(value: int) -> Action:
    return lambda: value


def _call(plans: dict[str, Plan], callee: str, results: int) -> Action:
    """`func.call`: looks the callee's plan up when called, so functions may be
    planned in any order."""

    def call(*arguments: object) -> object:
        try:
            values = plans[callee].run(list(arguments))
        except RecursionError:
            raise EvaluationError(
                f"'func.call' of @{callee} nests calls too deeply (endless recursion?)"
            ) from None
        return _packed(values, results)

    return call


def _loop(body: Plan, carried: int) -> Action:
    """`scf.for`: operands are the bounds, the initial iteration values, then the
    outer values the body reads."""

    def loop(lower: int, upper: int, step: int, *values: object) -> object:
        if step <= 0:
            raise EvaluationError(f"'scf.for' step must be positive, got {step}")
        state, captured = list(values[:carried]), values[carried:]
        for index in range(lower, upper, step):
            frame = [*captured, index, *state]
            state.clear()  # so that the body can free the carried values
            state = body.run(frame)
        return _packed(state, carried)

    return loop


def _captured(block: Block) -> list[SSAValue]:
    """The values that ops in `block` (at any depth) read but that are defined
    outside it, in order of first use."""
    defined: set[SSAValue] = set(block.args)
    captured: dict[SSAValue, None] = {}
    for op in block.walk():
        defined.update(op.results)
        for region in op.regions:
            for inner in region.blocks:
                defined.update(inner.args)
    for op in block.walk():
        for operand in op.operands:
            if operand not in defined:
                captured[operand] = None
    return list(captured)


class _PlanBuilder:
    """Assigns frame indices to the values of one block and builds its steps."""

    def __init__(self, interpreter: Interpreter):
        self.interpreter = interpreter
        self.index: dict[SSAValue, int] = {}
        self.size = 0
        self.steps: list[tuple[Action, tuple[int, ...], int, Operation]] = []

    def new_index(self) -> int:
        self.size += 1
        return self.size - 1

    def build(self, block: Block, inputs: Sequence[SSAValue], kept: int) -> Plan:
        """The plan of `block`; its first `kept` inputs are never freed (a loop
        body's outer values, read again by the next iteration)."""
        for value in inputs:
            self.index[value] = self.new_index()
        scratch = self.new_index()
        outputs: tuple[int, ...] = ()
        for op in block.ops:
            if isinstance(op, ReturnOp | YieldOp):
                outputs = tuple(self.index[v] for v in op.operands)
                break
            self.add(op, scratch)
        steps = self.finish(kept, scratch, outputs)
        return Plan(steps, len(inputs), self.size, outputs)

    def add(self, op: Operation, scratch: int) -> None:
        action, operands = self.action(op)
        indices = tuple(self.index[v] for v in operands)
        if len(op.results) == 1:
            self.index[op.results[0]] = self.new_index()
            self.steps.append((action, indices, self.index[op.results[0]], op))
        elif not op.results:
            self.steps.append((action, indices, scratch, op))
        else:
            packed = self.new_index()
            self.steps.append((action, indices, packed, op))
            for i, result in enumerate(op.results):
                self.index[result] = self.new_index()
                self.steps.append((itemgetter(i), (packed,), self.index[result], op))

    def action(self, op: Operation) -> tuple[Action, Sequence[SSAValue]]:
        """What running `op` calls, and the values it takes, in order."""
        if isinstance(op, GradOp):
            return op.kernel(), op.operands
        if isinstance(op, ConstantOp) and isinstance(op.result.type, IndexType):
            assert isinstance(op.value, IntegerAttr)
            return _constant(op.value.value.data), ()
        if isinstance(op, CallOp):
            callee = op.callee.string_value()
            if callee not in self.interpreter.functions:
                raise OpError(op, f"calls @{callee}, which has no body to run")
            self.interpreter.prepare(callee)
            return _call(self.interpreter.plans, callee, len(op.results)), op.arguments
        if isinstance(op, ForOp):
            captured = _captured(op.body.block)
            body = _PlanBuilder(self.interpreter).build(
                op.body.block, [*captured, *op.body.block.args], len(captured)
            )
            action = _loop(body, len(op.iter_args))
            return action, [op.lb, op.ub, op.step, *op.iter_args, *captured]
        if isinstance(op, ConstantOp):
            raise OpError(op, "of a non-index type cannot be run: use grad.const")
        raise OpError(op, "cannot be run by gradopt's interpreter")

    def finish(
        self, kept: int, scratch: int, outputs: tuple[int, ...]
    ) -> tuple[Step, ...]:
        """The steps with their free lists: each index is cleared after the
        last step that reads it, or after the step that wrote it if none does."""
        last: dict[int, int] = {}
        for position, (_, operands, result, _) in enumerate(self.steps):
            last[result] = position
            for index in operands:
                last[index] = position
        never = {*range(kept), scratch, *outputs}
        free: list[list[int]] = [[] for _ in self.steps]
        for index, position in last.items():
            if index not in never:
                free[position].append(index)
        return tuple(
            Step(action, operands, _fetcher(operands), result, tuple(free[p]), op)
            for p, (action, operands, result, op) in enumerate(self.steps)
        )


class Interpreter:
    """Runs the functions of `module`, each planned once, before its first run
    together with every function it calls (so an op that cannot run is
    reported before anything runs, and functions never called are not looked at).

    Tensor values are NumPy arrays (or NumPy scalars for rank 0), index values
    Python ints; slots are mutable arrays passed by reference, so a store is
    seen by every later load of that slot, also in the caller.
    """

    def __init__(self, module: ModuleOp):
        self.functions = {
            op.sym_name.data: op
            for op in module.ops
            if isinstance(op, FuncOp) and not op.is_declaration
        }
        self.plans: dict[str, Plan] = {}
        self.planning: set[str] = set()

    def prepare(self, name: str) -> None:
        """Plan function `name` and its callees, unless done or under way (a
        recursive call); raises `OpError` for an op that cannot run."""
        if name in self.plans or name in self.planning:
            return
        self.planning.add(name)
        try:
            block = self.functions[name].body.block
            self.plans[name] = _PlanBuilder(self).build(block, block.args, 0)
        finally:
            self.planning.remove(name)

    def call(self, name: str, arguments: Sequence[object]) -> list[object]:
        """The results of function `name`; raises `OpError` for an op that
        cannot run, `RunError` for a run-time error of an op."""
        self.prepare(name)
        with np.errstate(all="ignore"):
            return self.plans[name].run(list(arguments))
