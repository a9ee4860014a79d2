# ruff: noqa: E501 (MLIR text: one op a line, as MLIR prints it)
"""Real upstream programs (SPEC §10.5): IREE's input form of JAX functions
(`tests/corpus/`, made by `tests/upstream_corpus.py`) through `Program`, the
IREE backend and the drivers; `differentiate_module`; and `grad-opt` as a
superset of `xdsl-opt`."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from xdsl.dialects.tensor import ExpandShapeOp, Tensor

import gradopt
from gradopt import GradoptError, Program

CORPUS = Path(__file__).resolve().parent / "corpus"
PROGRAMS = sorted(p.stem for p in CORPUS.glob("*.mlir"))
HAVE_IREE = importlib.util.find_spec("iree") is not None and all(
    importlib.util.find_spec(m) for m in ("iree.compiler", "iree.runtime")
)
HAVE_JAX = importlib.util.find_spec("jax") is not None


def corpus(name: str) -> tuple[str, list[np.ndarray], list[np.ndarray]]:
    """A program's text, its inputs and JAX's results."""
    data = np.load(CORPUS / f"{name}.npz")
    args = [data[k] for k in sorted(data.files, key=_number) if k.startswith("arg")]
    results = [
        data[k] for k in sorted(data.files, key=_number) if k.startswith("result")
    ]
    return (CORPUS / f"{name}.mlir").read_text(), args, results


def _number(key: str) -> int:
    name = key.removeprefix("arg").removeprefix("result").removeprefix("grad")
    return int(name)


def relative_error(found: np.ndarray, expected: np.ndarray) -> float:
    scale = max(float(np.max(np.abs(expected))), 1e-30)
    return float(np.max(np.abs(found.astype(np.float64) - expected))) / scale


def test_the_corpus_is_there() -> None:
    assert {"mlp", "cnn", "attention", "layer_norm", "scan"} <= set(PROGRAMS)


@pytest.mark.parametrize("name", PROGRAMS)
def test_corpus_programs_give_jax_values(name: str) -> None:
    text, args, expected = corpus(name)
    assert "util.func public @main" in text
    found = Program(text, f"{name}.mlir").run(args=args).results
    for got, want in zip(found, expected, strict=True):
        assert got.shape == want.shape
        assert relative_error(got, want) <= 1e-5


@pytest.mark.skipif(not HAVE_IREE, reason="needs the iree extra")
@pytest.mark.parametrize("name", ["mlp", "scan"])
def test_corpus_programs_run_on_iree_as_they_are(name: str) -> None:
    text, args, expected = corpus(name)
    found = Program(text, f"{name}.mlir").run(args=args, backend="iree").results
    for got, want in zip(found, expected, strict=True):
        assert relative_error(got, want) <= 1e-5


@pytest.mark.skipif(
    not (HAVE_JAX and HAVE_IREE), reason="needs the jax and iree extras"
)
def test_the_corpus_is_what_jax_and_iree_make_today() -> None:
    """The programs made anew by JAX and IREE run to JAX's values too."""
    sys.path.insert(0, str(CORPUS.parent))
    try:
        from upstream_corpus import generate
    finally:
        sys.path.remove(str(CORPUS.parent))
    for name, (text, arrays) in generate().items():
        args = [
            arrays[f"arg{i}"] for i in range(sum(k.startswith("arg") for k in arrays))
        ]
        found = Program(text, f"{name}.mlir").run(args=args).results
        for i, got in enumerate(found):
            assert relative_error(got, arrays[f"result{i}"]) <= 1e-5, name


