# ruff: noqa: E501 (MLIR text: one op a line, as MLIR prints it)
"""Checkpointing of a loop's reverse (SPEC §11): `"periodic"` and
`"binomial"` (revolve) on `scf.for` and `scf.while`, bit for bit the default
cache's result, and binomial's recomputation measured against revolve's
optimum by counting the loop body's executions in the interpreter."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from math import comb

import numpy as np
import pytest
from test_control_flow import WHILE, expanded, results, same_bits

from gradopt.dialect.ops import Exp2Op
from gradopt.runtime.program import Program

# The body's one `grad.exp2` runs once per executed iteration: the reverse's
# own rule for it (`mul (mul g u) 0.6931472`) computes no exp2.
LOOP = """
func.func @main(%x: tensor<3xf32>, %w: tensor<3xf32>, %n: tensor<i32>) -> (tensor<3xf32>, tensor<3xf32>) {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %ni = tensor.extract %n[] : tensor<i32>
  %nd = arith.index_cast %ni : i32 to index
  %count = {count}
  %r = scf.for %i = %c0 to %count step %c1 iter_args(%h = %x) -> (tensor<3xf32>) {{
    %a = grad.mul %h, %w : tensor<3xf32>
    %s = grad.sin %a : tensor<3xf32>
    %b = grad.exp2 %s : tensor<3xf32>
    %d = grad.add %b, %h : tensor<3xf32>
    %q = grad.mul %d, %w : tensor<3xf32>
    scf.yield %q : tensor<3xf32>
  }} {attributes}
  %l = grad.reduce add %r [0] : tensor<3xf32> to tensor<f32>
  %gx, %gw = grad.gradient %l wrt %x, %w control_flow : tensor<f32>, tensor<3xf32>, tensor<3xf32>
  func.return %gx, %gw : tensor<3xf32>, tensor<3xf32>
}}
"""

DYNAMIC = "arith.addi %nd, %c0 : index"


def program(count: str, attributes: str) -> str:
    return LOOP.format(count=count, attributes=attributes)


def binomial(snapshots: int | None) -> str:
    given = "" if snapshots is None else f', "grad.snapshots" = {snapshots} : i64'
    return '{"grad.checkpoint" = "binomial"' + given + "}"


def revolve_optimum(steps: int, snapshots: int) -> int:
    """The fewest iterations recomputed to reverse `steps` iterations with
    `snapshots` snapshots (Griewank and Walther 2000): r·N - β(C + 1, r - 1),
    r the least integer with β(C, r) = binomial(C + r, C) >= N."""
    r = 0
    while comb(snapshots + r, snapshots) < steps:
        r += 1
    return r * steps - comb(snapshots + r, r - 1) if r > 0 else 0


def test_the_optimum_formula_against_its_recursion() -> None:
    """The closed form against the recursion it solves: advance m iterations,
    reverse the right part with one snapshot fewer, then the left part."""
    best: dict[tuple[int, int], int] = {}
    for s in range(1, 6):
        for n in range(1, 30):
            if n == 1:
                best[n, s] = 0
            elif s == 1:
                best[n, s] = n * (n - 1) // 2
            else:
                best[n, s] = min(
                    m + best[n - m, s - 1] + best[m, s] for m in range(1, n)
                )
            assert revolve_optimum(n, s) == best[n, s], (n, s)


@contextmanager
def counted_exp2(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[int]]:
    calls = [0]
    kernel = Exp2Op.kernel

    def counting(self: Exp2Op) -> Callable[..., object]:
        inner = kernel(self)

        def run(*args: object, **kwargs: object) -> object:
            calls[0] += 1
            return inner(*args, **kwargs)

        return run

    monkeypatch.setattr(Exp2Op, "kernel", counting)
    yield calls


ARGS = (
    np.array([0.3, -0.5, 0.8], np.float32),
    np.array([0.9, 0.4, -0.7], np.float32),
)


def test_binomial_has_the_bits_of_the_cache_and_revolves_optimum(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """N known only at run time (the schedule is worked out once it is), for
    several N, C = 1, C ≥ N and the default C = ⌈log2 N⌉; the body runs N
    times in the reverse and revolve's optimum of recomputations in between
    (the primal loop is dead in this program, which returns the gradient
    only, and `Program` removes it)."""
    cached = Program(program(DYNAMIC, ""))
    periodic = Program(program(DYNAMIC, '{"grad.checkpoint" = "periodic"}'))
    with counted_exp2(monkeypatch) as calls:
        for snapshots in (1, 3, None, 40):
            checkpointed = Program(program(DYNAMIC, binomial(snapshots)))
            for n in (0, 1, 7, 13):
                args = [*ARGS, np.array(n, np.int32)]
                expected = cached.run(args=args).results
                assert same_bits(periodic.run(args=args).results, expected)
                calls[0] = 0
                found = checkpointed.run(args=args).results
                assert same_bits(found, expected), (snapshots, n)
                c = snapshots or max(1, (n - 1).bit_length())
                optimum = revolve_optimum(n, min(c, max(n, 1)))
                assert calls[0] == n + optimum, (snapshots, n)


def test_binomial_with_a_static_trip_count() -> None:
    text = program("arith.constant 9 : index", "")
    args = (*ARGS, np.array(0, np.int32))
    expected = results(expanded(text), *args)
    for snapshots in (1, 2, 9):
        marked = program("arith.constant 9 : index", binomial(snapshots))
        assert same_bits(results(marked, *args), expected)


def test_a_period_beyond_the_trip_count_is_one_segment_of_that_count() -> None:
    """SPEC §11: P ≥ N is one segment; a known N sizes the segment's cache,
    so a period far beyond it costs no more memory than N."""
    count = "arith.constant 9 : index"
    args = (*ARGS, np.array(0, np.int32))
    expected = results(expanded(program(count, "")), *args)
    for period in (9, 10, 2**40):
        attributes = (
            f'{{"grad.checkpoint" = "periodic", "grad.period" = {period} : i64}}'
        )
        module = expanded(program(count, attributes))
        assert "tensor<9x3xf32>" in str(module)
        assert same_bits(results(module, *args), expected), period


def test_checkpointing_a_while_loop_keeps_the_bits_of_the_cache() -> None:
    """The trip count is found by a counting copy of the loop; both policies
    then reverse its iterations as for an `scf.for` of that many."""
    text = WHILE
    ending = "}\n  %l = grad.reduce"
    assert text.count(ending) == 1
    cached = Program(text)
    policies = [
        '{"grad.checkpoint" = "periodic"}',
        '{"grad.checkpoint" = "periodic", "grad.period" = 2 : i64}',
        '{"grad.checkpoint" = "binomial"}',
        '{"grad.checkpoint" = "binomial", "grad.snapshots" = 1 : i64}',
    ]
    programs = [
        Program(text.replace(ending, f"}} attributes {p}\n  %l = grad.reduce"))
        for p in policies
    ]
    w = np.array([0.7, 0.4], np.float32)
    for start in (25.0, 3.0, 0.9, 0.2):  # 0, 2, 4 and 9 iterations
        args = [np.array([start, 0.4], np.float32), w]
        expected = cached.run(args=args).results
        for checkpointed in programs:
            assert same_bits(checkpointed.run(args=args).results, expected), start


def test_binomial_through_the_front_end_with_stacked_outputs() -> None:
    """`gradopt.checkpoint(policy="binomial")` on a `lax.scan` whose ys the
    loop only writes into: those are not in the snapshots, and the gradient
    keeps the cache's bits."""
    import gradopt
    import gradopt.numpy as gnp
    from gradopt import lax

    def loss(h0: object, xs: object) -> object:
        def step(h: object, x: object) -> tuple[object, object]:
            h = gnp.sin(h * 1.1 + x)  # pyright: ignore[reportOperatorIssue]
            return h, gnp.sum(h)

        h, ys = lax.scan(step, h0, xs)
        return gnp.sum(h * h) + gnp.sum(ys)  # pyright: ignore[reportOperatorIssue]

    h0, xs = ARGS[0], np.stack([ARGS[1] * k for k in range(7)])
    plain = gradopt.grad(loss, (0, 1))(h0, xs)
    for snapshots in (1, 3):
        lean = gradopt.checkpoint(loss, policy="binomial", snapshots=snapshots)
        assert same_bits(list(gradopt.grad(lean, (0, 1))(h0, xs)), list(plain))
    text = gradopt.jit(gradopt.grad(lean, (0, 1))).lower(h0, xs).as_text()
    assert "tensor<?x7xf32>" not in text and "tensor<3x7xf32>" not in text
