"""`grad-opt --verify-expected-diagnostics`: mlir-opt's `-verify-diagnostics`.

xdsl-opt's `--verify-diagnostics` prints the error as output, for FileCheck to
read; MLIR's checks `// expected-error {{...}}` annotations in the input
instead. This is MLIR's way, under a name of its own so that xDSL's keeps its
meaning: every error and note a chunk produces must be announced on its line
by a comment

    // expected-error {{text}}          the diagnostic is on this line
    // expected-note @+1 {{text}}       on the next line (@-2: two above)
    // expected-error @above {{text}}   the line above (@below: the next)

whose text is part of the message, and every annotation must be met. What
is unexpected or missing is reported at its line, with exit status 1.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from gradopt.support.diagnostics import LocatedError, Location

_ANNOTATION = re.compile(
    r"//\s*expected-(?P<kind>error|note|warning|remark)"
    r"(?:\s*@(?P<where>above|below|[+-][0-9]+))?\s*\{\{(?P<text>.*?)\}\}"
)
_SHIFT = {"above": -1, "below": 1}


@dataclass
class Expected:
    """One annotation: a diagnostic of `kind` at `line` containing `text`."""

    kind: str
    line: int
    text: str
    written_at: Location
    met: bool = False


def expectations(text: str, name: str, first_line: int) -> list[Expected]:
    """The annotations of a chunk whose first line is `first_line` of `name`."""
    found = []
    for number, line in enumerate(text.split("\n"), first_line):
        for match in _ANNOTATION.finditer(line):
            where = match["where"]
            shift = 0 if where is None else _SHIFT.get(where) or int(where)
            at = Location(name, number, match.start() + 1)
            found.append(Expected(match["kind"], number + shift, match["text"], at))
    return found


def verify(
    expected: list[Expected], produced: LocatedError | None
) -> list[LocatedError]:
    """The failures of a chunk: each diagnostic of `produced` (an error and
    its notes) that no annotation announces, then each annotation unmet."""
    failures = []
    diagnostics = []
    if produced is not None:
        diagnostics.append(("error", produced.location, produced.message))
        diagnostics += [("note", where, message) for where, message in produced.notes]
    for kind, where, message in diagnostics:
        candidates = [e for e in expected if not e.met and e.kind == kind]
        match = next(
            (e for e in candidates if e.line == where.line and e.text in message),
            None,
        )
        if match is None:
            failures.append(LocatedError(where, f"unexpected {kind}: {message}"))
        else:
            match.met = True
    failures += [
        LocatedError(e.written_at, f'expected {e.kind} "{e.text}" was not produced')
        for e in expected
        if not e.met
    ]
    return failures
