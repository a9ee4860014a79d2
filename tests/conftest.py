"""The lit suite starts in the background as soon as the tests are collected,
when `tests/test_lit.py::test_lit_suite` is among them, and that test waits
for it: its processes (a grad-opt or grad-run per RUN line) then run on one
core while the rest of pytest, which is single-threaded, runs on the other,
instead of after it."""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

LIT_TESTS = Path(__file__).resolve().parent.parent / "lit-tests"

# the lit package has no `__main__` module, so `python -m lit` does not work
RUN_LIT = "import sys; from lit.main import main; sys.exit(main())"


class LitRun:
    """`lit -v lit-tests` running in a process of its own, its output kept in
    a temporary file (a pipe would stall it once full)."""

    def __init__(self, alone: bool = True) -> None:
        """`alone`: no other test runs meanwhile, so lit takes every core;
        otherwise it leaves one to pytest."""
        workers = max(1, (os.cpu_count() or 2) - (0 if alone else 1))
        self.output = tempfile.TemporaryFile(mode="w+")  # noqa: SIM115 (closed in stop)
        self.process = subprocess.Popen(
            [sys.executable, "-c", RUN_LIT, "-v", f"-j{workers}", str(LIT_TESTS)],
            stdout=self.output,
            stderr=subprocess.STDOUT,
            text=True,
        )

    def wait(self) -> tuple[int, str]:
        """The exit status and the output, once lit has finished."""
        status = self.process.wait()
        self.output.seek(0)
        return status, self.output.read()

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()
        self.output.close()


_started: list[LitRun] = []


def pytest_collection_finish(session: pytest.Session) -> None:
    if session.config.option.collectonly:
        return
    if any(
        item.nodeid.endswith("test_lit.py::test_lit_suite") for item in session.items
    ):
        _started.append(LitRun())


def pytest_sessionfinish(session: pytest.Session) -> None:
    while _started:
        _started.pop().stop()


@pytest.fixture
def lit_run() -> LitRun:
    """The run started when the tests were collected (or a new one)."""
    if not _started:
        _started.append(LitRun())
    return _started[0]


def lit_runs() -> list[pytest.param]:
    """The grad-run command lines of lit-tests/run (the programs of the
    `*errors.mlir` files, which cannot run, aside), for tests that run every
    example another way."""
    runs = []
    folder = LIT_TESTS / "run"
    for path in sorted(folder.glob("*.mlir")):
        if path.name.endswith("errors.mlir"):
            continue
        for i, match in enumerate(
            re.finditer(r"RUN: grad-run (.*?) \|", path.read_text())
        ):
            line = match.group(1).replace("%s", str(path)).replace("%S", str(folder))
            runs.append(pytest.param(shlex.split(line), id=f"{path.stem}-{i}"))
    return runs


@pytest.fixture
def fifo_reader(tmp_path: Path) -> Iterator[tuple[Path, int]]:
    """A FIFO with a reader already open (so that opening it for writing
    does not block), and the reader's descriptor."""
    path = tmp_path / "pipe"
    os.mkfifo(path)
    reader = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    try:
        yield path, reader
    finally:
        os.close(reader)
