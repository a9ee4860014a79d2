# ruff: noqa: E501 (MLIR text: one op a line, as MLIR prints it)
"""IREE's `iree_linalg_ext` ops (SPEC §10.5): their generic form, the
interpreter's kernels (scan bits, sort comparators, scatter forms, the fold
of an argmax reduction), tangents against gradients, and the real programs
JAX makes (`tests/corpus/linalg_ext`, `argsort`) against float64 `jax.grad`
through the interpreter and IREE."""

from __future__ import annotations

import importlib.util
from io import StringIO
from pathlib import Path

import numpy as np
import pytest
from xdsl.parser import Parser
from xdsl.printer import Printer

import gradopt
from gradopt import GradoptError, Program
from gradopt.dialect.context import make_context

CORPUS = Path(__file__).resolve().parent / "corpus"
HAVE_IREE = importlib.util.find_spec("iree") is not None and all(
    importlib.util.find_spec(m) for m in ("iree.compiler", "iree.runtime")
)


def _printed(text: str, generic: bool) -> str:
    module = Parser(make_context(), text).parse_module()
    out = StringIO()
    Printer(stream=out, print_generic_format=generic).print_op(module)
    return out.getvalue()


def test_the_generic_form_reads_back() -> None:
    """A real program with all three ops prints in generic form (IREE's:
    three operands for scan and scatter, `operandSegmentSizes` for sort)
    and reads back to the same custom text."""
    text = (CORPUS / "linalg_ext.mlir").read_text()
    generic = _printed(text, generic=True)
    assert '"iree_linalg_ext.scan"(%' in generic
    assert "operandSegmentSizes = array<i32: 0, 1>" in generic
    assert "<{dimension_map = array<i64: 0>, unique_indices = false}>" in generic
    assert _printed(generic, generic=False) == _printed(text, generic=False)


def _run(text: str, *args: np.ndarray) -> list[np.ndarray]:
    return Program(text).run(args=list(args)).results


SCAN = """
func.func @main(%x: tensor<4x1000xf32>) -> (tensor<4x1000xf32>, tensor<4xf32>) {
  %e = tensor.empty() : tensor<4x1000xf32>
  %z = arith.constant dense<0.0> : tensor<4xf32>
  %s:2 = iree_linalg_ext.scan dimension(1) inclusive(true) ins(%x : tensor<4x1000xf32>) outs(%e, %z : tensor<4x1000xf32>, tensor<4xf32>) {
  ^bb0(%a: f32, %b: f32):
    BODY
  } -> tensor<4x1000xf32>, tensor<4xf32>
  func.return %s#0, %s#1 : tensor<4x1000xf32>, tensor<4xf32>
}
"""


def test_a_cumsum_has_the_bits_of_a_sequential_sum() -> None:
    """The `addf` scan (`np.add.accumulate`) gives the bits of the body
    folded step by step (the same sum, plus -0.0, which changes no bits)
    and of a Python loop, never of a pairwise sum."""
    x = np.random.default_rng(1).standard_normal((4, 1000)).astype(np.float32) * 100
    summed = _run(
        SCAN.replace(
            "BODY", "%t = arith.addf %a, %b : f32\n    iree_linalg_ext.yield %t : f32"
        ),
        x,
    )
    folded = _run(
        SCAN.replace(
            "BODY",
            "%t = arith.addf %a, %b : f32\n    %m = arith.constant -0.0 : f32\n"
            "    %u = arith.addf %t, %m : f32\n    iree_linalg_ext.yield %u : f32",
        ),
        x,
    )
    assert summed[0].tobytes() == folded[0].tobytes()
    assert summed[1].tobytes() == folded[1].tobytes() == summed[0][:, -1].tobytes()
    total, row = np.float32(0), []
    for value in x[2]:
        total = np.float32(total + value)
        row.append(total)
    assert np.array(row, np.float32).tobytes() == summed[0][2].tobytes()


def test_an_exclusive_scan_of_another_body_folds_as_iree_runs_it() -> None:
    """`out[0] = acc`, `out[i] = out[i-1] * x[i-1]`, the last `out` as the
    accumulator: the values IREE gives for this program."""
    text = SCAN.replace("4x1000", "2x4").replace("<4xf32>", "<2xf32>")
    text = text.replace("inclusive(true)", "inclusive(false)").replace(
        "%z = arith.constant dense<0.0> : tensor<2xf32>",
        "%z = arith.constant dense<[10.0, 1.0]> : tensor<2xf32>",
    )
    body = "%t = arith.mulf %a, %b : f32\n    iree_linalg_ext.yield %t : f32"
    x = np.array([[1, 2, 3, 4], [2, 2, 2, 2]], np.float32)
    out, last = _run(text.replace("BODY", body), x)
    assert out.tolist() == [[10, 10, 20, 60], [1, 2, 4, 8]]
    assert last.tolist() == [60, 8]


