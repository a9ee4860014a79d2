"""Safe file I/O for gradopt's drivers and its IREE cache.

Everything gradopt writes goes through `write_atomically`, everything it reads
from a path a user names goes through `read_bounded` (or `load_npy`), because
the obvious `open(path, "w")` and `path.read_bytes()` fail in ways a user
cannot recover from:

- Writing in place leaves a truncated file when the disk fills up or the
  process is killed; so a regular file is replaced by a complete temporary
  copy (flushed to the disk first), or not at all.
- Replacing blindly is worse: `os.replace` onto `/dev/null` (as root) or onto a
  FIFO deletes the device node or the pipe. So what is not a regular file is
  written in place, exactly as `open()` would, and a symlink is followed to the
  file it names, which is the one replaced.
- Reading without a bound hangs on a FIFO that has no writer, and exhausts the
  memory on `/dev/zero`. So a path is opened without blocking, checked, and
  read up to a limit.

Temporaries are named `.NAME.gradopt-tmp-HOST-PID-RANDOM` beside their target,
so that one left behind by a killed process is recognisable; the next write
to the same directory removes those of processes that no longer run, and the
drivers remove their own on SIGINT and SIGTERM (`run_interruptibly`).
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import hashlib
import io
import math
import os
import re
import secrets
import signal
import socket
import stat
import sys
import threading
from collections.abc import Callable, Iterator
from types import FrameType
from typing import TYPE_CHECKING, BinaryIO, cast

import numpy as np

from gradopt.support import environment

if TYPE_CHECKING:
    from _typeshed import WriteableBuffer

PROGRAM_LIMIT_VARIABLE = "GRADOPT_MAX_PROGRAM_BYTES"
"""The environment variable that overrides `DEFAULT_PROGRAM_LIMIT`."""

DEFAULT_PROGRAM_LIMIT = 256 << 20
"""The largest program text read (256 MiB, about five million ops: parsing it
would take minutes and tens of GB; anything larger is a mistake such as
`/dev/zero`)."""

DATA_LIMIT_VARIABLE = "GRADOPT_MAX_DATA_BYTES"
"""The environment variable that overrides `DEFAULT_DATA_LIMIT`."""

DEFAULT_DATA_LIMIT = 4 << 30
"""The largest `.npy` input read (4 GiB of array data)."""

TEMPORARY_TAG = "gradopt-tmp"
"""What every temporary file's name contains."""

_CHUNK = 1 << 20

_HOST = hashlib.sha256(socket.gethostname().encode()).hexdigest()[:8]
"""This machine, in temporaries' names: a directory shared over the network
may hold temporaries of live processes on other machines, which the sweep
leaves alone."""

_TEMPORARY = re.compile(
    rf"\..*\.{TEMPORARY_TAG}-(?P<host>[0-9a-f]{{8}})-(?P<pid>[0-9]+)-[0-9a-f]+"
)


class FileError(Exception):
    """A file that gradopt refuses to read, with the reason for the user."""


def limit_from_environment(variable: str, default: int, minimum: int = 1) -> int:
    """The byte limit set by `variable`, or `default`; a malformed value is a
    `FileError` rather than a silently ignored setting."""
    try:
        return environment.integer(variable, default, minimum)
    except environment.SettingError as error:
        raise FileError(str(error)) from None


def describe(error: OSError | FileError) -> str:
    """The message of a read or write error, for `FILE: error: MESSAGE`."""
    if isinstance(error, OSError):
        return error.strerror or str(error)
    return str(error)


def program_limit() -> int:
    """The largest program text read (`GRADOPT_MAX_PROGRAM_BYTES`)."""
    return limit_from_environment(PROGRAM_LIMIT_VARIABLE, DEFAULT_PROGRAM_LIMIT)


def data_limit() -> int:
    """The largest `.npy` data read (`GRADOPT_MAX_DATA_BYTES`)."""
    return limit_from_environment(DATA_LIMIT_VARIABLE, DEFAULT_DATA_LIMIT)


def _too_large(limit: int, variable: str | None) -> FileError:
    where = f" (set {variable} to change it)" if variable else ""
    return FileError(f"larger than the limit of {limit} bytes{where}")


