"""Runs the functions of a module with the NumPy kernels of the `grad` ops.

xDSL's generic `Interpreter` dispatches every op through a registry (about 4 µs
an op) and keeps each SSA value alive until its function returns, so a long chain
of large tensors holds all its intermediates. Here each `func.func` is prepared
once into a `Plan`: a flat list of steps, each a kernel with the frame indices of
its operands, the index its result goes to, and the indices whose last use it is.

The plan is then compiled into straight-line Python, one line a step, its
values in local variables (`v3 = k2(v0, v1)`, then `del v0` after its last
use). Running a function is a single call: no loop over steps, no frame list,
no unpacking; the per-op cost left is that of the NumPy call itself. The
scalar `index` ops of loop bounds and schedules are written as Python
expressions rather than calls (`interpreter.inline`). A kernel's error is
traced back to its op through the line it was raised from.
A plan of more than `CHUNK_STEPS` steps is compiled as a chain of functions of
at most that many steps, which pass the values still alive through the frame
list: compiling one function costs about 6 KB of memory a line while it runs
(its syntax tree), which for a 100k-op gradient program was gigabytes, and a
chunk's tree is freed before the next one is built.

More things keep big tensors cheap:

- A step whose operand dies there writes its result into that operand's buffer
  (`out=`) when it is safe: the operand has the result's type, was computed by
  an earlier step of the same plan into a new array (never a block input, a
  constant, a slot or a view), and no view of it was ever taken. This saves an
  allocation (and the page faults of fresh memory) per step, and keeps a chain
  of ops at one live buffer.
- A whole-slot `grad.load` gives a read-only view of the slot rather than a copy
  when nothing can write the slot while the value, or a view of it, is alive.
- A ufunc whose result only a whole-slot `grad.store` reads writes it straight
  into the slot, and the store goes (see `forward_stores`).
- A pure op whose operands are all literals is computed once, when planning.

None changes a bit of any result: the same kernel runs on the same operands.
"""

from __future__ import annotations

import threading
from bisect import bisect_right
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from itertools import repeat
from operator import itemgetter
from types import CodeType, FunctionType, TracebackType
from typing import NamedTuple

import numpy as np
from xdsl.dialects.builtin import ModuleOp, TensorType
from xdsl.dialects.func import CallOp, FuncOp, ReturnOp
from xdsl.dialects.scf import ConditionOp, ForOp, WhileOp, YieldOp
from xdsl.ir import Block, Operation, SSAValue
from xdsl.traits import ConstantLike, Pure

from gradopt.autodiff.paths import captured
from gradopt.dialect.errors import OpError
from gradopt.dialect.ops import FOLD_LIMIT, KernelOp
from gradopt.dialect.ops.custom import CustomOp
from gradopt.interpreter import owned as ownership
from gradopt.interpreter import pool
from gradopt.interpreter.implicit import implicit_steps
from gradopt.interpreter.inline import Inline
from gradopt.interpreter.owned import Owned
from gradopt.interpreter.pool import Pool
from gradopt.support.floats import ignoring_float_errors

Frame = list[object]
"""The values of one run of a plan, by index: inputs first, then op results."""

Action = Callable[..., object]
"""What a step calls: an op's kernel, or the loop, call or constant behind a
`scf.for`, `func.call` or `arith.constant`."""


NO_RESULT = -1
"""The result index of a step whose op has no result."""

CHUNK_STEPS = 2000
"""The most steps compiled into one Python function (see the module's
docstring); at 2000 a chunk's compilation peaks at about 12 MB, and the call
from one chunk to the next costs nothing measurable."""


class Step(NamedTuple):
    """One op of a plan: `frame[result] = kernel(*operands)`, then the `free`
    indices are dropped because no later step reads them. With `out` set, the
    result is written into the buffer of operand `out`, which dies here; with
    `into`, into the array at that frame index: a slot, whose store it
    replaces, or a buffer the plan keeps (`gradopt.interpreter.pool`)."""

    kernel: Action
    operands: tuple[int, ...]
    result: int
    free: tuple[int, ...]
    op: Operation
    out: int | None = None
    into: int | None = None


