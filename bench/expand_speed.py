"""`expand-gradient` and `expand-jvp` beside parsing, on a 20 000-op chain (issue
25, item 6; target: each pass <= 0.5x the parse of the same text).

Two settings, each reported as parse time, pass time and their ratio, medians
of `--repeats` runs:

- `pass alone`: parse and pass in this process, as `expand_scaling.py` does;
- `driver`: the whole `grad-opt FILE -p PASS -o /dev/null` process (GC, the
  verification between passes, printing), started afresh for each run, timing
  its parse and its pass from inside (the driver's own `--time-passes` gives
  only the pass).

The chain is `expand_scaling.py`'s (mul, add, max, sin, neg over
tensor<4xf32>, then a sum); the jvp chain is the same graph ending in
`grad.jvp` along a tangent argument.

    python bench/expand_speed.py [--ops 20000] [--repeats 5] [--no-driver]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from expand_scaling import program

from gradopt.dialect.context import make_context
from gradopt.passes import ExpandGradientPass, ExpandJvpPass
from gradopt.support.diagnostics import parse_module

PASSES = {"expand-gradient": ExpandGradientPass, "expand-jvp": ExpandJvpPass}


def jvp_program(ops: int) -> str:
    """`program(ops)` with its gradient replaced by a jvp along `%t`."""
    text = program(ops)
    text = text.replace(
        "%w: tensor<4xf32>) -> tensor<4xf32>",
        "%w: tensor<4xf32>, %t: tensor<4xf32>) -> tensor<f32>",
    )
    text = text.replace(
        "%g = grad.gradient %l wrt %x : tensor<f32>, tensor<4xf32>",
        "%g = grad.jvp %l wrt %x, %t : tensor<f32>, tensor<4xf32>",
    )
    return text.replace("return %g : tensor<4xf32>", "return %g : tensor<f32>")


def in_process(text: str, name: str) -> tuple[float, float]:
    """Seconds to parse `text` and to run pass `name` on it, here."""
    ctx = make_context()
    start = time.perf_counter()
    module = parse_module(ctx, text, "bench.mlir")
    parsed = time.perf_counter()
    PASSES[name]().apply(ctx, module)
    return parsed - start, time.perf_counter() - parsed


def driver(path: str, name: str) -> tuple[float, float]:
    """Seconds that a fresh `grad-opt` process spends parsing `path` and in
    pass `name` (this script, run with `--driver`, is that process)."""
    found = subprocess.run(
        [sys.executable, __file__, "--driver", path, name],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.split()
    return float(found[-2]), float(found[-1])


def run_driver(path: str, name: str) -> None:
    """Run `grad-opt path -p name -o /dev/null` as its console script does,
    with its parse and the pass timed; print the two times."""
    from gradopt.tools import grad_opt, launch

    times: dict[str, float] = {}

    def timed(key: str, body: Callable[..., object]) -> Callable[..., object]:
        def wrapper(*args: object, **kwargs: object) -> object:
            start = time.perf_counter()
            try:
                return body(*args, **kwargs)
            finally:
                times[key] = time.perf_counter() - start

        return wrapper

    grad_opt.parse_module = timed("parse", grad_opt.parse_module)
    pass_type = PASSES[name]
    pass_type.apply = timed("pass", pass_type.apply)
    sys.argv = ["grad-opt", path, "-p", name, "-o", "/dev/null"]
    if launch.grad_opt() != 0:
        raise SystemExit(f"grad-opt failed on {path}")
    print(times["parse"], times["pass"])


def main() -> None:
    arguments = argparse.ArgumentParser(description=__doc__)
    arguments.add_argument("--ops", type=int, default=20000)
    arguments.add_argument("--repeats", type=int, default=5)
    arguments.add_argument("--no-driver", action="store_true")
    arguments.add_argument("--driver", nargs=2, help=argparse.SUPPRESS)
    args = arguments.parse_args()
    if args.driver:
        return run_driver(*args.driver)
    texts = {"expand-gradient": program(args.ops), "expand-jvp": jvp_program(args.ops)}
    print(f"{args.ops}-op chain, medians of {args.repeats} runs")
    print(f"{'pass':16} {'setting':11} {'parse s':>8} {'pass s':>8} {'pass/parse':>11}")
    with tempfile.TemporaryDirectory() as folder:
        for name, text in texts.items():
            path = str(Path(folder) / f"{name}.mlir")
            Path(path).write_text(text)
            settings = [("pass alone", partial(in_process, text, name))]
            if not args.no_driver:
                settings.append(("driver", partial(driver, path, name)))
            for setting, measure in settings:
                runs = [measure() for _ in range(args.repeats)]
                parse, expand = (statistics.median(r[k] for r in runs) for k in (0, 1))
                print(
                    f"{name:16} {setting:11} {parse:>8.3f} {expand:>8.3f} "
                    f"{expand / parse:>11.2f}"
                )


if __name__ == "__main__":
    main()
