"""Attacks on `grad-run` and `grad-opt`, end to end: what
`--out`/`-o` do with special files, symlinks, modes and a full disk, C-order
`.npz` bytes, Ctrl-C and SIGTERM, unbounded or blocking inputs, and messages
that used to mislead. Devices are stood in for by FIFOs (a test that replaced
`/dev/null` before the fix would have deleted it); memory and file sizes are
capped with `resource.setrlimit` in a subprocess."""

from __future__ import annotations

import os
import signal
import stat
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest
from fifos import wait_until_opened

from gradopt.support import files
from gradopt.tools import grad_opt, grad_run

ROOT = Path(__file__).resolve().parent.parent
CUBIC = ROOT / "examples" / "cubic.mlir"
CUBIC_ARGS = ["--slot", "0=[1,2,3,4,5]"]

SLOT = """func.func @main(%m: memref<2x3xf32>) -> tensor<2x3xf32> {
  %v = grad.load %m : memref<2x3xf32>
  func.return %v : tensor<2x3xf32>
}
"""


def temporaries(directory: Path) -> list[str]:
    return [n for n in os.listdir(directory) if f".{files.TEMPORARY_TAG}-" in n]


def python(
    script: str, *args: object, **options: object
) -> subprocess.CompletedProcess:
    """`script` run by this Python in a subprocess (for rlimits and signals)."""
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(script), *map(str, args)],
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
        **options,  # pyright: ignore[reportArgumentType]
    )


def read_all(descriptor: int) -> bytes:
    chunks = []
    while True:
        try:
            chunk = os.read(descriptor, 1 << 16)
        except BlockingIOError:
            break
        if not chunk:
            break
        chunks.append(chunk)
    return b"".join(chunks)


# --- --out and what stands at the path ----------------------------------------


def test_grad_run_out_writes_a_fifo_in_place(fifo_reader: tuple[Path, int]) -> None:
    path, reader = fifo_reader
    assert grad_run.main([str(CUBIC), *CUBIC_ARGS, "-q", "--out", str(path)]) == 0
    assert stat.S_ISFIFO(os.lstat(path).st_mode)
    data = read_all(reader)
    assert data.startswith(b"PK")  # the .npz went through the pipe
    assert temporaries(path.parent) == []


def test_grad_run_out_follows_a_symlink(tmp_path: Path) -> None:
    target = tmp_path / "real.npz"
    target.write_bytes(b"old")
    link = tmp_path / "link.npz"
    link.symlink_to(target)
    assert grad_run.main([str(CUBIC), *CUBIC_ARGS, "-q", "--out", str(link)]) == 0
    assert link.is_symlink()
    with np.load(target) as values:
        assert values["slot1"].tolist() == [1.0, 10.0, 25.0, 46.0, 73.0]


def test_grad_run_out_keeps_a_private_file_private(tmp_path: Path) -> None:
    out = tmp_path / "secret.npz"
    out.write_bytes(b"old")
    out.chmod(0o600)
    assert grad_run.main([str(CUBIC), *CUBIC_ARGS, "-q", "--out", str(out)]) == 0
    assert stat.S_IMODE(out.stat().st_mode) == 0o600
    with np.load(out) as values:
        assert "slot1" in values


# --- grad-opt -o --------------------------------------------------------------


def test_grad_opt_o_writes_a_fifo_in_place_and_follows_symlinks(
    fifo_reader: tuple[Path, int], tmp_path: Path
) -> None:
    path, reader = fifo_reader
    assert grad_opt.main([str(CUBIC), "-o", str(path)]) == 0
    assert stat.S_ISFIFO(os.lstat(path).st_mode)
    assert read_all(reader).startswith(b"builtin.module")
    target = tmp_path / "real.mlir"
    target.write_text("old")
    target.chmod(0o600)
    link = tmp_path / "link.mlir"
    link.symlink_to(target)
    assert grad_opt.main([str(CUBIC), "-o", str(link)]) == 0
    assert link.is_symlink() and target.read_text().startswith("builtin.module")
    assert stat.S_IMODE(target.stat().st_mode) == 0o600


