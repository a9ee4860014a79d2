"""Reliability at the edges: each test reproduces one defect that an attack
on gradopt found, through the interface the attack used (a driver in a
subprocess, the Python API, the front end): in-place runs, pipes and special
files, `.npy` headers, environment variables, caches, signals, temporaries,
huge constants and captured arrays."""

from __future__ import annotations

import contextlib
import fcntl
import importlib.util
import inspect
import os
import re
import signal
import struct
import subprocess
import sys
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from test_program import STEP  # a training step: one slot updated in place

import gradopt
import gradopt.nn as gnn
import gradopt.numpy as gnp
from gradopt import GradoptError, Program
from gradopt.runtime import iree
from gradopt.support import files
from gradopt.tools import grad_opt

ROOT = Path(__file__).resolve().parent.parent
CUBIC = ROOT / "examples" / "cubic.mlir"
CUBIC_ARGS = ["--slot", "0=[1,2,3,4,5]"]
BIN = Path(sys.executable).parent
HAVE_IREE = importlib.util.find_spec("iree") is not None and all(
    importlib.util.find_spec(m) for m in ("iree.compiler", "iree.runtime")
)


def tool(
    name: str, *args: object, **options: object
) -> subprocess.CompletedProcess[str]:
    """The installed console script `name` run on `args`."""
    return subprocess.run(
        [BIN / name, *map(str, args)],
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
        **options,  # pyright: ignore[reportArgumentType]
    )


# --- in_place on both backends ------------------------------------------------


@pytest.mark.parametrize(
    "backend",
    [
        "numpy",
        pytest.param(
            "iree",
            marks=pytest.mark.skipif(not HAVE_IREE, reason="IREE is not installed"),
        ),
    ],
)
def test_three_in_place_steps_update_the_callers_weights(backend: str) -> None:
    """IREE used to return the new weights in new arrays, leaving `w` as it
    was: a training loop on IREE never trained."""
    program = Program(STEP)
    w = np.array([1.0, 2.0, 3.0], np.float32)
    x = np.array([0.5, 0.25, 2.0], np.float32)
    for _ in range(3):
        result = program.run(slots=[w], args=[x], backend=backend, in_place=True)
        assert result.slots[0] is w
    np.testing.assert_array_equal(w, np.float32([2.5, 2.75, 9.0]))


@pytest.mark.parametrize("flag", ["deterministic", "in_place"])
def test_a_flag_that_is_not_a_bool_is_a_type_error(flag: str) -> None:
    """`deterministic="no"` used to count as true."""
    with pytest.raises(TypeError, match=f"{flag} must be True"):
        Program(STEP).run(**{flag: "no"})  # type: ignore[arg-type]


# --- files: special outputs, closed input, .npy headers ------------------------


def test_out_to_dev_null_succeeds() -> None:
    result = tool("grad-run", CUBIC, *CUBIC_ARGS, "-q", "--out", os.devnull)
    assert (result.returncode, result.stderr) == (0, "")


def test_out_to_dev_stdout_writes_into_a_pipe(tmp_path: Path) -> None:
    """The `.npz` reaches the pipe whole, and `-o /dev/stdout` the module."""
    piped = subprocess.run(
        [BIN / "grad-run", CUBIC, *CUBIC_ARGS, "-q", "--out", "/dev/stdout"],
        capture_output=True,
        check=False,
    )
    assert (piped.returncode, piped.stderr) == (0, b"")
    (tmp_path / "piped.npz").write_bytes(piped.stdout)
    with np.load(tmp_path / "piped.npz") as values:
        np.testing.assert_array_equal(values["slot1"], [1, 10, 25, 46, 73])
    module = tool("grad-opt", CUBIC, "-o", "/dev/stdout")
    assert (module.returncode, module.stderr) == (0, "")
    assert module.stdout == tool("grad-opt", CUBIC).stdout


