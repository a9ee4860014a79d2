"""`grad-run` (SPEC §7): input specs, the printed values, `--out`, and every
error path: one `error:` message on stderr, exit status 1, no traceback, no
output and no output file."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from gradopt.tools.grad_run import main

CUBIC = Path(__file__).resolve().parent.parent / "examples" / "cubic.mlir"

ECHO = """func.func @main(%f: memref<6xf32>, %m: memref<2x3xi32>, %b: memref<2xi1>,
                 %x: tensor<f32>, %t: tensor<2x2x2xi32>)
    -> (tensor<f32>, tensor<2x2x2xi32>) {
  func.return %x, %t : tensor<f32>, tensor<2x2x2xi32>
}
"""

FAILING = """func.func @main(%s: memref<3xf32>, %d: memref<2xi32>) -> tensor<2xi32> {
  %a = grad.const 7 : tensor<2xi32>
  %b = grad.load %d : memref<2xi32>
  %q = grad.idiv %a, %b : tensor<2xi32>
  func.return %q : tensor<2xi32>
}

func.func @index(%s: memref<3xf32>) -> tensor<f32> {
  %c3 = arith.constant 3 : index
  %x = grad.load %s[%c3] : memref<3xf32>
  func.return %x : tensor<f32>
}
"""


@pytest.fixture
def echo(tmp_path: Path) -> Path:
    path = tmp_path / "echo.mlir"
    path.write_text(ECHO)
    return path


@pytest.fixture
def failing(tmp_path: Path) -> Path:
    path = tmp_path / "failing.mlir"
    path.write_text(FAILING)
    return path


def run(capsys: pytest.CaptureFixture[str], *args: str | Path) -> tuple[int, str, str]:
    status = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return status, out, err


def test_the_seed_exercise_prints_results_then_slots(
    capsys: pytest.CaptureFixture[str],
) -> None:
    status, out, err = run(capsys, CUBIC, "--slot", "0=[1, 2, 3, 4, 5]")
    assert (status, err) == (0, "")
    assert out == (
        "slot 0 = dense<[1.0, 2.0, 3.0, 4.0, 5.0]> : memref<5xf32>\n"
        "slot 1 = dense<[1.0, 10.0, 25.0, 46.0, 73.0]> : memref<5xf32>\n"
    )


def test_values_print_exactly(echo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = run(
        capsys,
        echo,
        "--slot=0=[0.1, 3, 1e-45, Infinity, NaN, -0.0]",
        "--slot",
        "1=[[1, -2, 3], [2147483647, -2147483648, 0]]",
        "--slot",
        "2=[true, false]",
        "--arg",
        "0=-2.5e-3",
        "--arg",
        "1=[1, 2, 3, 4, 5, 6, 7, 8]",
    )
    assert (status, err) == (0, "")
    assert out.splitlines() == [
        "result 0 = dense<-0.0025> : tensor<f32>",
        "result 1 = dense<[[[1, 2], [3, 4]], [[5, 6], [7, 8]]]> : tensor<2x2x2xi32>",
        "slot 0 = dense<[0.1, 3.0, 1e-45, inf, nan, -0.0]> : memref<6xf32>",
        "slot 1 = dense<[[1, -2, 3], [2147483647, -2147483648, 0]]> : memref<2x3xi32>",
        "slot 2 = dense<[true, false]> : memref<2xi1>",
    ]


def test_specs_npy_numbers_and_zeros(
    echo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = np.arange(8, dtype=np.int32).reshape(2, 2, 2)
    np.save(tmp_path / "t.npy", data)
    status, out, _ = run(
        capsys,
        echo,
        "--arg",
        f"1={tmp_path / 't.npy'}",
        "--arg",
        "0=nan",
        "--slot",
        "2=[1, 0]",
        "--slot",
        "1=zeros",
    )
    assert status == 0
    assert out.splitlines()[:2] == [
        "result 0 = dense<nan> : tensor<f32>",
        "result 1 = dense<[[[0, 1], [2, 3]], [[4, 5], [6, 7]]]> : tensor<2x2x2xi32>",
    ]
    assert "slot 0 = dense<[0.0, 0.0, 0.0, 0.0, 0.0, 0.0]> : memref<6xf32>" in out
    assert "slot 2 = dense<[true, false]> : memref<2xi1>" in out


def test_quiet_prints_nothing_and_out_writes_every_value(
    echo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out_file = tmp_path / "values.npz"
    status, out, err = run(
        capsys, echo, "--arg", "0=1.5", "-q", "--out", out_file, "--slot", "2=[1,1]"
    )
    assert (status, out, err) == (0, "", "")
    with np.load(out_file) as values:
        arrays = dict(values)
    assert sorted(arrays) == ["result0", "result1", "slot0", "slot1", "slot2"]
    expected = {
        "result0": (np.float32, ()),
        "result1": (np.int32, (2, 2, 2)),
        "slot0": (np.float32, (6,)),
        "slot1": (np.int32, (2, 3)),
        "slot2": (np.bool_, (2,)),
    }
    assert {k: (v.dtype.type, v.shape) for k, v in arrays.items()} == expected
    assert arrays["result0"] == 1.5 and arrays["slot2"].all()
    assert sorted(os.listdir(tmp_path)) == ["echo.mlir", "values.npz"]


def test_a_failed_run_writes_no_file_and_keeps_an_old_one(
    failing: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out_file = tmp_path / "values.npz"
    status, out, err = run(capsys, failing, "--slot", "1=[1, 0]", "--out", out_file)
    assert (status, out) == (1, "")
    assert err.startswith(f"{failing}:4:3: error: 'grad.idiv' divides by zero\n")
    assert not out_file.exists()
    out_file.write_bytes(b"old")
    assert run(capsys, failing, "--slot", "1=[1, 0]", "--out", out_file)[0] == 1
    assert out_file.read_bytes() == b"old"
    assert sorted(os.listdir(tmp_path)) == ["failing.mlir", "values.npz"]


def test_out_into_a_missing_directory_is_an_error(
    echo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target = tmp_path / "missing" / "v.npz"
    status, out, err = run(capsys, echo, "--out", target)
    assert (status, out) == (1, "")
    assert err == f"{target}: error: No such file or directory\n"


def test_the_run_time_error_shows_the_source_line(
    failing: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status, out, err = run(capsys, failing, "--entry", "index")
    assert (status, out) == (1, "")
    assert err == (
        f"{failing}:10:3: error: 'grad.load' index [3] is out of range for a slot "
        "of shape [3]\n  %x = grad.load %s[%c3] : memref<3xf32>\n  ^\n"
    )


def write(tmp_path: Path, name: str, data: object) -> str:
    path = tmp_path / name
    np.save(path, data)  # pyright: ignore[reportArgumentType]
    return str(path)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ["--slot", "0=[1, 2]"],
            "--slot 0: error: expected 3 values for memref<3xf32>",
        ),
        (["--slot", "0=[1, 2"], "--slot 0: error: '[1, 2' is not a JSON list"),
        (["--slot", "0=[[1, 2], [3]]"], "--slot 0: error: the nested lists have"),
        (["--slot", '0=[1, 2, "x"]'], '--slot 0: error: expected a number, got "x"'),
        (["--slot", "0=2.5"], "--slot 0: error: a single number is a rank-0 value"),
        (["--slot", "1=[1.5, 2]"], "--slot 1: error: expected an integer, got 1.5"),
        (["--slot", "1=[1, 2147483648]"], "--slot 1: error: 2147483648 does not fit"),
        (["--slot", "2=[1, 2]"], "--slot 2: error: no such slot: the entry function"),
        (["--arg", "0=[1]"], "--arg 0: error: no such arg: the entry function has 0"),
        (
            ["--slot", "0=zeros", "--slot", "0=zeros"],
            "--slot 0: error: slot 0 is given",
        ),
        (["--slot", "0=nothing.npy"], "--slot 0: error: cannot read nothing.npy: No "),
        (["--entry", "nope"], "failing.mlir: error: no function @nope to run"),
        (["--slot", "0"], "grad-run: error: argument --slot: expected N=SPEC, got '0'"),
        (["--slot", "x=1"], "grad-run: error: argument --slot: expected N=SPEC"),
        (["--frobnicate"], "grad-run: error: unrecognized arguments: --frobnicate"),
    ],
)
def test_input_errors(
    failing: Path,
    capsys: pytest.CaptureFixture[str],
    args: list[str],
    message: str,
) -> None:
    status, out, err = run(capsys, failing, *args)
    assert (status, out) == (1, "")
    assert message in err
    assert "Traceback" not in err


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (
            np.zeros(3),
            "slot 0: error: expected float32 data of shape (3,) for memref<3xf32>, "
            "got float64 data of shape (3,)",
        ),
        (
            np.zeros((3, 1), np.float32),
            "slot 0: error: expected float32 data of shape (3,) for memref<3xf32>, "
            "got float32 data of shape (3, 1)",
        ),
        (np.array([object()]), "--slot 0: error: cannot read "),
    ],
)
def test_npy_data_must_match_the_declared_type(
    failing: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    data: np.ndarray,
    message: str,
) -> None:
    if data.dtype == object:
        path = tmp_path / "pickled.npy"
        np.save(path, data, allow_pickle=True)
    else:
        path = write(tmp_path, "data.npy", data)
    status, out, err = run(capsys, failing, "--slot", f"0={path}")
    assert (status, out) == (1, "")
    assert err.startswith(message)


@pytest.mark.parametrize("content", [b"", b"[1, 2, 3]\n"])
def test_a_file_that_is_not_npy_is_an_error(
    failing: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], content: bytes
) -> None:
    path = tmp_path / "data.txt"
    path.write_bytes(content)
    status, out, err = run(capsys, failing, "--slot", f"0={path}")
    assert (status, out) == (1, "")
    assert err.startswith(f"--slot 0: error: cannot read {path}: ")


def test_an_npz_is_not_a_spec(
    failing: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "data.npz"
    np.savez(path, x=np.zeros(3, np.float32))
    status, _, err = run(capsys, failing, "--slot", f"0={path}")
    assert status == 1
    assert err == (
        f"--slot 0: error: cannot read {path}: it is an .npz archive, not a .npy file\n"
    )


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            "func.func @main() {\n  %x = grad.const 1.0 : memref<2xf32>\n}\n",
            ":2:25: error: expected a statically shaped tensor of f32, i32 or i1",
        ),
        (
            "func.func @main(%a: tensor<2xf32>) {\n"
            "  %r = grad.cast %a : tensor<2xf32> to tensor<3xi32>\n"
            "  func.return\n}\n",
            ":2:3: error: 'grad.cast' op result shape must equal the input shape",
        ),
    ],
)
def test_parse_and_verify_errors_are_located(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str, message: str
) -> None:
    path = tmp_path / "bad.mlir"
    path.write_text(text)
    status, out, err = run(capsys, path)
    assert (status, out) == (1, "")
    assert err.startswith(f"{path}{message}")
    assert err.count("\n") == 3 and err.endswith("^\n")  # the line and a caret


def test_a_missing_file_is_an_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert run(capsys, "no/such.mlir") == (
        1,
        "",
        "no/such.mlir: error: No such file or directory\n",
    )


def test_help_exits_0(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "--help")
    assert status == 0 and "--slot N=SPEC" in out


def test_the_console_script(tmp_path: Path) -> None:
    script = Path(sys.executable).parent / "grad-run"
    out_file = tmp_path / "cubic.npz"
    result = subprocess.run(
        [script, CUBIC, "--slot", "0=[1,2,3,4,5]", "--out", out_file],
        capture_output=True,
        text=True,
        check=False,
    )
    assert (result.returncode, result.stderr) == (0, "")
    assert result.stdout.splitlines()[1] == (
        "slot 1 = dense<[1.0, 10.0, 25.0, 46.0, 73.0]> : memref<5xf32>"
    )
    with np.load(out_file) as values:
        assert json.dumps(values["slot1"].tolist()) == "[1.0, 10.0, 25.0, 46.0, 73.0]"
    failed = subprocess.run(
        [script, CUBIC, "--slot", "0=[1]"], capture_output=True, text=True, check=False
    )
    assert (failed.returncode, failed.stdout) == (1, "")
    assert (
        failed.stderr == "--slot 0: error: expected 5 values for memref<5xf32>, got 1\n"
    )


# --- bad input, end to end ----------------------------------------------------

INPUTS = """func.func @main(%s: memref<3xf32>, %d: memref<2xi32>, %x: tensor<2xf32>)
    -> tensor<2xf32> {
  func.return %x : tensor<2xf32>
}
"""


def _npy(tmp_path: Path, name: str, data: np.ndarray, pickle: bool = False) -> str:
    path = tmp_path / name
    np.save(path, data, allow_pickle=pickle)
    return str(path)


def _huge_header(tmp_path: Path) -> str:
    """An .npy whose header declares 373 GiB of data, followed by 8 bytes."""
    path = tmp_path / "huge.npy"
    with open(path, "wb") as file:
        header = {"descr": "<f4", "fortran_order": False, "shape": (99999999999,)}
        np.lib.format.write_array_header_1_0(file, header)  # pyright: ignore
        file.write(bytes(8))
    return str(path)


BAD_INPUTS = {
    "wrong shape": (
        lambda p: ["--slot", f"0={_npy(p, 'a.npy', np.zeros((3, 1), np.float32))}"],
        "slot 0: error: expected float32 data of shape (3,) for memref<3xf32>, got "
        "float32 data of shape (3, 1)",
    ),
    "wrong dtype": (
        lambda p: ["--slot", f"1={_npy(p, 'a.npy', np.zeros(2, np.int64))}"],
        "slot 1: error: expected int32 data of shape (2,) for memref<2xi32>, got "
        "int64 data",
    ),
    "pickled objects": (
        lambda p: ["--arg", f"0={_npy(p, 'a.npy', np.array([{}, 1]), pickle=True)}"],
        "--arg 0: error: cannot read ",
    ),
    "a header declaring a huge shape": (
        lambda p: ["--slot", f"0={_huge_header(p)}"],
        "--slot 0: error: cannot read ",
    ),
    "a missing file": (
        lambda p: ["--slot", f"0={p / 'missing.npy'}"],
        "--slot 0: error: cannot read ",
    ),
    "a malformed list": (lambda p: ["--slot", "0=[1, 2,"], "--slot 0: error: '[1, 2,'"),
    "a list too deep": (
        lambda p: ["--arg", "0=" + "[" * 5000 + "]" * 5000],
        "--arg 0: error: the list is nested too deeply",
    ),
    "a list of the wrong length": (
        lambda p: ["--arg", "0=[1, 2, 3]"],
        "--arg 0: error: expected 2 values for tensor<2xf32>, got 3",
    ),
    "NaN for an integer": (
        lambda p: ["--slot", "1=[NaN, 1]"],
        "--slot 1: error: expected an integer, got NaN",
    ),
    "infinity for an integer": (
        lambda p: ["--slot", "1=[1, -Infinity]"],
        "--slot 1: error: expected an integer, got -Infinity",
    ),
    "a number of 100 000 digits": (
        lambda p: ["--arg", "0=" + "1" * 100_000 + "x"],
        "--arg 0: error: cannot read 1111",
    ),
    "a slot that does not exist": (
        lambda p: ["--slot", "2=zeros"],
        "--slot 2: error: no such slot: the entry function has 2 slots",
    ),
    "an arg that does not exist": (
        lambda p: ["--arg", "1=[1, 2]"],
        "--arg 1: error: no such arg: the entry function has 1 arg",
    ),
    "an entry that does not exist": (
        lambda p: ["--entry", "nope"],
        "inputs.mlir: error: no function @nope to run",
    ),
}


@pytest.mark.parametrize("case", list(BAD_INPUTS))
def test_bad_input_is_one_error_and_writes_no_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], case: str
) -> None:
    program = tmp_path / "inputs.mlir"
    program.write_text(INPUTS)
    make_args, message = BAD_INPUTS[case]
    args = make_args(tmp_path)
    before = sorted(os.listdir(tmp_path))
    status, out, err = run(capsys, program, *args, "--out", tmp_path / "out.npz")
    assert (status, out) == (1, "")
    assert err.replace(f"{tmp_path}/", "").startswith(message), err
    assert err.count("error:") == 1 and "Traceback" not in err
    assert sorted(os.listdir(tmp_path)) == before  # no output, no temporary file


def test_nan_and_infinities_are_data(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Also out of float32's range: an infinity, as a literal would be, with
    no NumPy warning on stderr."""
    program = tmp_path / "inputs.mlir"
    program.write_text(INPUTS)
    data = _npy(tmp_path, "x.npy", np.array([np.nan, -np.inf], np.float32))
    for spec, printed in [
        ("[NaN, -Infinity]", "[nan, -inf]"),
        (data, "[nan, -inf]"),
        ("[1e39, -1e39]", "[inf, -inf]"),
    ]:
        status, out, err = run(capsys, program, "--arg", f"0={spec}", "-q")
        assert (status, err) == (0, "")
        status, out, err = run(capsys, program, "--arg", f"0={spec}")
        assert (status, err) == (0, "")
        assert out.startswith(f"result 0 = dense<{printed}> : tensor<2xf32>\n")


