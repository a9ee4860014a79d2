"""`gradopt.support.files` under attack: atomic writes
that respect special files, symlinks and modes, recognisable temporaries that
are swept or removed on signals, and reads that neither hang nor run out of
memory. Devices are stood in for by FIFOs and symlinks; `/dev/zero` is only
ever read."""

from __future__ import annotations

import errno
import os
import signal
import stat
import subprocess
import sys
import tempfile
import textwrap
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import BinaryIO

import numpy as np
import pytest
from fifos import opened

from gradopt.support import files

TEMPORARY = f".{files.TEMPORARY_TAG}-"


def temporaries(directory: Path) -> list[str]:
    return sorted(name for name in os.listdir(directory) if TEMPORARY in name)


def writer(data: bytes) -> Callable[[BinaryIO], None]:
    def write(file: BinaryIO) -> None:
        file.write(data)

    return write


# --- what stands at the path --------------------------------------------------


def test_a_fifo_is_written_in_place_not_replaced(
    fifo_reader: tuple[Path, int],
) -> None:
    path, reader = fifo_reader
    files.write_atomically(path, writer(b"through the pipe"))
    assert stat.S_ISFIFO(os.lstat(path).st_mode)  # still the FIFO
    assert os.read(reader, 100) == b"through the pipe"
    assert temporaries(path.parent) == []


def test_a_symlink_to_a_special_file_is_followed_and_written_in_place(
    fifo_reader: tuple[Path, int],
) -> None:
    """As `/proc/self/fd/1` is a symlink to a terminal or a pipe."""
    path, reader = fifo_reader
    link = path.parent / "fd1"
    link.symlink_to(path)
    files.write_atomically(link, writer(b"out"))
    assert link.is_symlink() and stat.S_ISFIFO(os.lstat(path).st_mode)
    assert os.read(reader, 100) == b"out"


def test_a_symlink_is_followed_and_its_target_replaced(tmp_path: Path) -> None:
    target = tmp_path / "data" / "values.npz"
    target.parent.mkdir()
    target.write_bytes(b"old")
    link = tmp_path / "link.npz"
    link.symlink_to(target)
    files.write_atomically(link, writer(b"new"))
    assert link.is_symlink() and os.readlink(link) == str(target)
    assert target.read_bytes() == b"new"
    assert temporaries(tmp_path) == temporaries(target.parent) == []


def test_a_dangling_symlink_creates_its_target(tmp_path: Path) -> None:
    link = tmp_path / "link"
    link.symlink_to(tmp_path / "made")
    files.write_atomically(link, writer(b"x"))
    assert link.is_symlink() and (tmp_path / "made").read_bytes() == b"x"


@pytest.mark.parametrize("mode", [0o600, 0o640, 0o604, 0o755])
def test_a_replaced_file_keeps_its_mode(tmp_path: Path, mode: int) -> None:
    path = tmp_path / "secret.npz"
    path.write_bytes(b"old")
    path.chmod(mode)
    files.write_atomically(path, writer(b"new"))
    assert path.read_bytes() == b"new"
    assert stat.S_IMODE(path.stat().st_mode) == mode


def test_a_new_file_gets_what_open_would_give(tmp_path: Path) -> None:
    umask = os.umask(0o027)
    try:
        files.write_atomically(tmp_path / "new", writer(b"x"))
        with open(tmp_path / "by_open", "wb"):
            pass
    finally:
        os.umask(umask)
    modes = {stat.S_IMODE((tmp_path / n).stat().st_mode) for n in ("new", "by_open")}
    assert modes == {0o640}


def test_a_file_the_user_may_not_write_is_refused(tmp_path: Path) -> None:
    """Renaming over it needs only the directory; `open()` would refuse it.
    As root every file is writable, so the check runs as `nobody` there."""
    if os.geteuid() != 0:
        path = tmp_path / "read-only"
        path.write_bytes(b"old")
        path.chmod(0o444)
        with pytest.raises(PermissionError):
            files.write_atomically(path, writer(b"new"))
        assert path.read_bytes() == b"old"
        return
    with tempfile.TemporaryDirectory(dir="/tmp") as scratch:
        os.chown(scratch, 65534, 65534)
        path = Path(scratch) / "roots.npz"
        path.write_bytes(b"old")
        path.chmod(0o644)  # root's: nobody may read it, not write it
        # Python and gradopt may live where nobody cannot read them: import
        # first, then become nobody
        script = textwrap.dedent(
            f"""
            import os
            from gradopt.support import files
            os.setgid(65534)
            os.setuid(65534)
            try:
                files.write_atomically({str(path)!r}, lambda f: f.write(b"new"))
            except PermissionError as error:
                print("refused", error.errno)
            """
        )
        result = subprocess.run(
            [sys.executable, "-c", script], capture_output=True, text=True, check=False
        )
        assert result.stdout.split() == ["refused", str(errno.EACCES)], result.stderr
        assert path.read_bytes() == b"old"


def test_a_directory_is_refused_as_open_refuses_it(tmp_path: Path) -> None:
    with pytest.raises(IsADirectoryError):
        files.write_atomically(tmp_path, writer(b"x"))