class _Kind(NamedTuple):
    """What the executor needs to know of a step's op to reuse buffers.

    `fresh`: its result is a new writable array that nothing else refers to.
    `consumes`: its result never refers to its operands' memory (so they may be
    overwritten once it has run). `reusable`: the operand positions whose buffer
    it can write its result into. `writes`: it may write a slot (a store, or a
    call or loop that may store)."""

    fresh: bool = False
    consumes: bool = False
    reusable: tuple[int, ...] = ()
    writes: bool = False


_OPAQUE = _Kind(writes=True)
"""A call or a loop: may return its operands, may write any slot."""


def _kind(op: Operation) -> _Kind:
    """What `op` declares about its kernel (`KernelOp.fresh_result` and the
    like); an upstream op is a literal, an op that only makes its results
    (`arith`, `linalg`, ...), or a call, loop or branch."""
    if not isinstance(op, KernelOp):
        from gradopt.interpreter.tensor import destination  # see `action`
        from gradopt.interpreter.upstream import writes_nothing

        if (dest := destination(op)) is not None:
            return _Kind(fresh=True, consumes=True, reusable=(dest,))
        pure = op.has_trait(ConstantLike) or writes_nothing(op)
        return _Kind() if pure else _OPAQUE
    if not op.results:
        return _Kind(consumes=True, writes=op.WRITES_SLOT)
    fresh = op.fresh_result()
    type = op.results[0].type
    if not isinstance(type, TensorType) or not type.get_shape():
        # rank-0 values are NumPy scalars: immutable, nothing to reuse
        return _Kind(consumes=fresh)
    reusable = tuple(i for i in op.out_operands() if op.operands[i].type == type)
    return _Kind(fresh=fresh, consumes=fresh, reusable=reusable, writes=op.WRITES_SLOT)


@dataclass
class _Compiled:
    """A plan's Python function, and the op of each line of the functions it
    is compiled into."""

    function: Callable[[Frame], list[object]]
    ops: dict[CodeType, dict[int, Operation]]

    def op_of(self, traceback: TracebackType | None) -> Operation | None:
        """The op whose line of this plan `traceback` passes through first."""
        while traceback is not None:
            lines = self.ops.get(traceback.tb_frame.f_code)
            if lines is not None:
                return lines.get(traceback.tb_lineno)
            traceback = traceback.tb_next
        return None


