"""Plans keep buffers for their large intermediates from run to run
(`gradopt.interpreter.pool`): the same bits as new arrays, on random programs
and the examples, run after run; no value that leaves a run is one of them;
runs under way at once take sets of their own; a second run allocates no
intermediate."""

from __future__ import annotations

import gc
import threading
import tracemalloc
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from programs import Program as Generated
from programs import programs
from test_fusion import PROPERTY_EXAMPLES, bits, examples
from xdsl.dialects.builtin import MemRefType, TensorType
from xdsl.ir import Attribute

from gradopt import Program
from gradopt.interpreter import pool
from gradopt.interpreter.executor import Plan

EXAMPLES_DIR = Path(__file__).resolve().parent.parent / "examples"


@contextmanager
def every_value() -> Iterator[None]:
    """Every value a kernel writes into a given buffer is given one, however
    small (the programs here are small)."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(pool, "POOLED_BYTES", 1)
        yield


def runs(
    text: str, slots: list[np.ndarray], args: list[object], times: int
) -> list[list[np.ndarray]]:
    """The results and final slots of `times` runs of one program, each on
    fresh copies of `slots`; all of them kept until the end."""
    program = Program(text)
    kept = []
    with pool.keeping():
        for _ in range(times):
            result = program.run(slots=[s.copy() for s in slots], args=args)
            kept.append([*map(np.asarray, result.results), *result.slots])
    return kept


def assert_kept_buffers_change_no_bit(
    text: str, slots: list[np.ndarray], args: list[object]
) -> None:
    """Three runs with kept buffers, all held until the third is done, give
    the bits of a run without them: so no value that left a run lived in a
    buffer the next run wrote over."""
    pool.ENABLED = False
    try:
        (expected,) = runs(text, slots, args, 1)
    finally:
        pool.ENABLED = True
    for got in runs(text, slots, args, 3):
        for value, want in zip(got, expected, strict=True):
            assert value.dtype == want.dtype and value.shape == want.shape
            np.testing.assert_array_equal(bits(value), bits(want))


@examples(max(1, PROPERTY_EXAMPLES // 3))
@given(programs("gradient"))
def test_random_programs_keep_their_bits(generated: Generated) -> None:
    with every_value():
        for data in (generated, generated.with_special_data(7)):
            assert_kept_buffers_change_no_bit(generated.text, data.slots, data.args)


def example_input(type: Attribute, rng: np.random.Generator) -> object:
    """Random data of a tensor type; 1 for a scalar (an epoch count)."""
    if isinstance(type, TensorType | MemRefType):
        return rng.standard_normal(type.get_shape()).astype(np.float32)
    return 1


@pytest.mark.parametrize("name", ["mlp_step", "conv2d", "attention", "train_loop"])
def test_the_examples_keep_their_bits(name: str) -> None:
    text = (EXAMPLES_DIR / f"{name}.mlir").read_text()
    signature = Program(text).signature()
    rng = np.random.default_rng(3)
    slots = [example_input(t, rng) for t in signature.slots]
    args = [example_input(t, rng) for t in signature.args]
    with every_value():
        assert_kept_buffers_change_no_bit(text, slots, args)  # type: ignore[arg-type]
        program = Program(text)
        program.run(slots=slots, args=args)
    assert any(plan.pool is not None for plan in all_plans(program))


def all_plans(program: Program) -> Iterator[Plan]:
    """The plans of every function of `program` that ran, and of their
    regions (loop bodies), found through the steps' loop kernels' closures."""
    todo = list(program.interpreter.plans.values())
    while todo:
        plan = todo.pop()
        yield plan
        for step in plan.steps:
            for cell in getattr(step.kernel, "__closure__", None) or ():
                if isinstance(cell.cell_contents, Plan):
                    todo.append(cell.cell_contents)


T = "tensor<512x512xf32>"
CHAIN = f"""func.func @main(%x: {T}, %y: {T}) -> ({T}, tensor<f32>) {{
  %a = grad.mul %x, %y : {T}
  %b = grad.sin %a : {T}
  %c = grad.max %a, %b : {T}
  %d = grad.dot %c, %b : {T}, {T} to {T}
  %e = grad.add %d, %c : {T}
  %s = grad.reduce add %e [0, 1] : {T} to tensor<f32>
  %r = grad.reshape %d : {T} to tensor<262144xf32>
  %back = grad.reshape %r : tensor<262144xf32> to {T}
  %out = grad.mul %back, %x : {T}
  func.return %out, %s : {T}, tensor<f32>
}}
"""


def test_a_second_run_allocates_no_intermediate() -> None:
    """`%a` to `%e` go in kept buffers (1 MiB each); the result `%out`, a
    new array, is all a second run allocates."""
    program = Program(CHAIN)  # no slots: its runs keep buffers
    x, y = (np.full((512, 512), v, np.float32) for v in (0.5, 0.25))
    program.run(args=[x, y])
    plan = program.interpreter.plans["main"]
    assert plan.pool is not None and len(plan.pool.layouts) >= 2
    tracemalloc.start()
    try:
        program.run(args=[x, y])
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 1.5 * x.nbytes


SLOTTED = f"""func.func @main(%ws: memref<512x512xf32>, %x: {T}) -> tensor<f32> {{
  %w = grad.load %ws : memref<512x512xf32>
  %h = grad.dot %x, %w : {T}, {T} to {T}
  %e = grad.exp2 %h : {T}
  %s = grad.reduce add %e [0, 1] : {T} to tensor<f32>
  %u = grad.mul %w, %e : {T}
  grad.store %u, %ws : memref<512x512xf32>
  func.return %s : tensor<f32>
}}
"""


def test_runs_that_copy_slots_and_in_place_ones_keep_the_same_buffers() -> None:
    """A run that copies its slots keeps buffers as one in place does (one
    set between them, as they run one after the other); both give the same
    bits, those of a run without kept buffers."""
    program = Program(SLOTTED)
    x = np.full((512, 512), 1e-3, np.float32)
    copied = program.run(slots=[np.ones((512, 512), np.float32)], args=[x])
    plan_pool = program.interpreter.plans["main"].pool
    assert plan_pool is not None and len(plan_pool.sets) == 1
    w = np.ones((512, 512), np.float32)
    in_place = program.run(slots=[w], args=[x], in_place=True)
    assert len(plan_pool.sets) == 1
    assert bits(in_place.results[0]) == bits(copied.results[0])
    np.testing.assert_array_equal(bits(w), bits(copied.slots[0]))
    assert_kept_buffers_change_no_bit(SLOTTED, [np.ones((512, 512), np.float32)], [x])


LEAVING = f"""func.func @main(%x: {T}) -> (tensor<262144xf32>, {T}, tensor<f32>) {{
  %a = grad.sin %x : {T}
  %r = grad.reshape %a : {T} to tensor<262144xf32>
  %b = grad.sqrt %x : {T}
  %c = grad.exp2 %b : {T}
  %d = grad.neg %x : {T}
  %s = grad.reduce add %d [0, 1] : {T} to tensor<f32>
  func.return %r, %c, %s : tensor<262144xf32>, {T}, tensor<f32>
}}
"""


def pooled(program: Program) -> set[str]:
    """The values of `@main` that its plan puts in kept buffers, by name."""
    plan = program.interpreter.plans["main"]
    return {
        step.op.results[0].name_hint or ""
        for step in plan.steps
        if plan.pool is not None and step.into is not None
    }


def test_a_value_that_leaves_or_whose_view_leaves_gets_no_buffer() -> None:
    """`%a` leaves as its view `%r`, `%b` as `%c` (which exp2 writes into
    its memory); `%d` alone stays in the run."""
    program = Program(LEAVING)
    program.run(args=[np.ones((512, 512), np.float32)])
    assert pooled(program) == {"d"}


def test_values_whose_lives_do_not_overlap_share_a_buffer() -> None:
    """In `CHAIN`, `%c` and `%e` live in `%a`'s memory (`out=`), and `%d`,
    a new value while `%a` and `%b` are alive, gets a third buffer."""
    program = Program(CHAIN)
    program.run(args=[np.ones((512, 512), np.float32)] * 2)
    assert pooled(program) == {"a", "b", "d"}
    plan_pool = program.interpreter.plans["main"].pool
    assert plan_pool is not None and len(plan_pool.layouts) == 3


def test_over_the_limit_a_plan_keeps_no_buffers(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(pool, "POOL_LIMIT", 512 * 512 * 4)
    program = Program(CHAIN)
    program.run(args=[np.ones((512, 512), np.float32)] * 2)
    assert program.interpreter.plans["main"].pool is None


def test_runs_under_way_at_once_use_sets_of_their_own() -> None:
    """Threads running one program at once (NumPy lets the GIL go in its
    kernels) each get the bits of a run alone."""
    program = Program(CHAIN)
    rng = np.random.default_rng(0)
    inputs = [
        [rng.standard_normal((512, 512)).astype(np.float32) for _ in range(2)]
        for _ in range(4)
    ]
    expected = [[bits(v).copy() for v in program.run(args=i).results] for i in inputs]
    failures: list[int] = []

    def work(which: int) -> None:
        with pool.keeping():  # each thread starts outside it
            runs_of(which)

    def runs_of(which: int) -> None:
        for _ in range(20):
            got = program.run(args=inputs[which]).results
            if any(
                not np.array_equal(bits(g), e)
                for g, e in zip(got, expected[which], strict=True)
            ):
                failures.append(which)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not failures
    plan_pool = program.interpreter.plans["main"].pool
    assert plan_pool is not None and 1 <= len(plan_pool.sets) <= 4


def test_all_plans_together_hold_at_most_the_limit(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A run whose new set of buffers would pass `HELD_LIMIT` makes new arrays
    (the same bits); once a program holding buffers is gone, another may."""
    x = np.ones((512, 512), np.float32)
    first, second = Program(CHAIN), Program(CHAIN)
    first.run(args=[x, x])
    first_pool = first.interpreter.plans["main"].pool
    assert first_pool is not None and len(first_pool.sets) == 1
    monkeypatch.setattr(pool, "HELD_LIMIT", pool._held[0])
    expected = bits(second.run(args=[x, x]).results[0])
    second_pool = second.interpreter.plans["main"].pool
    assert second_pool is not None and not second_pool.sets
    del first, first_pool
    gc.collect()
    np.testing.assert_array_equal(bits(second.run(args=[x, x]).results[0]), expected)
    assert len(second_pool.sets) == 1


HALF = "tensor<256x512xf32>"
CONCAT = f"""func.func @main(%x: {HALF}, %y: {HALF}) -> tensor<f32> {{
  %c = grad.concat %x, %y [0] : {HALF}, {HALF} to {T}
  %e = grad.exp2 %c : {T}
  %s = grad.reduce add %e [0, 1] : {T} to tensor<f32>
  func.return %s : tensor<f32>
}}
"""


def test_a_large_concat_goes_into_a_kept_buffer() -> None:
    """`grad.concat` writes into a given buffer (`np.concatenate(out=)`), so
    a large one is kept like any other large intermediate: a function that
    builds a table by concatenation (GradBench's llsq) took a thousand page
    faults a run without."""
    program = Program(CONCAT)
    x, y = (np.full((256, 512), v, np.float32) for v in (0.5, -0.25))
    program.run(args=[x, y])
    (concat,) = [
        s for s in program.interpreter.plans["main"].steps if s.op.name == "grad.concat"
    ]
    assert concat.into is not None
    assert_kept_buffers_change_no_bit(CONCAT, [], [x, y])
