# ruff: noqa: E501 (MLIR text: one op a line, as MLIR prints it)
"""Loops that carry scalars on IREE (SPEC §10.4, §11), whose gradients IREE
3.13 got silently wrong under periodic checkpointing (issue 22) until the
lowering carried every scalar of control flow as an i64 (`iree_scalars`)
and wrote the elements a loop writes as slices (`iree_inserts`): the
rewrites on their own, checked on the interpreter, and the gradients on
IREE against the interpreter's (each fix's absence fails it: period 2 without
the first, two flags without the second). The IREE test skips without the
`iree` extra."""

from __future__ import annotations

import functools
import importlib.util

import numpy as np
import pytest
from xdsl.dialects import scf, tensor
from xdsl.dialects.builtin import IntegerType, ModuleOp, i64
from xdsl.parser import Parser

import gradopt
from gradopt.dialect.context import make_context
from gradopt.runtime.iree_inserts import insert_elements_as_slices
from gradopt.runtime.iree_scalars import widen_carried_scalars

HAVE_IREE = importlib.util.find_spec("iree") is not None and all(
    importlib.util.find_spec(m) for m in ("iree.compiler", "iree.runtime")
)

# IREE's failures reduced (before `iree_loops` unrolls them, which hides
# them): a flag that flips every step, stacked each segment of two steps,
# which IREE's VM overwrote with an i64 before moving it (`1 0 0`), and two
# stacks that IREE gave one buffer (`2 2 2` twice).
PATTERNS = """
func.func @flags(%x: tensor<3xf32>) -> tensor<3xi1> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %one = arith.constant true
  %e = tensor.empty() : tensor<3xi1>
  %ef = tensor.empty() : tensor<3xf32>
  %bt = arith.constant dense<1.1> : tensor<f32>
  %r:5 = scf.for %k = %c0 to %c3 step %c1 iter_args(%h = %x, %f = %one, %s = %bt, %st = %e, %sf = %ef) -> (tensor<3xf32>, i1, tensor<f32>, tensor<3xi1>, tensor<3xf32>) {
    %st2 = tensor.insert %f into %st[%k] : tensor<3xi1>
    %sf2 = tensor.insert_slice %s into %sf[%k] [1] [1] : tensor<f32> into tensor<3xf32>
    %i:3 = scf.for %j = %c0 to %c2 step %c1 iter_args(%hh = %h, %ff = %f, %ss = %s) -> (tensor<3xf32>, i1, tensor<f32>) {
      %h2 = math.sin %hh : tensor<3xf32>
      %f2 = arith.xori %ff, %one : i1
      %s2 = arith.mulf %ss, %ss : tensor<f32>
      scf.yield %h2, %f2, %s2 : tensor<3xf32>, i1, tensor<f32>
    }
    scf.yield %i#0, %i#1, %i#2, %st2, %sf2 : tensor<3xf32>, i1, tensor<f32>, tensor<3xi1>, tensor<3xf32>
  }
  func.return %r#3 : tensor<3xi1>
}
func.func @stacks(%x: tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %one = arith.constant 1.0 : f32
  %two = arith.constant 2.0 : f32
  %e = tensor.empty() : tensor<3xf32>
  %e2 = tensor.empty() : tensor<3xf32>
  %a, %b = scf.for %k = %c0 to %c3 step %c1 iter_args(%s = %e, %t = %e2) -> (tensor<3xf32>, tensor<3xf32>) {
    %s2 = tensor.insert %one into %s[%k] : tensor<3xf32>
    %t2 = tensor.insert %two into %t[%k] : tensor<3xf32>
    scf.yield %s2, %t2 : tensor<3xf32>, tensor<3xf32>
  }
  func.return %a, %b : tensor<3xf32>, tensor<3xf32>
}
"""

# The program: a loop whose body calls a function that branches on
# the carried flag and returns it flipped.
CELL = """
func.func private @cell(%h: tensor<3xf32>, %w: tensor<3xf32>, %flag: i1) -> (tensor<3xf32>, i1) {
  %r = scf.if %flag -> (tensor<3xf32>) {
    %a = grad.mul %h, %w : tensor<3xf32>
    %s = grad.sin %a : tensor<3xf32>
    scf.yield %s : tensor<3xf32>
  } else {
    %a = grad.add %h, %w : tensor<3xf32>
    scf.yield %a : tensor<3xf32>
  }
  %t = arith.constant true
  %nf = arith.xori %flag, %t : i1
  func.return %r, %nf : tensor<3xf32>, i1
}
"""


