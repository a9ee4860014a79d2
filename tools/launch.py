"""The console scripts `grad-opt` and `grad-run`: each imports its driver
with the cyclic garbage collector paused (see `gradopt.support.collector`), then runs
it with the collector as usual.

Ctrl-C is one line and status 130 from the first instant: the import takes
most of a second, in which a `KeyboardInterrupt` would otherwise print a
traceback of thirty lines (the drivers handle it themselves once running)."""

from __future__ import annotations

import signal
import sys
from collections.abc import Callable

from gradopt.support.collector import cyclic_gc_paused


def _launched(program: str, load: Callable[[], Callable[[], int]]) -> int:
    try:
        with cyclic_gc_paused():
            main = load()
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