# --- reading ------------------------------------------------------------------


@contextlib.contextmanager
def open_bounded(
    path: str | os.PathLike[str],
    limit: int,
    *,
    variable: str | None = None,
    regular_only: bool = False,
    follow_symlinks: bool = True,
) -> Iterator[tuple[BinaryIO, int | None]]:
    """`path` opened for reading, with its size where it is known (None for
    a device such as a terminal or `/dev/zero`, or a pipe, which are read as
    streams).

    The open never blocks: a FIFO opened normally waits for a writer forever.
    A regular file larger than `limit` is refused before it is read; a FIFO
    or pipe is refused at once if no process has it open for writing.
    `regular_only` refuses everything but regular files (and, without
    `follow_symlinks`, symlinks): what the IREE cache needs, where nothing
    else can be a valid entry."""
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0)
    if not follow_symlinks:
        flags |= getattr(os, "O_NOFOLLOW", 0)
    descriptor = os.open(path, flags | getattr(os, "O_CLOEXEC", 0))
    try:
        status = os.fstat(descriptor)
        if stat.S_ISDIR(status.st_mode):
            raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), str(path))
        regular = stat.S_ISREG(status.st_mode)
        if regular_only and not regular:
            raise FileError("not a regular file")
        if regular and status.st_size > limit:
            raise _too_large(limit, variable)
        first = _first_of_pipe(descriptor) if stat.S_ISFIFO(status.st_mode) else None
        with contextlib.suppress(OSError):
            os.set_blocking(descriptor, True)
        file = os.fdopen(descriptor, "rb")
    except BaseException:
        os.close(descriptor)
        raise
    with file:
        if first is not None:
            yield cast(BinaryIO, io.BufferedReader(_Prefixed(first, file))), None
        else:
            yield file, status.st_size if regular else None


class _Prefixed(io.RawIOBase):
    """The bytes already read from a pipe (to learn whether it has a writer),
    then the rest of it, as one stream: the pipe is read as its reader needs
    it, never gathered whole first."""

    def __init__(self, first: bytes, rest: BinaryIO) -> None:
        self.first = memoryview(first)
        self.rest = rest

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: WriteableBuffer) -> int:
        target = memoryview(buffer).cast("B")
        if self.first:
            count = min(len(target), len(self.first))
            target[:count] = self.first[:count]
            self.first = self.first[count:]
            return count
        return cast(io.BufferedReader, self.rest).readinto(target)


def _first_of_pipe(descriptor: int) -> bytes:
    """What a FIFO or pipe holds now, read without blocking: empty if a writer
    has not written yet; `FileError` if it has no writer (a non-blocking read
    gives end-of-file only then, where a blocking one would wait for one)."""
    try:
        first = os.read(descriptor, _CHUNK)
    except BlockingIOError:  # a writer, no data yet
        return b""
    if not first:
        raise FileError("a named pipe (FIFO) that no process is writing to")
    return first


def read_stream(
    file: BinaryIO, limit: int, variable: str | None = None, shown: int | None = None
) -> bytes:
    """All of `file`, refused once it passes `limit` bytes (a stream such as
    `/dev/zero` has no end); the error names `shown` as the limit, if given."""
    chunks: list[bytes] = []
    total = 0
    while chunk := file.read(min(_CHUNK, limit + 1 - total)):
        chunks.append(chunk)
        total += len(chunk)
        if total > limit:
            raise _too_large(limit if shown is None else shown, variable)
    return b"".join(chunks)


def read_bounded(
    path: str | os.PathLike[str],
    limit: int,
    *,
    variable: str | None = None,
    regular_only: bool = False,
    follow_symlinks: bool = True,
) -> bytes:
    """The bytes of `path` (see `open_bounded`); `FileError` past `limit`."""
    with open_bounded(
        path,
        limit,
        variable=variable,
        regular_only=regular_only,
        follow_symlinks=follow_symlinks,
    ) as (file, _):
        return read_stream(file, limit, variable)


