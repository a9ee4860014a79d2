# ruff: noqa: E501 (MLIR text: one op a line, as MLIR prints it)
"""Checkpointed loops of run-time length on IREE (SPEC §11, issue 22):
periodic checkpointing of an `scf.while`, and the default period ⌈√N⌉ of a
trip count known at run time only (computed by a `while`), of one loop and
of nested ones. IREE 3.13 ran each into "indirect buffer reference slot 0
is out range" until the lowering started every loop that carries more than
one tensor from its own buffers (`iree_while`); the interpreter was right
all along.
Every case is a function of one module, compiled once; the tests skip
without the `iree` extra."""

from __future__ import annotations

import functools
import importlib.util

import numpy as np
import pytest

import gradopt

HAVE_IREE = importlib.util.find_spec("iree") is not None and all(
    importlib.util.find_spec(m) for m in ("iree.compiler", "iree.runtime")
)

PERIODIC = '{"grad.checkpoint" = "periodic"}'
PERIOD_2 = '{"grad.checkpoint" = "periodic", "grad.period" = 2 : i64}'


def step(h: str, s: str) -> str:
    """One step from the vector `h` and the product `s`: `%b`, `%s2`."""
    return f"""
      %a = grad.mul {h}, %w : tensor<3xf32>
      %b = grad.sin %a : tensor<3xf32>
      %sum = grad.reduce add %b [0] : tensor<3xf32> to tensor<f32>
      %s2 = grad.mul {s}, %sum : tensor<f32>"""


def function(name: str, loop: str) -> str:
    """The gradient of a loss of `loop`'s results `%r#0` (a vector) and
    `%r#1` (a product that starts at the constant 1), `%n` steps long."""
    return f"""
func.func @{name}(%x: tensor<3xf32>, %w: tensor<3xf32>, %nt: tensor<i32>) -> (tensor<3xf32>, tensor<3xf32>) {{
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %n = tensor.extract %nt[] : tensor<i32>
  %one = grad.const 1.0 : tensor<f32>{loop}
  %l = grad.reduce add %r#0 [0] : tensor<3xf32> to tensor<f32>
  %l2 = grad.add %l, %r#1 : tensor<f32>
  %g:2 = grad.gradient %l2 wrt %x, %w control_flow : tensor<f32>, tensor<3xf32>, tensor<3xf32>
  func.return %g#0, %g#1 : tensor<3xf32>, tensor<3xf32>
}}
"""


def a_while(attributes: str) -> str:
    return f"""
  %r:3 = scf.while (%h = %x, %s = %one, %k = %c0) : (tensor<3xf32>, tensor<f32>, i32) -> (tensor<3xf32>, tensor<f32>, i32) {{
    %more = arith.cmpi slt, %k, %n : i32
    scf.condition(%more) %h, %s, %k : tensor<3xf32>, tensor<f32>, i32
  }} do {{
  ^bb0(%h: tensor<3xf32>, %s: tensor<f32>, %k: i32):{step("%h", "%s")}
    %k1 = arith.addi %k, %c1 : i32
    scf.yield %b, %s2, %k1 : tensor<3xf32>, tensor<f32>, i32
  }} attributes {attributes}"""


# An `scf.for` with i32 bounds; nested, iteration i runs an inner loop of
# i + 1 steps.
FOR = f"""
  %r:2 = scf.for %i = %c0 to %n step %c1 iter_args(%h = %x, %s = %one) -> (tensor<3xf32>, tensor<f32>) : i32 {{{step("%h", "%s")}
    scf.yield %b, %s2 : tensor<3xf32>, tensor<f32>
  }} {PERIODIC}"""
NESTED = f"""
  %r:2 = scf.for %i = %c0 to %n step %c1 iter_args(%h = %x, %s = %one) -> (tensor<3xf32>, tensor<f32>) : i32 {{
    %m = arith.addi %i, %c1 : i32
    %q:2 = scf.for %j = %c0 to %m step %c1 iter_args(%hh = %h, %ss = %s) -> (tensor<3xf32>, tensor<f32>) : i32 {{{step("%hh", "%ss")}
      scf.yield %b, %s2 : tensor<3xf32>, tensor<f32>
    }} {PERIODIC}
    scf.yield %q#0, %q#1 : tensor<3xf32>, tensor<f32>
  }} {PERIODIC}"""


@functools.cache
def on_iree() -> gradopt.Program:
    """Every case in one module, compiled once."""
    functions = [
        function("while_period", a_while(PERIOD_2)),
        function("while_default", a_while(PERIODIC)),
        function("for_default", FOR),
        function("nested", NESTED),
    ]
    return gradopt.Program("".join(functions))


def agree_on_iree(entries: tuple[str, ...]) -> None:
    """Each entry's gradient on IREE is the interpreter's up to rounding,
    for trip counts of none, 4 (period 2) and 5 (period 3, a shorter last
    segment)."""
    program = on_iree()
    x = np.array([0.3, -0.7, 1.1], np.float32)
    w = np.array([0.9, 0.4, -0.7], np.float32)
    for entry in entries:
        for n in (0, 4, 5):
            args = [x, w, np.array(n, np.int32)]
            expected = program.run(args=args, entry=entry).results
            found = program.run(args=args, entry=entry, backend="iree").results
            for got, value in zip(found, expected, strict=True):
                np.testing.assert_allclose(got, value, rtol=2e-5, atol=2e-5)


@pytest.mark.skipif(not HAVE_IREE, reason="needs the iree extra")
def test_a_checkpointed_while_runs_on_iree() -> None:
    """Periodic checkpointing, with a period and with the default one, of a
    `while` that carries a second tensor from a constant."""
    agree_on_iree(("while_period", "while_default"))


@pytest.mark.skipif(not HAVE_IREE, reason="needs the iree extra")
def test_the_default_period_of_a_run_time_trip_count_runs_on_iree() -> None:
    """⌈√N⌉ computed at run time for an `scf.for` with i32 bounds, and for
    nested loops (the inner loop's N changes every outer iteration)."""
    agree_on_iree(("for_default", "nested"))
