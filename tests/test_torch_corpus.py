# ruff: noqa: E501 (MLIR text: one op a line, as MLIR prints it)
"""Real programs from PyTorch (SPEC §10.5): IREE's input form of torch models
(`tests/corpus/torch/`, made by `tests/torch_corpus.py` with iree-turbine),
differentiated by `differentiate_module` and checked against torch.autograd
in float64; and the torch-mlir forms they brought in, each on its own."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import pytest

import gradopt
from gradopt import GradoptError, Program

CORPUS = Path(__file__).resolve().parent / "corpus" / "torch"
PROGRAMS = sorted(p.stem for p in CORPUS.glob("*.mlir"))
HAVE_IREE = importlib.util.find_spec("iree") is not None and all(
    importlib.util.find_spec(m) for m in ("iree.compiler", "iree.runtime")
)


def relative_error(found: np.ndarray, expected: np.ndarray) -> float:
    scale = max(float(np.max(np.abs(expected))), 1e-30)
    return float(np.max(np.abs(found.astype(np.float64) - expected))) / scale


def differentiated(name: str) -> tuple[Program, list[np.ndarray], np.ndarray, list]:
    """A corpus program with its gradient appended, its inputs, torch's loss
    and torch's float64 gradients."""
    data = np.load(CORPUS / f"{name}.npz")
    args = [data[f"arg{i}"] for i in range(sum(k.startswith("arg") for k in data))]
    wrt = [int(i) for i in data["wrt"]]
    module = gradopt.differentiate_module(
        (CORPUS / f"{name}.mlir").read_text(), wrt=wrt, filename=f"{name}.mlir"
    )
    grads = [data[f"grad{i}"] for i in range(len(wrt))]
    return Program(module, f"{name}.mlir"), args, data["result0"], grads


def test_the_torch_corpus_is_there() -> None:
    assert set(PROGRAMS) == {
        *("mlp", "cnn", "layer_norm", "attention", "attention_decomposed"),
        "multihead_attention",
        *("activations", "embedding"),
        *("batch_norm", "lstm_cell", "gru_cell", "avg_pool_mse"),
    }


@pytest.mark.parametrize("name", PROGRAMS)
def test_torch_programs_match_torch_autograd(name: str) -> None:
    program, args, loss, expected = differentiated(name)
    found, *grads = program.run(args=args).results
    assert relative_error(found, loss) <= 1e-5
    for got, want in zip(grads, expected, strict=True):
        assert got.dtype == np.float32 and got.shape == want.shape
        assert relative_error(got, want) <= 1e-4


@pytest.mark.skipif(not HAVE_IREE, reason="needs the iree extra")
def test_a_torch_program_matches_torch_autograd_on_iree() -> None:
    """A gather with i64 indices and `cf.assert`s in its body, compiled by
    IREE with its gradient (the other programs' forms are compiled in
    `tests/corpus/torch`'s table, `python tests/torch_corpus.py --check`;
    each costs seconds of IREE's compiler)."""
    program, args, loss, expected = differentiated("embedding")
    found, *grads = program.run(args=args, backend="iree").results
    assert relative_error(found, loss) <= 1e-5
    for got, want in zip(grads, expected, strict=True):
        assert relative_error(got, want) <= 1e-4


def test_a_failed_assert_in_a_body_is_a_located_error() -> None:
    """torch-mlir checks a gather's indices with `cf.assert` in the body:
    an index out of range stops the run, naming the assert and its text."""
    program, args, _, _ = differentiated("embedding")
    args[-1] = np.array([[1, 4, 4], [9, 0, 10]])
    with pytest.raises(GradoptError) as error:
        program.run(args=args)
    message = str(error.value)
    assert "embedding.mlir:" in message
    assert "'cf.assert' failed: index must be smaller than dim size" in message


_FPOWI = """func.func @main(%x: tensor<4xf32>) -> tensor<f32> {
  %n = arith.constant N : i64
  %e = tensor.empty() : tensor<4xf32>
  %p = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%x : tensor<4xf32>) outs(%e : tensor<4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %y = math.fpowi %in, %n : f32, i64
    linalg.yield %y : f32
  } -> tensor<4xf32>
  %z = arith.constant dense<0.0> : tensor<f32>
  %s = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> ()>], iterator_types = ["reduction"]} ins(%p : tensor<4xf32>) outs(%z : tensor<f32>) {
  ^bb0(%in: f32, %out: f32):
    %a = arith.addf %in, %out : f32
    linalg.yield %a : f32
  } -> tensor<f32>
  func.return %s : tensor<f32>
}"""


