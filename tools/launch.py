"""The console scripts `grad-opt` and `grad-run`: each imports its driver
with the cyclic garbage collector paused (see `gradopt.support.collector`), then runs
it with the collector as usual."""

from __future__ import annotations

from gradopt.support.collector import cyclic_gc_paused


def grad_opt() -> int:
    with cyclic_gc_paused():
        from gradopt.tools.grad_opt import main
    return main()


def grad_run() -> int:
    with cyclic_gc_paused():
        from gradopt.tools.grad_run import main
    return main()
