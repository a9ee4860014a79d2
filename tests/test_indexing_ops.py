# ruff: noqa: E501 (MLIR text: one op a line, as MLIR prints it)
"""SPEC §3.6's ops run: `gather`, `scatter_add`, `iota` and `argsort` against
NumPy references written here (a Python left fold for scatter_add's order),
their run-time errors, and the same bits from IREE after
`convert-grad-to-standard`."""

from __future__ import annotations

import importlib.util
import os
from collections.abc import Sequence

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gradopt import GradoptError, Program, run

HAVE_IREE = importlib.util.find_spec("iree") is not None and all(
    importlib.util.find_spec(m) for m in ("iree.compiler", "iree.runtime")
)

PROGRAM = """
func.func @main(%a: tensor<3x6xf32>, %i: tensor<2x2xi32>, %u: tensor<3x2x2xf32>, %k: tensor<6xi32>) -> (tensor<3x2x2xf32>, tensor<3x6xf32>, tensor<3x6xi32>, tensor<6xi32>, tensor<3x6xf32>, tensor<6xi32>, tensor<3x2x2xf32>) {
  %g = grad.gather %a, %i [1] : tensor<3x6xf32>, tensor<2x2xi32> to tensor<3x2x2xf32>
  %s = grad.scatter_add %a, %i, %u [1] : tensor<3x6xf32>, tensor<2x2xi32>, tensor<3x2x2xf32> to tensor<3x6xf32>
  %o = grad.argsort %a [1] : tensor<3x6xf32> to tensor<3x6xi32>
  %ko = grad.argsort %k [0] : tensor<6xi32> to tensor<6xi32>
  %t = grad.iota [1] : tensor<3x6xf32>
  %ki = grad.scatter_add %k, %i, %i [0] : tensor<6xi32>, tensor<2x2xi32>, tensor<2x2xi32> to tensor<6xi32>
  %m = grad.mul %s, %t : tensor<3x6xf32>
  %l = grad.reduce add %m [0, 1] : tensor<3x6xf32> to tensor<f32>
  %gu = grad.gradient %l wrt %u : tensor<f32>, tensor<3x2x2xf32>
  func.return %g, %s, %o, %ko, %t, %ki, %gu : tensor<3x2x2xf32>, tensor<3x6xf32>, tensor<3x6xi32>, tensor<6xi32>, tensor<3x6xf32>, tensor<6xi32>, tensor<3x2x2xf32>
}
"""

NAN = np.float32("nan")
A = np.array(
    [
        [1e8, 1.0, -0.0, 0.0, NAN, 1.0],  # ties, signed zeros, NaN
        [3.0, NAN, 2.0, NAN, -np.inf, 2.0],  # two NaNs keep their order
        [5.0, 4.0, 3.0, 2.0, 1.0, 0.0],
    ],
    np.float32,
)
IDX = np.array([[0, 5], [0, 0]], np.int32)  # index 0 three times
U = np.array(
    [[[1.0, 7.0], [-1e8, 1.0]], [[0.1, 0.2], [0.3, 0.4]], [[1e-45, 1.0], [1.0, 1.0]]],
    np.float32,
)
K = np.array([3, -1, 3, 2147483647, -2147483648, 3], np.int32)


def _scatter_reference(d: np.ndarray, index: np.ndarray, u: np.ndarray) -> np.ndarray:
    """SPEC §3.6's left fold along axis 1, one float32 (or wrapping int32)
    add at a time, positions in row-major order."""
    result = d.copy()
    for p, at in enumerate(index.reshape(-1)):
        update = u.reshape(u.shape[0], -1)[:, p]
        with np.errstate(over="ignore"):
            result[:, at] = result[:, at] + update
    return result


def _expected() -> list[np.ndarray]:
    k_wrapped = K.copy()
    for p, at in enumerate(IDX.reshape(-1)):
        k_wrapped[at] = np.int32(k_wrapped[at] + IDX.reshape(-1)[p])
    return [
        np.take(A, IDX, 1),
        _scatter_reference(A, IDX, U),
        np.argsort(A, 1, kind="stable").astype(np.int32),
        np.argsort(K, kind="stable").astype(np.int32),
        np.broadcast_to(np.arange(6, dtype=np.float32), (3, 6)),
        k_wrapped,
        np.broadcast_to(IDX.astype(np.float32), (3, 2, 2)),  # gather of iota
    ]


def _same_bits(got: list[np.ndarray], expected: list[np.ndarray]) -> None:
    for n, (g, e) in enumerate(zip(got, expected, strict=True)):
        assert g.dtype == e.dtype and g.shape == e.shape, n
        assert g.tobytes() == np.ascontiguousarray(e).tobytes(), (n, g, e)


def test_the_ops_compute_the_specified_bits() -> None:
    """Repeated indices add in SPEC's order: 1e8 + 1 + (-1e8) + 1 at index 0
    of row 0 is 1.0 in that order and 2.0 in another; NaN sorts last, ties
    and -0.0/+0.0 keep their order; the i32 add wraps."""
    expected = _expected()
    assert expected[1][0, 0] == 1.0
    got = run(PROGRAM, args=[A, IDX, U, K]).results
    _same_bits(got, expected)
    assert list(got[2][0]) == [2, 3, 1, 5, 0, 4]
    assert list(got[2][1]) == [4, 2, 5, 0, 1, 3]


@pytest.mark.skipif(not HAVE_IREE, reason="needs the iree extra")
def test_iree_runs_the_lowered_ops_with_the_same_bits() -> None:
    got = Program(PROGRAM).run(args=[A, IDX, U, K], backend="iree").results
    _same_bits(got, _expected())


