"""Tracing a function that closes over a large NumPy array (issue 26): the
first call of `gradopt.jit(f)`, which traces `f`, makes the array a
`grad.const`, prepares the program and runs it, for an array of `--mb` MB of
float32. Each measurement runs in a fresh process, which reports its time
and how far its peak resident memory grew past what it held before the call.

    python bench/closure_constant.py [--mb 64] [--repeats 3]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys

CHILD = """
import resource, sys, time
import numpy as np
import gradopt, gradopt.numpy as gnp

w = np.random.default_rng(0).random(int(sys.argv[1]) << 18, dtype=np.float32)

@gradopt.jit
def f(x):
    return gnp.sum(w * x)

before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
start = time.perf_counter()
f(np.float32(2.0))
seconds = time.perf_counter() - start
grown = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before
print(seconds, grown / 1024)
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--mb", type=int, default=64)
    parser.add_argument("--repeats", type=int, default=3)
    options = parser.parse_args()
    runs = []
    for _ in range(options.repeats):
        out = subprocess.run(
            [sys.executable, "-c", CHILD, str(options.mb)],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.split()
        runs.append((float(out[0]), float(out[1])))
    seconds = statistics.median(s for s, _ in runs)
    grown = statistics.median(m for _, m in runs)
    print(
        f"{options.mb} MB captured array: first call {seconds:.2f} s, "
        f"peak memory +{grown:.0f} MB (median of {options.repeats})"
    )


if __name__ == "__main__":
    main()
