"""Results independent of the BLAS thread count (`GRADOPT_DETERMINISTIC`).

`grad.dot` is `numpy.matmul` (SPEC §6), which hands float32 products to the
BLAS library NumPy was built with (OpenBLAS in NumPy's wheels). OpenBLAS
splits a product between its threads, and the split changes the order in
which some elements' terms are added: measured on this project's 2-core
machine, a 256x784 @ 784x512 and a 300x2000 @ 2000x3 product give other bits
with `OPENBLAS_NUM_THREADS=1` (or `taskset -c 0`) than with 2 threads. So the
bits of a program with `dot` depend on how many threads BLAS runs, which
depends on the CPUs the process may use and on `OPENBLAS_NUM_THREADS`.

`single_threaded_blas()` runs BLAS on one thread while a caller is inside
it; with it, the bits are those of the one-thread run whatever the machine's
thread count. The limit is process-wide (OpenBLAS has one thread count; its
`openblas_set_num_threads_local` changes the same global in the pthreads
build NumPy ships, measured): the first caller in sets it, the last one out
restores it, so concurrent runs never see it lifted under them, and other
NumPy code in the process runs on one BLAS thread meanwhile. It calls
OpenBLAS's `openblas_set_num_threads` in the copy this process has loaded,
or threadpoolctl, if it is installed, for other BLAS libraries. Where neither
can reach NumPy's BLAS it raises `DeterminismError` rather than promise what
it cannot keep.
"""

from __future__ import annotations

import contextlib
import ctypes
import threading
from collections.abc import Callable, Iterator
from functools import cache

from gradopt.support import environment

VARIABLE = "GRADOPT_DETERMINISTIC"
"""Set to 1 to run every `Program.run` as with `deterministic=True`."""

_SET = (
    "scipy_openblas_set_num_threads64_",
    "scipy_openblas_set_num_threads",
    "openblas_set_num_threads64_",
    "openblas_set_num_threads",
)
_GET = (
    "scipy_openblas_get_num_threads64_",
    "scipy_openblas_get_num_threads",
    "openblas_get_num_threads64_",
    "openblas_get_num_threads",
)


class DeterminismError(Exception):
    """The BLAS library's threads cannot be limited from here."""


def from_environment() -> bool:
    """Whether `GRADOPT_DETERMINISTIC` asks for deterministic runs: read at
    each run, so that a change is seen at once (unset, the common case, costs
    a dictionary lookup: `environment.is_set`)."""
    try:
        return environment.flag(VARIABLE)
    except environment.SettingError as error:
        raise DeterminismError(str(error)) from None


@cache
def _openblas() -> ctypes.CDLL | None:
    """NumPy's OpenBLAS, if this process has loaded one (Linux: the shared
    objects mapped into the process, so that it is the very copy NumPy calls
    and not another one found on disk)."""
    import numpy  # noqa: F401  (loads NumPy's BLAS)

    try:
        with open("/proc/self/maps") as maps:
            paths = {
                line.split(maxsplit=5)[-1].strip()
                for line in maps
                if "openblas" in line.lower() and "/" in line
            }
    except OSError:
        return None
    for path in sorted(paths):
        try:
            library = ctypes.CDLL(path)
        except OSError:
            continue
        if any(hasattr(library, name) for name in _SET):
            return library
    return None


def _function(library: ctypes.CDLL, names: tuple[str, ...]) -> Callable[..., int]:
    for name in names:
        if hasattr(library, name):
            function = getattr(library, name)
            function.restype = ctypes.c_int
            return function
    raise DeterminismError("OpenBLAS has none of " + ", ".join(names))


Limit = Callable[[], Callable[[], object] | None]
"""Limits BLAS to one thread, and returns how to undo it (None: it ran on
one already, which saves two calls into OpenBLAS a run)."""

_global_lock = threading.Lock()
_global_users = 0
_global_restore: Callable[[], object] | None = None


class _ProcessWide:
    """One thread for BLAS while any caller is inside: the first one in
    limits it (`limit` returns how to undo it), the last one out restores
    it, so that concurrent runs never see the limit lifted under them. A
    class rather than a generator: it is entered on every run of a program
    of small products, and costs a third as much."""

    __slots__ = ("limit",)

    def __init__(self, limit: Limit):
        self.limit = limit

    def __enter__(self) -> None:
        global _global_users, _global_restore
        with _global_lock:
            if _global_users == 0:
                _global_restore = self.limit()
            _global_users += 1

    def __exit__(self, *exception: object) -> None:
        global _global_users, _global_restore
        with _global_lock:
            _global_users -= 1
            if _global_users == 0 and _global_restore is not None:
                _global_restore()
                _global_restore = None


def _threadpoolctl_limit() -> Callable[[], object]:
    import threadpoolctl  # pyright: ignore[reportMissingImports]  (optional)

    limits = threadpoolctl.threadpool_limits(limits=1, user_api="blas")
    return limits.restore_original_limits


def _openblas_limit(library: ctypes.CDLL) -> Limit:
    set_threads, get_threads = _function(library, _SET), _function(library, _GET)

    def limit() -> Callable[[], object] | None:
        before = get_threads()
        if before == 1:  # as NumPy's BLAS runs with OPENBLAS_NUM_THREADS=1
            return None
        set_threads(1)
        return lambda: set_threads(before)

    return limit


def _has_threadpoolctl() -> bool:
    import importlib.util

    return importlib.util.find_spec("threadpoolctl") is not None


@cache
def _one_thread_limit() -> Limit | None:
    """How this process limits BLAS to one thread, or None if it cannot;
    found once (finding OpenBLAS's functions by name took 35 us a time)."""
    library = _openblas()
    if library is not None:
        return _openblas_limit(library)
    if _has_threadpoolctl():
        return _threadpoolctl_limit
    return None


@contextlib.contextmanager
def single_threaded_blas() -> Iterator[None]:
    """BLAS runs on one thread while any caller is inside (see the module's
    docstring); raises `DeterminismError` where it cannot."""
    limit = _one_thread_limit()
    if limit is None:
        raise DeterminismError(
            "cannot run NumPy's BLAS on one thread: it is not OpenBLAS, or this "
            "system does not show which libraries are loaded; install "
            "threadpoolctl (pip install threadpoolctl), which knows the others"
        )
    with _ProcessWide(limit):
        yield


def one_blas_thread_if_possible() -> contextlib.AbstractContextManager[None]:
    """As `single_threaded_blas`, or nothing where BLAS cannot be limited (a
    choice for speed, which needs no promise kept)."""
    limit = _one_thread_limit()
    return contextlib.nullcontext() if limit is None else _ProcessWide(limit)


def blas_threads() -> int | None:
    """How many threads OpenBLAS would use for a product on the calling
    thread now, or None without OpenBLAS (for tests and benchmarks)."""
    library = _openblas()
    if library is None:
        return None
    return _function(library, _GET)()
