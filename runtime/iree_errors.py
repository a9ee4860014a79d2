"""What `iree-compile`'s failures say, for people.

IREE's Python API reports a failed compile as a `CompilerToolError` whose
text is the tool's whole output: for a crash, a C++ backtrace of twenty
frames; then the command line with every flag, and advice about
`IREE_SAVE_TEMPS`. None of that is about the user's program, and printed
after `FILE: error:` it buries the one line that is. `compile_failure` keeps
IREE's diagnostics (`<stdin>:LINE:COL: error: ...` on the lowered program,
with its source line) and says a crash in a few words.
"""

from __future__ import annotations

import re
import signal

_CODE = re.compile(r"^Error code: (-?\d+)$", re.MULTILINE)
_DIAGNOSTICS = re.compile(r"^Diagnostics:\n(.*?)(?:\n\nInvoked with:|\Z)", re.S | re.M)
_NOISE = re.compile(
    r"^\s*#\d+ 0x[0-9a-f]+ |^Please report issues to |^Stack dump|^PLEASE submit"
)


def compile_failure(report: str) -> str:
    """The message for IREE's compile `report` (a `CompilerToolError`'s text):
    its diagnostics without a crash's backtrace, the command line or the
    advice, and how it ended when it crashed."""
    found = _DIAGNOSTICS.search(report)
    lines = found.group(1).splitlines() if found else report.splitlines()
    kept = "\n".join(line for line in lines if not _NOISE.match(line)).strip()
    code = _CODE.search(report)
    status = int(code.group(1)) if code else None
    if status is not None and status < 0:
        crash = f"iree-compile crashed ({_signal_name(-status)})"
        kept = f"{crash}:\n{kept}" if kept else crash
    return f"IREE could not compile the lowered program: {kept}"


def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"