OUT_OF_RANGE = """
func.func @main(%a: tensor<4xf32>, %i: tensor<2xi32>) -> tensor<{result}> {{
  {line}
  func.return %r : tensor<{result}>
}}
"""


@pytest.mark.parametrize(
    ("line", "result"),
    [
        ("%r = grad.gather %a, %i [0] : tensor<4xf32>, tensor<2xi32> to tensor<2xf32>",
         "2xf32"),
        ("%r = grad.scatter_add %a, %i, %a2 [0] : tensor<4xf32>, tensor<2xi32>, "
         "tensor<2xf32> to tensor<4xf32>", "4xf32"),
    ],
    ids=["gather", "scatter_add"],
)  # fmt: skip
@pytest.mark.parametrize("bad", [4, -1])
def test_an_index_out_of_range_is_a_located_run_time_error(
    line: str, result: str, bad: int
) -> None:
    """No wrap-around and no clamping: the op and its line are named."""
    if "%a2" in line:
        line = (
            "%a2 = grad.slice %a [0] [2] [1] : tensor<4xf32> to tensor<2xf32>\n  "
            + line
        )
    text = OUT_OF_RANGE.format(line=line, result=result)
    with pytest.raises(GradoptError) as raised:
        run(text, args=[np.zeros(4, np.float32), np.array([1, bad], np.int32)])
    message = str(raised.value)
    op = "scatter_add" if "scatter" in line else "gather"
    assert f"'grad.{op}' index {bad} is out of range for axis 0 of size 4" in message
    assert ":3:" in message or ":4:" in message


def test_empty_index_arrays() -> None:
    text = """
func.func @main(%a: tensor<3x2xf32>, %i: tensor<0xi32>, %u: tensor<0x2xf32>) -> (tensor<0x2xf32>, tensor<3x2xf32>) {
  %g = grad.gather %a, %i [0] : tensor<3x2xf32>, tensor<0xi32> to tensor<0x2xf32>
  %s = grad.scatter_add %a, %i, %u [0] : tensor<3x2xf32>, tensor<0xi32>, tensor<0x2xf32> to tensor<3x2xf32>
  func.return %g, %s : tensor<0x2xf32>, tensor<3x2xf32>
}
"""
    a = np.arange(6, dtype=np.float32).reshape(3, 2)
    g, s = run(
        text, args=[a, np.zeros(0, np.int32), np.zeros((0, 2), np.float32)]
    ).results
    assert g.shape == (0, 2)
    assert s.tobytes() == a.tobytes()


EXAMPLES = int(os.environ.get("GRADOPT_PROPERTY_EXAMPLES", "10"))


def _fold_reference(
    d: np.ndarray, index: np.ndarray, u: np.ndarray, axis: int
) -> np.ndarray:
    """SPEC §3.6's scatter_add along any axis: positions of the index in
    row-major order, one float32 add of a slice at a time."""
    result = d.copy()
    moved = np.moveaxis(u.reshape(*d.shape[:axis], -1, *d.shape[axis + 1 :]), axis, 0)
    for p, at in enumerate(index.reshape(-1)):
        place = (slice(None),) * axis + (int(at),)
        result[place] = result[place] + moved[p]
    return result


@settings(max_examples=EXAMPLES, deadline=None)
@given(data=st.data())
def test_gather_scatter_and_argsort_on_random_shapes(data: st.DataObject) -> None:
    """gather is NumPy's take, scatter_add the ordered fold, the two are
    adjoint (<gather a, u> = <a, scatter_add 0, i, u>), and argsort is
    NumPy's stable argsort, on random shapes with repeated indices, ties and
    NaN."""
    shape = data.draw(st.lists(st.integers(1, 4), min_size=1, max_size=3))
    axis = data.draw(st.integers(0, len(shape) - 1))
    index_shape = data.draw(st.lists(st.integers(0, 3), max_size=2))
    rng = np.random.default_rng(data.draw(st.integers(0, 2**16)))
    a = rng.choice(np.float32([-1.5, 0.0, 2.0, 1e8, -1e8, np.nan]), shape)
    index = rng.integers(0, shape[axis], index_shape).astype(np.int32)
    gathered = [*shape[:axis], *index_shape, *shape[axis + 1 :]]
    u = rng.standard_normal(gathered).astype(np.float32)

    def t(s: Sequence[int], e: str = "f32") -> str:
        return f"tensor<{''.join(f'{n}x' for n in s)}{e}>"

    ta, ti, tu, to = t(shape), t(index_shape, "i32"), t(gathered), t(shape, "i32")
    text = (
        f"func.func @main(%a: {ta}, %i: {ti}, %u: {tu}) -> ({tu}, {ta}, {to}) {{\n"
        f"  %g = grad.gather %a, %i [{axis}] : {ta}, {ti} to {tu}\n"
        f"  %s = grad.scatter_add %a, %i, %u [{axis}] : {ta}, {ti}, {tu} to {ta}\n"
        f"  %o = grad.argsort %a [{axis}] : {ta} to {to}\n"
        f"  func.return %g, %s, %o : {tu}, {ta}, {to}\n}}\n"
    )
    g, s, o = run(text, args=[a, index, u]).results
    assert g.tobytes() == np.take(a, index, axis).tobytes()
    assert s.tobytes() == _fold_reference(a, index, u, axis).tobytes()
    assert o.tobytes() == np.argsort(a, axis, kind="stable").astype(np.int32).tobytes()
    w = rng.standard_normal(shape)
    zeros = np.zeros(shape, np.float32)
    back = run(text, args=[zeros, index, u]).results[1].astype(np.float64)
    scale = np.abs(w).sum() * np.abs(u).sum() + 1.0
    assert abs((np.take(w, index, axis) * u).sum() - (w * back).sum()) <= 1e-6 * scale