SORT = """
func.func @main(%v: tensor<2x6xKEY>, %i: tensor<2x6xi32>) -> (tensor<2x6xKEY>, tensor<2x6xi32>) {
  %s:2 = iree_linalg_ext.sort dimension(1) outs(%v, %i : tensor<2x6xKEY>, tensor<2x6xi32>) {
  ^bb0(%a: KEY, %b: KEY, %c: i32, %d: i32):
    BODY
  } -> tensor<2x6xKEY>, tensor<2x6xi32>
  func.return %s#0, %s#1 : tensor<2x6xKEY>, tensor<2x6xi32>
}
"""

FLOATS = np.array([[3, -1, 3, 0, -0.0, -1], [2, 2, 5, -4, 2, 1]], np.float32)
INTS = np.array([[3, -(2**31), 3, 0, 2**31 - 1, -1], [2, 2, 5, -4, 2, 1]], np.int32)
IOTA = np.tile(np.arange(6, dtype=np.int32), (2, 1))


@pytest.mark.parametrize(
    ("key", "body", "values", "order"),
    [
        (
            "f32",
            "%r = arith.cmpf olt, %a, %b : f32",
            FLOATS,
            lambda v: np.argsort(v, 1, kind="stable"),
        ),
        (
            "f32",
            "%r = arith.cmpf ogt, %a, %b : f32",
            FLOATS,
            lambda v: np.argsort(-v, 1, kind="stable"),
        ),
        (
            "i32",
            "%r = arith.cmpi sgt, %a, %b : i32",
            INTS,
            lambda v: np.argsort(-v.astype(np.int64), 1, kind="stable"),
        ),
        (
            "i32",
            "%r = arith.cmpi ult, %a, %b : i32",
            INTS,
            lambda v: np.argsort(v.view(np.uint32), 1, kind="stable"),
        ),
        (  # ties broken by the larger index first
            "f32",
            "%lt = arith.cmpf olt, %a, %b : f32\n    %eq = arith.cmpf oeq, %a, %b : f32\n"
            "    %gt = arith.cmpi sgt, %c, %d : i32\n    %tie = arith.andi %eq, %gt : i1\n"
            "    %r = arith.ori %lt, %tie : i1",
            FLOATS,
            lambda v: np.lexsort((-IOTA, v), axis=1),
        ),
        (  # a key computed from the element: by magnitude
            "f32",
            "%x = math.absf %a : f32\n    %y = math.absf %b : f32\n    %r = arith.cmpf olt, %x, %y : f32",
            FLOATS,
            lambda v: np.argsort(np.abs(v), 1, kind="stable"),
        ),
    ],
)
def test_sort_realizes_its_comparator(key, body, values, order) -> None:
    text = SORT.replace("KEY", key).replace(
        "BODY", body + "\n    iree_linalg_ext.yield %r : i1"
    )
    sorted_values, permutation = _run(text, values, IOTA)
    expected = order(values)
    assert permutation.tolist() == expected.tolist()
    assert sorted_values.tobytes() == np.take_along_axis(values, expected, 1).tobytes()


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ("%r = arith.cmpf ole, %a, %b : f32", "its comparator must compare"),
        (
            "%n = arith.negf %b : f32\n    %r = arith.cmpf olt, %a, %n : f32",
            "compares different functions of elements a and b",
        ),
    ],
)
def test_a_comparator_that_is_not_an_order_of_keys_is_refused(body, message) -> None:
    text = SORT.replace("KEY", "f32").replace(
        "BODY", body + "\n    iree_linalg_ext.yield %r : i1"
    )
    with pytest.raises(GradoptError, match=message):
        _run(text, FLOATS, IOTA)


SCATTER = """
func.func @main(%x: tensor<3x4xf32>, %u: tensor<2x2xf32>, %k: tensor<2x2x2xi32>) -> tensor<3x4xf32> {
  %s = iree_linalg_ext.scatter dimension_map = [1, 0] unique_indices(false) ins(%u, %k : tensor<2x2xf32>, tensor<2x2x2xi32>) outs(%x : tensor<3x4xf32>) {
  ^bb0(%upd: f32, %cur: f32):
    BODY
  } -> tensor<3x4xf32>
  func.return %s : tensor<3x4xf32>
}
"""


