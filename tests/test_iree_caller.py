"""The thread that waits for IREE's workers (`gradopt.runtime.iree_caller`):
one of lower priority per calling thread, results and exceptions handed
back, used by every `local-task` call and by no `local-sync` one."""

from __future__ import annotations

import gc
import os
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TypeVar

import numpy as np
import pytest
from test_iree import needs_iree
from test_iree_driver import dot_program

from gradopt import Program
from gradopt.runtime import iree, iree_caller

T = TypeVar("T")


def test_the_call_runs_on_another_thread_of_lower_priority() -> None:
    def where() -> tuple[int, int]:
        return threading.get_native_id(), os.getpriority(os.PRIO_PROCESS, 0)

    mine = os.getpriority(os.PRIO_PROCESS, 0)
    thread, nice = iree_caller.call_waiting(where)
    assert thread != threading.get_native_id()
    assert nice == min(mine + iree_caller.NICE, 19)
    assert os.getpriority(os.PRIO_PROCESS, 0) == mine  # the caller keeps its own
    assert iree_caller.call_waiting(where)[0] == thread  # the same thread again


def test_an_exception_is_raised_on_the_calling_thread() -> None:
    def fail() -> None:
        raise ValueError("IREE said no")

    with pytest.raises(ValueError, match="IREE said no"):
        iree_caller.call_waiting(fail)
    assert iree_caller.call_waiting(lambda: 42) == 42  # and the thread goes on


def test_each_calling_thread_has_its_own_and_stops_it() -> None:
    mine = iree_caller.call_waiting(threading.get_native_id)
    seen: list[int] = []
    caller_threads: list[threading.Thread] = []

    def other() -> None:
        seen.append(iree_caller.call_waiting(threading.get_native_id))
        caller_threads.append(iree_caller._callers.caller.thread)

    worker = threading.Thread(target=other)
    worker.start()
    worker.join()
    assert seen and seen[0] != mine
    del worker
    gc.collect()  # the calling thread is gone: its waiting thread stops
    caller_threads[0].join(timeout=10)
    assert not caller_threads[0].is_alive()


@pytest.fixture
def recorded(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[list[int]]:
    monkeypatch.setenv("GRADOPT_CACHE_DIR", str(tmp_path))
    calls: list[int] = []

    def recording(function: Callable[[], T]) -> T:
        calls.append(1)
        return iree_caller.call_waiting(function)

    monkeypatch.setattr(iree, "call_waiting", recording)
    yield calls


@needs_iree
@pytest.mark.parametrize("driver", ["local-task", "local-sync"])
def test_only_local_task_calls_wait_on_that_thread(
    driver: str, recorded: list[int]
) -> None:
    program = Program(dot_program(4, 3, 2))
    program.iree_module = iree.load(program.module, driver)
    a = np.arange(12, dtype=np.float32).reshape(4, 3)
    b = np.arange(6, dtype=np.float32).reshape(3, 2)
    result = program.run(args=[a, b], backend="iree")
    np.testing.assert_array_equal(result.results[0], a @ b)
    assert len(recorded) == (1 if driver == "local-task" else 0)


@needs_iree
def test_a_failing_local_task_call_is_reported_as_before(recorded: list[int]) -> None:
    """IREE's own error, raised on the waiting thread (an unpacked program
    invoked with one argument of two)."""
    lowered = iree.lower(Program(dot_program(4, 3, 2)).module)
    module = iree.IreeModule(iree.compile_text(lowered), "local-task")
    with pytest.raises(iree.BackendError, match="IREE failed running @main"):
        module.call("main", [np.zeros((4, 3), np.float32)])
    assert recorded


@needs_iree
def test_a_process_that_ran_on_local_task_exits_quietly(tmp_path: Path) -> None:
    """The waiting thread holds nothing of IREE's at exit: IREE's bindings
    print a screen of "leaked" objects at exit if it does."""
    script = f"""
import numpy as np
from gradopt import Program
from gradopt.runtime import iree
program = Program({dot_program(4, 3, 2)!r})
program.iree_module = iree.load(program.module, "local-task")
print(program.run(args=[np.ones((4, 3), np.float32), np.ones((3, 2), np.float32)],
                  backend="iree").results[0].sum())
"""
    done = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        env={**os.environ, "GRADOPT_CACHE_DIR": str(tmp_path)},
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "24.0"
    assert done.stderr == ""


def test_without_nice_values_the_thread_still_serves(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Where `os.setpriority` is missing (Windows), the waiting thread keeps
    its priority and still runs the calls."""
    monkeypatch.delattr(os, "setpriority")
    result: list[int] = []

    def in_a_new_thread() -> None:
        result.append(iree_caller.call_waiting(lambda: 7))

    thread = threading.Thread(target=in_a_new_thread, daemon=True)
    thread.start()
    thread.join(timeout=10)
    assert result == [7]