def test_grad_run_runs_the_corpus(tmp_path: Path) -> None:
    _, args, expected = corpus("layer_norm")
    options = []
    for i, arg in enumerate(args):
        np.save(tmp_path / f"{i}.npy", arg)
        options += ["--arg", f"{i}={tmp_path / f'{i}.npy'}"]
    done = subprocess.run(
        [
            "grad-run",
            str(CORPUS / "layer_norm.mlir"),
            *options,
            "--out",
            str(tmp_path / "o.npz"),
        ],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr
    assert relative_error(np.load(tmp_path / "o.npz")["result0"], expected[0]) <= 1e-5


def test_scalar_arguments_and_results() -> None:
    text = """func.func @main(%x: f32, %n: i32) -> (f32, i1) {
  %y = arith.mulf %x, %x : f32
  %z = arith.constant 0 : i32
  %p = arith.cmpi sgt, %n, %z : i32
  func.return %y, %p : f32, i1
}"""
    program = Program(text)
    assert str(program.signature()) == (
        "@main(arg 0 %x: f32, arg 1 %n: i32) -> (result 0 %y: f32, result 1 %p: i1)"
    )
    y, p = program.run(args=[1.5, -2]).results
    assert y.dtype == np.float32 and y.shape == () and y == 2.25
    assert p.dtype == np.bool_ and not p


def test_a_dynamic_shape_is_a_located_error() -> None:
    text = """func.func @main(%x: tensor<?x3xf32>) -> tensor<?x3xf32> {
  func.return %x : tensor<?x3xf32>
}"""
    with pytest.raises(GradoptError) as error:
        Program(text, "dyn.mlir").run()
    assert str(error.value).startswith(
        "dyn.mlir:1:1: error: 'func.func' op argument 0 is tensor<?x3xf32>: "
        "dynamic shapes are not supported"
    )


# --- differentiate_module ------------------------------------------------------

_GRAD_PROGRAM = """util.func public @main(%w: tensor<3xf32>, %x: tensor<3xf32>) -> tensor<f32> {
  %y = grad.mul %w, %x : tensor<3xf32>
  %s = grad.sin %y : tensor<3xf32>
  %l = grad.reduce add %s [0] : tensor<3xf32> to tensor<f32>
  util.return %l : tensor<f32>
}"""


def test_differentiate_module_appends_a_gradient() -> None:
    module = gradopt.differentiate_module(_GRAD_PROGRAM, loss=0, wrt=[0, 1])
    text = str(module)
    assert (
        "%0, %1 = grad.gradient %l wrt %w, %x : tensor<f32>, tensor<3xf32>, tensor<3xf32>"
        in text
    )
    assert "util.return %l, %0, %1 : tensor<f32>, tensor<3xf32>, tensor<3xf32>" in text
    w = np.array([0.5, -1.0, 2.0], np.float32)
    x = np.array([1.0, 3.0, -0.25], np.float32)
    loss, dw, dx = Program(module).run(args=[w, x]).results
    cos = np.cos(w * x)
    np.testing.assert_allclose(loss, np.sin(w * x).sum(), rtol=1e-6)
    np.testing.assert_allclose(dw, cos * x, rtol=1e-6)
    np.testing.assert_allclose(dx, cos * w, rtol=1e-6)


def test_differentiate_module_leaves_a_given_module_as_it_was() -> None:
    module = Program(_GRAD_PROGRAM).module
    before = str(module)
    differentiated = gradopt.differentiate_module(module, wrt=1)
    assert str(module) == before
    assert "grad.gradient %l wrt %x" in str(differentiated)


def test_differentiate_module_says_control_flow_when_there_are_loops() -> None:
    """A JAX scan is an `scf.for` in IREE's input form: the appended gradient
    says `control_flow`, and with `control_flow=False` rule 5 refuses the
    loop, naming it and saying how to opt in."""
    text, args, _ = corpus("scan")
    module = gradopt.differentiate_module(text, wrt=0, filename="scan.mlir")
    assert " control_flow : " in str(module)
    _, gradient = Program(module, "scan.mlir").run(args=args).results
    assert gradient.shape == args[0].shape and np.all(np.isfinite(gradient))
    plain = gradopt.differentiate_module(_GRAD_PROGRAM, wrt=0)
    assert "control_flow" not in str(plain)
    refused = gradopt.differentiate_module(text, wrt=0, control_flow=False)
    with pytest.raises(GradoptError) as error:
        Program(refused, "scan.mlir")
    assert (
        "'grad.gradient' op 'scf.for' lies on the path from the target to "
        "the loss and has no gradient rule: a differentiation op that says "
        "'control_flow' differentiates through calls and structured control flow"
    ) in str(error.value)
    forced = gradopt.differentiate_module(_GRAD_PROGRAM, wrt=0, control_flow=True)
    assert " control_flow : " in str(forced)


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"loss": 1}, "has no result 1 to be the loss: @main returns 1 value"),
        ({"wrt": 2}, "has no argument 2 to differentiate with respect to"),
        ({"entry": "other"}, "has no function @other to differentiate"),
    ],
)
def test_differentiate_module_errors(options: dict[str, object], message: str) -> None:
    with pytest.raises(GradoptError, match=message):
        gradopt.differentiate_module(_GRAD_PROGRAM, **options)  # type: ignore[arg-type]