@pytest.mark.parametrize("adds", [True, False])
def test_scatter_with_batch_dims_and_repeated_indices(adds: bool) -> None:
    """Indices (2, 2, depth 2) name (column, row) through `dimension_map =
    [1, 0]`; element (1, 3) is hit three times: added in order, or set by
    the last update."""
    body = (
        "%t = arith.addf %cur, %upd : f32\n    iree_linalg_ext.yield %t : f32"
        if adds
        else "iree_linalg_ext.yield %upd : f32"
    )
    x = np.arange(12, dtype=np.float32).reshape(3, 4)
    u = np.array([[0.5, 0.25], [8.0, 16.0]], np.float32)
    k = np.array([[[3, 1], [3, 1]], [[0, 2], [3, 1]]], np.int32)
    (found,) = _run(SCATTER.replace("BODY", body), x, u, k)
    expected = x.copy()
    if adds:
        expected[1, 3] += np.float32(0.5) + np.float32(0.25) + np.float32(16.0)
        expected[2, 0] += 8.0
    else:
        expected[1, 3], expected[2, 0] = 16.0, 8.0
    assert found.tobytes() == expected.tobytes()
    k[1, 0, 1] = 3
    with pytest.raises(GradoptError, match="scatters to index 3 of dim 0, of size 3"):
        _run(SCATTER.replace("BODY", body), x, u, k)


ARGMAX = """
func.func @main(%x: tensor<4x5xf32>, %i: tensor<4x5xi32>) -> (tensor<4xf32>, tensor<4xi32>) {
  %ninf = arith.constant 0xFF800000 : f32
  %zero = arith.constant 0 : i32
  %e = tensor.empty() : tensor<4xf32>
  %f = linalg.fill ins(%ninf : f32) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  %ei = tensor.empty() : tensor<4xi32>
  %fi = linalg.fill ins(%zero : i32) outs(%ei : tensor<4xi32>) -> tensor<4xi32>
  %r:2 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%x, %i : tensor<4x5xf32>, tensor<4x5xi32>) outs(%f, %fi : tensor<4xf32>, tensor<4xi32>) {
  ^bb0(%in: f32, %in_1: i32, %out: f32, %out_2: i32):
    %0 = arith.cmpf ogt, %out, %in : f32
    %1 = arith.cmpf une, %out, %out : f32
    %2 = arith.ori %0, %1 : i1
    %3 = arith.cmpf oeq, %out, %in : f32
    %4 = arith.cmpi slt, %out_2, %in_1 : i32
    %5 = arith.andi %3, %4 : i1
    %6 = arith.ori %2, %5 : i1
    %7 = arith.select %2, %out, %in : f32
    %8 = arith.select %6, %out_2, %in_1 : i32
    linalg.yield %7, %8 : f32, i32
  } -> (tensor<4xf32>, tensor<4xi32>)
  func.return %r#0, %r#1 : tensor<4xf32>, tensor<4xi32>
}
"""


def test_an_argmax_reduction_runs_as_a_fold() -> None:
    """IREE's argmax body (NaN wins, ties go to the first index) folded
    over the reduction loop: NumPy's argmax and max, NaN included."""
    x = np.array(
        [
            [1, 3, 3, 2, 0],
            [np.nan, 1, np.nan, 5, 5],
            [-1, -1, -1, -1, -1],
            [0, 1, 2, 9, np.nan],
        ],
        np.float32,
    )
    values, indices = _run(ARGMAX, x, np.tile(np.arange(5, dtype=np.int32), (4, 1)))
    assert indices.tolist() == np.argmax(x, 1).tolist()
    assert values.tobytes() == np.max(x, 1).tobytes()


