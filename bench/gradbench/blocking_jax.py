"""GradBench's own `jax` tool, run unchanged except that each timed run waits
for its result.

Usage: python bench/gradbench/blocking_jax.py GRADBENCH_CHECKOUT

JAX dispatches asynchronously: a jitted call returns once the computation is
queued, and GradBench's `jax` tool stops its clock there (the result is
awaited later, by `tolist()`, outside the timing). This shim wraps every
function that tool times in `jax.block_until_ready`, so that each `evaluate`
timing ends when the result is computed, as gradopt's do; then it runs the
tool's own `run.py` as the main program.
"""

from __future__ import annotations

import runpy
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import jax
from gradbench import wrap


def blocking(decorate: Callable[..., Any]) -> Callable[..., Any]:
    """`wrap.multiple_runs` or `wrap.function`, timing functions that block."""

    def make(**options: Any) -> Callable[[Callable[[Any], Any]], Any]:
        timed = decorate(**options)
        return lambda function: timed(
            lambda input: jax.block_until_ready(function(input))
        )

    return make


def main() -> None:
    tool = Path(sys.argv[1]) / "python/gradbench/gradbench/tools/jax/run.py"
    wrap.multiple_runs = blocking(wrap.multiple_runs)
    wrap.function = blocking(wrap.function)
    sys.path.insert(0, str(tool.parent))
    sys.argv = [str(tool)]
    runpy.run_path(str(tool), run_name="__main__")


if __name__ == "__main__":
    main()
