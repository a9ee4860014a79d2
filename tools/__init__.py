"""The drivers `grad-opt` and `grad-run`."""

from __future__ import annotations

from importlib.metadata import version


def versions() -> str:
    """`gradopt X (xdsl Y)`: what `--version` of both drivers prints, since a
    report about either depends on both."""
    return f"gradopt {version('gradopt')} (xdsl {version('xdsl')})"