@dataclass(frozen=True)
class Plan:
    """A block prepared for running: its `inputs` (block arguments, and for a
    loop body the outer values it reads) fill the first frame indices."""

    steps: tuple[Step, ...]
    inputs: int
    size: int
    outputs: tuple[int, ...]
    constants: dict[int, object] = field(default_factory=dict)
    """Values of literal ops, computed when planning and read by name."""
    dropped: tuple[int, ...] = ()
    """Inputs that nothing reads, dropped at once."""
    owned: tuple[int, ...] = ()
    """A loop body's carried values (by position) whose buffers it writes
    into: each iteration yields a new array there that nothing else refers
    to, so the loop hands the first iteration a copy and the body the buffer
    (`_PlanBuilder.finish`)."""
    pool: Pool | None = field(default=None, compare=False)
    """The buffers it keeps for its large intermediates, at the last frame
    indices (`gradopt.interpreter.pool`)."""
    compiled: _Compiled = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "compiled", self.compile())

    def run(self, frame: Frame) -> list[object]:
        """The values of the block's terminator, for the inputs in `frame`.

        The plan takes `frame` over (it is emptied) and drops each value after
        its last use, which frees it unless the caller holds another
        reference."""
        pool = self.pool
        if pool is None:
            return self._run(frame)
        buffers = pool.take()
        frame.extend(repeat(None, pool.first - len(frame)))
        if buffers is None:  # `out=None`: new arrays
            frame.extend(repeat(None, len(pool.layouts)))
            return self._run(frame)
        frame.extend(buffers)
        try:
            return self._run(frame)
        finally:
            pool.give(buffers)

    def _run(self, frame: Frame) -> list[object]:
        try:
            return self.compiled.function(frame)
        except MemoryError as error:
            op = self.compiled.op_of(error.__traceback__)
            if op is None:
                raise
            raise OpError(op, "ran out of memory", at_run_time=True) from None

    def compile(self) -> _Compiled:
        """The steps as the source of Python functions, compiled: one, or a
        chain of chunks of at most `CHUNK_STEPS` steps."""
        names = {
            index: f"c{index}" if index in self.constants else f"v{index}"
            for index in range(self.size)
        }
        namespace: dict[str, object] = {
            names[index]: value for index, value in self.constants.items()
        }
        steps = [
            (position, step)
            for position, step in enumerate(self.steps)
            if step.result not in self.constants
        ]
        size = max(CHUNK_STEPS, 1)
        chunks = [steps[i : i + size] for i in range(0, len(steps), size)] or [[]]
        functions: list[FunctionType] = []
        ops: dict[CodeType, dict[int, Operation]] = {}
        for number, chunk in enumerate(chunks):
            lines, chunk_ops = self.chunk_source(
                chunk, names, namespace, number == 0, number == len(chunks) - 1
            )
            code = compile("\n".join(lines) + "\n", "<gradopt plan>", "exec")
            exec(code, namespace)
            function = namespace.pop("run")
            assert isinstance(function, FunctionType)
            functions.append(function)
            ops[function.__code__] = chunk_ops
        if len(functions) == 1:
            return _Compiled(functions[0], ops)
        *first, last = functions
        frame_size = self.size

        def run(frame: Frame) -> list[object]:
            frame.extend(repeat(None, frame_size - len(frame)))
            for function in first:
                function(frame)
            return last(frame)

        return _Compiled(run, ops)

    def chunk_source(
        self,
        chunk: Sequence[tuple[int, Step]],
        names: dict[int, str],
        namespace: dict[str, object],
        first: bool,
        last: bool,
    ) -> tuple[list[str], dict[int, Operation]]:
        """The source of one chunk's function `run(frame)`, and the op of each
        of its lines. The values it reads that earlier chunks made (or the
        inputs) are taken out of the frame into locals, so that a `del`
        frees them as in a single function; those still alive at its end are
        put back for the chunks after it; the last chunk returns the
        outputs."""
        defined: set[int] = set()
        outer: list[int] = []  # read here, made before: taken from the frame
        for _, step in chunk:
            into = () if step.into is None else (step.into,)
            for index in (*step.operands, *into):
                if index not in defined and index not in self.constants:
                    defined.add(index)
                    outer.append(index)
            if step.result != NO_RESULT:
                defined.add(step.result)
        if last:
            outer += [
                i for i in self.outputs if i not in defined and i not in self.constants
            ]
            defined.update(self.outputs)
        outer = list(dict.fromkeys(outer))
        lines = ["def run(frame):"]
        if outer:
            targets = ", ".join(names[i] for i in outer)
            lines.append(f"    {targets}, = {', '.join(f'frame[{i}]' for i in outer)},")
        if last:
            lines.append("    frame.clear()")
        else:
            if outer:
                lines.append(f"    {' = '.join(f'frame[{i}]' for i in outer)} = None")
            if first and self.dropped:
                lines.append(
                    f"    {' = '.join(f'frame[{i}]' for i in self.dropped)} = None"
                )
        ops: dict[int, Operation] = {}
        freed: set[int] = set()
        for position, step in chunk:
            kernel = f"k{position}"
            arguments = [names[i] for i in step.operands]
            if isinstance(step.kernel, Inline) and step.out is step.into is None:
                namespace.update(step.kernel.names)
                call = step.kernel.source(arguments)
            else:
                namespace[kernel] = step.kernel
                if step.into is not None:
                    arguments.append(f"out={names[step.into]}")
                elif step.out is not None:
                    arguments.append(f"out={names[step.operands[step.out]]}")
                call = f"{kernel}({', '.join(arguments)})"
            if step.result != NO_RESULT:
                call = f"{names[step.result]} = {call}"
            lines.append(f"    {call}")
            ops[len(lines)] = step.op
            dead = [i for i in step.free if i not in self.constants]
            if dead:
                lines.append(f"    del {', '.join(names[i] for i in dead)}")
                freed.update(dead)
        if last:
            lines.append(f"    return [{', '.join(names[i] for i in self.outputs)}]")
        else:
            alive = [
                i for i in dict.fromkeys([*outer, *sorted(defined)]) if i not in freed
            ]
            alive = [i for i in alive if i not in self.constants]
            if alive:
                stores = ", ".join(f"frame[{i}]" for i in alive)
                lines.append(f"    {stores}, = {', '.join(names[i] for i in alive)},")
        return lines, ops