_FULL_DISK = """
import resource, signal, sys
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # EFBIG, not death
resource.setrlimit(resource.RLIMIT_FSIZE, (2048, 2048))
from gradopt.tools import grad_opt, grad_run
tool = {"grad-opt": grad_opt, "grad-run": grad_run}[sys.argv[1]]
sys.exit(tool.main(sys.argv[2:]))
"""


@pytest.mark.parametrize(
    ("tool", "option", "extra"),
    [("grad-opt", "-o", ["-p", "expand-gradient"]), ("grad-run", "--out", ["-q"])],
)
def test_a_full_disk_leaves_the_old_output_intact(
    tmp_path: Path, tool: str, option: str, extra: list[str]
) -> None:
    """A file-size limit of 2 KiB stands for a full disk; the output is larger.
    `grad-opt -o` used to truncate the old file first."""
    program = tmp_path / "big.mlir"
    lines = [f"  %v{i} = grad.add %x, %x : tensor<1024xf32>" for i in range(60)]
    program.write_text(
        "func.func @main(%x: tensor<1024xf32>) -> tensor<1024xf32> {\n"
        + "\n".join(lines)
        + "\n  func.return %v59 : tensor<1024xf32>\n}\n"
    )
    out = tmp_path / "out"
    out.write_bytes(b"the old output")
    result = python(_FULL_DISK, tool, program, option, out, *extra)
    assert result.returncode == 1, result.stderr
    assert result.stderr == f"{out}: error: File too large\n"
    assert out.read_bytes() == b"the old output"
    assert temporaries(tmp_path) == []


# --- C order ------------------------------------------------------------------


def test_npz_bytes_do_not_depend_on_the_input_layout(tmp_path: Path) -> None:
    program = tmp_path / "slot.mlir"
    program.write_text(SLOT)
    values = np.arange(6, dtype=np.float32).reshape(2, 3)
    outputs = []
    for name, array in [("c", values), ("f", np.asfortranarray(values))]:
        np.save(tmp_path / f"{name}.npy", array)
        out = tmp_path / f"{name}.npz"
        argv = [str(program), "--slot", f"0={tmp_path / f'{name}.npy'}", "-q"]
        assert grad_run.main([*argv, "--out", str(out)]) == 0
        outputs.append(out.read_bytes())
    assert outputs[0] == outputs[1]


def test_npz_is_c_order_for_a_fortran_array_from_the_api(tmp_path: Path) -> None:
    """The slot's copy is C-ordered whatever the caller's layout."""
    from gradopt import run

    values = np.asfortranarray(np.arange(6, dtype=np.float32).reshape(2, 3))
    result = run(SLOT, slots=[values])
    assert result.slots[0].flags.c_contiguous and result.results[0].flags.c_contiguous


# --- Ctrl-C and SIGTERM -------------------------------------------------------


@pytest.mark.parametrize("tool", ["grad-run", "grad-opt"])
@pytest.mark.parametrize(
    ("number", "status", "word"),
    [(signal.SIGINT, 130, "interrupted"), (signal.SIGTERM, 143, "terminated")],
)
def test_a_signal_while_reading_is_one_line(
    tmp_path: Path, tool: str, number: int, status: int, word: str
) -> None:
    """The tool blocks reading a FIFO that the test holds open for writing;
    once it has opened it, the signal arrives there."""
    path = tmp_path / "program.mlir"
    os.mkfifo(path)
    writer = os.open(path, os.O_RDWR)
    try:
        script = Path(sys.executable).parent / tool
        process = subprocess.Popen(
            [script, path], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
        )
        wait_until_opened(process.pid, path)
        process.send_signal(number)
        out, err = process.communicate(timeout=120)
    finally:
        os.close(writer)
    assert (process.returncode, out, err) == (status, "", f"{tool}: {word}\n")


_INTERRUPTED_WRITE = """
import sys
import numpy as np

def savez(file, **arrays):
    file.write(b"half of it")
    raise KeyboardInterrupt  # Ctrl-C in the middle of writing

np.savez = savez
from gradopt.tools import grad_run
sys.exit(grad_run.main(sys.argv[1:]))
"""