def read_program(path: str | None) -> bytes:
    """A program's text from `path`, or standard input for None or `-`, within
    `GRADOPT_MAX_PROGRAM_BYTES`; raises `OSError` or `FileError`."""
    limit = program_limit()
    if path is None or path == "-":
        if sys.stdin is None:  # started with standard input closed (`<&-`)
            raise FileError("standard input is closed: name a file to read")
        return read_stream(sys.stdin.buffer, limit, PROGRAM_LIMIT_VARIABLE)
    return read_bounded(path, limit, variable=PROGRAM_LIMIT_VARIABLE)


_NPY_MAGIC = b"\x93NUMPY"
_NPY_HEADERS = {
    (1, 0): np.lib.format.read_array_header_1_0,
    (2, 0): np.lib.format.read_array_header_2_0,
}


def load_npy(path: str | os.PathLike[str]) -> np.ndarray:
    """The array in the `.npy` file `path`, in C order; raises `OSError`,
    `FileError` or `ValueError`, with a message saying what is wrong.

    `numpy.load` is not used because its errors mislead: any file that lacks
    the magic string is "pickled data", and a 100-byte file whose header
    declares a terabyte "does not fit in memory". Here the header is checked
    against the file's size (or, for a stream, against the limit) before
    anything is allocated, and Python objects are never unpickled."""
    limit = data_limit()
    with open_bounded(path, limit, variable=DATA_LIMIT_VARIABLE) as (file, size):
        magic = file.read(len(_NPY_MAGIC) + 2)
        if magic.startswith(b"PK\x03\x04"):
            raise ValueError("it is an .npz archive, not a .npy file")
        if len(magic) < len(_NPY_MAGIC) + 2 or not magic.startswith(_NPY_MAGIC):
            raise ValueError(
                "not a .npy file (it does not start with NumPy's magic string)"
            )
        version = (magic[-2], magic[-1])
        if version not in _NPY_HEADERS:
            raise ValueError(
                f".npy format version {version[0]}.{version[1]} "
                "is not supported (1.0 and 2.0 are)"
            )
        header = _npy_header(file, version, size)
        try:
            shape, fortran_order, dtype = _NPY_HEADERS[version](
                header, max_header_size=_NPY_HEADER_LIMIT
            )
        except (ValueError, SyntaxError, TypeError) as error:
            raise ValueError(f"its .npy header is malformed: {error}") from None
        if dtype.hasobject:
            raise ValueError(
                "it holds Python objects (pickled data), which gradopt never loads"
            )
        count = math.prod(shape)
        declared = count * dtype.itemsize
        if size is not None and declared > size - file.tell():
            raise ValueError(
                f"its header declares {dtype} data of shape {tuple(shape)} "
                f"({declared} bytes), but the file holds only "
                f"{size - file.tell()} bytes of data"
            )
        if declared > limit:  # a stream, whose size is not known
            raise _too_large(limit, DATA_LIMIT_VARIABLE)
        try:
            array = np.empty(count, dtype)
        except MemoryError:
            raise ValueError(
                f"its data ({declared} bytes) does not fit in memory"
            ) from None
        view = array.data.cast("B")
        reader = cast(io.BufferedIOBase, file)  # a BufferedReader or a BytesIO
        filled = 0
        while filled < declared:
            read = reader.readinto(view[filled:])
            if not read:
                raise ValueError(
                    f"its data ends after {filled} of the {declared} bytes that "
                    f"its header declares"
                )
            filled += read
    if not dtype.isnative:  # big-endian data: the same values, in this order
        array = array.astype(dtype.newbyteorder("="))
    if fortran_order:
        return np.asarray(array.reshape(shape[::-1]).T, order="C")
    return array.reshape(shape)


_NPY_HEADER_LIMIT = 10000
"""The longest `.npy` header read (NumPy's own default): the header of any
array's shape and dtype is a few hundred bytes."""