def test_the_temporary_is_synced_before_the_rename(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls: list[str] = []
    fsync, replace = os.fsync, os.replace

    def recording_fsync(descriptor: int) -> None:
        if stat.S_ISREG(os.fstat(descriptor).st_mode):
            calls.append("fsync")
        fsync(descriptor)

    def recording_replace(source: str, target: str) -> None:
        calls.append("replace")
        replace(source, target)

    monkeypatch.setattr(os, "fsync", recording_fsync)
    monkeypatch.setattr(os, "replace", recording_replace)
    files.write_atomically(tmp_path / "f", writer(b"data"))
    assert calls == ["fsync", "replace"]


def test_a_failed_write_leaves_the_old_file_and_no_temporary(tmp_path: Path) -> None:
    path = tmp_path / "values.npz"
    path.write_bytes(b"old")

    def failing(file: BinaryIO) -> None:
        file.write(b"half")
        raise OSError(errno.ENOSPC, "No space left on device")

    with pytest.raises(OSError, match="No space"):
        files.write_atomically(path, failing)
    assert path.read_bytes() == b"old" and temporaries(tmp_path) == []


# --- temporaries --------------------------------------------------------------


def test_a_temporary_is_recognisable_while_it_is_written(tmp_path: Path) -> None:
    seen: list[str] = []

    def look(file: BinaryIO) -> None:
        seen.extend(temporaries(tmp_path))

    files.write_atomically(tmp_path / "values.npz", look)
    assert len(seen) == 1
    assert seen[0].startswith(".values.npz." + files.TEMPORARY_TAG + "-")
    assert f"-{os.getpid()}-" in seen[0]


def _dead_pid() -> int:
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid


def test_stale_temporaries_of_dead_processes_are_swept_on_the_next_write(
    tmp_path: Path,
) -> None:
    host = files._HOST
    dead = _dead_pid()
    stale = tmp_path / f".out.npz.{files.TEMPORARY_TAG}-{host}-{dead}-0a1b2c3d"
    live = tmp_path / f".out.npz.{files.TEMPORARY_TAG}-{host}-{os.getppid()}-00ff"
    elsewhere = tmp_path / f".out.npz.{files.TEMPORARY_TAG}-00000000-{dead}-00ff"
    unrelated = tmp_path / f"out.npz.{files.TEMPORARY_TAG}-{host}-{dead}-00ff.txt"
    for path in (stale, live, elsewhere, unrelated):
        path.write_bytes(b"x" * 100)
    files.write_atomically(tmp_path / "other.npz", writer(b"new"))
    assert not stale.exists()
    assert live.exists() and elsewhere.exists() and unrelated.exists()


_CHILD = """
import os, signal, sys
from gradopt.support import files

def body() -> int:
    def write(file):
        file.write(b"partial" * 1000)
        file.flush()
        os.kill(os.getpid(), getattr(signal, sys.argv[2]))
        file.write(b"never")
    files.write_atomically(sys.argv[1], write)
    return 0

sys.exit(files.run_interruptibly("child", body))
"""


@pytest.mark.parametrize(
    ("name", "status", "line"),
    [("SIGTERM", 143, "child: terminated"), ("SIGINT", 130, "child: interrupted")],
)
def test_a_signal_during_a_write_removes_the_temporary(
    tmp_path: Path, name: str, status: int, line: str
) -> None:
    target = tmp_path / "values.npz"
    target.write_bytes(b"old")
    result = subprocess.run(
        [sys.executable, "-c", _CHILD, str(target), name],
        capture_output=True,
        text=True,
        check=False,
    )
    assert (result.returncode, result.stderr) == (status, line + "\n")
    # the old file, or (if the worker renamed before the main thread, which a
    # loaded machine may not schedule at once, took the signal) the whole new
    # one: never a part of it, never a temporary left behind
    assert target.read_bytes() in (b"old", b"partial" * 1000 + b"never")
    assert temporaries(tmp_path) == []


def test_a_temporary_left_by_kill_9_is_swept_by_the_next_write(tmp_path: Path) -> None:
    target = tmp_path / "values.npz"
    result = subprocess.run(
        [sys.executable, "-c", _CHILD, str(target), "SIGKILL"], check=False
    )
    assert result.returncode == -signal.SIGKILL
    assert len(temporaries(tmp_path)) == 1 and not target.exists()
    files.write_atomically(target, writer(b"new"))
    assert temporaries(tmp_path) == [] and target.read_bytes() == b"new"


# --- bounded reads ------------------------------------------------------------


def test_an_endless_stream_is_refused_at_the_limit() -> None:
    with pytest.raises(files.FileError, match="larger than the limit of 4096 bytes"):
        files.read_bounded("/dev/zero", 4096)


def test_a_regular_file_past_the_limit_is_refused_before_reading(
    tmp_path: Path,
) -> None:
    path = tmp_path / "big"
    with open(path, "wb") as file:
        file.truncate(1 << 40)  # sparse: a terabyte that takes no space
    with pytest.raises(
        files.FileError, match=r"limit of 1048576 bytes \(set GRADOPT_X"
    ):
        files.read_bounded(path, 1 << 20, variable="GRADOPT_X")


def test_a_fifo_without_a_writer_is_refused_at_once(tmp_path: Path) -> None:
    path = tmp_path / "pipe"
    os.mkfifo(path)
    with pytest.raises(files.FileError, match="no process is writing"):
        files.read_bounded(path, 1 << 20)


def _read_in_a_thread(
    path: Path, read: Callable[[Path], object]
) -> tuple[dict[str, object], threading.Thread]:
    """`read(path)` run by a thread while this one writes the FIFO and closes
    its end once the reader has opened it (closing before would leave a FIFO
    with no writer, which is refused)."""
    outcome: dict[str, object] = {}

    def run() -> None:
        try:
            outcome["value"] = read(path)
        except Exception as error:
            outcome["error"] = error

    return outcome, threading.Thread(target=run)


def _through_fifo(
    tmp_path: Path, data: bytes, read: Callable[[Path], object]
) -> dict[str, object]:
    path = tmp_path / "pipe"
    os.mkfifo(path)
    writer_end = os.open(path, os.O_RDWR)  # a writer, which never blocks
    os.write(writer_end, data)
    outcome, thread = _read_in_a_thread(path, read)
    thread.start()
    try:  # the reader may be done (and have closed its end) before it is seen
        while opened("self", path) < 2 and thread.is_alive():
            time.sleep(0.005)
    finally:
        os.close(writer_end)
    thread.join(120)
    assert not thread.is_alive()
    return outcome


def test_a_fifo_with_a_writer_is_read_whole(tmp_path: Path) -> None:
    outcome = _through_fifo(
        tmp_path, b"hello", lambda p: files.read_bounded(p, 1 << 20)
    )
    assert outcome == {"value": b"hello"}


def test_a_cache_read_refuses_everything_but_a_regular_file(tmp_path: Path) -> None:
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    with pytest.raises(files.FileError, match="not a regular file"):
        files.read_bounded(fifo, 100, regular_only=True)
    link = tmp_path / "link"
    link.symlink_to("/dev/zero")
    with pytest.raises(OSError) as caught:
        files.read_bounded(link, 100, regular_only=True, follow_symlinks=False)
    assert caught.value.errno == errno.ELOOP
    with pytest.raises(IsADirectoryError):
        files.read_bounded(tmp_path, 100)


def test_a_malformed_limit_is_an_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(files.PROGRAM_LIMIT_VARIABLE, "lots")
    with pytest.raises(files.FileError, match="must be a positive number of bytes"):
        files.program_limit()
    monkeypatch.setenv(files.PROGRAM_LIMIT_VARIABLE, "123")
    assert files.program_limit() == 123


# --- .npy files, read without misleading --------------------------------------


def _lying_header(folder: Path) -> Path:
    """148 bytes whose header declares 400 GB of float32 data."""
    path = folder / "lie.npy"
    with open(path, "wb") as file:
        header = {"descr": "<f4", "fortran_order": False, "shape": (10**11,)}
        np.lib.format.write_array_header_1_0(file, header)  # pyright: ignore
        file.write(bytes(148 - file.tell()))
    assert path.stat().st_size == 148
    return path


def _pickled(folder: Path) -> Path:
    np.save(folder / "o.npy", np.array([{}]), allow_pickle=True)
    return folder / "o.npy"


def _npz(folder: Path) -> Path:
    np.savez(folder / "a.npz", x=np.zeros(2))
    return folder / "a.npz"


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda p: Path("/dev/zero"), r"^not a \.npy file \(it does not start"),
        (_lying_header, r"^its header declares float32 data of shape \(100000000000,"),
        (_pickled, r"^it holds Python objects \(pickled data\)"),
        (_npz, r"^it is an \.npz archive"),
    ],
    ids=["dev-zero", "lying-header", "pickled", "npz"],
)
def test_npy_errors_say_what_is_wrong(
    tmp_path: Path, make: Callable[[Path], Path], message: str
) -> None:
    with pytest.raises(ValueError, match=message):
        files.load_npy(make(tmp_path))


def test_npy_data_is_read_from_a_fifo_and_checked(tmp_path: Path) -> None:
    data = tmp_path / "a.npy"
    np.save(data, np.arange(10, dtype=np.float32))
    outcome = _through_fifo(tmp_path, data.read_bytes(), files.load_npy)
    assert outcome["value"].tolist() == list(range(10))  # pyright: ignore
    (tmp_path / "pipe").unlink()
    outcome = _through_fifo(tmp_path, data.read_bytes()[:-8], files.load_npy)
    assert str(outcome["error"]) == (
        "its data ends after 32 of the 40 bytes that its header declares"
    )


def test_a_fortran_order_npy_is_read_in_c_order(tmp_path: Path) -> None:
    values = np.asfortranarray(np.arange(6, dtype=np.float32).reshape(2, 3))
    np.save(tmp_path / "f.npy", values)
    array = files.load_npy(tmp_path / "f.npy")
    assert array.flags.c_contiguous and array.tolist() == values.tolist()
