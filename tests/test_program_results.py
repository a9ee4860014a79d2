# ruff: noqa: E501 (MLIR text: one op a line, as MLIR prints it)
"""`Program.run` hands over the arrays a run made instead of copying them:
each result is still an array of its own, writable, sharing memory with no
other result, no slot, no input of the caller and nothing the program keeps
for its next run."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from gradopt import Program

SHARING = """func.func @main(%s: memref<3xf32>, %x: tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) {
  %c = grad.const dense<[1.0, 2.0, 3.0]> : tensor<3xf32>
  %w = grad.load %s : memref<3xf32>
  %u = grad.add %w, %x : tensor<3xf32>
  %k = grad.mul %c, %c : tensor<3xf32>
  %d = grad.detach %u : tensor<3xf32>
  grad.store %u, %s : memref<3xf32>
  func.return %c, %c, %w, %u, %u, %x, %k, %d : tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>
}"""


@pytest.mark.parametrize("in_place", [False, True])
def test_results_are_arrays_of_their_own(in_place: bool) -> None:
    """Literals (and the plan's value of `%c * %c`, computed once), a view
    of a slot, a value returned three times, an input: every result can be
    written without touching anything else, and the next run is as the
    first."""
    program = Program(SHARING)
    x = np.array([0.5, -1.0, 4.0], np.float32)
    runs = []
    for _ in range(2):
        memory = np.ones((2, 3), np.float32)
        slot = memory[1]  # in place, a view of the caller's larger array
        done = program.run(slots=[slot], args=[x], in_place=in_place)
        arrays = [*done.results, *done.slots, memory, x]
        for a, b in itertools.combinations(range(len(arrays)), 2):
            if arrays[a] is done.slots[0] and in_place and arrays[b] is memory:
                continue  # in place, the result's slot is the caller's array
            assert not np.shares_memory(arrays[a], arrays[b]), (a, b)
        runs.append([r.copy() for r in done.results])
        for result in done.results:
            assert result.flags.writeable
            result[...] = np.nan
    for first, second in zip(*runs, strict=True):
        np.testing.assert_array_equal(first, second)
    c, _, w, u, _, _, k, _ = runs[0]
    np.testing.assert_array_equal(c, [1.0, 2.0, 3.0])
    np.testing.assert_array_equal(w, [1.0, 1.0, 1.0])
    np.testing.assert_array_equal(u, [1.5, 0.0, 5.0])
    np.testing.assert_array_equal(k, [1.0, 4.0, 9.0])
    assert x.tolist() == [0.5, -1.0, 4.0]


VIEWS = """func.func @main(%x: tensor<2x3xf32>) -> (tensor<3x2xf32>, tensor<3x2xf32>, tensor<6xf32>) {
  %y = grad.mul %x, %x : tensor<2x3xf32>
  %t = grad.permute %y [1, 0] : tensor<2x3xf32> to tensor<3x2xf32>
  %u = grad.permute %y [1, 0] : tensor<2x3xf32> to tensor<3x2xf32>
  %r = grad.reshape %y : tensor<2x3xf32> to tensor<6xf32>
  func.return %t, %u, %r : tensor<3x2xf32>, tensor<3x2xf32>, tensor<6xf32>
}"""


def test_views_of_one_array_are_handed_over_once() -> None:
    """Three views of one new array: the first is handed over as it is (a
    transposed view, as a transposing kernel leaves it), the others copied."""
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    t, u, r = Program(VIEWS).run(args=[x]).results
    assert not t.flags.c_contiguous and t.flags.writeable
    for a, b in itertools.combinations([t, u, r], 2):
        assert not np.shares_memory(a, b)
    np.testing.assert_array_equal(t, (x * x).T)
    np.testing.assert_array_equal(u, (x * x).T)
    np.testing.assert_array_equal(r, (x * x).ravel())