def _npy_header(file: BinaryIO, version: tuple[int, int], size: int | None) -> BinaryIO:
    """The header after the magic string (its length field, then its text),
    checked before it is read: a 20-byte file whose length field says 4 GB
    would make NumPy allocate 4 GB, and a long header makes NumPy advise an
    option (`allow_pickle`) that has nothing to do with it."""
    width = 2 if version == (1, 0) else 4
    field = file.read(width)
    if len(field) < width:
        raise ValueError("its .npy header is truncated")
    length = int.from_bytes(field, "little")
    if size is not None and length > size - file.tell():
        raise ValueError(
            f"its .npy header claims {length} bytes, but the file holds only "
            f"{size - file.tell()} more"
        )
    if length > _NPY_HEADER_LIMIT:
        raise ValueError(
            f"its .npy header is {length} bytes long, more than the "
            f"{_NPY_HEADER_LIMIT} bytes any array's header needs"
        )
    text = file.read(length)
    if len(text) < length:
        raise ValueError("its .npy header is truncated")
    return io.BytesIO(field + text)


# --- writing ------------------------------------------------------------------

_temporaries: set[str] = set()
_temporaries_lock = threading.Lock()
_exiting = False
"""Set once the process is exiting on a signal: no temporary is created
after those being written were removed."""
_signals: int | None = None
"""The read end of the pipe into which the C-level handler writes the number
of every signal as it arrives (`signal.set_wakeup_fd`), while a driver runs:
the Python-level handler runs later, between the main thread's bytecodes, and
a write finishing in the meantime does not rename its temporary. (A signal
that the kernel has not yet handed to the main thread, which a loaded machine
may not schedule at once, is not seen: the write then completes, atomically,
as one finished just before the signal would.)"""


def remove_temporaries(final: bool = False) -> None:
    """Delete every temporary file this process is writing: what the drivers
    do when interrupted, before they exit. `final`: the process exits next,
    while its work may still be running, which must then create no more."""
    global _exiting
    with _temporaries_lock:
        _exiting = _exiting or final
        paths = list(_temporaries)
        _temporaries.clear()
    for path in paths:
        with contextlib.suppress(OSError):
            os.unlink(path)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # EPERM: another user's process, alive
        return True
    return True


def _abandoned(path: str) -> bool:
    """Whether no process holds the lock of the temporary at `path`; the lock
    is held by its writer from creation to rename, wherever it runs (another
    PID namespace sharing the folder, whose process IDs mean nothing here),
    and released by the kernel when the writer dies."""
    try:
        descriptor = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
    except OSError:
        return False
    try:
        fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        return False
    finally:
        os.close(descriptor)  # the lock goes with it
    return True


def sweep_temporaries(directory: str | os.PathLike[str]) -> list[str]:
    """Delete the temporaries in `directory` that processes of this machine
    left when they were killed (no process holds their lock, and their
    process ID is not that of a running process); returns their paths. A
    temporary of a live writer, of another machine, or anything that is not
    a regular file is left alone."""
    removed = []
    try:
        entries = list(os.scandir(directory))
    except OSError:
        return removed
    for entry in entries:
        match = _TEMPORARY.fullmatch(entry.name)
        if match is None or match["host"] != _HOST:
            continue
        pid = int(match["pid"])
        if pid == os.getpid() or _alive(pid):
            continue
        with contextlib.suppress(OSError):
            if entry.is_file(follow_symlinks=False) and _abandoned(entry.path):
                os.unlink(entry.path)
                removed.append(entry.path)
    return removed


def _temporary_name(target: str) -> str:
    directory, name = os.path.split(target)
    token = secrets.token_hex(4)
    return os.path.join(
        directory, f".{name[:120]}.{TEMPORARY_TAG}-{_HOST}-{os.getpid()}-{token}"
    )


def _writable(path: str, status: os.stat_result) -> bool:
    """Whether `open(path, "w")` would be allowed (effective ids, as the
    kernel checks them); a replaced file must not be one the user may not
    write, even though the rename itself needs only the directory."""
    if os.access in os.supports_effective_ids:
        return os.access(path, os.W_OK, effective_ids=True)
    return os.access(path, os.W_OK)


