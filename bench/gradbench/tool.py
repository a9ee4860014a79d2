"""gradopt as a GradBench tool: the JSON-lines protocol on stdin and stdout.

Usage (from the project root): python bench/gradbench/tool.py [--backend numpy|iree]

GradBench's eval sends one message per line (`start`, `define`, `evaluate`,
`analysis`, `end`) and waits for the answer with the same `id`. `define`
answers whether gradopt implements the eval (the modules under `evals/`), and
why not if it does not. `evaluate` jits the eval's function on the backend,
prepares it once (tracing, expanding the derivatives, planning the
interpreter's steps or compiling with IREE: the timing `prepare`), then runs
it at least `min_runs` times and until the runs add up to `min_seconds`, one
timing `evaluate` per run, each stopped once the result is a NumPy array (the
interpreter computes eagerly; IREE's results are copied to the host before
the call returns). A line that is not a message, or an eval that fails, gets
`success: false` with the error text: the tool keeps answering.

stdout carries the protocol alone: anything else printed while the tool runs
goes to stderr.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import sys
import time
import traceback
from pathlib import Path
from typing import IO, Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from evals import Function, Json, load

import gradopt
from gradopt import GradoptError
from gradopt.frontend.transforms import Traced


def prepare(traced: Traced, args: tuple[Any, ...], backend: str) -> None:
    """Everything `traced(*args)` does once per signature: trace, verify,
    expand the derivatives, read the entry's signature, then plan the
    interpreter's steps and choose BLAS's threads, or compile with IREE, so
    that no run pays for it (GradBench's `hello` times one run per input)."""
    program = traced.compile(args, {}).program
    program.signature("main")
    if backend == "iree":
        from gradopt.runtime.iree import load as compile_with_iree

        program.iree_module = compile_with_iree(program.module)
    else:
        program.interpreter.prepare("main")
        _ = program.blas_threads


def timing(name: str, start: int, end: int) -> dict[str, Any]:
    return {"name": name, "nanoseconds": end - start}


def evaluate(function: Function, input: Json, backend: str) -> dict[str, Any]:
    """The eval's output for `input` and the timings of preparing once and of
    every run."""
    args = function.arguments(input)
    traced = gradopt.jit(
        function.compute, backend=backend, static_argnums=function.static_argnums
    )
    start = time.perf_counter_ns()
    prepare(traced, args, backend)
    timings = [timing("prepare", start, time.perf_counter_ns())]
    runs = max(1, input.get("min_runs", 1)) if isinstance(input, dict) else 1
    seconds = input.get("min_seconds", 0) if isinstance(input, dict) else 0
    done, elapsed, result = 0, 0, None
    while done < runs or elapsed < seconds * 1e9:
        start = time.perf_counter_ns()
        result = traced(*args)
        end = time.perf_counter_ns()
        timings.append(timing("evaluate", start, end))
        done, elapsed = done + 1, elapsed + end - start
    return {"output": function.output(result, input), "timings": timings}


class ProtocolError(Exception):
    """A message that does not follow GradBench's protocol."""


class Tool:
    """The tool's state between messages: the backend and the evals defined
    so far."""

    def __init__(self, backend: str) -> None:
        self.backend = backend
        self.defined: dict[str, Any] = {}

    def answer(self, message: Json) -> dict[str, Any]:
        """The response to one message (an `id` for the kinds that need no
        more)."""
        if not isinstance(message, dict) or "id" not in message:
            raise ProtocolError("a message is a JSON object with an id")
        response: dict[str, Any] = {"id": message["id"]}
        kind = message.get("kind")
        if kind == "start":
            response["tool"] = "gradopt"
            response["config"] = {
                "version": gradopt.__version__,
                "backend": self.backend,
            }
        elif kind == "define":
            name = message.get("module")
            try:
                self.defined[name] = load(name)
                response["success"] = True
            except KeyError as reason:
                response["success"] = False
                response["error"] = reason.args[0]
        elif kind == "evaluate":
            name = message.get("module")
            if name not in self.defined:
                raise ProtocolError(f"the module {name!r} was not defined")
            functions = self.defined[name].FUNCTIONS
            if message.get("function") not in functions:
                raise ProtocolError(
                    f"the module {name!r} has no function {message.get('function')!r}"
                )
            function = functions[message["function"]]
            response["success"] = True
            response |= evaluate(function, message.get("input"), self.backend)
        return response

    def serve(self, lines: IO[str], out: IO[str]) -> None:
        """Answer every line of `lines` on `out`, one line each."""
        for line in lines:
            if not line.strip():
                continue
            message: Json = None
            try:
                message = json.loads(line)
                response = self.answer(message)
            except json.JSONDecodeError as failure:
                response = self.failure(message, f"malformed message: {failure}")
            except (ProtocolError, GradoptError) as failure:
                response = self.failure(message, str(failure))
            except Exception:
                response = self.failure(message, traceback.format_exc())
            out.write(json.dumps(response) + "\n")
            out.flush()

    @staticmethod
    def failure(message: Json, error: str) -> dict[str, Any]:
        known = isinstance(message, dict) and "id" in message
        identity = message["id"] if known else None
        return {"id": identity, "success": False, "error": error}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--backend", choices=["numpy", "iree"], default="numpy")
    options = parser.parse_args()
    out, sys.stdout = sys.stdout, sys.stderr
    with contextlib.suppress(BrokenPipeError, KeyboardInterrupt):
        Tool(options.backend).serve(sys.stdin, out)


if __name__ == "__main__":
    main()