def _packed(values: Sequence[object], count: int) -> object:
    """A kernel's return value for `count` results: none, the one, or a tuple."""
    if count == 1:
        return values[0]
    return tuple(values) if count else None


def _call(plans: dict[str, Plan], op: CallOp | CustomOp) -> Action:
    """`func.call` (and `grad.custom`, whose value is that call): looks the
    callee's plan up when called, so functions may be planned in any order."""
    callee, results = op.callee.string_value(), len(op.results)

    def call(*arguments: object) -> object:
        try:
            values = plans[callee].run(list(arguments))
        except RecursionError:
            raise OpError(
                op,
                f"of @{callee} nests calls too deeply (endless recursion?)",
                at_run_time=True,
            ) from None
        return _packed(values, results)

    return call


def _loop(op: ForOp, body: Plan) -> Action:
    """`scf.for`: operands are the bounds, the initial iteration values, then the
    outer values the body reads."""
    carried = len(op.iter_args)

    def loop(lower: int, upper: int, step: int, *values: object) -> object:
        if step <= 0:
            raise OpError(op, f"step must be positive, got {step}", at_run_time=True)
        if lower >= upper:  # no iteration (a replay of none): nothing to copy
            return _packed(values[:carried], carried)
        state, captured = list(values[:carried]), values[carried:]
        for j in body.owned:
            state[j] = np.array(state[j])
        for index in range(lower, upper, step):
            frame = [*captured, index, *state]
            state.clear()  # so that the body can free the carried values
            state = body.run(frame)
        return _packed(state, carried)

    return loop


def _while(op: WhileOp, before: Plan, after: Plan) -> Action:
    """`scf.while`: operands are the initial values, then the outer values its
    regions read; the `before` region's `scf.condition` gives the condition
    and the values passed on (to `after`, or out as the results)."""
    carried, results = len(op.arguments), len(op.results)

    def loop(*values: object) -> object:
        captured = values[carried:]
        frame = [*captured, *values[:carried]]
        while True:
            # each region's values become the other's frame in place, the
            # condition's slot taken by the outer values: no new lists
            frame = before.run(frame)
            if not frame[0]:
                return _packed(frame[1:], results)
            frame[:1] = captured
            frame = after.run(frame)
            frame[:0] = captured

    return loop


class _Raw(NamedTuple):
    """A step before its free list and buffer reuse are known."""

    action: Action
    operands: tuple[int, ...]
    result: int
    op: Operation
    kind: _Kind


