"""Tracing: the function being built, and where in the user's code each op is made.

A traced function is one `func.func @main` whose block grows as the user's
Python code runs on `Array`s. There is only ever one trace active: a traced
function called while another is traced (a `jit` inside a `grad`, say) is
inlined into it, so that the differentiation ops of SPEC §5 see one graph.

Every op is stamped with the user's source line (the first frame outside
gradopt), so that a verifier error later points at the user's code, and every
mistake the front end finds is a `GradoptError` naming that line.
"""

from __future__ import annotations

import linecache
import re
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from functools import cache
from types import CodeType, FrameType, TracebackType
from typing import Any

from xdsl.dialects.builtin import FileLineColLoc, IntAttr, StringAttr
from xdsl.dialects.func import FuncOp
from xdsl.ir import Attribute, Block, Operation, SSAValue

from gradopt.support.diagnostics import GradoptError, LocatedError, Location, SourceText


class Functions:
    """The module's other functions (those of `grad.custom` ops), shared by
    the trace of `@main` and the traces of those functions: each made once
    per key (a custom function and its argument types), under a fresh name."""

    def __init__(self) -> None:
        self.ops: list[FuncOp] = []
        self.known: dict[object, Any] = {}
        self._count = 0

    def fresh(self, hint: str) -> str:
        self._count += 1
        return f"{re.sub(r'[^A-Za-z0-9_]', '_', hint)}_{self._count}"


class Trace:
    """The block of the function being traced, and its constants (one op per
    value and type: equal literals are one node anyway, SPEC §4 rule 3)."""

    def __init__(
        self, arg_types: Sequence[Attribute] = (), functions: Functions | None = None
    ) -> None:
        self.block = Block(arg_types=arg_types)
        self.constants: dict[object, SSAValue] = {}
        self.functions = Functions() if functions is None else functions
        self._copies = 0

    def fresh_copy(self) -> int:
        """A number for a target's copy that no other copy in the trace has."""
        self._copies += 1
        return self._copies

    def emit(self, op: Operation) -> Operation:
        where = current_location()
        op.location = FileLineColLoc(
            StringAttr(where.file), IntAttr(where.line), IntAttr(where.column)
        )
        self.block.add_op(op)
        return op


_TRACE: ContextVar[Trace | None] = ContextVar("gradopt_trace", default=None)
_LOCATION: ContextVar[Location | None] = ContextVar("gradopt_location", default=None)


def current_trace() -> Trace | None:
    return _TRACE.get()


@contextmanager
def tracing(trace: Trace) -> Iterator[Trace]:
    token = _TRACE.set(trace)
    try:
        yield trace
    finally:
        _TRACE.reset(token)


@contextmanager
def located(where: Location | None) -> Iterator[None]:
    """Ops made and errors raised inside are at `where` rather than at the
    user's frame: `from_jax` gives each op the line of its JAX equation."""
    token = _LOCATION.set(where)
    try:
        yield
    finally:
        _LOCATION.reset(token)


def _internal(frame: FrameType) -> bool:
    name = frame.f_globals.get("__name__", "")
    return name == "gradopt" or name.startswith("gradopt.")


@cache
def _positions(code: CodeType) -> list[tuple[int | None, ...]]:
    positions = getattr(code, "co_positions", None)  # Python 3.11 and later
    return list(positions()) if positions is not None else []


def user_location() -> Location:
    """The file, line and column of the innermost frame outside gradopt."""
    frame: FrameType | None = sys._getframe(1)
    while frame is not None and _internal(frame):
        frame = frame.f_back
    if frame is None:
        return Location("<gradopt>", 0, 0)
    line, column = frame.f_lineno, None
    positions = _positions(frame.f_code)
    if frame.f_lasti // 2 < len(positions):
        start, _, column, _ = positions[frame.f_lasti // 2]
        line = start or line
    if column is None:  # Python 3.10: the line's first non-blank character
        text = linecache.getline(frame.f_code.co_filename, line)
        column = len(text) - len(text.lstrip())
    return Location(frame.f_code.co_filename, line, column + 1)


def current_location() -> Location:
    return _LOCATION.get() or user_location()


def error(message: str, where: Location | None = None) -> GradoptError:
    """A `GradoptError` at `where` (the current user line if not given),
    rendered with that line of the user's file."""
    where = where or current_location()
    source = SourceText()
    if lines := linecache.getlines(where.file):
        source.add(where.file, "".join(lines))
    return GradoptError(LocatedError(where, message), source)


def relocated(error: GradoptError) -> GradoptError:
    """`error` (from `Program`, which has no Python source) rendered with the
    lines of the user's files that it points at."""
    source = SourceText()
    for where in [error.location, *(w for w, _ in error.notes)]:
        if lines := linecache.getlines(where.file):
            source.add(where.file, "".join(lines))
    return GradoptError(error, source)


def user_traceback(tb: TracebackType | None) -> TracebackType | None:
    """`tb` without gradopt's own frames: a mistake in traced code should show
    the user's code, not the tracer's."""
    frames: list[TracebackType] = []
    while tb is not None:
        if not _internal(tb.tb_frame):
            frames.append(tb)
        tb = tb.tb_next
    result = None
    for t in reversed(frames):
        result = TracebackType(result, t.tb_frame, t.tb_lasti, t.tb_lineno)
    return result
