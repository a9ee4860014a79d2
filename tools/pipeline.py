"""Pass pipelines as users type them: checked before anything runs.

xDSL's pipeline parser raises a Python exception for a malformed pipeline
(`expand-gradient cse`, `,,`, `canonicalize{`), refuses a space after a comma,
and does not know MLIR's `builtin.module(...)` wrapper or its nested
`func.func(...)` pipelines, which every MLIR user types. Here spaces around
commas and parentheses are dropped, the wrapper is accepted, a nested
`func.func(PASSES)` runs PASSES on each function (`OnEachFunction`), and every
mistake (syntax, an unknown pass, an unknown option) is a `PipelineError`
whose message names the column in the pipeline as typed and, for a misspelt
pass, the nearest known name.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.dialects.func import FuncOp
from xdsl.passes import ModulePass, PassPipeline
from xdsl.utils.arg_spec import parse_pipeline
from xdsl.utils.exceptions import ArgSpecParseError

from gradopt.support.diagnostics import did_you_mean

Available = Mapping[str, Callable[[], type[ModulePass]]]

_WRAPPER = "builtin.module("
_ANCHOR = re.compile(r"[A-Za-z_][\w$]*\.[\w$.]+\(")
_FUNCTION = "func.func"


class PipelineError(ValueError):
    """A pipeline that cannot run, with the column (1-based) it went wrong at."""

    def __init__(self, column: int, message: str):
        super().__init__(f"in pass pipeline at column {column}: {message}")
        self.column = column


@dataclass(frozen=True)
class OnEachFunction(ModulePass):
    """Run a pipeline on each function alone: MLIR's nested `func.func(...)`.

    Each top-level `func.func` is moved into a module of its own, the passes
    run on that module, and what they leave takes the function's place: a
    pass sees one function at a time, and no other function's body."""

    name = "on-each-function"

    pipeline: str = ""
    """The passes, as `-p` takes them."""

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        from gradopt.tools.grad_opt import universe  # which imports this module

        passes = PassPipeline.parse_spec(universe().all_passes, self.pipeline)
        for function in [f for f in op.ops if isinstance(f, FuncOp)]:
            following = function.next_op
            function.detach()
            alone = ModuleOp([function])
            passes.apply(ctx, alone)
            for result in list(alone.ops):
                result.detach()
                if following is None:
                    op.body.block.add_op(result)
                else:
                    op.body.block.insert_op_before(result, following)


def _compact(pipeline: str) -> tuple[str, list[int]]:
    """`pipeline` without the spaces that only lay it out (at either end and
    around commas and parentheses, outside options), and the column in
    `pipeline` of each character kept. A space between two names is kept
    (as one), for the parser to refuse where it stands."""
    kept: list[tuple[int, str]] = []
    space: int | None = None  # the column of a run of spaces outside options
    depth, quoted = 0, False
    for column, char in enumerate(pipeline, 1):
        outside = not depth and not quoted
        if outside and char.isspace():
            space = space or column
            continue
        if space is not None and kept and kept[-1][1] not in ",(" and char not in ",)":
            kept.append((space, " "))
        space = None
        kept.append((column, char))
        if char == '"' and depth:
            quoted = not quoted
        elif not quoted:
            depth += (char == "{") - (char == "}")
    return "".join(char for _, char in kept), [column for column, _ in kept]


def _matching(text: str, start: int) -> int | None:
    """The index of the `)` that closes the `(` before `start`, outside
    options and strings, or None."""
    depth, braces, quoted = 1, 0, False
    for index in range(start, len(text)):
        char = text[index]
        if char == '"' and braces:
            quoted = not quoted
        elif quoted:
            continue
        elif char in "{}":
            braces += 1 if char == "{" else -1
        elif not braces and char in "()":
            depth += 1 if char == "(" else -1
            if not depth:
                return index
    return None


def _anchor(text: str, start: int) -> re.Match[str] | None:
    """The first `op.name(` of `text` from `start`, outside options."""
    depth = 0
    for index in range(start, len(text)):
        depth += (text[index] == "{") - (text[index] == "}")
        starts = index == 0 or not re.match(r"[\w$.-]", text[index - 1])
        if not depth and starts and (found := _ANCHOR.match(text, index)):
            return found
    return None