def test_out_to_dev_stdout_redirected_to_a_file_is_that_file(tmp_path: Path) -> None:
    """`{ grad-opt -o /dev/stdout; echo done; } >> log`: the file the shell
    opened is written through, not replaced by a new one, to which the
    shell's later writes would no longer go."""
    path = tmp_path / "log"
    with open(path, "a") as log:
        result = subprocess.run(
            [BIN / "grad-opt", CUBIC, "-o", "/dev/stdout"], stdout=log, check=False
        )
        log.write("done\n")
    assert result.returncode == 0
    assert path.read_text() == tool("grad-opt", CUBIC).stdout + "done\n"


@pytest.mark.parametrize(
    "argv", [["grad-run", "-"], ["grad-opt"]], ids=["grad-run", "grad-opt"]
)
def test_a_closed_standard_input_is_one_line(argv: list[str]) -> None:
    """`grad-run - <&-` used to end in an `AttributeError`."""
    result = subprocess.run(
        [BIN / argv[0], *argv[1:]],
        capture_output=True,
        text=True,
        check=False,
        close_fds=True,
        stdin=subprocess.DEVNULL,
        preexec_fn=lambda: os.close(0),
    )
    assert result.returncode == 1
    assert result.stderr.endswith(
        "error: standard input is closed: name a file to read\n"
    )
    assert result.stderr.count("\n") == 1


def _npy_header(length: int) -> bytes:
    return b"\x93NUMPY\x02\x00" + struct.pack("<I", length)


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (
            _npy_header(2**32 - 1) + b"{}xxxxxxxx",
            "its .npy header claims 4294967295 bytes, but the file holds only 10 more",
        ),
        (
            _npy_header(20050)
            + b"{'descr': '<f4', 'fortran_order': False, 'shape': (5,), }"
            + b" " * 19991
            + b"\n"
            + bytes(20),
            "its .npy header is 20050 bytes long, more than the 10000 bytes any "
            "array's header needs",
        ),
    ],
    ids=["length-past-the-end", "long-header"],
)
def test_an_npy_header_is_checked_before_numpy_reads_it(
    tmp_path: Path, data: bytes, message: str
) -> None:
    """NumPy used to allocate the 4 GB its length field claimed, or advise
    `allow_pickle`, an option grad-run does not have."""
    path = tmp_path / "input.npy"
    path.write_bytes(data)
    result = tool("grad-run", CUBIC, "--slot", f"0={path}")
    assert result.returncode == 1
    assert result.stderr == f"--slot 0: error: cannot read {path}: {message}\n"


def test_big_endian_npy_is_converted(tmp_path: Path) -> None:
    path = tmp_path / "big.npy"
    np.save(path, np.arange(1, 6, dtype=">f4"))
    result = tool("grad-run", CUBIC, "--slot", f"0={path}")
    assert (result.returncode, result.stderr) == (0, "")
    assert "slot 1 = dense<[1.0, 10.0, 25.0, 46.0, 73.0]>" in result.stdout