_WITH_INDICES = """util.func public @main(%i: tensor<2xi64>, %t: tensor<4xf32>, %s: f32, %n: i32) -> f32 {
  %z = arith.constant 0 : index
  %j = tensor.extract %i[%z] : tensor<2xi64>
  %k = arith.index_cast %j : i64 to index
  %e = tensor.extract %t[%k] : tensor<4xf32>
  %p = arith.mulf %e, %s : f32
  util.return %p : f32
}"""


def test_differentiate_module_by_default_takes_the_f32_arguments() -> None:
    """Indices, labels and counts (torch's i64 embedding indices) are not
    targets unless asked for: the default is every f32 argument, tensor or
    scalar; a function with none is a located error."""
    module = gradopt.differentiate_module(_WITH_INDICES)
    assert "grad.gradient %p wrt %t, %s : f32, tensor<4xf32>, f32" in str(module)
    t = np.array([1.0, 2.0, 3.0, 4.0], np.float32)
    args = [np.array([2, 0], np.int64), t, np.float32(0.5), np.int32(7)]
    loss, dt, ds = Program(module).run(args=args).results
    assert float(loss) == 1.5 and float(ds) == 3.0
    np.testing.assert_array_equal(dt, np.float32([0.0, 0.0, 0.5, 0.0]))
    integers = "func.func @main(%n: i32) -> i32 {\n  func.return %n : i32\n}"
    with pytest.raises(
        GradoptError, match=r"1:1: error: 'func.func' op @main has no f32 argument"
    ):
        gradopt.differentiate_module(integers)


def test_differentiate_module_refuses_a_second_gradient() -> None:
    once = gradopt.differentiate_module(_GRAD_PROGRAM, wrt=0)
    with pytest.raises(
        GradoptError, match=r"'grad.gradient' op is already in the module"
    ):
        gradopt.differentiate_module(once, wrt=0)


def test_differentiate_module_checks_python_types() -> None:
    with pytest.raises(TypeError, match="wrt must be an argument position"):
        gradopt.differentiate_module(_GRAD_PROGRAM, wrt="x")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="loss must be a result position"):
        gradopt.differentiate_module(_GRAD_PROGRAM, loss=True)


def test_differentiate_module_takes_numpy_integers_as_positions() -> None:
    """As `operator.index` takes them (a position read from an array)."""
    for loss, wrt in ((np.int64(0), np.int32(1)), (0, np.array([1, 0]))):
        module = gradopt.differentiate_module(_GRAD_PROGRAM, loss=loss, wrt=wrt)
        assert "grad.gradient %l wrt %x" in str(module)
    with pytest.raises(TypeError, match="wrt must be an argument position"):
        gradopt.differentiate_module(_GRAD_PROGRAM, wrt=np.bool_(True))


