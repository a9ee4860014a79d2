"""IREE's compile on a background thread, for `backend="auto"`.

IREE takes seconds to compile a program (4 s for the MLP step of
`bench/RESULTS.md`), while the interpreter answers at once. `backend="auto"`
runs on the interpreter while one thread per `Program` compiles, and on IREE
once the module is there. The compile runs at most once, whichever threads
ask for it; it is a daemon thread, so a process that ends while it compiles
does not wait for it. A failed compile is kept and reported once, as a
`CompileWarning` on the thread that next runs the program (a warning raised
on the background thread would go to whatever filters hold there): "auto"
then stays on the interpreter, as it does without the `iree` extra, which is
not worth a warning since "auto" is meant to work without it.
"""

from __future__ import annotations

import threading
import warnings
from collections.abc import Callable

from gradopt.support.diagnostics import GradoptError


class CompileWarning(UserWarning):
    """IREE could not compile a program run with `backend="auto"`, which
    therefore stays on the interpreter."""


class BackgroundCompile:
    """One compile by `compile` on a daemon thread, started by the first
    `start`. `compile` returns False when IREE is not installed and raises
    `GradoptError` when it fails; any other exception is a failure too (it
    must not end up unseen on a thread nobody joins)."""

    def __init__(self, compile: Callable[[], bool]) -> None:
        self._compile = compile
        self._lock = threading.Lock()
        self._done = threading.Event()
        self._thread: threading.Thread | None = None
        self._compiled = False
        self._failure: str | None = None

    def start(self) -> None:
        """Start the compile unless it has started (from any thread)."""
        if self._thread is not None:
            return
        with self._lock:
            if self._thread is None:
                self._thread = threading.Thread(
                    target=self._run, name="gradopt IREE compile", daemon=True
                )
                self._thread.start()

    def _run(self) -> None:
        try:
            self._compiled = self._compile()
        except GradoptError as error:
            self._failure = str(error)
        except Exception as error:
            self._failure = f"{type(error).__name__}: {error}"
        finally:
            self._done.set()

    def compiled(self, timeout: float | None = 0) -> bool:
        """Whether the compiled module is there, after waiting up to
        `timeout` seconds (None: until the compile ends) for a compile that
        has started. A failure is warned of by the first call that sees it."""
        if self._thread is None:
            return False
        if not self._done.wait(timeout):
            return False
        if self._failure is not None:
            with self._lock:
                failure, self._failure = self._failure, None
            if failure is not None:
                warnings.warn(
                    CompileWarning(
                        f"backend='auto' stays on the interpreter: {failure}"
                    ),
                    stacklevel=3,
                )
        return self._compiled