class _PlanBuilder:
    """Assigns frame indices to the values of one block and builds its steps."""

    def __init__(self, interpreter: Interpreter, parent: _PlanBuilder | None = None):
        self.interpreter = interpreter
        self.parent = parent
        """The builder of the plan whose op this region belongs to."""
        self.index: dict[SSAValue, int] = {}
        self.size = 0
        self.steps: list[_Raw] = []
        self.constants: dict[int, object] = {}

    def new_index(self) -> int:
        self.size += 1
        return self.size - 1

    def build(
        self, block: Block, inputs: Sequence[SSAValue], kept: int, loop: bool = False
    ) -> Plan:
        """The plan of `block`; its first `kept` inputs are never freed (a loop
        body's outer values, read again by the next iteration). For the body
        of a `scf.for` (`loop`), the inputs after the outer values and the
        induction variable are the carried values, which its outputs give
        the next iteration in the same order."""
        for value in inputs:
            self.index[value] = self.new_index()
        if self.parent is not None:  # outer literals stay literals here
            for value in inputs[:kept]:
                if (found := self.parent.literal(value)) is not None:
                    self.constants[self.index[value]] = found
        outputs: tuple[int, ...] = ()
        for op in block.ops:
            if isinstance(op, ReturnOp | YieldOp | ConditionOp):
                outputs = tuple(self.index[v] for v in op.operands)
                break
            if not _computed_later(op):
                self.add(op)
        carried = range(kept + 1, len(inputs)) if loop else range(0)
        self.steps, outputs = implicit_steps(self.steps, self.constants, outputs)
        steps, owned = self.finish(kept, outputs, carried)
        steps, pool = self.pooled(steps, outputs)
        read = {index for step in steps for index in (*step.operands, step.into)}
        dropped = tuple(
            index
            for index in range(kept, len(inputs))
            if index not in read and index not in outputs
        )
        return Plan(
            steps,
            len(inputs),
            self.size,
            outputs,
            self.constants,
            dropped,
            owned,
            pool,
        )

    def literal(self, value: SSAValue) -> object | None:
        """The value of `value` if it is a literal of this plan."""
        index = self.index.get(value)
        return None if index is None else self.constants.get(index)

    def same_value(self, op: Operation) -> SSAValue | None:
        """The operand that `op` gives back if it adds or subtracts a literal
        0 to an `index`, or multiplies it by 1 (the induction variable of a
        loop from 0 by 1, `lb + k * step`), or if it is a `linalg.generic`
        that copies an input as it is (`linalg.identity_input`, whose kernel
        returns that array): no step, the result is read where the operand
        is."""
        if op.name == "linalg.generic":
            from gradopt.interpreter.linalg import identity_input  # see `action`

            return identity_input(op)
        from gradopt.interpreter.scalar import same_index_operand

        return same_index_operand(op, self.literal)

    def add(self, op: Operation) -> None:
        same = self.same_value(op)
        if same is not None and same in self.index:  # not computed by a later op
            self.index[op.results[0]] = self.index[same]
            return
        action, operands = self.action(op)
        indices = tuple(self.index[v] for v in operands)
        kind = _kind(op)
        if isinstance(action, Owned):  # an upstream op's new array
            if ownership.ENABLED:
                kind = _Kind(fresh=True, consumes=True, reusable=action.reusable)
            action = action.kernel
        if len(op.results) == 1:
            index = self.index[op.results[0]] = self.new_index()
            if op.has_trait(ConstantLike):
                # a literal: computed once, read by name, never freed
                self.constants[index] = action()
            elif (value := self.constant_result(op, action, indices)) is not None:
                self.constants[index] = value
            self.steps.append(_Raw(action, indices, index, op, kind))
        elif not op.results:
            self.steps.append(_Raw(action, indices, NO_RESULT, op, kind))
        else:
            packed = self.new_index()
            self.steps.append(_Raw(action, indices, packed, op, kind))
            for i, result in enumerate(op.results):
                self.index[result] = self.new_index()
                self.steps.append(
                    _Raw(itemgetter(i), (packed,), self.index[result], op, _Kind())
                )

    def constant_result(
        self, op: Operation, action: Action, operands: tuple[int, ...]
    ) -> object | None:
        """The value of a pure op whose operands are all literals, computed
        now by its kernel as a run would compute it (the seed of a gradient
        times a constant, its broadcast): None if it is not such an op, fails
        (left for the run to report), or takes or makes an array of more than
        `FOLD_LIMIT` elements (a view, such as a broadcast, may be larger)."""
        if not operands or any(i not in self.constants for i in operands):
            return None
        from gradopt.interpreter.scalar import index_function

        kernel_op = isinstance(op, KernelOp) and op.has_trait(Pure)
        if not kernel_op and index_function(op) is None:
            return None
        # sizes first: a huge literal (a splat is a view of one element) or a
        # large fresh result would cost memory and time here and at each run
        values = [self.constants[i] for i in operands]
        if any(isinstance(v, np.ndarray) and v.size > FOLD_LIMIT for v in values) or (
            isinstance(op, KernelOp)
            and op.fresh_result()
            and any(
                isinstance(t := r.type, TensorType) and t.element_count() > FOLD_LIMIT
                for r in op.results
            )
        ):
            return None
        try:
            with np.errstate(all="ignore"):
                value = action(*values)
        except (OpError, MemoryError):  # left for the run to report, located
            return None
        if isinstance(value, np.ndarray):
            value.flags.writeable = False
        return value

    def action(self, op: Operation) -> tuple[Action | Owned, Sequence[SSAValue]]:
        """What running `op` calls, and the values it takes, in order."""
        if isinstance(op, KernelOp):
            return op.kernel(), op.operands
        # loaded with the first upstream op, as `upstream` loads linalg's kernels
        from gradopt.interpreter.upstream import kernel_of

        if (found := kernel_of(op, self.plan_region)) is not None:
            return found
        if isinstance(op, CallOp | CustomOp):
            callee = op.callee.string_value()
            if callee not in self.interpreter.functions:
                raise OpError(op, f"calls @{callee}, which has no body to run")
            self.interpreter.prepare(callee)
            return _call(self.interpreter.plans, op), op.arguments
        if isinstance(op, ForOp):
            outer = captured(op)
            body = _PlanBuilder(self.interpreter, self).build(
                op.body.block, [*outer, *op.body.block.args], len(outer), loop=True
            )
            from gradopt.interpreter.scatter_loop import vectorized  # as `kernel_of`

            loop = _loop(op, body)
            loop = vectorized(op, outer, loop) or loop
            return loop, [op.lb, op.ub, op.step, *op.iter_args, *outer]
        if isinstance(op, WhileOp):
            outer = captured(op)
            before, after = (
                _PlanBuilder(self.interpreter, self).build(
                    region.block, [*outer, *region.block.args], len(outer)
                )
                for region in (op.before_region, op.after_region)
            )
            return _while(op, before, after), [*op.arguments, *outer]
        raise OpError(op, "cannot be run by gradopt's interpreter")

    def plan_region(self, op: Operation, region: int) -> Plan:
        """The plan of region `region` of `op`, whose inputs are the outer
        values `op`'s regions read (`paths.captured`), never freed."""
        outer = captured(op)
        block = op.regions[region].block
        return _PlanBuilder(self.interpreter, self).build(block, outer, len(outer))

    def finish(
        self, kept: int, outputs: tuple[int, ...], carried: range
    ) -> tuple[tuple[Step, ...], tuple[int, ...]]:
        """The steps with their free lists (each index is dropped after the last
        step that reads it, or after the step that wrote it if none does) and
        the operand, if any, whose buffer each step writes its result into;
        and the carried inputs (by position) whose buffers they write into.

        A carried input is a buffer of its own when the value yielded in its
        place is a new array that nothing else holds (no view of it taken,
        not yielded twice): then each iteration's input is the array the last
        one made, and, once the loop copies the initial value, it may be
        written into like any fresh value; by induction its own yield is such
        an array again."""
        last: dict[int, int] = {}
        for position, raw in enumerate(self.steps):
            if raw.result != NO_RESULT:
                last[raw.result] = position
            for index in raw.operands:
                last[index] = position
        never = {*range(kept), *outputs}
        free: list[list[int]] = [[] for _ in self.steps]
        for index, position in last.items():
            if index not in never:
                free[position].append(index)
        views = self.views(last, set(outputs))
        for position, view_kernel in views.items():
            self.steps[position] = self.steps[position]._replace(
                action=view_kernel, kind=_Kind()
            )
        # values of which a step may have kept a view (or that a call or loop
        # may return as they are): their memory is never written over
        shared = {
            index
            for raw in self.steps
            if not raw.kind.consumes
            for index in raw.operands
        }
        fresh = {raw.result for raw in self.steps if raw.kind.fresh}
        fresh -= shared | self.constants.keys()
        own = {
            index: j
            for j, index in enumerate(carried)
            if outputs[j] in fresh
            and outputs.count(outputs[j]) == 1
            and index not in shared | set(outputs)
        }
        fresh |= own.keys()
        steps: list[Step] = []
        for position, raw in enumerate(self.steps):
            out = next(
                (
                    i
                    for i in raw.kind.reusable
                    if raw.operands[i] in fresh and raw.operands[i] in free[position]
                ),
                None,
            )
            steps.append(
                Step(
                    raw.action,
                    raw.operands,
                    raw.result,
                    tuple(free[position]),
                    raw.op,
                    out,
                )
            )
        written = {s.operands[s.out] for s in steps if s.out is not None}
        owned = tuple(sorted(j for index, j in own.items() if index in written))
        return tuple(self.forward_stores(steps, last, set(outputs))), owned

    def pooled(
        self, steps: tuple[Step, ...], outputs: tuple[int, ...]
    ) -> tuple[tuple[Step, ...], Pool | None]:
        """`steps` with the results that go into kept buffers written there
        (`into` the buffer's frame index, after every other), and the pool
        of those buffers, if any (`gradopt.interpreter.pool`)."""
        sharing = self.sharing()
        chosen, layouts = pool.buffers(
            steps, outputs, self.constants, lambda index: _aliases(sharing, index)
        )
        if not chosen:
            return steps, None
        first = self.size
        self.size += len(layouts)
        return tuple(
            step._replace(into=first + chosen[position]) if position in chosen else step
            for position, step in enumerate(steps)
        ), Pool(first, layouts)

    def views(self, last: dict[int, int], outputs: set[int]) -> dict[int, Action]:
        """The steps (loads) that may give a view where they would copy, with
        their view kernels: no step that may write a slot (a store, call or
        loop) runs while their value, or a value that may share its memory, is
        alive, and none is returned."""
        sharing = self.sharing()
        writes = [
            position for position, raw in enumerate(self.steps) if raw.kind.writes
        ]
        views: dict[int, Action] = {}
        for position, raw in enumerate(self.steps):
            if not isinstance(raw.op, KernelOp) or not raw.kind.fresh:
                continue
            if (view_kernel := raw.op.view_kernel()) is None:
                continue
            aliases = _aliases(sharing, raw.result)
            if aliases & outputs:
                continue
            end = max(last.get(index, position) for index in aliases)
            write = bisect_right(writes, position)
            if write == len(writes) or writes[write] > end:
                views[position] = view_kernel
        return views

    def sharing(self) -> dict[int, list[int]]:
        """For each value, the results of the steps that may share its memory
        (a view of it, or the value itself)."""
        sharing: dict[int, list[int]] = {}
        for raw in self.steps:
            if not raw.kind.consumes and raw.result != NO_RESULT:
                for index in raw.operands:
                    sharing.setdefault(index, []).append(raw.result)
        return sharing

    def forward_stores(
        self, steps: list[Step], last: dict[int, int], outputs: set[int]
    ) -> list[Step]:
        """`steps` without the whole-slot stores of values that a ufunc
        computes for the store alone: the ufunc writes straight into the slot
        (`into`), which saves a copy and a new array (the weight update of a
        training step). Only where nothing can tell: no step between the two
        reads the slot, and no view of the slot is read after the ufunc.
        NumPy's ufuncs compute as if an operand overlapping `out` were copied
        first, so the ufunc may itself read the slot, in any layout."""
        sharing = self.sharing()
        readers: dict[int, list[int]] = {}
        for position, step in enumerate(steps):
            for index in dict.fromkeys(step.operands):
                readers.setdefault(index, []).append(position)
        producer = {step.result: p for p, step in enumerate(steps)}
        dropped: set[int] = set()
        for position, step in enumerate(steps):
            if not isinstance(step.op, KernelOp):
                continue
            if (store := step.op.whole_store()) is None:
                continue
            value, slot = (step.operands[i] for i in store)
            made = producer.get(value)
            if (
                made is None
                or value in outputs
                or value in self.constants
                or readers[value] != [position]
                or not isinstance(steps[made].kernel, np.ufunc)
            ):
                continue
            aliases = _aliases(sharing, slot) - {slot}
            if aliases & outputs or any(last.get(a, made) > made for a in aliases):
                continue
            slot_readers = readers[slot]
            if slot_readers[bisect_right(slot_readers, made)] < position:
                continue
            free = steps[made].free + step.free
            steps[made] = steps[made]._replace(out=None, into=slot, free=free)
            dropped.add(position)
        return [step for p, step in enumerate(steps) if p not in dropped]


