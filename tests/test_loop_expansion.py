# ruff: noqa: E501 (MLIR text: one op a line, as MLIR prints it)
"""What the expansion of loops and calls costs and keeps (SPEC §11):
the share of a row that an iteration reads from an outer tensor is added onto
the running sum's row (not built as a whole tensor of zeros and added whole),
with the bits of the whole-tensor sum, -0.0, NaN and inf included; the calls
a walk keeps are marked on the op for that walk only."""

from __future__ import annotations

import numpy as np
import pytest
from test_calls import ORDER
from test_control_flow import expanded, results, same_bits
from test_control_flow import f32 as f32s
from test_iree_loops import BRANCHY
from xdsl.dialects import arith
from xdsl.dialects.builtin import ModuleOp, TensorType, f32
from xdsl.dialects.func import FuncOp
from xdsl.dialects.scf import ForOp
from xdsl.dialects.tensor import InsertSliceOp
from xdsl.ir import Operation
from xdsl.parser import Parser

from gradopt.autodiff import walks
from gradopt.autodiff.emitter import Emitter
from gradopt.autodiff.paths import KEPT
from gradopt.autodiff.rules import scf
from gradopt.dialect.context import make_context
from gradopt.passes.expand_gradient import ExpandGradientPass

# h' = h * xs[i mod 2] + c: rows 0 and 1 of xs get a share every other
# iteration, the others none; xs, c and h0 put -0.0, NaN and inf in them.
ROWS = """
func.func @main(%h0: tensor<4xf32>, %xs: tensor<{n}x4xf32>, %c: tensor<4xf32>) -> (tensor<{n}x4xf32>, tensor<4xf32>) {{
  %lo = arith.constant 0 : index
  %hi = arith.constant {n} : index
  %one = arith.constant 1 : index
  %two = arith.constant 2 : index
  %h = scf.for %i = %lo to %hi step %one iter_args(%s = %h0) -> (tensor<4xf32>) {{
    %j = arith.remui %i, %two : index
    %a = tensor.extract_slice %xs[%j, 0] [1, 4] [1, 1] : tensor<{n}x4xf32> to tensor<4xf32>
    %p = arith.mulf %s, %a : tensor<4xf32>
    %t = arith.addf %p, %c : tensor<4xf32>
    scf.yield %t : tensor<4xf32>
  }} {attributes}
  %e0 = tensor.empty() : tensor<f32>
  %z0 = arith.constant 0.0 : f32
  %acc = linalg.fill ins(%z0 : f32) outs(%e0 : tensor<f32>) -> tensor<f32>
  %l = linalg.reduce ins(%h : tensor<4xf32>) outs(%acc : tensor<f32>) dimensions = [0]
    (%x: f32, %y: f32) {{
      %r = arith.addf %x, %y : f32
      linalg.yield %r : f32
    }}
  %gx, %gc = grad.gradient %l wrt %xs, %c control_flow : tensor<f32>, tensor<{n}x4xf32>, tensor<4xf32>
  func.return %gx, %gc : tensor<{n}x4xf32>, tensor<4xf32>
}}
"""


def _reverse_loop(module: ModuleOp) -> ForOp:
    loops = [op for op in module.walk() if isinstance(op, ForOp)]
    return loops[-1]


def _whole_inserts(loop: ForOp, rows: int) -> int:
    """The insert_slice ops in `loop`'s body whose result has `rows` rows."""
    return sum(
        isinstance(op, InsertSliceOp)
        and isinstance(t := op.result.type, TensorType)
        and t.get_shape()[0] == rows
        for op in loop.body.block.ops
    )


def _whole_zeros(loop: ForOp, rows: int) -> int:
    """The uses in `loop`'s body of zero constants of `rows` rows."""
    return sum(
        isinstance(v.owner, arith.ConstantOp)
        and isinstance(t := v.type, TensorType)
        and t.get_shape()[0] == rows
        for op in loop.body.block.ops
        for v in op.operands
    )


