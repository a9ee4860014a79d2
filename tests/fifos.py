"""Waiting for a process to open a FIFO: the tests' way to know that a reader
(or a blocked driver) has reached the point they want to test, without
sleeping for a guessed time."""

from __future__ import annotations

import os
import time
from pathlib import Path


def opened(pid: int | str, path: Path) -> int:
    """How many descriptors of process `pid` ("self" for this one) refer to
    `path` (0 for a process that has exited)."""
    folder = f"/proc/{pid}/fd"
    count = 0
    try:
        names = os.listdir(folder)
    except OSError:
        return 0
    for name in names:
        try:
            if os.readlink(os.path.join(folder, name)) == str(path):
                count += 1
        except OSError:
            continue
    return count


def wait_until_opened(pid: int | str, path: Path, count: int = 1) -> None:
    """Wait until process `pid` holds `count` descriptors of `path`; a
    synchronisation with a generous bound for a loaded machine, not a timing
    measurement."""
    deadline = time.monotonic() + 120
    while opened(pid, path) < count:
        if time.monotonic() > deadline:
            raise TimeoutError(f"process {pid} never opened {path}")
        time.sleep(0.005)
