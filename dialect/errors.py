"""`OpError`: the one error type about an op, from verification to run time."""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.ir import Operation
from xdsl.utils.exceptions import DiagnosticException


class OpError(DiagnosticException):
    """An error about one op, with optional notes about others: an invalid op,
    a gradient that cannot be taken, an op that cannot run, or a failure of the
    op's kernel at run time (`at_run_time`: a zero divisor, an index out of
    range). Where it is reported, the op's source location is added."""

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
