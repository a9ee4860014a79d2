"""Pass pipelines as users type them: checked before anything runs.

xDSL's pipeline parser raises a Python exception for a malformed pipeline
(`expand-gradient cse`, `,,`, `canonicalize{`) and does not know MLIR's
`builtin.module(...)` wrapper, which every MLIR user types. Here the wrapper is
accepted, and every mistake (syntax, an unknown pass, an unknown option) is a
`PipelineError` whose message names the column in the pipeline as typed and,
for a misspelt pass, the nearest known name.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping

from xdsl.passes import ModulePass
from xdsl.utils.arg_spec import parse_pipeline
from xdsl.utils.exceptions import ArgSpecParseError

from gradopt.support.diagnostics import did_you_mean

_WRAPPER = re.compile(r"\s*builtin\.module\s*\(")
_ANCHOR = re.compile(r"[A-Za-z_][\w$]*\.[\w$.]+\s*\(")


class PipelineError(ValueError):
    """A pipeline that cannot run, with the column (1-based) it went wrong at."""

    def __init__(self, column: int, message: str):
        super().__init__(f"in pass pipeline at column {column}: {message}")
        self.column = column


def unwrap(pipeline: str) -> tuple[str, int]:
    """The passes inside MLIR's `builtin.module(...)` wrapper (the pipeline
    itself when there is none), and their offset in `pipeline`.

    Nested anchors such as `func.func(cse)` cannot be expressed in xDSL, whose
    passes all run on the whole module: they are refused, not flattened."""
    offset = 0
    if (wrapper := _WRAPPER.match(pipeline)) is not None:
        inner = pipeline[wrapper.end() :].rstrip()
        if not inner.endswith(")"):
            raise PipelineError(
                len(pipeline) + 1, "expected ')' to close 'builtin.module('"
            )
        body = inner[:-1]
        offset = wrapper.end() + len(body) - len(body.lstrip())
        pipeline = body.strip()
    if (anchor := _ANCHOR.search(pipeline)) is not None:
        op = anchor.group(0).rstrip("( \t")
        raise PipelineError(
            offset + anchor.start() + 1,
            f"a nested pipeline on '{op}' is not supported: xDSL's passes run on "
            "the whole module; list them at the top level",
        )
    return pipeline, offset


_POSITION = re.compile(r"^pass-pipeline:\d+:(\d+)$", re.MULTILINE)


def _position_and_message(text: str) -> tuple[int, str]:
    """The column and message of an `ArgSpecParseError`, which keeps them only
    in its text: `pass-pipeline:1:COL`, the pipeline, a caret, the message."""
    found = _POSITION.search(text)
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    message = lines[-1].removesuffix(" here") if lines else "malformed pipeline"
    message = message[:1].lower() + message[1:]
    return (int(found.group(1)) if found else 1), message


def check_pipeline(
    pipeline: str, available: Mapping[str, Callable[[], type[ModulePass]]]
) -> str:
    """`pipeline` in the form xDSL's `PassPipeline.parse_spec` reads, after
    checking that it parses, names known passes and gives them options they
    take; raise a `PipelineError` otherwise."""
    passes, offset = unwrap(pipeline)
    try:
        specs = list(parse_pipeline(passes))
    except ArgSpecParseError as error:  # a BaseException: it must not escape
        column, message = _position_and_message(str(error))
        found = passes[column - 1 : column]
        what = "end of pipeline" if column > len(passes) else f"'{found}'"
        raise PipelineError(offset + column, f"{message}, found {what}") from None
    position = 0
    for spec in specs:
        column = offset + passes.index(spec.name, position) + 1
        position = column - offset - 1 + len(spec.name)
        if spec.name not in available:
            hint = did_you_mean(spec.name, available)
            raise PipelineError(column, f"unknown pass '{spec.name}'{hint}")
        try:
            available[spec.name]().from_pass_spec(spec)
        except (ValueError, TypeError) as error:
            raise PipelineError(column, f"pass '{spec.name}': {error}") from None
    return passes
