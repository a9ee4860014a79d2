"""An entry's results that are its arguments given back as they came are not
returned by IREE but made from the arguments (`gradopt.runtime.iree_given`):
copies, or for a slot updated in place the slot itself, left untouched, and
never another slot's array. The lowering tests run without IREE; the others
skip without it."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import pytest
from test_iree import needs_iree
from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.arith import Arith
from xdsl.dialects.builtin import Builtin, ModuleOp
from xdsl.dialects.cf import Cf
from xdsl.dialects.func import Func
from xdsl.parser import Parser

from gradopt import Program
from gradopt.runtime import iree, iree_packing
from gradopt.runtime.buffers import aligned_copy
from gradopt.runtime.iree_given import GivenBack, drop_given_back, left_in_place

# %batch is read and given back, %w updated, %steps (a 0-d i32 slot) kept
STEP = """
func.func @main(%batch: memref<4x3xf32>, %w: memref<3x2xf32>, %steps: memref<i32>)
    -> tensor<f32> {
  %x = grad.load %batch : memref<4x3xf32>
  %wv = grad.load %w : memref<3x2xf32>
  %p = grad.dot %x, %wv : tensor<4x3xf32>, tensor<3x2xf32> to tensor<4x2xf32>
  %s = grad.reduce add %p [0, 1] : tensor<4x2xf32> to tensor<f32>
  %g = grad.gradient %s wrt %wv : tensor<f32>, tensor<3x2xf32>
  %half = grad.const -0.5 : tensor<3x2xf32>
  %d = grad.mul %g, %half : tensor<3x2xf32>
  %w2 = grad.add %wv, %d : tensor<3x2xf32>
  grad.store %w2, %w : memref<3x2xf32>
  func.return %s : tensor<f32>
}
"""

# each slot is given the other's first value: both results are arguments
# given back, but not each its own slot's
SWAP = """
func.func @main(%a: memref<4xf32>, %b: memref<4xf32>) {
  %av = grad.load %a : memref<4xf32>
  %bv = grad.load %b : memref<4xf32>
  grad.store %bv, %a : memref<4xf32>
  grad.store %av, %b : memref<4xf32>
  func.return
}
"""


def parsed(text: str) -> ModuleOp:
    """`text` in xDSL's own dialects (with `cf`'s branches, not gradopt's)."""
    context = Context()
    for dialect in (Builtin, Func, Arith, Cf):
        context.load_dialect(dialect)
    return Parser(context, text).parse_module()


def test_a_slot_left_as_it_came_is_not_returned() -> None:
    lowered = iree._lowered(Program(STEP).module)
    given = drop_given_back(lowered)
    assert given == {"main": GivenBack((None, 0, None, 2))}
    main = next(op for op in lowered.ops if isinstance(op, func.FuncOp))
    outputs = main.function_type.outputs.data
    assert [str(t) for t in outputs] == ["tensor<f32>", "tensor<3x2xf32>"]
    ret = main.body.block.last_op
    assert isinstance(ret, func.ReturnOp) and len(ret.arguments) == 2


def test_scalars_callees_private_functions_and_blocks_keep_their_results() -> None:
    module = parsed(
        """
        func.func @scalar(%f: f32, %x: tensor<2xf32>) -> (f32, tensor<2xf32>) {
          func.return %f, %x : f32, tensor<2xf32>
        }
        func.func @callee(%x: tensor<2xf32>) -> tensor<2xf32> {
          func.return %x : tensor<2xf32>
        }
        func.func @caller(%x: tensor<2xf32>) -> tensor<2xf32> {
          %y = func.call @callee(%x) : (tensor<2xf32>) -> tensor<2xf32>
          func.return %y : tensor<2xf32>
        }
        func.func private @hidden(%x: tensor<2xf32>) -> tensor<2xf32> {
          func.return %x : tensor<2xf32>
        }
        func.func @blocks(%x: tensor<2xf32>) -> tensor<2xf32> {
          cf.br ^next
        ^next:
          func.return %x : tensor<2xf32>
        }
        """
    )
    assert drop_given_back(module) == {"scalar": GivenBack((None, 1))}
    types = {
        op.sym_name.data: [str(t) for t in op.function_type.outputs.data]
        for op in module.ops
        if isinstance(op, func.FuncOp)
    }
    assert types["scalar"] == ["f32"]
    assert types["callee"] == types["hidden"] == types["blocks"] == ["tensor<2xf32>"]


