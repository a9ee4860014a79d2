"""Start-up of the drivers and preparation of a program (issue 15, target 4):
`grad-run examples/cubic.mlir` beside plain `xdsl-opt` on the same file (which
parses and prints it) and `python -c pass`, the processes interleaved, medians
of `--repeats`; then `Program(text)` of the small training step of
`bench/small_step.py` (parse, verify, expand, plan), median of as many.

    python bench/startup.py [--repeats 21]
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from interpreter_speed import mlp_program
from small_step import SHAPES

from gradopt import Program

ROOT = Path(__file__).resolve().parent.parent
CUBIC = str(ROOT / "examples" / "cubic.mlir")


def commands() -> dict[str, list[str]]:
    found = {tool: shutil.which(tool) for tool in ("grad-run", "xdsl-opt")}
    if missing := [tool for tool, path in found.items() if path is None]:
        sys.exit(f"not on PATH: {', '.join(missing)}")
    return {
        "grad-run cubic.mlir": [
            str(found["grad-run"]),
            CUBIC,
            "--slot",
            "0=[1,2,3,4,5]",
        ],
        "xdsl-opt cubic.mlir": [str(found["xdsl-opt"]), CUBIC],
        "python -c pass": [sys.executable, "-c", "pass"],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=21)
    repeats = parser.parse_args().repeats
    runs = commands()
    times: dict[str, list[float]] = {name: [] for name in runs}
    for _ in range(repeats):
        for name, argv in runs.items():
            started = time.perf_counter()
            subprocess.run(argv, stdout=subprocess.DEVNULL, check=True)
            times[name].append(time.perf_counter() - started)
    baseline = statistics.median(times["xdsl-opt cubic.mlir"])
    for name, measured in times.items():
        median = statistics.median(measured)
        print(f"{name:22} {median * 1e3:7.1f} ms  {median / baseline:5.2f}x xdsl-opt")
    text = mlp_program(*SHAPES)
    Program(text)  # imports and first-use caches outside the measurement
    prepared = []
    for _ in range(repeats):
        started = time.perf_counter()
        Program(text).interpreter.prepare("main")
        prepared.append(time.perf_counter() - started)
    print(f"{'Program(small step)':22} {statistics.median(prepared) * 1e3:7.1f} ms")


if __name__ == "__main__":
    main()