def write_atomically(
    path: str | os.PathLike[str], write: Callable[[BinaryIO], object]
) -> None:
    """Call `write` with a binary file that ends up at `path`, all or nothing.

    - A path that does not exist, or a regular file, is written as a temporary
      file beside it, flushed to the disk (`fsync`), then renamed over it: a
      failure or a kill leaves the old file (or none) and never a partial one.
      An existing file keeps its permission bits (a 0600 file stays 0600) and,
      where the user may change them, its owner; a new one gets what `open()`
      would give (0666 less the umask). A file the user may not write is
      refused with `PermissionError`, as `open()` refuses it.
    - A symlink is followed: the file it names is replaced, the link stays.
    - Anything else (a device such as `/dev/null`, a FIFO, a socket, a
      terminal) is written in place, exactly as `open(path, "wb")` would:
      replacing it would delete it.
    """
    try:
        status: os.stat_result | None = os.stat(path)
    except FileNotFoundError:
        status = None
    if (status is not None and not stat.S_ISREG(status.st_mode)) or _names_a_descriptor(
        path
    ):
        _write_in_place(path, write)
        return
    target = os.path.realpath(path)
    if status is not None and not _writable(target, status):
        raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), str(path))
    directory = os.path.dirname(target)
    sweep_temporaries(directory)
    mode = stat.S_IMODE(status.st_mode) if status is not None else 0o666
    temporary, descriptor = _create_temporary(target, mode & 0o777)
    try:
        with os.fdopen(descriptor, "wb", closefd=False) as file:
            if status is not None:
                _keep_owner_and_mode(descriptor, status)
            write(file)
            file.flush()
            os.fsync(descriptor)
        with _temporaries_lock:  # not after an interruption, even unhandled
            if temporary not in _temporaries or _signalled():
                raise Terminated
            os.replace(temporary, target)  # still locked: no sweep can take it
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise
    finally:
        os.close(descriptor)
        with _temporaries_lock:
            _temporaries.discard(temporary)
    _sync_directory(directory)


def _signalled() -> bool:
    """Whether SIGINT or SIGTERM has arrived since the driver started; once it
    has, `_exiting` remembers it (the pipe's bytes are read only once)."""
    global _exiting
    if _signals is not None and not _exiting:
        with contextlib.suppress(OSError):
            arrived = os.read(_signals, 512)
            _exiting = not {signal.SIGINT, signal.SIGTERM}.isdisjoint(arrived)
    return _exiting


def _create_temporary(target: str, mode: int) -> tuple[str, int]:
    """A new temporary for `target`, open and locked (`flock`) until it is
    renamed: the sweep of another process deletes only temporaries whose lock
    it can take. Created under this process's lock, so that none appears
    once the process is exiting (`remove_temporaries(final=True)`)."""
    while True:
        temporary = _temporary_name(target)
        with _temporaries_lock:
            if _exiting:
                raise Terminated
            descriptor = os.open(
                temporary,
                os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0),
                mode,  # the umask applies, as it does to open()
            )
            _temporaries.add(temporary)
        try:
            fcntl.flock(descriptor, fcntl.LOCK_EX)
            # a sweep that came between the open and the lock deleted it
            if os.path.samestat(os.fstat(descriptor), os.stat(temporary)):
                return temporary, descriptor
        except FileNotFoundError:
            pass
        except BaseException:
            os.close(descriptor)
            raise
        os.close(descriptor)
        with _temporaries_lock:
            _temporaries.discard(temporary)


_DESCRIPTOR = re.compile(r"/(proc/[^/]+|dev)/fd/[0-9]+")


def _names_a_descriptor(path: str | os.PathLike[str]) -> bool:
    """Whether `path` is, or links to, an open descriptor (`/dev/stdout` is
    `/proc/self/fd/1`): the file behind it may be a pipe, whose link names
    no path, or a file the shell opened (to append, say), which must be
    written through the descriptor rather than replaced."""
    name = os.path.abspath(path)
    for _ in range(40):  # the kernel's limit on a chain of links
        if _DESCRIPTOR.fullmatch(name):
            return True
        try:
            link = os.readlink(name)
        except OSError:
            return False
        name = os.path.normpath(os.path.join(os.path.dirname(name), link))
    return False


def _write_in_place(path: str | os.PathLike[str], write: Callable[[BinaryIO], object]):
    """`write` into what `path` names, opened as `open(path, "wb")` opens it.
    The data is gathered first: a writer such as `numpy.savez` seeks, which a
    pipe refuses and `/dev/null` answers wrongly."""
    buffer = io.BytesIO()
    write(buffer)
    with open(path, "wb") as file:
        file.write(buffer.getbuffer())


