"""The drivers `grad-opt` and `grad-run`."""

from __future__ import annotations

import argparse
from collections.abc import Sequence


def versions() -> str:
    """`gradopt X (xdsl Y)`: what `--version` of both drivers prints, since a
    report about either depends on both."""
    from importlib.metadata import version  # 30 ms to import: only when asked

    return f"gradopt {version('gradopt')} (xdsl {version('xdsl')})"


class VersionAction(argparse.Action):
    """`--version`: prints `PROG: versions()` and exits, reading the installed
    versions only then rather than at every start."""

    def __init__(self, option_strings: Sequence[str], dest: str, **kwargs: object):
        super().__init__(
            option_strings, dest, nargs=0, help="show the versions and exit"
        )

    def __call__(self, parser: argparse.ArgumentParser, *args: object) -> None:
        print(f"{parser.prog}: {versions()}")
        parser.exit()