def test_print_op_graph_output_is_atomic(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A failure while writing the graph leaves the old file, not an empty one."""
    from xdsl.context import Context

    from gradopt.passes import print_op_graph

    path = tmp_path / "graph.dot"
    path.write_text("old")

    def failing(module: object) -> str:
        raise MemoryError

    module = Program(CUBIC.read_text()).module
    monkeypatch.setattr(print_op_graph, "op_graph", failing)
    with pytest.raises(MemoryError):
        print_op_graph.PrintOpGraphPass(str(path)).apply(Context(), module)
    assert path.read_text() == "old"
    assert os.listdir(tmp_path) == ["graph.dot"]


# --- environment variables ---------------------------------------------------------

VARIABLES = [
    "GRADOPT_MAX_PROGRAM_BYTES",
    "GRADOPT_MAX_DATA_BYTES",
    "GRADOPT_CACHE_DIR",
    "GRADOPT_CACHE_MAX_BYTES",
    "GRADOPT_DETERMINISTIC",
    "GRADOPT_RUN_CACHE",
    "GRADOPT_RUN_CACHE_BYTES",
    "GRADOPT_JIT_CACHE_BYTES",
]


def test_every_variable_the_project_reads_is_checked() -> None:
    """The list above, and the drivers' check, name every `GRADOPT_*` string
    of the source tree."""
    from gradopt.support import environment

    found = set()
    folders = ("support", "dialect", "autodiff", "passes", "interpreter", "runtime")
    for folder in (*folders, "frontend", "tools", "gradopt"):
        for path in (ROOT / folder).rglob("*.py"):
            if path.name == "environment.py":  # the list itself
                continue
            found |= set(re.findall(r"\bGRADOPT_[A-Z_]*[A-Z]\b", path.read_text()))
    found.discard("GRADOPT_UNIVERSE")  # a Python name, not a variable
    assert found == set(VARIABLES) == set(environment.VARIABLES)


_IMPORT_THEN_RUN = """
import sys
import gradopt, gradopt.numpy, gradopt.nn
from gradopt.tools import grad_run
print("imported")
sys.exit(grad_run.main(sys.argv[1:]))
"""


@pytest.mark.parametrize("variable", VARIABLES)
def test_a_malformed_variable_is_one_line_everywhere(
    variable: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """`GRADOPT_RUN_CACHE=abc` used to make every grad-run a traceback and
    `import gradopt` raise; now `import gradopt` never fails on a variable,
    and each driver says what is wrong in one line."""
    bad = str(CUBIC) if variable == "GRADOPT_CACHE_DIR" else "abc"
    line = f"error: {variable} must [^\n]*, got '{re.escape(bad)}'[^\n]*\n"
    result = subprocess.run(
        [sys.executable, "-c", _IMPORT_THEN_RUN, CUBIC, *CUBIC_ARGS],
        env={**os.environ, variable: bad},
        capture_output=True,
        text=True,
        check=False,
    )
    assert (result.returncode, result.stdout) == (1, "imported\n")
    assert re.fullmatch(f"grad-run: {line}", result.stderr)
    monkeypatch.setenv(variable, bad)
    assert grad_opt.main([str(CUBIC)]) == 1
    captured = capsys.readouterr()
    assert captured.out == "" and re.fullmatch(f"grad-opt: {line}", captured.err)


def test_the_api_reports_a_malformed_run_cache(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("GRADOPT_RUN_CACHE", "abc")
    with pytest.raises(GradoptError, match="GRADOPT_RUN_CACHE must be a whole"):
        gradopt.run(CUBIC.read_text())


@pytest.mark.parametrize("variable", VARIABLES)
def test_a_variable_is_read_as_the_environment_holds_it_now(
    variable: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`environment.is_set` looks the name up where `os.environ` keeps it:
    a change through `os.environ` is seen at once, set or unset, blank or
    not."""
    from gradopt.support import environment

    monkeypatch.delenv(variable, raising=False)
    assert not environment.is_set(variable)
    assert environment.integer(variable, 7) == 7
    monkeypatch.setenv(variable, " 12 ")
    assert environment.is_set(variable)
    assert environment.integer(variable, 7) == 12
    monkeypatch.setenv(variable, " ")
    assert environment.is_set(variable) and environment.integer(variable, 7) == 7
    monkeypatch.delenv(variable)
    assert not environment.is_set(variable)


def test_deterministic_runs_follow_the_variable_at_each_run(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    program = gradopt.Program(CUBIC.read_text())
    monkeypatch.setenv("GRADOPT_DETERMINISTIC", "maybe")
    with pytest.raises(GradoptError, match="GRADOPT_DETERMINISTIC must be 1 or 0"):
        program.run([[1, 2, 3, 4, 5]])
    monkeypatch.delenv("GRADOPT_DETERMINISTIC")
    program.run([[1, 2, 3, 4, 5]])


# --- the IREE cache evicts only its own entries ---------------------------------------


def test_eviction_deletes_only_gradopts_entries(tmp_path: Path) -> None:
    """Any `*.vmfb` in the folder used to count, and go, as an entry."""
    foreign = tmp_path / "model.vmfb"
    foreign.write_bytes(bytes(1000))
    lookalike = tmp_path / f"{'0' * 64}.vmfb"  # gradopt's name, not its header
    lookalike.write_bytes(bytes(1000))
    mine = tmp_path / f"{'1' * 64}.vmfb"
    iree.write_entry(mine, b"module", 1 << 20)
    deleted = iree.evict(tmp_path, 0)
    assert deleted == [mine]
    assert foreign.exists() and lookalike.exists()


# --- plan-time folding -------------------------------------------------------------

HUGE_CONSTANT = """func.func @main() -> tensor<f32> {
  %c = grad.const 1.0 : tensor<100000x100000xf32>
  %s = grad.reduce add %c [0, 1] : tensor<100000x100000xf32> to tensor<f32>
  func.return %s : tensor<f32>
}
"""

_CAPPED_RUN = """
import resource, sys
resource.setrlimit(resource.RLIMIT_AS, (3 << 30, 3 << 30))
import gradopt
try:
    gradopt.run(sys.argv[1], filename="huge.mlir")
except gradopt.GradoptError as error:
    print(error, end="")
"""


def test_an_op_on_a_huge_constant_is_a_located_error() -> None:
    """Folding it while planning used to raise a bare `MemoryError` (an
    "internal error" without a location in grad-run)."""
    result = subprocess.run(
        [sys.executable, "-c", _CAPPED_RUN, HUGE_CONSTANT],
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )
    assert (result.returncode, result.stderr) == (0, "")
    assert result.stdout.startswith("huge.mlir:3:3: error: 'grad.reduce' ran out of")


def test_a_large_constant_product_is_computed_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A product of literals too large to keep was computed while planning,
    thrown away, and computed again by the run: twice the time."""
    text = """func.func @main() -> tensor<1100x1100xf32> {
  %a = grad.const 0.5 : tensor<1100x1xf32>
  %b = grad.const 2.0 : tensor<1x1100xf32>
  %p = grad.dot %a, %b : tensor<1100x1xf32>, tensor<1x1100xf32> to tensor<1100x1100xf32>
  func.return %p : tensor<1100x1100xf32>
}
"""
    calls = []
    matmul = np.matmul

    def counted(*args: object, **kwargs: object) -> object:
        calls.append(1)
        return matmul(*args, **kwargs)  # pyright: ignore[reportCallIssue]

    monkeypatch.setattr(np, "matmul", counted)
    (product,) = Program(text).run().results
    assert len(calls) == 1 and product.shape == (1100, 1100)
    assert np.all(product == 1.0)


# --- signals ------------------------------------------------------------------------


def _wait_for_mapping(pid: int, name: str) -> None:
    """Until process `pid` has loaded a shared library whose path holds `name`."""
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        with contextlib.suppress(OSError):
            if name in Path(f"/proc/{pid}/maps").read_text():
                return
        time.sleep(0.001)
    raise AssertionError(f"process {pid} never loaded {name}")


@pytest.mark.skipif(not Path("/proc/self/maps").exists(), reason="needs /proc")
@pytest.mark.parametrize("name", ["grad-run", "grad-opt"])
def test_ctrl_c_while_the_driver_imports_is_one_line(name: str) -> None:
    """Ctrl-C while the driver imports its modules (NumPy's are loaded, xDSL's
    follow) used to print a 30-line `KeyboardInterrupt` traceback."""
    process = subprocess.Popen(
        [BIN / name, CUBIC],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    _wait_for_mapping(process.pid, "_multiarray_umath")
    process.send_signal(signal.SIGINT)
    out, err = process.communicate(timeout=60)
    assert (process.returncode, out, err) == (130, "", f"{name}: interrupted\n")


_SQUARE = "tensor<4000x4000xf32>"
SLOW = "\n".join(
    [
        f"func.func @main(%v0: {_SQUARE}) -> {_SQUARE} {{",
        *(
            f"  %v{i + 1} = grad.dot %v{i}, %v0 : {_SQUARE}, {_SQUARE} to {_SQUARE}"
            for i in range(4)
        ),
        f"  func.return %v4 : {_SQUARE}",
        "}",
    ]
)


@pytest.mark.parametrize(
    ("number", "status", "word"),
    [(signal.SIGTERM, 143, "terminated"), (signal.SIGINT, 130, "interrupted")],
)
def test_a_signal_during_a_long_kernel_exits_at_once(
    tmp_path: Path, number: int, status: int, word: str
) -> None:
    """The signal used to wait for NumPy's product to finish (29 s for a
    10000² dot); the run here takes seconds of products, and the driver must
    be gone within one second of the signal."""
    program = tmp_path / "slow.mlir"
    program.write_text(SLOW)
    process = subprocess.Popen(
        [BIN / "grad-run", program, "-q", "--arg", "0=zeros"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    _wait_until_busy(process.pid)
    sent = time.monotonic()
    process.send_signal(number)
    out, err = process.communicate(timeout=120)
    assert time.monotonic() - sent < 1.0
    assert (process.returncode, out, err) == (status, "", f"grad-run: {word}\n")


def _wait_until_busy(pid: int) -> None:
    """Until process `pid` computes a product: it has spent a second of CPU
    time past the start (the products take several)."""
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        if (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK") > 2.0:
            return
        time.sleep(0.05)
    raise AssertionError(f"process {pid} never got busy")


# --- the temporary sweep --------------------------------------------------------------


def test_the_sweep_leaves_a_locked_temporary_of_a_foreign_process_id(
    tmp_path: Path,
) -> None:
    """A writer in another PID namespace sharing the folder has a process ID
    that means nothing here (no such process, say): its temporary used to be
    deleted under it. The lock it holds now keeps it; once released, the
    temporary of a process that is gone is swept."""
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    name = f".out.npz.{files.TEMPORARY_TAG}-{files._HOST}-{dead.pid}-0a1b2c3d"
    temporary = tmp_path / name
    temporary.write_bytes(b"being written")
    with open(temporary, "rb") as held:
        fcntl.flock(held, fcntl.LOCK_EX)
        files.write_atomically(tmp_path / "other.npz", lambda f: f.write(b"x"))
        assert temporary.exists()
    files.write_atomically(tmp_path / "other.npz", lambda f: f.write(b"y"))
    assert not temporary.exists()


def test_a_temporary_is_locked_while_it_is_written(tmp_path: Path) -> None:
    seen = []

    def write(file: object) -> None:
        (name,) = [n for n in os.listdir(tmp_path) if files.TEMPORARY_TAG in n]
        with open(tmp_path / name, "rb") as other, pytest.raises(BlockingIOError):
            fcntl.flock(other, fcntl.LOCK_EX | fcntl.LOCK_NB)
        seen.append(name)

    files.write_atomically(tmp_path / "out", write)
    assert len(seen) == 1 and os.listdir(tmp_path) == ["out"]


# --- the front end: sizes, indices, captured arrays -----------------------------------


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda x: x[::0], "the index slice(None, None, 0): slice step cannot be zero"),
        (lambda x: gnp.pad(x, (2**63, 0)), "pad: Python int too large"),
        (lambda x: gnp.pad(x, (2**60, 0)), "pad: a float32 array of shape"),
        (lambda x: gnp.arange(10**15), "arange: a int32 array of shape (10"),
        (lambda x: gnn.one_hot(gnp.arange(4), 10**15), "one_hot: a float32 array"),
    ],
    ids=["step-0", "pad-2**63", "pad-2**60", "arange", "one_hot"],
)
def test_sizes_and_indices_the_run_cannot_hold_are_located(
    make: Callable[[object], object], message: str
) -> None:
    """These escaped as `ValueError`, `OverflowError` or `MemoryError` (after
    `one_hot` had grown to 24 GB); the check comes before anything is made."""
    line = inspect.getsourcelines(make)[1]
    with pytest.raises(GradoptError) as caught:
        gradopt.jit(make)(np.ones(4, np.float32))
    report = str(caught.value)
    assert report.startswith(f"{__file__}:{line}:"), report
    assert message in report.splitlines()[0]


def test_a_captured_array_is_traced_at_the_cost_of_one_copy() -> None:
    """A captured 4 MB array used to become a list of Python floats, twice
    (tracing, then planning): 18 times its size and seconds of CPU."""
    w = np.random.default_rng(0).random(1 << 20, dtype=np.float32)

    @gradopt.jit
    def f(x: object) -> object:
        return gnp.sum(w * x)

    tracemalloc.start()
    try:
        total = f(np.float32(2.0))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 3 * w.nbytes, peak
    np.testing.assert_allclose(total, 2 * w.astype(np.float64).sum(), rtol=1e-4)


def test_captured_arrays_keep_their_exact_bits() -> None:
    floats = np.array([1.5, -0.0, np.inf, np.nan, 1e-45, -3.4e38], np.float32)
    floats[3] = np.frombuffer(b"\x01\x00\xc0\x7f", np.float32)[0]  # a NaN payload
    ints = np.array([0, -1, 2**31 - 1, -(2**31)], np.int32)
    bools = np.array([True, False, False, True])

    @gradopt.jit
    def f(one: Any) -> object:
        return floats * one, gnp.asarray(ints) + 0, gnp.asarray(bools) | (one < 0)

    got = f(np.float32(1.0))
    assert got[0].tobytes() == floats.tobytes()
    np.testing.assert_array_equal(got[1], ints)
    np.testing.assert_array_equal(got[2], bools)


# --- the in-memory caches are bounded in bytes ---------------------------------------


def test_the_run_cache_is_bounded_in_bytes(monkeypatch: pytest.MonkeyPatch) -> None:
    """It kept 32 programs of any size (17 MB each at 3000 ops)."""
    from gradopt.runtime import program as api
    from gradopt.support import caches

    monkeypatch.setattr(api, "_prepared_programs", caches.BoundedCache())
    one = caches.module_bytes(Program(STEP).module) + len(STEP)
    monkeypatch.setenv("GRADOPT_RUN_CACHE_BYTES", str(2 * one))
    for name in ("a", "b", "c"):
        gradopt.run(STEP, filename=name)
    assert [key[1] for key in api._prepared_programs] == ["b", "c"]
    assert api._prepared_programs.bytes == 2 * one
    monkeypatch.setenv("GRADOPT_RUN_CACHE_BYTES", str(one - 1))  # none fits
    gradopt.run(STEP, filename="d")
    assert list(api._prepared_programs) == []


def test_the_jit_cache_is_bounded_in_bytes(monkeypatch: pytest.MonkeyPatch) -> None:
    """A traced function kept one program per signature, without bound."""
    from gradopt.support import caches

    @gradopt.jit
    def f(x: Any) -> object:
        return x * 2

    f(np.zeros(1, np.float32))
    (key,) = f.cache
    one = caches.module_bytes(f.cache.get(key).program.module)  # type: ignore[union-attr]
    monkeypatch.setenv("GRADOPT_JIT_CACHE_BYTES", str(2 * one))
    for size in (2, 3, 4):
        f(np.zeros(size, np.float32))
    assert len(f.cache) == 2 and f.cache.bytes == 2 * one
    monkeypatch.setenv("GRADOPT_JIT_CACHE_BYTES", "0")
    np.testing.assert_array_equal(f(np.ones(5, np.float32)), np.full(5, 2.0))
    assert len(f.cache) == 0
