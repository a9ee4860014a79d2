"""`OpError`: the one error type about an op, from verification to run time."""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects.builtin import FileLineColLoc
from xdsl.ir import Operation
from xdsl.utils.exceptions import VerifyException


class OpError(VerifyException):
    """An error about one op, with optional notes about others: an invalid op,
    a gradient that cannot be taken, an op that cannot run, or a failure of the
    op's kernel at run time (`at_run_time`: a zero divisor, an index out of
    range). Where it is reported, the op's source location is added.

    It is a `VerifyException`, so that xDSL's own verifier (what plain
    `xdsl-opt` runs when it loads the `grad` dialect) reports it as it reports
    any invalid op: the module printed with this op marked. Its text, `str()`,
    also names the notes' ops and their locations where the ops have one, since
    xDSL marks only the failing op."""

    def __init__(
        self,
        op: Operation,
        message: str,
        notes: Sequence[tuple[Operation, str]] = (),
        *,
        at_run_time: bool = False,
    ):
        super().__init__(message)
        self.op = op
        self.message = message
        self.notes = list(notes)
        self.at_run_time = at_run_time

    def describe(self) -> str:
        """The message as reported: `'grad.add' op lhs must ...` for an invalid
        op, `'grad.idiv' divides by zero` for a failure at run time."""
        joint = " " if self.at_run_time else " op "
        return f"'{self.op.name}'{joint}{self.message}"

    def __str__(self) -> str:
        lines = [self.message]
        lines += [f"note: {text} ({where(op)})" for op, text in self.notes]
        return "\n".join(lines)


def where(op: Operation) -> str:
    """`FILE:LINE:COL` of `op` when it has a source location, else its name and
    first result (`'func.call' %c`): enough to find it in a printed module."""
    if isinstance(op.location, FileLineColLoc):
        loc = op.location
        return f"{loc.filename.data}:{loc.line.data}:{loc.column.data}"
    named = next((r.name_hint for r in op.results if r.name_hint), None)
    return f"'{op.name}'" + (f" %{named}" if named else "")


def without_op_name(message: str, op: Operation) -> str:
    """`message` without a leading mention of `op`'s name, which a report
    quoting the op already starts with: xDSL writes some messages as
    `Operation test.op terminates ...`, and `'test.op' op Operation test.op
    terminates ...` stutters."""
    for prefix in (f"'{op.name}' op ", f"Operation {op.name} ", f"{op.name}: "):
        if message.startswith(prefix):
            return message[len(prefix) :]
    return message