DUALITY = """
func.func @main(%x: tensor<3x4xf32>, %u: tensor<3x4xf32>, %t: tensor<3x4xf32>, %tu: tensor<3x4xf32>, %ct: tensor<3x4xf32>) -> (f32, tensor<3x4xf32>, tensor<3x4xf32>) {
  %e = tensor.empty() : tensor<3x4xf32>
  %z = arith.constant dense<0.0> : tensor<3xf32>
  %k = arith.constant dense<[[2], [0], [2]]> : tensor<3x1xi32>
  %c:2 = iree_linalg_ext.scan dimension(1) inclusive(true) ins(%x : tensor<3x4xf32>) outs(%e, %z : tensor<3x4xf32>, tensor<3xf32>) {
  ^bb0(%a: f32, %b: f32):
    %s = arith.addf %a, %b : f32
    iree_linalg_ext.yield %s : f32
  } -> tensor<3x4xf32>, tensor<3xf32>
  %o = iree_linalg_ext.sort dimension(0) outs(%c#0 : tensor<3x4xf32>) {
  ^bb0(%a: f32, %b: f32):
    %lt = arith.cmpf ogt, %a, %b : f32
    iree_linalg_ext.yield %lt : i1
  } -> tensor<3x4xf32>
  %y = iree_linalg_ext.scatter dimension_map = [0] unique_indices(false) ins(%u, %k : tensor<3x4xf32>, tensor<3x1xi32>) outs(%o : tensor<3x4xf32>) {
  ^bb0(%upd: f32, %cur: f32):
    BODY
  } -> tensor<3x4xf32>
  %jx = grad.jvp %y wrt %x, %t : tensor<3x4xf32>, tensor<3x4xf32>
  %ju = grad.jvp %y wrt %u, %tu : tensor<3x4xf32>, tensor<3x4xf32>
  %j = arith.addf %jx, %ju : tensor<3x4xf32>
  %g:2 = grad.vjp %y, %ct wrt %x, %u : tensor<3x4xf32>, tensor<3x4xf32>, tensor<3x4xf32>
  %p = arith.mulf %j, %ct : tensor<3x4xf32>
  %zero = arith.constant dense<0.0> : tensor<f32>
  %sum = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> ()>], iterator_types = ["reduction", "reduction"]} ins(%p : tensor<3x4xf32>) outs(%zero : tensor<f32>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %acc, %a : f32
    linalg.yield %s : f32
  } -> tensor<f32>
  %r = tensor.extract %sum[] : tensor<f32>
  func.return %r, %g#0, %g#1 : f32, tensor<3x4xf32>, tensor<3x4xf32>
}
"""


@pytest.mark.parametrize("sets", [False, True])
def test_tangents_are_dual_to_gradients(sets: bool) -> None:
    """<jvp(t), ct> = <t, vjp(ct)> through a cumsum, a descending sort and
    a scatter (adding, or setting with a repeated index)."""
    body = (
        "iree_linalg_ext.yield %upd : f32"
        if sets
        else "%s = arith.addf %cur, %upd : f32\n    iree_linalg_ext.yield %s : f32"
    )
    rng = np.random.default_rng(2)
    x, u, t, tu, ct = (rng.standard_normal((3, 4)).astype(np.float32) for _ in range(5))
    forward, gx, gu = _run(DUALITY.replace("BODY", body), x, u, t, tu, ct)
    backward = float(
        np.sum(t * gx, dtype=np.float64) + np.sum(tu * gu, dtype=np.float64)
    )
    assert abs(float(forward) - backward) <= 1e-4 * max(1.0, abs(backward))
    if sets:  # row 2 is set twice: the second update (index 2) wins
        assert np.all(gu[0] == 0) and np.all(gu[1] == ct[0]) and np.all(gu[2] == ct[2])


def _corpus(name: str) -> tuple[str, list[np.ndarray], list[np.ndarray]]:
    """A program's text, its inputs and float64 `jax.grad` of its result
    (made by `tests/upstream_corpus.py`)."""
    data = np.load(CORPUS / f"{name}.npz")
    count = sum(k.startswith("arg") for k in data.files)
    args = [data[f"arg{i}"] for i in range(count)]
    return (
        (CORPUS / f"{name}.mlir").read_text(),
        args,
        [data[f"grad{i}"] for i in range(count)],
    )


@pytest.mark.parametrize(
    ("name", "backend"),
    [(n, b) for n in ("linalg_ext", "argsort") for b in ("numpy", "iree")],
)
def test_real_programs_match_jax_grad(name: str, backend: str) -> None:
    """cumsum, sort, top_k, scatter add and set with repeated indices and an
    argmax one-hot (`linalg_ext`), argsort with take_along_axis (`argsort`),
    as IREE's input conversion writes them, differentiated by gradopt, within
    1e-4 of float64 `jax.grad`; the expansion holds no `grad` op."""
    if backend == "iree" and not HAVE_IREE:
        pytest.skip("needs the iree extra")
    text, args, expected = _corpus(name)
    module = gradopt.differentiate_module(text, loss=0, wrt=list(range(len(args))))
    program = Program(module)
    assert "grad." not in str(program.module)
    _, *found = program.run(args=args, backend=backend).results
    for got, want in zip(found, expected, strict=True):
        error = np.max(np.abs(got - want)) / max(np.max(np.abs(want)), 1e-30)
        assert error <= 1e-4
