"""The second attack round (issue 26): each test reproduces one defect that
the round found, through the interface the attack used (a driver in a
subprocess, the Python API, the front end)."""

from __future__ import annotations

import importlib.util
import os
import re
import struct
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import gradopt
from gradopt import GradoptError, Program
from gradopt.runtime import iree

ROOT = Path(__file__).resolve().parent.parent
CUBIC = ROOT / "examples" / "cubic.mlir"
CUBIC_ARGS = ["--slot", "0=[1,2,3,4,5]"]
BIN = Path(sys.executable).parent
HAVE_IREE = importlib.util.find_spec("iree") is not None and all(
    importlib.util.find_spec(m) for m in ("iree.compiler", "iree.runtime")
)

STEP = """
func.func @main(%w: memref<3xf32>, %x: tensor<3xf32>) -> tensor<f32> {
  %v = grad.load %w : memref<3xf32>
  %p = grad.mul %v, %x : tensor<3xf32>
  %l = grad.reduce add %p [0] : tensor<3xf32> to tensor<f32>
  %g = grad.gradient %l wrt %v : tensor<f32>, tensor<3xf32>
  %n = grad.add %v, %g : tensor<3xf32>
  grad.store %n, %w : memref<3xf32>
  func.return %l : tensor<f32>
}
"""


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


@pytest.mark.parametrize("variable", VARIABLES)
def test_a_malformed_variable_is_one_line_everywhere(variable: str) -> None:
    """`GRADOPT_RUN_CACHE=abc` used to make every grad-run a traceback and
    `import gradopt` raise; now each variable is one line in each driver,
    a `GradoptError` from the API, and never an error at import."""
    bad = str(CUBIC) if variable == "GRADOPT_CACHE_DIR" else "abc"
    env = {**os.environ, variable: bad}
    for name in ("grad-run", "grad-opt"):
        result = tool(name, CUBIC, *CUBIC_ARGS[: 2 * (name == "grad-run")], env=env)
        assert result.returncode == 1, result.stderr
        assert re.fullmatch(
            f"{name}: error: {variable} must [^\n]*, got '{re.escape(bad)}'[^\n]*\n",
            result.stderr,
        )
    script = "import gradopt, gradopt.numpy, gradopt.nn; print('imported')"
    imported = subprocess.run(
        [sys.executable, "-c", script], env=env, capture_output=True, text=True
    )
    assert (imported.returncode, imported.stdout) == (0, "imported\n")


def test_the_api_reports_a_malformed_run_cache(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("GRADOPT_RUN_CACHE", "abc")
    with pytest.raises(GradoptError, match="GRADOPT_RUN_CACHE must be a whole"):
        gradopt.run(CUBIC.read_text())


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
