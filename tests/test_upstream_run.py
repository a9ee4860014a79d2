# ruff: noqa: E501 (MLIR text: one op a line, as MLIR prints it)
"""The interpreter on the upstream dialects (SPEC §10.4): `arith` and `math`
against NumPy references and bit for bit against the `grad` op of the same
meaning, `tensor` ops against NumPy indexing, `linalg` generics and named
ops against hand-written NumPy, and `convert-grad-to-standard` output run
to the bits of the `grad` program it came from."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest
from xdsl.dialects.builtin import MemRefType

import gradopt
from gradopt import GradoptError, Program
from gradopt.runtime.iree import lower

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
SPECIAL = np.array(
    [0.0, -0.0, 1.0, -1.5, 3.25, 1e-30, -1e30, np.inf, -np.inf, np.nan, 0.1, 7.0],
    np.float32,
)


def bits(value: object) -> np.ndarray:
    array = np.asarray(value)
    return array.view(np.uint32) if array.dtype == np.float32 else array


def run(text: str, *args: object, entry: str = "main") -> list[np.ndarray]:
    return gradopt.run(text, args=list(args), entry=entry).results


def values(rng: np.random.Generator, n: int = 64) -> np.ndarray:
    random = rng.standard_normal(n - len(SPECIAL)).astype(np.float32) * 3
    return np.concatenate([SPECIAL, random])


# --- arith and math ---------------------------------------------------------


@pytest.mark.parametrize(
    ("upstream", "grad"),
    [
        ("arith.addf %a, %b", "grad.add %a, %b"),
        ("arith.mulf %a, %b", "grad.mul %a, %b"),
        ("arith.negf %a", "grad.neg %a"),
        ("math.sqrt %a", "grad.sqrt %a"),
        ("math.exp2 %a", "grad.exp2 %a"),
        ("math.log2 %a", "grad.log2 %a"),
        ("math.sin %a", "grad.sin %a"),
    ],
)
def test_elementwise_ops_have_the_bits_of_the_grad_op(upstream: str, grad: str) -> None:
    rng = np.random.default_rng(0)
    a, b = values(rng), values(rng)[::-1].copy()
    t = "tensor<64xf32>"
    text = f"""func.func @main(%a: {t}, %b: {t}) -> ({t}, {t}) {{
  %u = {upstream} : {t}
  %g = {grad} : {t}
  func.return %u, %g : {t}, {t}
}}"""
    u, g = run(text, a, b)
    np.testing.assert_array_equal(bits(u), bits(g))


def test_rsqrt_is_recip_of_sqrt_bit_for_bit() -> None:
    a = np.abs(values(np.random.default_rng(1)))
    t = "tensor<64xf32>"
    text = f"""func.func @main(%a: {t}) -> ({t}, {t}) {{
  %u = math.rsqrt %a : {t}
  %s = grad.sqrt %a : {t}
  %g = grad.recip %s : {t}
  func.return %u, %g : {t}, {t}
}}"""
    u, g = run(text, a)
    np.testing.assert_array_equal(bits(u), bits(g))


FLOAT_FUNCTIONS = {
    "math.exp": np.exp,
    "math.expm1": np.expm1,
    "math.log": np.log,
    "math.log10": np.log10,
    "math.log1p": np.log1p,
    "math.tanh": np.tanh,
    "math.cos": np.cos,
    "math.tan": np.tan,
    "math.atan": np.arctan,
    "math.absf": np.abs,
    "math.floor": np.floor,
    "math.ceil": np.ceil,
    "math.trunc": np.trunc,
    "math.roundeven": np.rint,
    "math.erf": np.vectorize(math.erf),
}


@pytest.mark.parametrize("name", sorted(FLOAT_FUNCTIONS))
def test_math_ops_against_float64(name: str) -> None:
    """Within an ulp or two of the float64 function rounded to float32."""
    x = np.random.default_rng(2).uniform(-3, 3, 200).astype(np.float32)
    if name in ("math.log", "math.log10", "math.log1p"):
        x = np.abs(x) + np.float32(0.01)
    t = "tensor<200xf32>"
    text = f"""func.func @main(%a: {t}) -> {t} {{
  %r = {name} %a : {t}
  func.return %r : {t}
}}"""
    (result,) = run(text, x)
    assert result.dtype == np.float32
    expected = FLOAT_FUNCTIONS[name](x.astype(np.float64))
    np.testing.assert_allclose(
        result, expected.astype(np.float32), rtol=3e-7, atol=1e-37
    )


def test_round_is_half_away_from_zero() -> None:
    x = np.array([0.5, 1.5, 2.5, -0.5, -2.5, 0.49999997, -0.0], np.float32)
    text = """func.func @main(%a: tensor<7xf32>) -> tensor<7xf32> {
  %r = math.round %a : tensor<7xf32>
  func.return %r : tensor<7xf32>
}"""
    (result,) = run(text, x)
    np.testing.assert_array_equal(
        bits(result), bits(np.float32([1, 2, 3, -1, -3, 0, -0.0]))
    )


def test_maximumf_and_minimumf_are_ieee_on_zeros_and_nan() -> None:
    a = np.array([-0.0, 0.0, np.nan, 1.0, -0.0], np.float32)
    b = np.array([0.0, -0.0, 1.0, np.nan, -0.0], np.float32)
    t = "tensor<5xf32>"
    text = f"""func.func @main(%a: {t}, %b: {t}) -> ({t}, {t}, {t}, {t}) {{
  %max = arith.maximumf %a, %b : {t}
  %min = arith.minimumf %a, %b : {t}
  %maxnum = arith.maxnumf %a, %b : {t}
  %minnum = arith.minnumf %a, %b : {t}
  func.return %max, %min, %maxnum, %minnum : {t}, {t}, {t}, {t}
}}"""
    high, low, high_num, low_num = run(text, a, b)
    np.testing.assert_array_equal(
        bits(high), bits(np.float32([0, 0, np.nan, np.nan, -0.0]))
    )
    np.testing.assert_array_equal(
        bits(low), bits(np.float32([-0.0, -0.0, np.nan, np.nan, -0.0]))
    )
    np.testing.assert_array_equal(high_num[2:4], [1.0, 1.0])
    np.testing.assert_array_equal(low_num[2:4], [1.0, 1.0])


CMPF = {
    "false": (False, False, False),
    "oeq": (False, True, False),
    "ogt": (False, False, False),
    "oge": (False, True, False),
    "olt": (True, False, False),
    "ole": (True, True, False),
    "one": (True, False, False),
    "ord": (True, True, False),
    "ueq": (False, True, True),
    "ugt": (False, False, True),
    "uge": (False, True, True),
    "ult": (True, False, True),
    "ule": (True, True, True),
    "une": (True, False, True),
    "uno": (False, False, True),
    "true": (True, True, True),
}


@pytest.mark.parametrize("predicate", sorted(CMPF))
def test_cmpf_predicates(predicate: str) -> None:
    """On (1, 2), (2, 2) and (NaN, 1), as MLIR defines each predicate."""
    text = f"""func.func @main(%a: f32, %b: f32) -> i1 {{
  %r = arith.cmpf {predicate}, %a, %b : f32
  func.return %r : i1
}}"""
    pairs = [(1.0, 2.0), (2.0, 2.0), (math.nan, 1.0)]
    found = tuple(bool(run(text, a, b)[0]) for a, b in pairs)
    assert found == CMPF[predicate]


def test_integer_division_rounds_as_named() -> None:
    rng = np.random.default_rng(3)
    a = rng.integers(-50, 50, 100).astype(np.int32)
    b = rng.integers(-7, 8, 100).astype(np.int32)
    b[b == 0] = 3
    t = "tensor<100xi32>"
    text = f"""func.func @main(%a: {t}, %b: {t}) -> ({t}, {t}, {t}, {t}) {{
  %q = arith.divsi %a, %b : {t}
  %r = arith.remsi %a, %b : {t}
  %f = arith.floordivsi %a, %b : {t}
  %c = arith.ceildivsi %a, %b : {t}
  func.return %q, %r, %f, %c : {t}, {t}, {t}, {t}
}}"""
    q, r, f, c = run(text, a, b)
    pairs = list(zip(a.tolist(), b.tolist(), strict=True))
    assert q.tolist() == [int(x / y) for x, y in pairs]
    assert r.tolist() == [x - int(x / y) * y for x, y in pairs]
    assert f.tolist() == [x // y for x, y in pairs]
    assert c.tolist() == [-(-x // y) for x, y in pairs]


def test_a_zero_divisor_is_a_located_error() -> None:
    text = """func.func @main(%a: tensor<2xi32>, %b: tensor<2xi32>) -> tensor<2xi32> {
  %r = arith.remsi %a, %b : tensor<2xi32>
  func.return %r : tensor<2xi32>
}"""
    with pytest.raises(
        GradoptError, match=r"<input>:2:3: error: 'arith.remsi' divides"
    ):
        run(text, [1, 2], [1, 0])


# --- tensor -------------------------------------------------------------------


def test_extract_slice_with_dynamic_offsets_strides_and_rank_reduction() -> None:
    x = np.arange(60, dtype=np.float32).reshape(3, 4, 5)
    text = """func.func @main(%x: tensor<3x4x5xf32>, %i: i32, %j: i32) -> (tensor<2x3xf32>, tensor<3x4x5xf32>) {
  %a = arith.index_cast %i : i32 to index
  %b = arith.index_cast %j : i32 to index
  %s = tensor.extract_slice %x[%a, 1, %b] [1, 2, 3] [1, 2, 1] : tensor<3x4x5xf32> to tensor<2x3xf32>
  %z = arith.constant dense<0.0> : tensor<3x4x5xf32>
  %t = tensor.insert_slice %s into %z[%b, 1, %a] [1, 2, 3] [1, 2, 1] : tensor<2x3xf32> into tensor<3x4x5xf32>
  func.return %s, %t : tensor<2x3xf32>, tensor<3x4x5xf32>
}"""
    for i, j in ((0, 0), (2, 1), (1, 2)):
        s, t = run(text, x, i, j)
        np.testing.assert_array_equal(s, x[i, 1:4:2, j : j + 3])
        expected = np.zeros_like(x)
        expected[j, 1:4:2, i : i + 3] = x[i, 1:4:2, j : j + 3]
        np.testing.assert_array_equal(t, expected)
    with pytest.raises(GradoptError, match=r"'tensor\.extract_slice' reads elements"):
        run(text, x, 3, 0)


# --- linalg -------------------------------------------------------------------

_REDUCE = """func.func @main(%x: tensor<37x53xf32>) -> (tensor<53xf32>, tensor<53xf32>, tensor<37xf32>, tensor<37xf32>) {
  %g0 = grad.reduce add %x [0] : tensor<37x53xf32> to tensor<53xf32>
  %init = arith.constant dense<-0.0> : tensor<53xf32>
  %l0 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1, d0)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<37x53xf32>) outs(%init : tensor<53xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %s = arith.addf %in, %acc : f32
    linalg.yield %s : f32
  } -> tensor<53xf32>
  %g1 = grad.reduce max %x [1] : tensor<37x53xf32> to tensor<37xf32>
  %ninf = arith.constant dense<0xFF800000> : tensor<37xf32>
  %l1 = linalg.reduce ins(%x : tensor<37x53xf32>) outs(%ninf : tensor<37xf32>) dimensions = [1]
    (%in: f32, %acc: f32) {
      %m = arith.maxnumf %in, %acc : f32
      linalg.yield %m : f32
    }
  func.return %g0, %l0, %g1, %l1 : tensor<53xf32>, tensor<53xf32>, tensor<37xf32>, tensor<37xf32>
}"""


def test_reductions_have_the_bits_of_grad_reduce() -> None:
    """A sum over a transposing map is one np.add.reduce of the iteration
    space in C order: the bits of `grad.reduce add` of the same data."""
    x = np.random.default_rng(4).standard_normal((37, 53)).astype(np.float32)
    g0, l0, g1, l1 = run(_REDUCE, x)
    np.testing.assert_array_equal(bits(g0), bits(l0))
    np.testing.assert_array_equal(bits(g1), bits(l1))


def test_a_max_reduction_keeps_nan_and_prefers_positive_zero() -> None:
    text = """func.func @main(%x: tensor<3x2xf32>) -> tensor<3xf32> {
  %init = arith.constant dense<0xFF800000> : tensor<3xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<3x2xf32>) outs(%init : tensor<3xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %m = arith.maximumf %acc, %in : f32
    linalg.yield %m : f32
  } -> tensor<3xf32>
  func.return %r : tensor<3xf32>
}"""
    x = np.array([[-0.0, 0.0], [0.0, -0.0], [np.nan, 1.0]], np.float32)
    (result,) = run(text, x)
    np.testing.assert_array_equal(bits(result), bits(np.float32([0.0, 0.0, np.nan])))


_REDUCE_BODY = """func.func @main(%x: tensor<4x3xf32>, %a: f32) -> (tensor<4xf32>, tensor<4xf32>, tensor<4x3xf32>, f32) {
  %e = tensor.empty() : tensor<4xf32>
  %z = arith.constant 0.0 : f32
  %init = linalg.fill ins(%z : f32) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  %r = linalg.reduce ins(%x : tensor<4x3xf32>) outs(%init : tensor<4xf32>) dimensions = [1]
    (%in: f32, %acc: f32) {
      %m = arith.mulf %in, %a : f32
      %s = math.sin %m : f32
      %t = arith.addf %acc, %s : f32
      linalg.yield %t : f32
    }
  %q = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<4x3xf32>) outs(%init : tensor<4xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %m = arith.mulf %in, %a : f32
    %s = math.sin %m : f32
    %t = arith.addf %acc, %s : f32
    linalg.yield %t : f32
  } -> tensor<4xf32>
  %c1 = arith.constant 1 : index
  %l = tensor.extract %r[%c1] : tensor<4xf32>
  %gx, %ga = grad.gradient %l wrt %x, %a : f32, tensor<4x3xf32>, f32
  func.return %r, %q, %gx, %ga : tensor<4xf32>, tensor<4xf32>, tensor<4x3xf32>, f32
}"""


def test_a_reduce_whose_body_computes_the_element_runs_as_its_generic() -> None:
    """`linalg.reduce` with a body of several ops (an element computed from
    the input and an outer scalar, then added): the bits of the same body in
    a `linalg.generic`, and its gradient."""
    x = np.random.default_rng(6).standard_normal((4, 3)).astype(np.float32)
    a = np.float32(0.7)
    reduced, generic, gx, ga = run(_REDUCE_BODY, x, a)
    np.testing.assert_array_equal(bits(reduced), bits(generic))
    np.testing.assert_allclose(reduced, np.sin(x * a).sum(axis=1), rtol=1e-6)
    expected = np.zeros_like(x)
    expected[1] = np.cos(x[1] * a) * a
    np.testing.assert_allclose(gx, expected, rtol=1e-6)
    np.testing.assert_allclose(ga, (np.cos(x[1] * a) * x[1]).sum(), rtol=1e-6)


def test_matmul_named_generic_and_grad_dot_agree_bit_for_bit() -> None:
    rng = np.random.default_rng(5)
    a = rng.standard_normal((17, 23)).astype(np.float32)
    b = rng.standard_normal((23, 9)).astype(np.float32)
    text = """func.func @main(%a: tensor<17x23xf32>, %b: tensor<23x9xf32>) -> (tensor<17x9xf32>, tensor<17x9xf32>, tensor<17x9xf32>) {
  %z = arith.constant dense<0.0> : tensor<17x9xf32>
  %m = linalg.matmul ins(%a, %b : tensor<17x23xf32>, tensor<23x9xf32>) outs(%z : tensor<17x9xf32>) -> tensor<17x9xf32>
  %g = linalg.generic {indexing_maps = [affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (k, j)>, affine_map<(i, j, k) -> (i, j)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%a, %b : tensor<17x23xf32>, tensor<23x9xf32>) outs(%z : tensor<17x9xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<17x9xf32>
  %d = grad.dot %a, %b : tensor<17x23xf32>, tensor<23x9xf32> to tensor<17x9xf32>
  func.return %m, %g, %d : tensor<17x9xf32>, tensor<17x9xf32>, tensor<17x9xf32>
}"""
    m, g, d = run(text, a, b)
    np.testing.assert_array_equal(bits(m), bits(d))
    np.testing.assert_array_equal(bits(g), bits(d))
    np.testing.assert_allclose(m, a.astype(np.float64) @ b, rtol=1e-5, atol=1e-5)


_TRANSPOSED_PRODUCT = """func.func @main(%x: tensor<MxKxf32>, %g: tensor<MxNxf32>) -> (tensor<KxNxf32>, tensor<KxNxf32>) {
  %z = arith.constant dense<0.0> : tensor<KxNxf32>
  %w = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1)>, affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>], iterator_types = ["reduction", "parallel", "parallel"]} ins(%g, %x : tensor<MxNxf32>, tensor<MxKxf32>) outs(%z : tensor<KxNxf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %p = arith.mulf %a, %b : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<KxNxf32>
  %t = grad.permute %x [1, 0] : tensor<MxKxf32> to tensor<KxMxf32>
  %d = grad.dot %t, %g : tensor<KxMxf32>, tensor<MxNxf32> to tensor<KxNxf32>
  func.return %w, %d : tensor<KxNxf32>, tensor<KxNxf32>
}"""


@pytest.mark.parametrize("m,k,n", [(64, 48, 40), (1, 48, 40), (64, 1, 40), (64, 48, 1)])
def test_a_contraction_into_a_transposed_output_is_grad_dot(
    m: int, k: int, n: int
) -> None:
    """`x^T g` written as a generic whose body multiplies g by x (as the
    gradient of a matmul's right operand is) is computed as the output is
    laid out, `grad.dot` of x transposed by g, not `(g^T x)^T`: the same
    bits, even where BLAS sums a single row or column in another order."""
    text = _TRANSPOSED_PRODUCT.replace("M", str(m)).replace("K", str(k))
    text = text.replace("N", str(n))
    rng = np.random.default_rng(m * 10000 + k * 100 + n)
    x = rng.standard_normal((m, k)).astype(np.float32)
    g = rng.standard_normal((m, n)).astype(np.float32)
    w, d = run(text, x, g)
    np.testing.assert_array_equal(bits(w), bits(d))
    np.testing.assert_allclose(w, x.T.astype(np.float64) @ g, rtol=1e-4, atol=1e-5)


def _strided(x: np.ndarray, w: np.ndarray) -> np.ndarray:
    """NCHW x FCHW with strides (2, 3) and dilations (2, 1), in float64, by
    a loop over the output positions."""
    n, _, h, width = x.shape
    f, _, kh, kw = w.shape
    out = np.zeros((n, f, (h - 2 * (kh - 1) - 1) // 2 + 1, (width - kw) // 3 + 1))
    for i in range(out.shape[2]):
        for j in range(out.shape[3]):
            patch = x[:, :, 2 * i : 2 * i + 2 * (kh - 1) + 1 : 2, 3 * j : 3 * j + kw]
            out[:, :, i, j] = np.einsum("nchw,fchw->nf", patch.astype(np.float64), w)
    return out


_CONVOLUTIONS = """
func.func @main(%x: tensor<2x3x9x8xf32>, %w: tensor<4x3x3x2xf32>) -> (tensor<2x4x3x3xf32>, tensor<2x3x3x3xf32>) {
  %z = arith.constant dense<0.0> : tensor<2x4x3x3xf32>
  %c = linalg.conv_2d_nchw_fchw {dilations = dense<[2, 1]> : tensor<2xi64>, strides = dense<[2, 3]> : tensor<2xi64>} ins(%x, %w : tensor<2x3x9x8xf32>, tensor<4x3x3x2xf32>) outs(%z : tensor<2x4x3x3xf32>) -> tensor<2x4x3x3xf32>
  %e = tensor.empty() : tensor<2x9x8x3xf32>
  %xt = linalg.transpose ins(%x : tensor<2x3x9x8xf32>) outs(%e : tensor<2x9x8x3xf32>) permutation = [0, 2, 3, 1]
  %w0 = tensor.extract_slice %w[0, 0, 0, 0] [1, 3, 3, 2] [1, 1, 1, 1] : tensor<4x3x3x2xf32> to tensor<3x3x2xf32>
  %k = tensor.empty() : tensor<3x2x3xf32>
  %wk = linalg.transpose ins(%w0 : tensor<3x3x2xf32>) outs(%k : tensor<3x2x3xf32>) permutation = [1, 2, 0]
  %zd = arith.constant dense<0.0> : tensor<2x3x3x3xf32>
  %d = linalg.depthwise_conv_2d_nhwc_hwc {dilations = dense<[2, 1]> : tensor<2xi64>, strides = dense<[2, 3]> : tensor<2xi64>} ins(%xt, %wk : tensor<2x9x8x3xf32>, tensor<3x2x3xf32>) outs(%zd : tensor<2x3x3x3xf32>) -> tensor<2x3x3x3xf32>
  func.return %c, %d : tensor<2x4x3x3xf32>, tensor<2x3x3x3xf32>
}"""


def test_convolutions_with_strides_and_dilations() -> None:
    """`conv_2d_nchw_fchw` and `depthwise_conv_2d_nhwc_hwc` (the channels of
    filter 0, each on its own channel) against loops over the outputs."""
    rng = np.random.default_rng(6)
    x = rng.standard_normal((2, 3, 9, 8)).astype(np.float32)
    w = rng.standard_normal((4, 3, 3, 2)).astype(np.float32)
    conv, depthwise = run(_CONVOLUTIONS, x, w)
    np.testing.assert_allclose(conv, _strided(x, w), rtol=1e-5, atol=1e-5)
    expected = np.stack(
        [_strided(x[:, c : c + 1], w[0:1, c : c + 1])[:, 0] for c in range(3)], -1
    )
    np.testing.assert_allclose(depthwise, expected, rtol=1e-5, atol=1e-5)


def test_pooling_sum_and_max_nhwc() -> None:
    x = np.random.default_rng(7).standard_normal((1, 5, 6, 2)).astype(np.float32)
    text = """func.func @main(%x: tensor<1x5x6x2xf32>) -> (tensor<1x2x3x2xf32>, tensor<1x2x3x2xf32>) {
  %z = arith.constant dense<0.0> : tensor<1x2x3x2xf32>
  %n = arith.constant dense<0xFF800000> : tensor<1x2x3x2xf32>
  %w = tensor.empty() : tensor<2x2xf32>
  %s = linalg.pooling_nhwc_sum {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%x, %w : tensor<1x5x6x2xf32>, tensor<2x2xf32>) outs(%z : tensor<1x2x3x2xf32>) -> tensor<1x2x3x2xf32>
  %m = linalg.pooling_nhwc_max {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%x, %w : tensor<1x5x6x2xf32>, tensor<2x2xf32>) outs(%n : tensor<1x2x3x2xf32>) -> tensor<1x2x3x2xf32>
  func.return %s, %m : tensor<1x2x3x2xf32>, tensor<1x2x3x2xf32>
}"""
    s, m = run(text, x)
    windows = x[:, :4, :, :].reshape(1, 2, 2, 3, 2, 2).transpose(0, 1, 3, 5, 2, 4)
    np.testing.assert_allclose(s, windows.sum(axis=(4, 5)), rtol=1e-6)
    np.testing.assert_array_equal(m, windows.max(axis=(4, 5)))


def test_an_out_of_range_window_is_refused() -> None:
    """A strided map reaching past its operand never runs (the interpreter
    reads windows through strided views, which must stay inside)."""
    text = """func.func @main(%x: tensor<4xf32>) -> tensor<3xf32> {
  %e = tensor.empty() : tensor<3xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0 * 2)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%x : tensor<4xf32>) outs(%e : tensor<3xf32>) {
  ^bb0(%a: f32, %o: f32):
    linalg.yield %a : f32
  } -> tensor<3xf32>
  func.return %r : tensor<3xf32>
}"""
    with pytest.raises(
        GradoptError, match=r"<input>:3:3: error: 'linalg.generic' op inferred input"
    ):
        run(text, [1, 2, 3, 4])


# --- lowered programs -----------------------------------------------------------


@pytest.mark.parametrize(
    "name", ["mlp_step", "attention", "conv2d", "softmax_xent", "jacobian"]
)
def test_lowered_examples_run_to_the_bits_of_the_grad_program(name: str) -> None:
    """`convert-grad-to-standard` output (linalg, tensor, arith, math) run by
    the interpreter gives the bits of the `grad` program: elementwise ops are
    the same NumPy functions, reductions the same NumPy reductions, `dot` the
    same matmul."""
    program = Program((EXAMPLES / f"{name}.mlir").read_text(), name)
    rng = np.random.default_rng(8)
    signature = program.signature()
    slots = [
        rng.standard_normal(s.get_shape()).astype(np.float32) for s in signature.slots
    ]
    args = [
        rng.standard_normal(a.get_shape()).astype(np.float32) for a in signature.args
    ]
    expected = program.run(slots=[s.copy() for s in slots], args=args)
    inputs = iter(slots), iter(args)
    ordered = [
        next(inputs[0] if isinstance(t, MemRefType) else inputs[1])
        for t in program.function("main").function_type.inputs
    ]
    lowered = Program(lower(program.module), f"{name} lowered")
    found = lowered.run(args=ordered).results
    for want, got in zip([*expected.results, *expected.slots], found, strict=True):
        np.testing.assert_array_equal(bits(got), bits(want))


_CONV_1D = """func.func @main(%x: tensor<9xf32>, %k: tensor<3xf32>, %b: tensor<2x9x3xf32>, %f: tensor<3x3x4xf32>, %p: tensor<2x3x9x9xf32>) -> (tensor<7xf32>, tensor<2x4x4xf32>, tensor<2x3x4x4xf32>) {
  %z = arith.constant dense<0.0> : tensor<7xf32>
  %c = linalg.conv_1d ins(%x, %k : tensor<9xf32>, tensor<3xf32>) outs(%z : tensor<7xf32>) -> tensor<7xf32>
  %zb = arith.constant dense<0.0> : tensor<2x4x4xf32>
  %n = linalg.conv_1d_nwc_wcf {dilations = dense<1> : tensor<1xi64>, strides = dense<2> : tensor<1xi64>} ins(%b, %f : tensor<2x9x3xf32>, tensor<3x3x4xf32>) outs(%zb : tensor<2x4x4xf32>) -> tensor<2x4x4xf32>
  %zp = arith.constant dense<0.0> : tensor<2x3x4x4xf32>
  %w = tensor.empty() : tensor<3x3xf32>
  %s = linalg.pooling_nchw_sum {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%p, %w : tensor<2x3x9x9xf32>, tensor<3x3xf32>) outs(%zp : tensor<2x3x4x4xf32>) -> tensor<2x3x4x4xf32>
  func.return %c, %n, %s : tensor<7xf32>, tensor<2x4x4xf32>, tensor<2x3x4x4xf32>
}"""


def test_one_dimensional_convolutions_and_sum_pooling() -> None:
    rng = np.random.default_rng(9)
    x, k = (
        rng.standard_normal(9).astype(np.float32),
        rng.standard_normal(3).astype(np.float32),
    )
    b = rng.standard_normal((2, 9, 3)).astype(np.float32)
    f = rng.standard_normal((3, 3, 4)).astype(np.float32)
    p = rng.standard_normal((2, 3, 9, 9)).astype(np.float32)
    conv, nwc, pooled = run(_CONV_1D, x, k, b, f, p)
    np.testing.assert_allclose(conv, np.correlate(x, k, "valid"), rtol=1e-5, atol=1e-6)
    windows = np.stack([b[:, 2 * o : 2 * o + 3, :] for o in range(4)], 1)
    np.testing.assert_allclose(
        nwc, np.einsum("nokc,kcf->nof", windows, f), rtol=1e-5, atol=1e-5
    )
    sums = np.zeros((2, 3, 4, 4))
    for i in range(4):
        for j in range(4):
            sums[:, :, i, j] = p[:, :, 2 * i : 2 * i + 3, 2 * j : 2 * j + 3].sum((2, 3))
    np.testing.assert_allclose(pooled, sums, rtol=1e-5, atol=1e-5)


def test_a_body_reuses_only_temporaries_nothing_reads_later() -> None:
    """Body ops write over dying temporaries (`out=`), never over a value a
    reduction reads once the body has run (`%w`, read by the sum, then by
    a dead `negf`), nor over an input."""
    text = """func.func @main(%x: tensor<4x3xf32>) -> tensor<4xf32> {
  %z = arith.constant dense<0.0> : tensor<4xf32>
  %s = linalg.generic {indexing_maps = [affine_map<(a, b) -> (a, b)>, affine_map<(a, b) -> (a)>], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<4x3xf32>) outs(%z : tensor<4xf32>) {
  ^bb0(%v: f32, %acc: f32):
    %q = arith.mulf %v, %v : f32
    %w = arith.addf %q, %q : f32
    %r = arith.addf %acc, %w : f32
    %n = arith.negf %w : f32
    linalg.yield %r : f32
  } -> tensor<4xf32>
  func.return %s : tensor<4xf32>
}"""
    x = np.random.default_rng(10).standard_normal((4, 3)).astype(np.float32)
    kept = x.copy()
    (total,) = run(text, x)
    np.testing.assert_array_equal(
        bits(total), bits(np.add.reduce((x * x) + (x * x), 1))
    )
    np.testing.assert_array_equal(x, kept)


def test_scalar_casts() -> None:
    text = """func.func @main(%i: i32, %x: f32) -> (f32, f32, i32, i32, i32, f32, f32) {
  %u = arith.uitofp %i : i32 to f32
  %s = arith.sitofp %i : i32 to f32
  %t = arith.fptosi %x : f32 to i32
  %b = arith.bitcast %x : f32 to i32
  %k = arith.index_cast %i : i32 to index
  %c2 = arith.constant 2 : index
  %m = arith.muli %k, %c2 : index
  %back = arith.index_cast %m : index to i32
  %w = arith.extf %x : f32 to f64
  %sq = arith.mulf %w, %w : f64
  %n = arith.truncf %sq : f64 to f32
  %q = arith.mulf %x, %x : f32
  func.return %u, %s, %t, %b, %back, %n, %q : f32, f32, i32, i32, i32, f32, f32
}"""
    u, s, t, b, back, wide, narrow = run(text, -2, 1.1)
    assert u == np.float32(2**32 - 2) and s == -2.0
    assert t == 1 and b == np.float32(1.1).view(np.int32)
    assert back == -4 and back.dtype == np.int32
    assert wide == np.float32(np.float64(np.float32(1.1)) ** 2)
    assert narrow == np.float32(1.1) * np.float32(1.1)


def test_generate_insert_splat_and_named_elementwise_ops() -> None:
    """None is in the lit suite, whose programs also run on IREE 3.13, which
    reads no named elementwise op nor `tensor.generate`, refuses `splat` of a
    computed scalar and miscompiles a scalar `insert`."""
    text = """func.func @main(%x: tensor<3xf32>, %m: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2xf32>) {
  %c2 = arith.constant 2 : index
  %t = tensor.generate {
  ^bb0(%i: index, %j: index):
    %k = arith.subi %c2, %j : index
    %v = tensor.extract %x[%k] : tensor<3xf32>
    %f = arith.index_cast %i : index to i32
    %g = arith.sitofp %f : i32 to f32
    %s = arith.addf %v, %g : f32
    tensor.yield %s : f32
  } : tensor<2x3xf32>
  %e = tensor.empty() : tensor<2x3xf32>
  %d = linalg.div ins(%t, %m : tensor<2x3xf32>, tensor<2x3xf32>) outs(%e : tensor<2x3xf32>) -> tensor<2x3xf32>
  %r = linalg.rsqrt ins(%m : tensor<2x3xf32>) outs(%e : tensor<2x3xf32>) -> tensor<2x3xf32>
  %c1 = arith.constant 1 : index
  %v = tensor.extract %x[%c1] : tensor<3xf32>
  %in = tensor.insert %v into %m[%c1, %c2] : tensor<2x3xf32>
  %sp = tensor.splat %v : tensor<2xf32>
  func.return %t, %d, %r, %in, %sp : tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2xf32>
}"""
    x = np.array([1, 2, 3], np.float32)
    m = np.array([[1, 2, 4], [8, 16, 32]], np.float32)
    t, d, r, inserted, splat = run(text, x, m)
    np.testing.assert_array_equal(t, x[::-1] + np.float32([[0], [1]]))
    np.testing.assert_array_equal(bits(d), bits(t / m))
    np.testing.assert_array_equal(bits(r), bits(np.float32(1) / np.sqrt(m)))
    np.testing.assert_array_equal(inserted, [[1, 2, 4], [8, 16, 2]])
    np.testing.assert_array_equal(splat, [2, 2])