def test_ctrl_c_during_out_removes_the_temporary(tmp_path: Path) -> None:
    out = tmp_path / "values.npz"
    out.write_bytes(b"old")
    result = python(_INTERRUPTED_WRITE, CUBIC, *CUBIC_ARGS, "-q", "--out", out)
    assert (result.returncode, result.stderr) == (130, "grad-run: interrupted\n")
    assert out.read_bytes() == b"old" and temporaries(tmp_path) == []


# --- unbounded and blocking reads ---------------------------------------------

_CAPPED = """
import resource, sys
resource.setrlimit(resource.RLIMIT_AS, (3 << 30, 3 << 30))
from gradopt.tools import grad_opt, grad_run
tool = {"grad-opt": grad_opt, "grad-run": grad_run}[sys.argv[1]]
sys.exit(tool.main(sys.argv[2:]))
"""


@pytest.mark.parametrize("tool", ["grad-run", "grad-opt"])
def test_dev_zero_as_the_program_is_refused_at_the_limit(tool: str) -> None:
    """Used to read until memory ran out (here: the 3 GiB cap)."""
    env = {**os.environ, files.PROGRAM_LIMIT_VARIABLE: str(1 << 20)}
    result = python(_CAPPED, tool, "/dev/zero", env=env)
    assert (result.returncode, result.stdout) == (1, "")
    assert result.stderr == (
        "/dev/zero: error: larger than the limit of 1048576 bytes "
        f"(set {files.PROGRAM_LIMIT_VARIABLE} to change it)\n"
    )


@pytest.mark.parametrize("tool", ["grad-run", "grad-opt"])
def test_a_fifo_without_a_writer_does_not_hang(tmp_path: Path, tool: str) -> None:
    path = tmp_path / "program.mlir"
    os.mkfifo(path)
    result = python(_CAPPED, tool, path)
    assert (result.returncode, result.stdout) == (1, "")
    assert result.stderr == (
        f"{path}: error: a named pipe (FIFO) that no process is writing to\n"
    )


def test_a_program_from_standard_input_and_its_limit() -> None:
    """`grad-run -`; standard input is bounded too."""
    script = Path(sys.executable).parent / "grad-run"
    text = CUBIC.read_text()
    result = subprocess.run(
        [script, "-", *CUBIC_ARGS], input=text, capture_output=True, text=True
    )
    assert (result.returncode, result.stderr) == (0, "")
    assert result.stdout.endswith(
        "slot 1 = dense<[1.0, 10.0, 25.0, 46.0, 73.0]> : memref<5xf32>\n"
    )
    env = {**os.environ, files.PROGRAM_LIMIT_VARIABLE: "100"}
    result = subprocess.run(
        [script, "-"], input=text, capture_output=True, text=True, env=env
    )
    assert result.returncode == 1
    assert result.stderr.startswith("<stdin>: error: larger than the limit of 100")


def test_a_pipe_named_as_a_file_is_read(tmp_path: Path) -> None:
    """/dev/stdin, as `<(cat p.mlir)` gives /dev/fd/63: pipes stay allowed."""
    script = Path(sys.executable).parent / "grad-run"
    result = subprocess.run(
        f"cat {CUBIC} | {script} /dev/stdin --slot 0=[1,2,3,4,5]",
        shell=True,
        capture_output=True,
        text=True,
    )
    assert (result.returncode, result.stderr) == (0, "")
    assert "slot 1 = dense<[1.0, 10.0, 25.0, 46.0, 73.0]>" in result.stdout


