"""A go-between for GradBench's evals and tools, in place of its `gradbench run`
(a Rust program run with Docker images, neither of which this machine has),
and the table of RESULTS.md from the logs it writes.

    python bench/gradbench/run.py run --eval "CMD" --tool "CMD" -o LOG.jsonl
    python bench/gradbench/run.py table LOG.jsonl... [--tool-names NAME...]

`run` starts both commands, passes each message of the eval to the tool and
each response back, and logs every line as GradBench's intermediary does
(`{"elapsed": {"nanoseconds": N}, "message": ...}` and `{..., "response":
...}`, elapsed since the start). It prints one line per evaluation.

`table` reads such logs (named EVAL-TOOL.jsonl, or with --tool-names) and
prints, per eval, size and tool: whether the eval accepted the outputs, the
mean `evaluate` time of the primal and of the derivative (the mean is what
GradBench's summary scores), their ratio, the means without the first run
(which holds the JIT compilation of tools that compile on first use), the
tool's one-time `prepare` timings where it reports them, and the first run.

`versus` reads the same logs and sets gradopt's derivative time beside its
peers' (by default `jax-blocking` and `pytorch`), size by size: each tool's
steady time (the median of the runs after the first, which holds JAX's
compilation; a tool that ran once has none), the faster peer, gradopt's time
over the faster peer's, and gradopt's derivative/primal ratio.
"""

from __future__ import annotations

import argparse
import json
import math
import shlex
import statistics
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

PRIMAL_AND_DERIVATIVE = {
    "ba": ("objective", "jacobian"),
    "gmm": ("objective", "jacobian"),
    "ht": ("objective", "jacobian"),
    "lstm": ("objective", "jacobian"),
    "kmeans": ("cost", "dir"),
    "ode": ("primal", "gradient"),
    "llsq": ("primal", "gradient"),
    "det": ("primal", "gradient"),
    "lse": ("primal", "gradient"),
    "hello": ("square", "double"),
}
"""The primal and the derivative function of each eval, as GradBench's
summary pairs them."""

MODES = ("rr", "ff", "fr", "rf")
"""The functions of `particle` and `saddle`, in the order their evals send
them: one computation with its two gradients in reverse or forward mode."""


def run(eval_command: str, tool_command: str, log: IO[str], cwd: Path) -> int:
    """Pass messages between the eval and the tool until the eval stops;
    the eval's exit status."""
    start = time.perf_counter_ns()
    pipes = {"stdin": subprocess.PIPE, "stdout": subprocess.PIPE, "text": True}
    evaluation = subprocess.Popen(shlex.split(eval_command), cwd=cwd, **pipes)
    tool = subprocess.Popen(shlex.split(tool_command), cwd=cwd, **pipes)
    assert evaluation.stdin and evaluation.stdout and tool.stdin and tool.stdout

    def record(kind: str, value: Any) -> None:
        elapsed = {"nanoseconds": time.perf_counter_ns() - start}
        log.write(json.dumps({"elapsed": elapsed, kind: value}) + "\n")
        log.flush()

    try:
        for line in evaluation.stdout:
            message = json.loads(line)
            record("message", message)
            tool.stdin.write(line)
            tool.stdin.flush()
            answer = tool.stdout.readline()
            if not answer:
                print(f"the tool stopped at message {message['id']}", file=sys.stderr)
                break
            response = json.loads(answer)
            record("response", response)
            report(message, response)
            evaluation.stdin.write(answer)
            evaluation.stdin.flush()
    finally:
        for process in (evaluation, tool):
            if process.stdin:
                process.stdin.close()
        tool.wait()
    return evaluation.wait()


def timed(response: dict[str, Any], name: str) -> list[int]:
    """The nanoseconds of the response's timings called `name`."""
    timings = response.get("timings") or []
    return [t["nanoseconds"] for t in timings if t["name"] == name]


def report(message: dict[str, Any], response: dict[str, Any]) -> None:
    """One line on stdout about an exchange worth seeing while it runs."""
    kind = message.get("kind")
    if kind == "evaluate":
        runs = timed(response, "evaluate")
        mean = sum(runs) / len(runs) / 1e6 if runs else float("nan")
        what = f"{message['module']} {message['function']}"
        print(
            f"{what} {message.get('description', '')}: success="
            f"{response.get('success')} runs={len(runs)} mean={mean:.3f} ms",
            flush=True,
        )
    elif kind == "analysis" and not message.get("valid"):
        print(f"  invalid: {str(message.get('error'))[:300]}", flush=True)
    elif kind == "define" and not response.get("success"):
        print(f"{message['module']}: not defined: {response.get('error')}", flush=True)