class _Checker:
    """Checks a compacted pipeline, reporting columns of the one as typed."""

    def __init__(self, typed: str, text: str, columns: list[int], available: Available):
        self.typed, self.text, self.columns = typed, text, columns
        self.available = available

    def column(self, index: int) -> int:
        """The column as typed of `text[index]` (past the end: the end)."""
        return self.columns[index] if index < len(self.columns) else len(self.typed) + 1

    def error(self, index: int, message: str) -> PipelineError:
        return PipelineError(self.column(index), message)

    def nested(self, start: int, end: int) -> str:
        """The passes of `text[start:end]`, with each `func.func(...)` made
        an `OnEachFunction` pass, in the form `PassPipeline.parse_spec`
        reads."""
        parts: list[str] = []
        position = start
        while (anchor := _anchor(self.text[:end], position)) is not None:
            name = anchor.group(0)[:-1]
            if name != _FUNCTION:
                raise self.error(
                    anchor.start(),
                    f"a nested pipeline on '{name}' is not supported: only "
                    f"'{_FUNCTION}(...)', which runs its passes on each function",
                )
            close = _matching(self.text[:end], anchor.end())
            if close is None:
                raise self.error(end, f"expected ')' to close '{name}('")
            before = self.text[position : anchor.start()]
            if before and not before.endswith(","):
                raise self.error(
                    anchor.start(), "expected ',' before a nested pipeline"
                )
            if close + 1 < end and self.text[close + 1] != ",":
                raise self.error(close + 1, "expected ',' after a nested pipeline")
            parts.append(self.flat(position, anchor.start() - bool(before)))
            inner = self.nested(anchor.end(), close)
            quoted = inner.replace("\\", "\\\\").replace('"', '\\"')
            parts.append(f'{OnEachFunction.name}{{pipeline="{quoted}"}}')
            position = close + 2 if close + 1 < end else close + 1
        parts.append(self.flat(position, end))
        return ",".join(part for part in parts if part)

    def flat(self, start: int, end: int) -> str:
        """`text[start:end]`, a pipeline without nesting, once it parses,
        names known passes and gives them options they take."""
        passes = self.text[start:end]
        try:
            specs = list(parse_pipeline(passes))
        except ArgSpecParseError as error:  # a BaseException: it must not escape
            column, message = _position_and_message(str(error))
            found = self.text[start + column - 1 : start + column]
            ended = start + column > len(self.text)
            what = "end of pipeline" if ended else f"'{found}'"
            raise self.error(start + column - 1, f"{message}, found {what}") from None
        position = 0
        for spec in specs:
            index = passes.index(spec.name, position)
            position = index + len(spec.name)
            if spec.name not in self.available:
                hint = did_you_mean(spec.name, self.available)
                raise self.error(start + index, f"unknown pass '{spec.name}'{hint}")
            try:
                self.available[spec.name]().from_pass_spec(spec)
            except (ValueError, TypeError) as error:
                raise self.error(
                    start + index, f"pass '{spec.name}': {error}"
                ) from None
        return passes


_POSITION = re.compile(r"^pass-pipeline:\d+:(\d+)$", re.MULTILINE)


def _position_and_message(text: str) -> tuple[int, str]:
    """The column and message of an `ArgSpecParseError`, which keeps them only
    in its text: `pass-pipeline:1:COL`, the pipeline, a caret, the message."""
    found = _POSITION.search(text)
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    message = lines[-1].removesuffix(" here") if lines else "malformed pipeline"
    message = message[:1].lower() + message[1:]
    return (int(found.group(1)) if found else 1), message


def check_pipeline(pipeline: str, available: Available) -> str:
    """`pipeline` in the form xDSL's `PassPipeline.parse_spec` reads, after
    checking that it parses, names known passes and gives them options they
    take; raise a `PipelineError` otherwise."""
    text, columns = _compact(pipeline)
    checker = _Checker(pipeline, text, columns, available)
    if not text.startswith(_WRAPPER):
        return checker.nested(0, len(text))
    if not text.endswith(")") or _matching(text, len(_WRAPPER)) != len(text) - 1:
        raise checker.error(len(text), f"expected ')' to close '{_WRAPPER}'")
    return checker.nested(len(_WRAPPER), len(text) - 1)
