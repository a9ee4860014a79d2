"""The thread that waits for IREE's worker threads: a call on `local-task` is
made from a thread of lower priority than the workers, one such thread per
calling thread.

A call on `local-task` hands its dispatches to IREE's workers, each pinned
to a core of its own, and waits; the waiting thread partly spins. On a
machine with few cores it then shares a core with a worker that has work
to do, which cannot move to another core, and the kernel gives the two
turns of milliseconds: on 2 cores a tenth of the calls of the CNN, MLP and
attention steps took 2-3x their median, so that their means were 1.3-1.8x
their medians. Waiting from a thread of lower priority (nice +`NICE`) lets
the workers have the cores whenever they have work: the means were 15-30%
lower, the slow calls mostly gone (`bench/iree_caller.py`,
bench/RESULTS.md). The lowest priority there is, `SCHED_IDLE`, did as well
on an idle machine but made every call about 6x slower while other
processes kept both cores busy, since such a thread then hardly runs. Handing
a call to the thread and back costs about 50 us, which is why only
`local-task` calls (large programs) take this path.

The calling thread's own priority cannot be lowered for the call and raised
again afterwards without privileges, hence a thread of its own, made on the
first call and stopped with the calling thread. IREE's workers, made with
the device on a thread of normal priority, keep theirs."""

from __future__ import annotations

import contextlib
import os
import queue
import threading
import weakref
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")

_Job = tuple[Callable[[], object], list[tuple[bool, object]], threading.Lock]
"""A function, the list its outcome goes to (whether it returned, and what
it returned or raised), and the lock released once it is there."""


NICE = 10
"""How much higher the waiting thread's nice value is than its caller's: 5,
10 and 15 measured alike on an idle machine; with both cores kept busy by
other processes, the CNN step's calls took 1.14-1.19x as long as waiting
on the calling thread with 10, 0.86-1.03x with 5 (`SCHED_IDLE`: 6.2-6.4x)."""


def yield_the_cores() -> None:
    """Raise the calling thread's nice value by `NICE` (at most to 19), so
    that it stays below the workers, which have the nice value of the
    thread that made the device. Lowering one's own priority needs no
    privilege; refused, or where threads have no nice value (Windows), the
    thread keeps its priority: slower, still right."""
    if not hasattr(os, "setpriority"):
        return
    thread = threading.get_native_id()
    with contextlib.suppress(OSError):
        nice = os.getpriority(os.PRIO_PROCESS, thread)
        os.setpriority(os.PRIO_PROCESS, thread, min(nice + NICE, 19))


class _Caller:
    """A daemon thread, `NICE` below its caller's priority, that runs the
    jobs put to it, in turn."""

    def __init__(self) -> None:
        self.jobs: queue.SimpleQueue[_Job | None] = queue.SimpleQueue()
        self.pid = os.getpid()
        self.thread = threading.Thread(
            target=self._serve, name="gradopt-iree-caller", daemon=True
        )
        self.thread.start()

    def _serve(self) -> None:
        yield_the_cores()
        while (job := self.jobs.get()) is not None:
            function, outcome, done = job
            try:
                outcome.append((True, function()))
            except BaseException as error:  # raised again on the calling thread
                outcome.append((False, error))
            del function, outcome, job  # nothing of the call outlives it here
            done.release()

    def call(self, function: Callable[[], T]) -> T:
        outcome: list[tuple[bool, object]] = []
        done = threading.Lock()
        done.acquire()
        self.jobs.put((function, outcome, done))
        done.acquire()
        returned, value = outcome[0]
        if not returned:
            assert isinstance(value, BaseException)
            raise value
        return value  # type: ignore[return-value]

    def stop(self) -> None:
        self.jobs.put(None)


_callers = threading.local()


def call_waiting(function: Callable[[], T]) -> T:
    """`function()` run on the calling thread's waiting thread (made on its
    first call, stopped when the calling thread is gone); its exception, if
    it raises, is raised here."""
    caller: _Caller | None = getattr(_callers, "caller", None)
    if caller is None or caller.pid != os.getpid():  # none yet, or a fork's copy
        caller = _callers.caller = _Caller()
        weakref.finalize(threading.current_thread(), caller.stop)
    return caller.call(function)
