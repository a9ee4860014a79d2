"""IREE reads aligned inputs in place and hands its results back uncopied
(`gradopt.runtime.buffers`): the bits stay those of copied inputs and copied
results, no result aliases an input, and a result outlives later calls."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest
from test_iree import needs_iree

from gradopt import Program
from gradopt.runtime import iree_packing
from gradopt.runtime.buffers import ALIGNMENT, aligned_copy, importable

# %x passes through unchanged (given back: IREE does not return it), %w is
# updated, %n (i32) is reshaped and back (which IREE may return as a view of
# its argument's buffer)
PROGRAM = """
func.func @main(%x: memref<2x3xf32>, %w: memref<3x2xf32>, %n: memref<6xi32>)
    -> tensor<2x2xf32> {
  %xv = grad.load %x : memref<2x3xf32>
  %wv = grad.load %w : memref<3x2xf32>
  %p = grad.dot %xv, %wv : tensor<2x3xf32>, tensor<3x2xf32> to tensor<2x2xf32>
  %s = grad.reduce add %p [0, 1] : tensor<2x2xf32> to tensor<f32>
  %g = grad.gradient %s wrt %wv : tensor<f32>, tensor<3x2xf32>
  %step = grad.const 0.5 : tensor<3x2xf32>
  %d = grad.mul %g, %step : tensor<3x2xf32>
  %w2 = grad.add %wv, %d : tensor<3x2xf32>
  grad.store %w2, %w : memref<3x2xf32>
  %nv = grad.load %n : memref<6xi32>
  %nr = grad.reshape %nv : tensor<6xi32> to tensor<2x3xi32>
  %nb = grad.reshape %nr : tensor<2x3xi32> to tensor<6xi32>
  grad.store %nb, %n : memref<6xi32>
  func.return %p : tensor<2x2xf32>
}
"""


@pytest.fixture(autouse=True, scope="module")
def fresh_cache(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """A cache of this module's own, and no packing: these tests are about
    the call of a program too large to pack (`gradopt.runtime.iree_packing`),
    which imports its inputs."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("GRADOPT_CACHE_DIR", str(tmp_path_factory.mktemp("iree")))
        patch.setattr(iree_packing, "PACK_BELOW", 0)
        yield


def unaligned(array: np.ndarray) -> np.ndarray:
    """A copy of `array` whose data starts 4 bytes past an aligned address."""
    raw = np.empty(array.nbytes + ALIGNMENT + 4, np.uint8)
    start = -raw.ctypes.data % ALIGNMENT + 4
    copy = raw[start : start + array.nbytes].view(array.dtype).reshape(array.shape)
    copy[...] = array
    return copy


def test_aligned_copy_is_an_aligned_equal_array() -> None:
    for array in (
        np.arange(12, dtype=np.float32).reshape(3, 4),
        np.arange(5, dtype=np.int32),
        np.asfortranarray(np.arange(6, dtype=np.float32).reshape(2, 3)),
    ):
        copy = aligned_copy(array)
        assert copy.ctypes.data % ALIGNMENT == 0 and copy.flags.c_contiguous
        assert copy.dtype == array.dtype and np.array_equal(copy, array)
        assert not np.shares_memory(copy, array) and importable(copy)
    empty = aligned_copy(np.zeros((0, 3), np.float32))
    assert empty.shape == (0, 3) and empty.dtype == np.float32
    assert not importable(unaligned(np.ones(4, np.float32)))
    read_only = aligned_copy(np.ones(4, np.float32))
    read_only.flags.writeable = False
    assert not importable(read_only)
    assert not importable(aligned_copy(np.ones((4, 4), np.float32))[:, ::2])


def inputs(seed: int) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    return [
        rng.standard_normal((2, 3), np.float32),
        rng.standard_normal((3, 2), np.float32),
        rng.integers(-9, 9, 6).astype(np.int32),
    ]


def outputs(result: Any) -> list[np.ndarray]:
    return [*result.results, *result.slots]


@needs_iree
def test_iree_reads_inputs_in_place_and_copies_only_what_aliases() -> None:
    program = Program(PROGRAM)
    given = [aligned_copy(a) for a in inputs(0)]
    before = [a.copy() for a in given]
    first = outputs(program.run(slots=given, backend="iree"))
    assert all(np.array_equal(a, b) for a, b in zip(given, before, strict=True))
    for out in first:
        assert not any(np.may_share_memory(out, a) for a in given)
        assert out.flags.writeable
    # the same bits as from inputs that IREE copies (unaligned ones), and as
    # from IREE's own call with NumPy arrays, whose results are copied
    copied = outputs(program.run(slots=[unaligned(a) for a in given], backend="iree"))
    module = program.iree_module
    assert module is not None
    for array, in_place in ((given[0], True), (unaligned(given[0]), False)):
        view: Any = module._view(array)
        seen = view.map().asarray(view.shape, np.dtype(np.float32))
        assert np.shares_memory(seen, array) == in_place
    functions: Any = module.functions
    returned = [np.array(o.to_host()) for o in functions["main"](*before)]
    assert len(returned) == 3  # %x is given back: made from its argument
    reference = module.given["main"].results(returned, before)
    for out, other, ref in zip(first, copied, reference, strict=True):
        assert out.dtype == ref.dtype and out.tobytes() == ref.tobytes()
        assert other.tobytes() == ref.tobytes()
    # results stay theirs through later calls on other inputs
    kept = [out.copy() for out in first]
    for seed in (1, 2, 3):
        program.run(slots=[aligned_copy(a) for a in inputs(seed)], backend="iree")
    assert all(a.tobytes() == b.tobytes() for a, b in zip(first, kept, strict=True))


@needs_iree
def test_iree_in_place_writes_through_aligned_slots() -> None:
    program = Program(PROGRAM)
    expected = outputs(program.run(slots=inputs(4)))
    slots = [aligned_copy(a) for a in inputs(4)]
    result = program.run(slots=slots, backend="iree", in_place=True)
    assert all(s is r for s, r in zip(slots, result.slots, strict=True))
    for out, want in zip(outputs(result), expected, strict=True):
        assert np.allclose(out, want, rtol=1e-6, atol=1e-6)
