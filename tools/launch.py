"""The console scripts `grad-opt` and `grad-run`: each imports its driver
with the cyclic garbage collector paused (see `gradopt.support.collector`), then runs
it with the collector as usual.

Ctrl-C is one line and status 130 from the first instant: the import takes
most of a second, in which a `KeyboardInterrupt` would otherwise print a
traceback of thirty lines (the drivers handle it themselves once running)."""

from __future__ import annotations

import os
import signal
import sys
from collections.abc import Callable

from gradopt.support.collector import cyclic_gc_paused


def _launched(program: str, load: Callable[[], Callable[[], int]]) -> int:
    def interrupted(signum: int, frame: object) -> None:
        # while the driver imports: nothing is written yet, and a
        # KeyboardInterrupt raised inside an import can surface as another
        # error (a module left half-imported), so leave at once
        sys.stderr.write(f"{program}: interrupted\n")
        os._exit(128 + signal.SIGINT)

    default = signal.signal(signal.SIGINT, interrupted)
    try:
        with cyclic_gc_paused():
            main = load()
    finally:
        signal.signal(signal.SIGINT, default)
    try:
        return main()
    except KeyboardInterrupt:  # before the driver's own handling, or after it
        print(f"{program}: interrupted", file=sys.stderr)
        return 128 + signal.SIGINT


def _grad_opt() -> Callable[[], int]:
    from gradopt.tools.grad_opt import main

    return main


def _grad_run() -> Callable[[], int]:
    from gradopt.tools.grad_run import main

    return main


def grad_opt() -> int:
    return _launched("grad-opt", _grad_opt)


def grad_run() -> int:
    return _launched("grad-run", _grad_run)