@dataclass
class Row:
    """One size of one eval for one tool."""

    valid: dict[str, bool] = field(default_factory=dict)
    runs: dict[str, list[int]] = field(default_factory=dict)
    mean: dict[str, float] = field(default_factory=dict)
    first: dict[str, float] = field(default_factory=dict)
    later: dict[str, float] = field(default_factory=dict)
    prepare: dict[str, float] = field(default_factory=dict)
    error: dict[str, str] = field(default_factory=dict)


@dataclass
class Log:
    """What one run of an eval against a tool gave."""

    tool: str = "?"
    eval: str = "?"
    undefined: str | None = None
    sizes: dict[str, Row] = field(default_factory=dict)


def read(log: Path) -> Log:
    """The tool's name, the eval's and a `Row` per input description."""
    lines = [json.loads(line) for line in log.read_text().splitlines() if line]
    messages = {
        entry["message"]["id"]: entry["message"]
        for entry in lines
        if "message" in entry
    }
    found = Log()
    for entry in lines:
        if "response" not in entry:
            continue
        response = entry["response"]
        message = messages.get(response.get("id"), {})
        kind = message.get("kind")
        if kind == "start":
            found.tool = response.get("tool") or found.tool
            found.eval = message.get("eval") or found.eval
        elif kind == "define" and not response.get("success"):
            found.undefined = str(response.get("error", "no reason given"))
        elif kind == "evaluate":
            row = found.sizes.setdefault(message.get("description", "-"), Row())
            function = message["function"]
            runs, prepared = timed(response, "evaluate"), timed(response, "prepare")
            # an eval that sends one size several times (hello) gets one row
            runs = row.runs.setdefault(function, []) + runs
            row.runs[function] = runs
            if runs:
                row.mean[function] = sum(runs) / len(runs) / 1e9
                row.first[function] = runs[0] / 1e9
            if len(runs) > 1:
                row.later[function] = sum(runs[1:]) / (len(runs) - 1) / 1e9
            if prepared:
                row.prepare[function] = sum(prepared) / 1e9
            if not response.get("success"):
                row.valid[function] = False
                row.error[function] = str(response.get("error"))
        elif kind == "analysis":
            evaluated = messages[message["of"]]
            row = found.sizes.setdefault(evaluated.get("description", "-"), Row())
            row.valid[evaluated["function"]] = bool(message["valid"])
            if not message["valid"]:
                row.error[evaluated["function"]] = str(message.get("error"))
    return found


def seconds(value: float | None) -> str:
    if value is None:
        return "-"
    return f"{value * 1e3:.3g} ms" if value < 1 else f"{value:.3g} s"


def pair(row: dict[str, float], functions: tuple[str, str]) -> str:
    """`row`'s times of the primal and the derivative, as "a / b"."""
    if not row:
        return "-"
    return " / ".join(seconds(row.get(f)) for f in functions)


def named(logs: list[Path], names: list[str]) -> dict[str, list[tuple[str, Log]]]:
    """The logs by eval, each with its tool's name: from `names`, else from
    the log's name when that is EVAL-TOOL.jsonl (as compare.sh writes them),
    else the tool's answer to `start`."""
    by_eval: dict[str, list[tuple[str, Log]]] = {}
    for i, path in enumerate(logs):
        log = read(path)
        stem = path.stem.split("-", 1)
        name = stem[1] if len(stem) == 2 and stem[0] == log.eval else log.tool
        name = names[i] if i < len(names) else name
        by_eval.setdefault(log.eval, []).append((name, log))
    return by_eval


def modes_table(tools: list[tuple[str, Log]]) -> Iterator[str]:
    """Markdown lines for an eval of MODES: a row per size and tool with
    each function's validity, mean time and one-time preparation."""
    yield f"| size | tool | valid ({'/'.join(MODES)}) | {' | '.join(MODES)} | prepare |"
    yield "|---|---|---|" + "---|" * len(MODES) + "---|"
    for name, log in tools:
        for size, row in log.sizes.items():
            valid = "/".join(
                "-" if v is None else ("yes" if v else "**no**")
                for v in (row.valid.get(f) for f in MODES)
            )
            times = " | ".join(seconds(row.mean.get(f)) for f in MODES)
            prepare = pair(row.prepare, MODES)
            yield f"| {size} | {name} | {valid} | {times} | {prepare} |"