HUGE_SLOT = "func.func @main(%s: memref<99999999999xf32>) {\n  func.return\n}\n"


@pytest.mark.parametrize(
    ("text", "message", "args"),
    [
        (
            HUGE_SLOT,
            "slot 0: error: memref<99999999999xf32> is too large to allocate\n",
            [],
        ),
        (
            HUGE_SLOT,
            "--slot 0: error: memref<99999999999xf32> is too large to allocate\n",
            ["--slot", "0=zeros"],
        ),
        (
            "func.func @main() -> tensor<99999999999xf32> {\n"
            "  %c = grad.const 1.0 : tensor<99999999999xf32>\n"
            "  func.return %c : tensor<99999999999xf32>\n}\n",
            "huge.mlir: error: the results of @main do not fit in memory\n",
            [],
        ),
        (
            "func.func @main() -> tensor<9999999999999999999xf32> {\n"
            "  %c = grad.const 1.0 : tensor<9999999999999999999xf32>\n"
            "  func.return %c : tensor<9999999999999999999xf32>\n}\n",
            "huge.mlir:2:3: error: 'grad.const' op result 0 of type "
            "tensor<9999999999999999999xf32> is too large to run\n",
            [],
        ),
    ],
)
def test_a_huge_declared_shape_is_an_error(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    text: str,
    message: str,
    args: list[str],
) -> None:
    """NumPy raised `MemoryError` or `ValueError` through the driver."""
    program = tmp_path / "huge.mlir"
    program.write_text(text)
    status, out, err = run(capsys, program, *args)
    assert (status, out) == (1, "")
    assert err.replace(f"{tmp_path}/", "").startswith(message)


def test_an_internal_error_is_one_line_without_traceback(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """As in grad-opt: a bug in gradopt (here a pass raising) is reported on
    one line, exit status 1, no output file, rather than as a traceback."""

    def fail(*args: object) -> None:
        raise ValueError("Can't insert operation before operation not in block")

    monkeypatch.setattr("gradopt.runtime.program.Program.run", fail)
    out_file = tmp_path / "out.npz"
    status, out, err = run(capsys, CUBIC, "--out", out_file)
    assert (status, out) == (1, "")
    assert err == (
        "grad-run: error: internal error: ValueError: Can't insert operation "
        "before operation not in block\n"
    )
    assert not out_file.exists()