@pytest.mark.parametrize("n", [2, 3, -2])
def test_fpowi_runs_and_differentiates(n: int) -> None:
    """`math.fpowi` (torch's `x ** 2`): x**n in float32, gradient n x**(n-1)."""
    x = np.array([0.5, -1.25, 2.0, 3.0], np.float32)
    module = gradopt.differentiate_module(_FPOWI.replace("N", str(n)), wrt=0)
    value, gradient = Program(module).run(args=[x]).results
    wide = x.astype(np.float64)
    assert relative_error(value, np.sum(wide**n)) <= 1e-6
    assert relative_error(gradient, n * wide ** (n - 1)) <= 1e-6


_KEEPDIM = """func.func @main(%x: tensor<2x3xf32>) -> (tensor<f32>, tensor<2xi64>) {
  %f = arith.constant dense<0.0> : tensor<2x1xf32>
  %i = arith.constant dense<0> : tensor<2xi64>
  %n = arith.constant dense<0xFF800000> : tensor<2xf32>
  %s = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, 0)>], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<2x3xf32>) outs(%f : tensor<2x1xf32>) {
  ^bb0(%in: f32, %out: f32):
    %a = arith.addf %in, %out : f32
    linalg.yield %a : f32
  } -> tensor<2x1xf32>
  %v, %k = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<2x3xf32>) outs(%n, %i : tensor<2xf32>, tensor<2xi64>) {
  ^bb0(%in: f32, %out: f32, %at: i64):
    %d = linalg.index 1 : index
    %j = arith.index_cast %d : index to i64
    %b = arith.maximumf %in, %out : f32
    %c = arith.cmpf ogt, %in, %out : f32
    %w = arith.select %c, %j, %at : i64
    linalg.yield %b, %w : f32, i64
  } -> (tensor<2xf32>, tensor<2xi64>)
  %e = tensor.expand_shape %v [[0, 1]] output_shape [2, 1] : tensor<2xf32> into tensor<2x1xf32>
  %z = arith.constant dense<0.0> : tensor<f32>
  %t = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> ()>], iterator_types = ["reduction", "reduction"]} ins(%s, %e : tensor<2x1xf32>, tensor<2x1xf32>) outs(%z : tensor<f32>) {
  ^bb0(%a: f32, %b: f32, %out: f32):
    %p = arith.mulf %a, %b : f32
    %q = arith.addf %p, %out : f32
    linalg.yield %q : f32
  } -> tensor<f32>
  func.return %t, %k : tensor<f32>, tensor<2xi64>
}"""


def test_keepdim_reductions_and_an_argmax_index() -> None:
    """A sum written through `(d0, d1) -> (d0, 0)` (torch's keepdim) and
    torch's `max(dim)`, a max with its argmax as a second i64 result: they
    run, and differentiate with the index a dead end (float64 reference:
    d/dx sum_r s_r m_r = m_r + s_r at the row's maximum)."""
    x = np.array([[1.0, 3.0, 2.0], [-1.0, -4.0, 0.5]], np.float32)
    module = gradopt.differentiate_module(_KEEPDIM, wrt=0)
    loss, index, gradient = Program(module).run(args=[x]).results
    wide = x.astype(np.float64)
    sums, maxima = wide.sum(1), wide.max(1)
    assert relative_error(loss, np.sum(sums * maxima)) <= 1e-6
    np.testing.assert_array_equal(index, [1, 2])
    expected = np.repeat(maxima[:, None], 3, 1)
    expected[[0, 1], [1, 2]] += sums
    assert relative_error(gradient, expected) <= 1e-6