def test_the_pass_in_grad_opt(tmp_path: Path) -> None:
    path = tmp_path / "p.mlir"
    path.write_text(_GRAD_PROGRAM)
    done = subprocess.run(
        ["grad-opt", str(path), "-p", "differentiate-module{wrt=1}"],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr
    assert "grad.gradient %l wrt %x : tensor<f32>, tensor<3xf32>" in done.stdout


# --- grad-opt and xdsl-opt -------------------------------------------------------

_REMF = """func.func @main(%a: f32) -> f32 {
  %r = arith.remf %a, %a : f32
  func.return %r : f32
}
"""


def test_grad_opt_reads_what_xdsl_lacks_and_xdsl_keeps_its_dialects() -> None:
    """`arith.remf` is gradopt's: grad-opt reads it, xdsl-opt (whose
    dialects gradopt leaves alone) does not, and grad-opt prints it in the
    generic form xdsl-opt gives an unknown op; `util` reaches both."""
    done = subprocess.run(["grad-opt"], input=_REMF, capture_output=True, text=True)
    assert done.returncode == 0 and "arith.remf" in done.stdout
    plain = subprocess.run(["xdsl-opt"], input=_REMF, capture_output=True, text=True)
    assert plain.returncode != 0 and "arith.remf" in plain.stdout + plain.stderr
    # what xdsl-opt reads as an unknown op, grad-opt prints as xdsl-opt does
    unknown = subprocess.run(
        ["xdsl-opt", "--allow-unregistered-dialect"],
        input=done.stdout,
        capture_output=True,
        text=True,
    )
    assert unknown.returncode == 0 and unknown.stdout == done.stdout
    util = subprocess.run(
        ["xdsl-opt"], input=_GRAD_PROGRAM, capture_output=True, text=True
    )
    assert util.returncode == 0 and "util.func public @main" in util.stdout
    assert ExpandShapeOp in list(Tensor.operations)


def test_hexadecimal_float_literals_are_bits() -> None:
    """`dense<0xFF800000>` is -inf in MLIR and IREE's output (xDSL reads the
    number 4286578688): gradopt's parser reads the bits."""
    text = """func.func @main() -> (tensor<2xf32>, tensor<3xf32>) {
  %a = arith.constant dense<0xFF800000> : tensor<2xf32>
  %b = arith.constant dense<[0x7F800000, 1.5, 0x80000000]> : tensor<3xf32>
  func.return %a, %b : tensor<2xf32>, tensor<3xf32>
}"""
    a, b = gradopt.run(text).results
    assert a.tolist() == [-np.inf, -np.inf]
    assert b.tolist() == [np.inf, 1.5, 0.0] and np.signbit(b[2])
    done = subprocess.run(["grad-opt"], input=text, capture_output=True, text=True)
    assert "dense<0xff800000> : tensor<2xf32>" in done.stdout


def test_the_extended_dialects_keep_xdsls_interfaces() -> None:
    """gradopt's `arith` (xDSL's with `remf` added) still materializes the
    constants that folding passes make, as xdsl-opt's does."""
    text = """%a = arith.constant 1 : i32
%b = arith.constant 2 : i32
%c = arith.addi %a, %b : i32
"test.op"(%c) : (i32) -> ()
"""
    outputs = [
        subprocess.run(
            [tool, "-p", "constant-fold-interp"],
            input=text,
            capture_output=True,
            text=True,
        ).stdout
        for tool in ("xdsl-opt", "grad-opt")
    ]
    assert "%c = arith.constant 3 : i32" in outputs[0]
    assert outputs[1] == outputs[0]


@pytest.mark.skipif(
    not (HAVE_JAX and HAVE_IREE), reason="needs the jax and iree extras"
)
def test_the_jax_walk_through_example_matches_jax_grad() -> None:
    """examples/jax_linalg.py: JAX → IREE's input form → differentiate_module,
    its gradients within 1e-4 of `jax.grad` (its exit status says so)."""
    sys.path.insert(0, str(CORPUS.parent.parent / "examples"))
    try:
        from jax_linalg import main
    finally:
        sys.path.pop(0)
    assert main([]) == 0