def test_result_attributes_follow_their_results() -> None:
    module = parsed(
        """
        func.func @main(%x: tensor<2xf32>) -> (tensor<2xf32> {test.name = "kept"},
                                               tensor<2xf32> {test.name = "given"}) {
          %y = arith.addf %x, %x : tensor<2xf32>
          func.return %y, %x : tensor<2xf32>, tensor<2xf32>
        }
        """
    )
    drop_given_back(module)
    main = next(op for op in module.ops if isinstance(op, func.FuncOp))
    assert main.res_attrs is not None
    assert [str(a) for a in main.res_attrs.data] == ['{test.name = "kept"}']


def test_given_results_are_copies_but_for_a_slot_left_in_place() -> None:
    a, b, c = np.arange(2.0), np.arange(3.0), np.arange(4.0)
    given = GivenBack((None, 0, 1, 2))
    copies = given.results(["computed"], [a, b, c])
    assert copies[0] == "computed"
    for copy, argument in zip(copies[1:], (a, b, c), strict=True):
        assert copy is not argument and not np.shares_memory(copy, argument)
        assert np.array_equal(copy, argument)
    # slots in place at arguments 1 and 2 (results 2 and 3): each result is
    # its own slot's argument, itself; result 1 (argument 0) is not a slot
    kept = given.results(["computed"], [a, b, c], in_place=(1, 2))
    assert kept[2] is b and kept[3] is c and kept[1] is not a
    # the same slots given each other's arguments: neither is its own
    assert not left_in_place(2, 2, 4, (1, 2))
    assert not left_in_place(3, 1, 4, (1, 2))
    assert left_in_place(3, 2, 4, (1, 2))
    assert not left_in_place(0, 0, 4, (0, 1, 2))  # result 0 is no slot's


@pytest.fixture(params=["packed", "unpacked"])
def packing(
    request: pytest.FixtureRequest, tmp_path: pytest.TempPathFactory
) -> Iterator[str]:
    """Each test on the packed call (`iree_packing`) and the unpacked one."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("GRADOPT_CACHE_DIR", str(tmp_path))
        if request.param == "unpacked":
            patch.setattr(iree_packing, "PACK_BELOW", 0)
        yield request.param


def step_slots(seed: int) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    return [
        aligned_copy(rng.integers(-4, 5, (4, 3)).astype(np.float32)),
        aligned_copy(rng.integers(-4, 5, (3, 2)).astype(np.float32) / 2),
        aligned_copy(np.array(7, np.int32)),
    ]


@needs_iree
def test_given_back_slots_on_iree_are_copies(packing: str) -> None:
    program = Program(STEP)
    slots = step_slots(0)
    expected = program.run(slots=slots)
    found = program.run(slots=slots, backend="iree")
    module = program.iree_module
    assert module is not None
    assert ("main" in module.packings) == (packing == "packed")
    assert ("main" in module.given) == (packing == "unpacked")
    for out, want, slot in zip(found.slots, expected.slots, slots, strict=True):
        assert out.dtype == want.dtype and out.tobytes() == want.tobytes()
        assert not np.shares_memory(out, slot)
    assert found.results[0].tobytes() == expected.results[0].tobytes()


@needs_iree
def test_given_back_slots_in_place_are_the_slots_untouched(packing: str) -> None:
    program = Program(STEP)
    expected = program.run(slots=step_slots(1))
    slots = step_slots(1)
    batch, steps = slots[0].copy(), slots[2].copy()
    result = program.run(slots=slots, backend="iree", in_place=True)
    assert all(r is s for r, s in zip(result.slots, slots, strict=True))
    assert slots[0].tobytes() == batch.tobytes()
    assert slots[2].tobytes() == steps.tobytes()
    assert slots[1].tobytes() == expected.slots[1].tobytes()
    # neither copied by the call nor written back
    module = program.iree_module
    assert module is not None
    finals = module.call("main", slots, in_place=(0, 1, 2))[1:]
    assert finals[0] is slots[0] and finals[2] is slots[2]
    assert finals[1] is not slots[1]


@needs_iree
def test_slots_swapped_in_place_on_iree(packing: str) -> None:
    """Both final values are arguments given back, each the other slot's:
    written through from copies, not from the slots as they are overwritten."""
    program = Program(SWAP)
    a = aligned_copy(np.arange(4, dtype=np.float32))
    b = aligned_copy(np.arange(4, dtype=np.float32) + 10)
    first_a, first_b = a.copy(), b.copy()
    out = program.run(slots=[a, b], backend="iree")
    assert np.array_equal(out.slots[0], first_b) and np.array_equal(out.slots[1], a)
    program.run(slots=[a, b], backend="iree", in_place=True)
    assert np.array_equal(a, first_b) and np.array_equal(b, first_a)