def test_pooling_nchw_max_combines_the_output_with_the_input() -> None:
    """xDSL's `linalg.pooling_nchw_max` body takes the max of the input and
    the window operand; gradopt's takes it of the output and the input."""
    text = """func.func @main(%x: tensor<1x1x4x4xf32>) -> tensor<1x1x2x2xf32> {
  %w = tensor.empty() : tensor<2x2xf32>
  %c = arith.constant 0xFF800000 : f32
  %i = tensor.empty() : tensor<1x1x2x2xf32>
  %f = linalg.fill ins(%c : f32) outs(%i : tensor<1x1x2x2xf32>) -> tensor<1x1x2x2xf32>
  %m = linalg.pooling_nchw_max {dilations = dense<1> : vector<2xi64>, strides = dense<2> : vector<2xi64>} ins(%x, %w : tensor<1x1x4x4xf32>, tensor<2x2xf32>) outs(%f : tensor<1x1x2x2xf32>) -> tensor<1x1x2x2xf32>
  func.return %m : tensor<1x1x2x2xf32>
}"""
    program = Program(text)
    pool = next(op for op in program.module.walk() if op.name.endswith("nchw_max"))
    block = pool.regions[0].block
    combine = block.first_op
    assert combine is not None and combine.name == "arith.maximumf"
    assert list(combine.operands) == [block.args[2], block.args[0]]
    x = np.arange(16, dtype=np.float32).reshape(1, 1, 4, 4) % 7
    (found,) = program.run(args=[x]).results
    np.testing.assert_array_equal(
        found, x.reshape(2, 2, 2, 2).max(axis=(1, 3))[None, None]
    )


_ATTENTION = """func.func @main(%q: tensor<2x3x4xf32>, %kt: tensor<2x4x5xf32>, %v: tensor<2x5x6xf32>, %scale: f32) -> tensor<f32> {
  %e = tensor.empty() : tensor<2x3x6xf32>
  %o = iree_linalg_ext.attention <indexing_maps = [affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d3)>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d3, d4)>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d4, d2)>, affine_map<(d0, d1, d2, d3, d4) -> ()>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2)>]> ins(%q, %kt, %v, %scale : tensor<2x3x4xf32>, tensor<2x4x5xf32>, tensor<2x5x6xf32>, f32) outs(%e : tensor<2x3x6xf32>) {
  ^bb0(%score: f32):
    iree_linalg_ext.yield %score : f32
  } -> tensor<2x3x6xf32>
  %z = arith.constant dense<0.0> : tensor<f32>
  %s = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> ()>], iterator_types = ["reduction", "reduction", "reduction"]} ins(%o : tensor<2x3x6xf32>) outs(%z : tensor<f32>) {
  ^bb0(%in: f32, %out: f32):
    %p = arith.mulf %in, %in : f32
    %a = arith.addf %p, %out : f32
    linalg.yield %a : f32
  } -> tensor<f32>
  func.return %s : tensor<f32>
}"""


def _attention_reference(
    q: np.ndarray, kt: np.ndarray, v: np.ndarray, scale: float
) -> tuple[float, list[np.ndarray]]:
    """sum(softmax(scale q k) v)**2 and its gradients, in float64."""
    q, kt, v = (x.astype(np.float64) for x in (q, kt, v))
    raw = q @ kt
    s = scale * raw
    p = np.exp(s - s.max(-1, keepdims=True))
    p /= p.sum(-1, keepdims=True)
    o = p @ v
    do = 2 * o
    dp = do @ v.transpose(0, 2, 1)
    ds = p * (dp - np.sum(dp * p, -1, keepdims=True))
    grads = [
        scale * ds @ kt.transpose(0, 2, 1),
        scale * q.transpose(0, 2, 1) @ ds,
        p.transpose(0, 2, 1) @ do,
        np.asarray(np.sum(ds * raw)),
    ]
    return float(np.sum(o * o)), grads