def _keep_owner_and_mode(descriptor: int, status: os.stat_result) -> None:
    """Give the temporary the replaced file's owner (where allowed: as root,
    or a group the user is in) and then its exact mode (`fchown` clears the
    set-id bits, and the umask may have cleared others)."""
    if hasattr(os, "fchown"):
        with contextlib.suppress(OSError):
            os.fchown(descriptor, status.st_uid, status.st_gid)
    os.fchmod(descriptor, stat.S_IMODE(status.st_mode))


def _sync_directory(directory: str) -> None:
    """Make the rename itself durable; not every system lets a directory be
    opened or synced, and the data is safe either way."""
    with contextlib.suppress(OSError, AttributeError):
        descriptor = os.open(directory, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
        try:
            os.fsync(descriptor)
        finally:
            os.close(descriptor)


# --- signals --------------------------------------------------------------------


class Terminated(BaseException):
    """SIGTERM arrived: unwinds like `KeyboardInterrupt`, so that every
    `finally` (and every temporary's removal) runs."""


def _terminate(signum: int, frame: FrameType | None) -> None:
    raise Terminated


def run_interruptibly(program: str, body: Callable[[], int]) -> int:
    """`body()`, except that Ctrl-C (SIGINT) or SIGTERM removes the temporary
    files being written and exits with one line, status 130 or 143 (128 plus
    the signal's number, as a shell reports it), instead of a traceback.

    Python runs signal handlers only between bytecodes of the main thread, so
    a signal that arrives while NumPy computes a large product would wait for
    it (half a minute for a 10000² `dot`). So the main thread runs `body` in
    a worker thread and only waits for it: the wait is what the signal
    interrupts. The worker cannot be stopped; once the temporaries are gone
    the process exits at once (`os._exit`) if the worker is still running."""
    if threading.current_thread() is not threading.main_thread():
        return _reported(program, body, lambda: False)  # signals are the main's
    global _signals
    worker = _Worker(body)
    previous = signal.signal(signal.SIGTERM, _terminate)
    reader, writer = os.pipe()
    for end in (reader, writer):
        os.set_blocking(end, False)
    previous_wakeup = signal.set_wakeup_fd(writer, warn_on_full_buffer=False)
    _signals = reader
    try:
        return _reported(program, worker.run, worker.running)
    finally:
        signal.set_wakeup_fd(previous_wakeup)
        signal.signal(signal.SIGTERM, previous)
        _signals = None
        os.close(reader)
        os.close(writer)


def _reported(
    program: str, body: Callable[[], int], running: Callable[[], bool]
) -> int:
    """`body()`, with an interruption reported as one line; if work is still
    `running` then, the process ends at once: Python would wait for it at
    exit, and OpenBLAS's exit handler for its threads."""
    try:
        return body()
    except KeyboardInterrupt:
        word, status = "interrupted", 128 + signal.SIGINT
    except Terminated:
        word, status = "terminated", 128 + signal.SIGTERM
    busy = running()
    remove_temporaries(final=busy)
    print(f"{program}: {word}", file=sys.stderr)
    if busy:
        with contextlib.suppress(Exception):
            sys.stdout.flush()
            sys.stderr.flush()
        os._exit(status)
    return status


class _Worker:
    """A body run in a daemon thread while the main thread waits for it (a
    wait that a signal interrupts); its exception is raised in the waiter."""

    def __init__(self, body: Callable[[], int]) -> None:
        self.body = body
        self.done = threading.Event()
        self.outcome: list[int] = []
        self.failure: list[BaseException] = []

    def running(self) -> bool:
        """Whether the body has not finished (`Thread.is_alive` is not to be
        trusted once a signal has interrupted `join`)."""
        return not self.done.is_set()

    def work(self) -> None:
        try:
            self.outcome.append(self.body())
        except BaseException as error:  # re-raised in the waiting thread
            self.failure.append(error)
        finally:
            self.done.set()

    def run(self) -> int:
        threading.Thread(target=self.work, name="gradopt driver", daemon=True).start()
        self.done.wait()
        if self.failure:
            raise self.failure[0]
        return self.outcome[0]
