"""Plans that leave out detaches and the broadcasts NumPy makes implicitly
(`gradopt.interpreter.implicit`) give the bits of plans that run them: on
random gradient programs, on NaN, infinities and signed zeros, and on the
forms where a broadcast must stay."""

from __future__ import annotations

from pathlib import Path

import numpy as np
from hypothesis import given
from programs import Program as Generated
from programs import programs
from test_fusion import PROPERTY_EXAMPLES, bits, examples, special
from xdsl.ir import Operation

from gradopt import Program
from gradopt.dialect.ops.elementwise import DetachOp
from gradopt.dialect.ops.shapes import BroadcastOp
from gradopt.interpreter import implicit

EXAMPLES_DIR = Path(__file__).resolve().parent.parent / "examples"


def both_ways(
    text: str, slots: list[np.ndarray], args: list[np.ndarray]
) -> tuple[Program, list[np.ndarray]]:
    """The program of `text` with the steps left out, its results and slots
    checked bit for bit against a plan that runs every step."""
    runs: list[list[np.ndarray]] = []
    programs: list[Program] = []
    for enabled in (True, False):
        implicit.ENABLED = enabled
        try:
            program = Program(text)
            result = program.run(slots=[s.copy() for s in slots], args=args)
        finally:
            implicit.ENABLED = True
        runs.append([*map(np.asarray, result.results), *result.slots])
        programs.append(program)
    for got, want in zip(*runs, strict=True):
        assert got.dtype == want.dtype and got.shape == want.shape
        np.testing.assert_array_equal(bits(got), bits(want))
    return programs[0], runs[0]


def planned(program: Program, kind: type[Operation]) -> list[Operation]:
    """The ops of `kind` that the plan of `@main` runs as steps."""
    plan = program.interpreter.plans["main"]
    return [
        step.op
        for step in plan.steps
        if isinstance(step.op, kind) and step.result not in plan.constants
    ]


@examples(max(1, PROPERTY_EXAMPLES // 3))
@given(programs("gradient"))
def test_random_programs_keep_their_bits(generated: Generated) -> None:
    """Each random gradient program on its data and on data a third of which
    is special values."""
    for data in (generated, generated.with_special_data(5)):
        both_ways(generated.text, data.slots, data.args)


T = "tensor<4x6xf32>"
FORMS = f"""func.func @main(%a: {T}, %r: tensor<6xf32>, %c: tensor<4xf32>,
                           %s: tensor<f32>)
    -> ({T}, {T}, {T}, tensor<4x6xi1>, {T}, {T}, tensor<6xf32>) {{
  %rb = grad.broadcast %r [1] : tensor<6xf32> to {T}
  %sum = grad.add %a, %rb : {T}
  %low = grad.cmplt %rb, %a : {T}
  %max = grad.max %rb, %a : {T}
  %rb2 = grad.broadcast %r [1] : tensor<6xf32> to {T}
  %twice = grad.add %rb2, %rb2 : {T}
  %cb = grad.broadcast %c [0] : tensor<4xf32> to {T}
  %col = grad.mul %a, %cb : {T}
  %sb = grad.broadcast %s [] : tensor<f32> to {T}
  %d = grad.detach %sum : {T}
  %scaled = grad.mul %d, %sb : {T}
  %rd = grad.detach %r : tensor<6xf32>
  func.return %sum, %max, %twice, %low, %col, %scaled, %rd
      : {T}, {T}, {T}, tensor<4x6xi1>, {T}, {T}, tensor<6xf32>
}}"""


def test_trailing_broadcasts_go_where_a_ufunc_reads_them_beside_a_full_operand() -> (
    None
):
    """`%rb` and `%sb` (rank 0) go, and both detaches, the one returned
    too. `%rb2` stays: `%twice` reads it on both sides (no full operand).
    `%cb` puts its dim first, where NumPy would align it last: it stays."""
    a, r, c = special((4, 6), 1), special((6,), 2), special((4,), 3)
    s = np.array(-0.0, np.float32)
    program, results = both_ways(FORMS, [], [a, r, c, s])
    kept = [op.results[0].name_hint for op in planned(program, BroadcastOp)]
    assert kept == ["rb2", "cb"]
    assert planned(program, DetachOp) == []
    sum_, max_, twice, low, col, scaled, rd = results
    with np.errstate(all="ignore"):
        np.testing.assert_array_equal(bits(sum_), bits(a + r))
        np.testing.assert_array_equal(low, r < a)
        np.testing.assert_array_equal(bits(max_), bits(np.maximum(r, a)))
        twice_r = np.broadcast_to(r + r, a.shape)
        np.testing.assert_array_equal(bits(twice), bits(twice_r))
        np.testing.assert_array_equal(bits(col), bits(a * c[:, None]))
        np.testing.assert_array_equal(bits(scaled), bits((a + r) * s))
    np.testing.assert_array_equal(bits(rd), bits(r))


def test_the_mlp_step_adds_its_biases_implicitly_with_the_same_bits() -> None:
    """The example's two bias broadcasts and its detach are no steps; its
    loss and updated weights keep their bits, on special values too."""
    text = (EXAMPLES_DIR / "mlp_step.mlir").read_text()
    types = Program(text).signature().slots
    slots = [special(tuple(t.get_shape()), i) for i, t in enumerate(types)]
    program, _ = both_ways(text, slots, [])
    broadcasts = planned(program, BroadcastOp)
    assert broadcasts and all(op.dims.get_values() == (0,) for op in broadcasts)
    assert planned(program, DetachOp) == []