def test_attention_runs_and_differentiates_in_both_modes() -> None:
    """`iree_linalg_ext.attention` with the key stored transposed and the
    scale an argument: its value and its gradient with respect to all four
    (reverse mode; on IREE too, when installed), and the forward-mode
    tangents, against float64."""
    rng = np.random.default_rng(1)
    q, kt, v = (
        rng.standard_normal(s).astype(np.float32)
        for s in ((2, 3, 4), (2, 4, 5), (2, 5, 6))
    )
    scale = np.float32(0.7)
    loss, expected = _attention_reference(q, kt, v, float(scale))
    module = gradopt.differentiate_module(_ATTENTION, wrt=[0, 1, 2, 3])
    for backend in ("numpy", "iree") if HAVE_IREE else ("numpy",):
        found, *grads = (
            Program(module).run(args=[q, kt, v, scale], backend=backend).results
        )
        assert relative_error(found, np.asarray(loss)) <= 1e-5
        for got, want in zip(grads, expected, strict=True):
            assert relative_error(got, want) <= 1e-4
    direction = [rng.standard_normal(x.shape).astype(np.float32) for x in (q, kt, v)]
    jvps = "\n".join(
        f"  %t{k} = grad.jvp %s wrt %{x}, %d{x} : tensor<f32>, {t}"
        for k, (x, t) in enumerate(
            [
                ("q", "tensor<2x3x4xf32>"),
                ("kt", "tensor<2x4x5xf32>"),
                ("v", "tensor<2x5x6xf32>"),
            ]
        )
    )
    jvp = (
        _ATTENTION.replace(
            "  func.return %s : tensor<f32>",
            jvps
            + "\n  func.return %t0, %t1, %t2 : tensor<f32>, tensor<f32>, tensor<f32>",
        )
        .replace(
            "-> tensor<f32> {\n  %e",
            "-> (tensor<f32>, tensor<f32>, tensor<f32>) {\n  %e",
        )
        .replace(
            "%scale: f32)",
            "%scale: f32, %dq: tensor<2x3x4xf32>, %dkt: tensor<2x4x5xf32>, %dv: tensor<2x5x6xf32>)",
        )
    )
    tangents = Program(jvp).run(args=[q, kt, v, scale, *direction]).results
    for tangent, g, d in zip(tangents, expected, direction, strict=False):
        assert relative_error(tangent, np.asarray(np.sum(g * d))) <= 1e-4


def test_an_attention_gradopt_does_not_run_is_a_located_error() -> None:
    """A mask (a fifth input) is read and printed as IREE prints it, but
    neither run nor differentiated: each says so at the op."""
    masked = (
        _ATTENTION.replace("%scale: f32)", "%scale: f32, %m: tensor<2x3x5xf32>)")
        .replace(
            "affine_map<(d0, d1, d2, d3, d4) -> ()>, ",
            "affine_map<(d0, d1, d2, d3, d4) -> ()>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d4)>, ",
        )
        .replace("%v, %scale : ", "%v, %scale, %m : ")
        .replace("f32) outs", "f32, tensor<2x3x5xf32>) outs")
    )
    program = Program(masked, "masked.mlir")
    assert "ins(%q, %kt, %v, %scale, %m : " in str(program.module)
    with pytest.raises(
        GradoptError,
        match=r"masked.mlir:3:3: error: 'iree_linalg_ext.attention' op cannot be run: an attention with a mask is not supported",
    ):
        program.run(
            args=[
                np.zeros((2, 3, 4), np.float32),
                np.zeros((2, 4, 5), np.float32),
                np.zeros((2, 5, 6), np.float32),
                np.float32(1),
                np.zeros((2, 3, 5), np.float32),
            ]
        )
    with pytest.raises(
        GradoptError,
        match=r"'iree_linalg_ext.attention' lies on the path from the target to the loss and has no gradient rule: an attention with a mask is not supported",
    ):
        Program(gradopt.differentiate_module(masked, wrt=0), "masked.mlir")


def test_iree_packing_an_i1_operand_is_compiled_untiled(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """IREE 3.13's data tiling fails on an i1 operand it packs (torch's
    decomposed attention and its gradient): that program alone is compiled
    again without tiled layouts; any other failure is reported as it is."""
    from gradopt.runtime import iree

    class ToolError(Exception):
        pass

    calls: list[list[str]] = []

    class Compiler:
        CompilerToolError = ToolError

        @staticmethod
        def compile_str(text: str, extra_args: list[str]) -> bytes:
            calls.append(extra_args)
            if "--iree-opt-data-tiling=true" in extra_args:
                raise ToolError(text)
            return b"untiled"

    monkeypatch.setattr(iree, "_import", lambda name: Compiler)
    packed = f"error: {iree._PACKED_I1}"  # pyright: ignore[reportPrivateUsage]
    assert iree._compile(packed) == b"untiled"  # pyright: ignore[reportPrivateUsage]
    assert calls == [list(iree.COMPILE_FLAGS), list(iree.LOOP_COMPILE_FLAGS)]
    with pytest.raises(iree.BackendError, match="IREE could not compile"):
        iree._compile("error: something else")  # pyright: ignore[reportPrivateUsage]