def table(logs: list[Path], names: list[str]) -> Iterator[str]:
    """Markdown lines: one table per eval, a row per size and tool (see
    `named` for the tools' names)."""
    by_eval = named(logs, names)
    for eval_name, tools in by_eval.items():
        functions = PRIMAL_AND_DERIVATIVE.get(eval_name, ("primal", "derivative"))
        yield f"### {eval_name}"
        yield ""
        if eval_name in ("particle", "saddle"):
            yield from modes_table(tools)
            yield ""
            continue
        yield (
            f"| size | tool | valid | {functions[0]} | {functions[1]} | ratio "
            "| without the first run | prepare | first run |"
        )
        yield "|---|---|---|---|---|---|---|---|---|"
        for name, log in tools:
            if log.undefined is not None:
                reason = " ".join(log.undefined.split())[:200]
                yield f"| all | {name} | not defined: {reason} | | | | | | |"
        sizes = dict.fromkeys(size for _, log in tools for size in log.sizes)
        for size in sizes:
            for name, log in tools:
                row = log.sizes.get(size)
                if row is None:
                    continue
                valid = "/".join(
                    "-" if v is None else ("yes" if v else "**no**")
                    for v in (row.valid.get(f) for f in functions)
                )
                a, b = (row.mean.get(f) for f in functions)
                ratio = f"{b / a:.1f}" if a and b else "-"
                yield (
                    f"| {size} | {name} | {valid} | {seconds(a)} | {seconds(b)} "
                    f"| {ratio} | {pair(row.later, functions)} "
                    f"| {pair(row.prepare, functions)} "
                    f"| {pair(row.first, functions)} |"
                )
        yield ""


def steady(row: Row, function: str) -> float | None:
    """The median time of `function`'s runs after the first, or None if it
    ran once (for a tool that compiles on its first call, that run is the
    compilation). The median, not the mean GradBench scores: on a shared
    machine a few runs stall for tens of milliseconds."""
    later = row.runs.get(function, [])[1:]
    return statistics.median(later) / 1e9 if later else None


def versus(logs: list[Path], tool: str, peers: list[str]) -> Iterator[str]:
    """Markdown lines: per eval that `tool` and at least one of `peers` ran,
    a row per size with the derivative's steady time of each, the faster
    peer, `tool`'s time over the faster peer's and `tool`'s derivative/primal
    ratio; then how many sizes `tool` was at most the faster peer's time and
    the geometric mean of that quotient over the sizes."""
    by_eval = {eval_name: dict(tools) for eval_name, tools in named(logs, []).items()}
    for eval_name, tools in by_eval.items():
        present = [peer for peer in peers if peer in tools]
        if tool not in tools or not present:
            continue
        primal, derivative = PRIMAL_AND_DERIVATIVE.get(
            eval_name, ("primal", "derivative")
        )
        yield f"### {eval_name}: {derivative}"
        yield ""
        yield (
            f"| size | {tool} | {' | '.join(present)} | faster peer "
            f"| {tool} / faster | {tool}'s {derivative} / {primal} |"
        )
        yield "|---|" + "---|" * (len(present) + 4)
        quotients: list[float] = []
        for size, row in tools[tool].sizes.items():
            own = steady(row, derivative)
            times = {
                peer: steady(tools[peer].sizes[size], derivative)
                for peer in present
                if size in tools[peer].sizes
            }
            known = {peer: t for peer, t in times.items() if t is not None}
            best = min(known, key=known.__getitem__) if known else None
            quotient = "-"
            if own is not None and best is not None:
                quotients.append(own / known[best])
                quotient = f"{quotients[-1]:.2f}"
            base = steady(row, primal)
            ratio = f"{own / base:.1f}" if own and base else "-"
            cells = " | ".join(seconds(times.get(peer)) for peer in present)
            yield (
                f"| {size} | {seconds(own)} | {cells} | {best or '-'} "
                f"| {quotient} | {ratio} |"
            )
        if quotients:
            wins = sum(q <= 1 for q in quotients)
            mean = math.exp(sum(map(math.log, quotients)) / len(quotients))
            yield ""
            yield (
                f"{tool} at most the faster peer's time on {wins} of "
                f"{len(quotients)} sizes; geometric mean of {tool} / faster: "
                f"{mean:.2f}"
            )
        yield ""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    running = commands.add_parser("run", help="run an eval against a tool")
    running.add_argument("--eval", required=True, help="the eval's command")
    running.add_argument("--tool", required=True, help="the tool's command")
    running.add_argument("-o", "--output", type=Path, required=True, help="the log")
    running.add_argument("--cwd", type=Path, default=Path.cwd(), help="where to run")
    tabling = commands.add_parser("table", help="the table of some logs")
    tabling.add_argument("logs", type=Path, nargs="+")
    tabling.add_argument("--tool-names", nargs="*", default=[])
    against = commands.add_parser("versus", help="gradopt beside its peers")
    against.add_argument("logs", type=Path, nargs="+")
    against.add_argument("--tool", default="gradopt")
    against.add_argument("--peers", nargs="+", default=["jax-blocking", "pytorch"])
    options = parser.parse_args()
    if options.command == "run":
        with options.output.open("w") as log:
            sys.exit(run(options.eval, options.tool, log, options.cwd))
    lines = (
        table(options.logs, options.tool_names)
        if options.command == "table"
        else versus(options.logs, options.tool, options.peers)
    )
    for line in lines:
        print(line)


if __name__ == "__main__":
    main()