def periodic(name: str, period: int, run_time: bool) -> str:
    """The issue's loop of 5 steps (or `%nt` steps), every `period`-th
    state kept."""
    count = ", %nt: tensor<i32>" if run_time else ""
    bound = "%nn" if run_time else "%c5"
    return f"""
func.func @{name}(%x: tensor<3xf32>, %w: tensor<3xf32>{count}) -> (tensor<3xf32>, tensor<3xf32>) {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c5 = arith.constant 5 : index
  {"%ni = tensor.extract %nt[] : tensor<i32>" if run_time else ""}
  {"%nn = arith.index_cast %ni : i32 to index" if run_time else ""}
  %f0 = arith.constant true
  %bt = grad.const 1.0 : tensor<f32>
  %r:3 = scf.for %i = %c0 to {bound} step %c1 iter_args(%h = %x, %f = %f0, %s = %bt) -> (tensor<3xf32>, i1, tensor<f32>) {{
    %n:2 = func.call @cell(%h, %w, %f) : (tensor<3xf32>, tensor<3xf32>, i1) -> (tensor<3xf32>, i1)
    %sum = grad.reduce add %n#0 [0] : tensor<3xf32> to tensor<f32>
    %s2 = grad.mul %s, %sum : tensor<f32>
    scf.yield %n#0, %n#1, %s2 : tensor<3xf32>, i1, tensor<f32>
  }} {{"grad.checkpoint" = "periodic", "grad.period" = {period} : i64}}
  %l = grad.reduce add %r#0 [0] : tensor<3xf32> to tensor<f32>
  %l2 = grad.add %l, %r#2 : tensor<f32>
  %g:2 = grad.gradient %l2 wrt %x, %w control_flow : tensor<f32>, tensor<3xf32>, tensor<3xf32>
  func.return %g#0, %g#1 : tensor<3xf32>, tensor<3xf32>
}}
"""


# Two flags, the second the first's running parity: two stacks of flags.
TWO_FLAGS = """
func.func @two(%x: tensor<3xf32>, %w: tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c6 = arith.constant 6 : index
  %t = arith.constant true
  %f0 = arith.constant false
  %bt = grad.const 1.0 : tensor<f32>
  %r:4 = scf.for %i = %c0 to %c6 step %c1 iter_args(%h = %x, %f = %t, %g = %f0, %s = %bt) -> (tensor<3xf32>, i1, i1, tensor<f32>) {
    %n:2 = func.call @cell(%h, %w, %f) : (tensor<3xf32>, tensor<3xf32>, i1) -> (tensor<3xf32>, i1)
    %m:2 = func.call @cell(%n#0, %w, %g) : (tensor<3xf32>, tensor<3xf32>, i1) -> (tensor<3xf32>, i1)
    %g2 = arith.xori %m#1, %n#1 : i1
    %sum = grad.reduce add %m#0 [0] : tensor<3xf32> to tensor<f32>
    %s2 = grad.mul %s, %sum : tensor<f32>
    scf.yield %m#0, %n#1, %g2, %s2 : tensor<3xf32>, i1, i1, tensor<f32>
  } {"grad.checkpoint" = "periodic", "grad.period" = 2 : i64}
  %l = grad.reduce add %r#0 [0] : tensor<3xf32> to tensor<f32>
  %l2 = grad.add %l, %r#3 : tensor<f32>
  %gr:2 = grad.gradient %l2 wrt %x, %w control_flow : tensor<f32>, tensor<3xf32>, tensor<3xf32>
  func.return %gr#0, %gr#1 : tensor<3xf32>, tensor<3xf32>
}
"""