def _computed_later(op: Operation) -> bool:
    """Whether `op` is a `linalg` op whose value the kernel of a later op
    computes (`interpreter.fusion`), so that it is no step of its own."""
    if not op.name.startswith("linalg."):
        return False
    from gradopt.interpreter.fusion import absorbed  # see `action`

    return absorbed(op)


def _aliases(sharing: dict[int, list[int]], index: int) -> set[int]:
    """`index` and every value that may share its memory, through views of
    views."""
    aliases: set[int] = set()
    todo = [index]
    while todo:
        index = todo.pop()
        if index not in aliases:
            aliases.add(index)
            todo += sharing.get(index, ())
    return aliases


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
        self.lock = threading.RLock()

    def prepare(self, name: str) -> None:
        """Plan function `name` and its callees, unless done or under way (a
        recursive call); raises `OpError` for an op that cannot run.

        Thread-safe: one thread plans while the others wait for the lock, so
        that none of them sees a function "under way" whose plan is not there
        yet. The lock is re-entrant for the callees planned on the way."""
        if name in self.plans:  # planned: no lock needed to read a finished dict entry
            return
        with self.lock:
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
        cannot run, or fails at run time."""
        self.prepare(name)
        with ignoring_float_errors():
            return self.plans[name].run(list(arguments))