@pytest.mark.parametrize("attributes", ["", '{"grad.checkpoint" = "periodic"}'])
def test_a_row_share_is_added_in_place_with_the_bits_of_the_whole_sum(
    attributes: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    n = 7
    text = ROWS.format(n=n, attributes=attributes)
    module = expanded(text)
    reverse = _reverse_loop(module)
    assert _whole_zeros(reverse, n) == 0
    # the row's sum goes back into the running sum: the one whole insert
    assert _whole_inserts(reverse, n) == 1
    # the loop that runs the forward for the reverse stands for the loop
    main = next(iter(module.ops))
    assert isinstance(main, FuncOp)
    loops = [op for op in main.body.block.ops if isinstance(op, ForOp)]
    assert len(loops) == 2
    assert "linalg.reduce" in {u.operation.name for u in loops[0].results[0].uses}

    h0 = np.array([-0.0, np.inf, 1.0, np.nan], np.float32)
    xs = np.ones((n, 4), np.float32)
    xs[:, 0] = -0.0
    xs[3] = [2.0, -np.inf, -0.0, 0.5]
    c = np.array([-0.0, 0.0, np.inf, -1.0], np.float32)
    found = results(module, h0, xs, c)
    assert not np.signbit(found[0]).any()  # -0.0 shares: the sum stays +0.0
    assert np.isnan(found[0]).any() and np.isinf(found[0]).any()

    whole = scf._add_share
    monkeypatch.setattr(
        scf,
        "_add_share",
        lambda e, value, total, share, _: whole(e, value, total, share, False),
    )
    before = expanded(text)
    assert _whole_zeros(_reverse_loop(before), n) == 1
    assert same_bits(found, results(before, h0, xs, c))


def test_no_share_for_an_outer_value_off_the_path() -> None:
    """Without `%xs` among the targets, the reverse builds no sum of its
    rows' shares; the gradient keeps its bits."""
    text = ROWS.format(n=7, attributes="")
    alone = text.replace("wrt %xs, %c", "wrt %c").replace(
        "%gx, %gc = grad.gradient", "%gc = grad.gradient"
    )
    alone = alone.replace(
        "tensor<f32>, tensor<7x4xf32>, tensor<4xf32>", "tensor<f32>, tensor<4xf32>"
    ).replace("func.return %gx, %gc", "func.return %xs, %gc")
    module = expanded(alone)
    assert [a.type for a in _reverse_loop(module).iter_args] == [
        TensorType(f32, [4])
    ] * 2  # the state's gradient, %c's sum
    args = (f32s(4), f32s(7, 4), f32s(4))
    assert same_bits(results(module, *args)[1:], results(expanded(text), *args)[1:])


def _marked(module: Operation) -> int:
    return sum(KEPT in op.attributes for op in module.walk())


def test_a_kept_call_is_marked_for_its_walk_only(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The calls that a walk differentiates by their functions are marked on
    the op, for that walk: none left after an expansion, even a failed one."""
    assert _marked(expanded(ORDER)) == 0
    during: list[int] = []

    def failing(e: Emitter, *_: object) -> None:
        during.append(_marked(e.anchor.get_toplevel_object()))
        raise RuntimeError("a rule failed")

    monkeypatch.setattr(walks, "backward_walk", failing)
    ctx = make_context()
    module = Parser(ctx, ORDER).parse_module()
    with pytest.raises(RuntimeError, match="a rule failed"):
        ExpandGradientPass().apply(ctx, module)
    assert during == [1]  # @f's site is kept, @g's inlined
    assert _marked(module) == 0


# Two losses through one loop (run-time trip count): each walk has its own
# recording loop; the first may not put its own in the loop's place, where
# the second walk would meet it and differentiate its cache too.
TWO_LOSSES = """
func.func @main(%x: tensor<3xf32>, %w: tensor<3xf32>, %count: i32) -> (tensor<3xf32>, tensor<3xf32>) {
  %n = arith.index_cast %count : i32 to index
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%h = %x) -> (tensor<3xf32>) {
    %a = grad.mul %h, %w : tensor<3xf32>
    %b = grad.sin %a : tensor<3xf32>
    scf.yield %b : tensor<3xf32>
  }
  %l = grad.reduce add %r [0] : tensor<3xf32> to tensor<f32>
  %s = grad.mul %r, %r : tensor<3xf32>
  %m = grad.reduce add %s [0] : tensor<3xf32> to tensor<f32>
  %gx = grad.gradient %l wrt %x control_flow : tensor<f32>, tensor<3xf32>
  %gw = grad.gradient %m wrt %w control_flow : tensor<f32>, tensor<3xf32>
  func.return %gx, %gw : tensor<3xf32>, tensor<3xf32>
}
"""


def test_the_recording_loop_stands_for_the_loop_of_one_walk_only() -> None:
    module = expanded(TWO_LOSSES)
    main = next(iter(module.ops))
    assert isinstance(main, FuncOp)
    loops = [op for op in main.body.block.ops if isinstance(op, ForOp)]
    # the second walk's recording loop in the loop's place, the first walk's
    # recording loop, the two reverse loops: none carries another's cache,
    # and the first reverse no sum for %w, which is not on its path
    assert [len(loop.iter_args) for loop in loops] == [2, 2, 1, 2]
    assert loops[0].results[0].name_hint == "r"
    args = [np.float32([0.5, -1.0, 2.0]), np.float32([0.9, 0.3, -0.7]), np.int32(4)]
    found = results(module, *args)
    for k, (kept, dropped) in enumerate((("gx", "gw"), ("gw", "gx"))):
        alone = TWO_LOSSES.replace(f"  %{dropped} = grad.gradient", "  // ").replace(
            "func.return %gx, %gw", f"func.return %{kept}, %{kept}"
        )
        assert same_bits(found[k : k + 1], results(expanded(alone), *args)[:1])


def test_a_loop_with_a_branch_keeps_its_forward_loop() -> None:
    """IREE 3.13 ran a recording loop standing for such a loop into a freed
    buffer (`tests/test_iree_loops.py`): the loop stays beside it."""
    main = next(iter(expanded(BRANCHY).ops))
    assert isinstance(main, FuncOp)
    loops = [op for op in main.body.block.ops if isinstance(op, ForOp)]
    assert [len(loop.iter_args) for loop in loops] == [1, 2, 2]
