"""Long plans compiled in chunks: compiling one Python
function of a 100k-op gradient program's 340k steps peaked at gigabytes
(about 6 KB a line for its syntax tree). A chain of chunks bounds that, and
changes no bit of any result (SPEC §6)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from conftest import lit_runs

import gradopt
from gradopt.interpreter import executor
from gradopt.tools import grad_run

ROOT = Path(__file__).resolve().parent.parent


def chain(steps: int) -> str:
    lines = [
        "func.func @main(%x: tensor<4xf32>, %s: memref<4xf32>) -> tensor<4xf32> {",
        "  %v0 = grad.add %x, %x : tensor<4xf32>",
    ]
    for i in range(1, steps):
        operand = ", %x" if i % 3 < 2 else ""
        op = ("mul", "add", "sin")[i % 3]
        lines.append(f"  %v{i} = grad.{op} %v{i - 1}{operand} : tensor<4xf32>")
    lines += [
        f"  grad.store %v{steps // 2}, %s : memref<4xf32>",
        f"  func.return %v{steps - 1} : tensor<4xf32>",
        "}",
    ]
    return "\n".join(lines)


PLANNING_PEAK = """
import sys, tracemalloc
from gradopt.dialect.context import make_context
from gradopt.interpreter import executor
from gradopt.support.diagnostics import parse_module
executor.CHUNK_STEPS = int(sys.argv[1])
module = parse_module(make_context(), sys.stdin.read(), "chain.mlir")
tracemalloc.start()
executor.Interpreter(module).prepare("main")
print(tracemalloc.get_traced_memory()[1])
"""


def planning_peak(text: str, chunk_steps: int) -> int:
    """Bytes allocated at the peak of planning (and compiling) @main with
    chunks of `chunk_steps`, in a process of its own: tracemalloc counts
    every thread's allocations, and an earlier test's background thread
    (`backend="auto"`'s compile) made this one fail now and then."""
    done = subprocess.run(
        [sys.executable, "-c", PLANNING_PEAK, str(chunk_steps)],
        input=text,
        capture_output=True,
        text=True,
        check=True,
    )
    return int(done.stdout)


def test_chunks_bound_the_memory_of_compiling_a_long_plan() -> None:
    text = chain(1500)
    whole = planning_peak(text, 10**9)  # one function
    chunked = planning_peak(text, 150)
    assert chunked < whole / 2, (chunked, whole)


def test_a_chunked_plan_gives_the_same_bits_and_locates_errors(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    text = chain(400)
    x = np.array([0.5, -1.5, 2.0, 1e-3], np.float32)
    whole = gradopt.run(text, args=[x])
    monkeypatch.setattr(executor, "CHUNK_STEPS", 7)
    program = gradopt.Program(text)
    program.interpreter.prepare("main")
    chunked = program.run(args=[x])
    plan = program.interpreter.plans["main"]
    assert len(plan.compiled.ops) > 50  # many chunks, each its own code
    for a, b in zip(
        whole.results + whole.slots, chunked.results + chunked.slots, strict=True
    ):
        assert a.tobytes() == b.tobytes()
    failing = text.replace(
        "  func.return",
        "  %z = grad.const 0 : tensor<i32>\n"
        "  %q = grad.idiv %z, %z : tensor<i32>\n  func.return",
    )
    with pytest.raises(
        gradopt.GradoptError, match=r"^<input>:404:3: error: 'grad.idiv'"
    ):
        gradopt.run(failing, args=[x])


@pytest.mark.parametrize("argv", lit_runs())
def test_every_run_example_gives_the_same_bytes_in_chunks_of_two(
    argv: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Loops, calls, multi-result ops, views and slots across chunk borders."""
    outputs = []
    for size in (10**9, 2):
        monkeypatch.setattr(executor, "CHUNK_STEPS", size)
        out = tmp_path / f"{size}.npz"
        assert grad_run.main([*argv, "-q", "--out", str(out)]) == 0
        outputs.append(out.read_bytes())
    assert outputs[0] == outputs[1]