def test_an_npy_stream_is_bounded(tmp_path: Path) -> None:
    """An `.npy` header followed by endless data, through a pipe: its declared
    size is checked against GRADOPT_MAX_DATA_BYTES before anything is read."""
    program = tmp_path / "slot.mlir"
    program.write_text(SLOT)
    header = tmp_path / "header"
    with open(header, "wb") as file:
        fields = {"descr": "<f4", "fortran_order": False, "shape": (1 << 40,)}
        np.lib.format.write_array_header_1_0(file, fields)  # pyright: ignore
    script = Path(sys.executable).parent / "grad-run"
    result = subprocess.run(
        f"cat {header} /dev/zero | {script} {program} --slot 0=/dev/stdin",
        shell=True,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 1
    assert result.stderr.startswith(
        "--slot 0: error: cannot read /dev/stdin: larger than the limit of"
    )


# --- messages that misled -----------------------------------------------------


def _run(capsys: pytest.CaptureFixture[str], *argv: object) -> tuple[int, str]:
    status = grad_run.main([str(a) for a in argv])
    out, err = capsys.readouterr()
    assert out == "" or status == 0
    return status, err


def test_dev_zero_as_npy_is_not_pickled_data(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    program = tmp_path / "slot.mlir"
    program.write_text(SLOT)
    status, err = _run(capsys, program, "--slot", "0=/dev/zero")
    assert status == 1
    assert err == (
        "--slot 0: error: cannot read /dev/zero: not a .npy file (it does not "
        "start with NumPy's magic string)\n"
    )


def test_a_lying_header_is_not_out_of_memory(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    program = tmp_path / "slot.mlir"
    program.write_text(SLOT)
    path = tmp_path / "lie.npy"
    with open(path, "wb") as file:
        fields = {"descr": "<f4", "fortran_order": False, "shape": (10**11,)}
        np.lib.format.write_array_header_1_0(file, fields)  # pyright: ignore
        file.write(bytes(148 - file.tell()))
    status, err = _run(capsys, program, "--slot", f"0={path}")
    assert status == 1
    assert err == (
        f"--slot 0: error: cannot read {path}: its header declares float32 data "
        "of shape (100000000000,) (400000000000 bytes), but the file holds only "
        "20 bytes of data\n"
    )


INTS = """func.func @main(%x: tensor<i32>, %y: tensor<2xi32>, %f: tensor<2xf32>)
    -> tensor<2xf32> {
  func.return %f : tensor<2xf32>
}
"""


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("--arg=0=" + "1" * 5000, "--arg 0: error: an integer of 5000 digits does not"),
        (
            "--arg=0=-" + "7" * 5000,
            "--arg 0: error: an integer of 5000 digits does not",
        ),
        (
            "--arg=1=[1, " + "2" * 5000 + "]",
            "--arg 1: error: an integer of 5000 digits does not fit in i32",
        ),
    ],
)
def test_a_long_integer_input_is_a_plain_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], spec: str, message: str
) -> None:
    program = tmp_path / "ints.mlir"
    program.write_text(INTS)
    status, err = _run(capsys, program, spec)
    assert status == 1 and err.startswith(message)
    assert "set_int_max_str_digits" not in err


def test_a_long_integer_in_a_float_list_is_infinity(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    program = tmp_path / "ints.mlir"
    program.write_text(INTS)
    status = grad_run.main([str(program), "--arg", "2=[1, " + "9" * 5000 + "]"])
    out, err = capsys.readouterr()
    assert (status, err) == (0, "")
    assert out.startswith("result 0 = dense<[1.0, inf]>")


@pytest.mark.parametrize(
    ("line", "column"),
    [
        ("  %c = grad.const {d} : tensor<i32>", 19),
        ("  %c = grad.const dense<[{d}]> : tensor<1xi32>", 26),
        ("  %c = arith.constant {d} : index", 23),
    ],
)
@pytest.mark.parametrize("tool", ["grad-run", "grad-opt"])
def test_a_long_integer_literal_is_located_without_python_advice(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    line: str,
    column: int,
    tool: str,
) -> None:
    program = tmp_path / "long.mlir"
    program.write_text(
        "func.func @main() {\n" + line.format(d="1" * 5000) + "\n  func.return\n}\n"
    )
    main = grad_run.main if tool == "grad-run" else grad_opt.main
    assert main([str(program)]) == 1
    err = capsys.readouterr().err
    assert err.startswith(
        f"{program}:2:{column}: error: integer literal of 5000 digits is too long\n"
    )
    assert "set_int_max_str_digits" not in err