# Every kind of carried scalar the rewrite widens: i32 bounds, an i1 and an
# f32 carried by a `for`, an i1 result of an `if`, an i1 carried by a `while`.
SCALARS = """
func.func @scalars(%x: tensor<2xf32>) -> (tensor<2xf32>, f32, i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c4 = arith.constant 4 : i32
  %true = arith.constant true
  %half = arith.constant 0.5 : f32
  %r:3 = scf.for %i = %c0 to %c4 step %c1 iter_args(%h = %x, %f = %true, %a = %half) -> (tensor<2xf32>, i1, f32) : i32 {
    %g = scf.if %f -> (i1) {
      scf.yield %f : i1
    } else {
      %n = arith.xori %f, %true : i1
      scf.yield %n : i1
    }
    %h2 = math.sin %h : tensor<2xf32>
    %a2 = arith.mulf %a, %a : f32
    %fi = arith.sitofp %i : i32 to f32
    %a3 = arith.addf %a2, %fi : f32
    %nf = arith.xori %g, %true : i1
    scf.yield %h2, %nf, %a3 : tensor<2xf32>, i1, f32
  }
  %w:2 = scf.while (%k = %c0, %b = %r#1) : (i32, i1) -> (i32, i1) {
    %go = arith.cmpi slt, %k, %c4 : i32
    scf.condition(%go) %k, %b : i32, i1
  } do {
  ^bb0(%k2: i32, %b2: i1):
    %k3 = arith.addi %k2, %c1 : i32
    %b3 = arith.xori %b2, %true : i1
    scf.yield %k3, %b3 : i32, i1
  }
  %wi = arith.extui %w#1 : i1 to i32
  %out = arith.addi %w#0, %wi : i32
  func.return %r#0, %r#2, %out : tensor<2xf32>, f32, i32
}
"""


def parsed(text: str) -> ModuleOp:
    return Parser(make_context(), text).parse_module()


def same_bits(a: list[np.ndarray], b: list[np.ndarray]) -> bool:
    return all(x.tobytes() == y.tobytes() for x, y in zip(a, b, strict=True))


def test_control_flow_carries_every_scalar_as_an_i64_with_the_same_bits() -> None:
    module = parsed(SCALARS)
    widen_carried_scalars(module)
    module.verify()
    carriers = [
        op for op in module.walk() if isinstance(op, scf.ForOp | scf.WhileOp | scf.IfOp)
    ]
    assert len(carriers) == 3
    for op in carriers:
        blocks = [block for region in op.regions for block in region.blocks]
        values = [*op.results, *(arg for block in blocks for arg in block.args)]
        scalars = [v.type for v in values if isinstance(v.type, IntegerType)]
        assert scalars and all(type == i64 for type in scalars)
    x = np.array([0.25, -1.5], np.float32)
    original = gradopt.run(SCALARS, args=[x], entry="scalars").results
    widened = gradopt.run(str(module), args=[x], entry="scalars").results
    assert original[2] == 4
    assert same_bits(widened, original)


def test_the_elements_a_loop_writes_become_slices_with_the_same_bits() -> None:
    module = parsed(PATTERNS)
    insert_elements_as_slices(module)
    module.verify()
    assert not [op for op in module.walk() if isinstance(op, tensor.InsertOp)]
    assert (
        len([op for op in module.walk() if isinstance(op, tensor.FromElementsOp)]) == 3
    )
    x = np.array([0.3, -0.7, 1.1], np.float32)
    for entry in ("flags", "stacks"):
        original = gradopt.run(PATTERNS, args=[x], entry=entry).results
        rewritten = gradopt.run(str(module), args=[x], entry=entry).results
        assert same_bits(rewritten, original)


@functools.cache
def on_iree() -> gradopt.Program:
    """Every case in one module, compiled once."""
    cases = [
        periodic("p2", 2, False),
        periodic("p3", 3, False),
        periodic("p2n", 2, True),
        periodic("p3n", 3, True),
    ]
    return gradopt.Program(CELL + "".join(cases) + TWO_FLAGS)


@pytest.mark.skipif(not HAVE_IREE, reason="needs the iree extra")
def test_periodic_checkpointing_of_carried_flags_is_right_on_iree() -> None:
    program = on_iree()
    x = np.array([0.3, -0.7, 1.1], np.float32)
    w = np.array([0.9, 0.4, -0.7], np.float32)
    runs = [("p2", [x, w]), ("p3", [x, w]), ("two", [x, w])]
    runs += [(e, [x, w, np.array(n, np.int32)]) for e in ("p2n", "p3n") for n in (4, 5)]
    for entry, args in runs:
        expected = program.run(args=args, entry=entry).results
        found = program.run(args=args, entry=entry, backend="iree").results
        for got, value in zip(found, expected, strict=True):
            np.testing.assert_allclose(got, value, rtol=2e-5, atol=2e-5)
