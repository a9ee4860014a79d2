"""The executor's own code paths: the compiled plan, results written over a dying
operand (`out=`), loads that give a view of their slot, splat constants that
take no memory. Each must leave every value as the plain semantics of SPEC §6
give it: the tests compare with a naive evaluation that calls each op's kernel
on fresh values, and check that nothing writes into a constant, an input or a
slot it should not."""

from __future__ import annotations

import tracemalloc
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from inventory import F32, Derivative, Form, by_domain, entries, names
from xdsl.dialects.builtin import ModuleOp
from xdsl.dialects.func import CallOp, FuncOp, ReturnOp

import gradopt
from gradopt import GradoptError, Program
from gradopt.dialect.kernels import select_bits, select_or_zero
from gradopt.dialect.ops import SELECT_BITS_FROM, KernelOp, LoadOp
from gradopt.interpreter import Plan


def plan_of(text: str, entry: str = "main") -> tuple[Program, Plan]:
    program = Program(text)
    program.interpreter.prepare(entry)
    return program, program.interpreter.plans[entry]


def outs(plan: Plan) -> dict[str, int | None]:
    """The operand each named result is written over, by result name."""
    return {
        step.op.results[0].name_hint or "": step.out
        for step in plan.steps
        if len(step.op.results) == 1
    }


def bits(value: object) -> bytes:
    array = np.asarray(value)
    return array.dtype.str.encode() + str(array.shape).encode() + array.tobytes()


# --- writing over a dying operand ---------------------------------------------


def test_a_result_goes_into_an_operand_only_at_its_last_use() -> None:
    text = """func.func @main(%x: tensor<3xf32>) -> tensor<3xf32> {
  %a = grad.add %x, %x : tensor<3xf32>
  %b = grad.neg %a : tensor<3xf32>
  %c = grad.mul %a, %b : tensor<3xf32>
  %d = grad.sin %c : tensor<3xf32>
  func.return %d : tensor<3xf32>
}
"""
    program, plan = plan_of(text)
    # %x is an input, %a still read by %c: neither is written over
    assert outs(plan) == {"a": None, "b": None, "c": 0, "d": 0}
    x = np.array([1.0, -2.0, 0.5], np.float32)
    before = x.copy()
    (value,) = program.interpreter.call("main", [x])
    a = x + x
    assert bits(value) == bits(np.sin(a * -a))
    assert bits(x) == bits(before)


def test_constants_inputs_and_returned_values_are_never_written_over() -> None:
    text = """func.func @main(%x: tensor<2x2xf32>)
    -> (tensor<2x2xf32>, tensor<2x2xf32>) {
  %c = grad.const 3.0 : tensor<2x2xf32>
  %d = grad.const dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>
  %a = grad.add %c, %d : tensor<2x2xf32>
  %b = grad.mul %x, %c : tensor<2x2xf32>
  %e = grad.neg %b : tensor<2x2xf32>
  func.return %a, %e : tensor<2x2xf32>, tensor<2x2xf32>
}
"""
    program, plan = plan_of(text)
    assert outs(plan) == {"c": None, "d": None, "a": None, "b": None, "e": 0}
    x = np.ones((2, 2), np.float32)
    for _ in range(2):  # the constants are the same the second time
        a, e = program.interpreter.call("main", [x])
        assert a.tolist() == [[4.0, 5.0], [6.0, 7.0]]
        assert e.tolist() == [[-3.0, -3.0], [-3.0, -3.0]]
    assert x.tolist() == [[1.0, 1.0], [1.0, 1.0]]


def test_a_value_with_a_live_view_is_not_written_over() -> None:
    text = """func.func @main(%x: tensor<2x3xf32>)
    -> (tensor<3x2xf32>, tensor<6xf32>, tensor<2x3xf32>) {
  %a = grad.add %x, %x : tensor<2x3xf32>
  %p = grad.permute %a [1, 0] : tensor<2x3xf32> to tensor<3x2xf32>
  %b = grad.add %x, %x : tensor<2x3xf32>
  %r = grad.reshape %b : tensor<2x3xf32> to tensor<6xf32>
  %c = grad.mul %x, %x : tensor<2x3xf32>
  %k = grad.detach %c : tensor<2x3xf32>
  %n = grad.neg %a : tensor<2x3xf32>
  %m = grad.neg %b : tensor<2x3xf32>
  %o = grad.neg %c : tensor<2x3xf32>
  %s = grad.add %n, %m : tensor<2x3xf32>
  %t = grad.add %s, %o : tensor<2x3xf32>
  %u = grad.add %t, %k : tensor<2x3xf32>
  func.return %p, %r, %u : tensor<3x2xf32>, tensor<6xf32>, tensor<2x3xf32>
}
"""
    program, plan = plan_of(text)
    assert outs(plan)["n"] is outs(plan)["m"] is outs(plan)["o"] is None
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    p, r, u = program.interpreter.call("main", [x])
    assert bits(p) == bits((x + x).T)
    assert bits(r) == bits((x + x).ravel())
    assert bits(u) == bits(-(x + x) + -(x + x) + -(x * x) + x * x)


WIDE = f"tensor<{SELECT_BITS_FROM}xf32>"
"""A type with enough elements for `grad.where` to select bits."""


@pytest.mark.parametrize("dying", ["on_true", "on_false", "both"])
def test_where_writes_over_a_dying_side(dying: str) -> None:
    keep_true = "%t" if dying == "on_false" else "%zero"
    keep_false = "%f" if dying == "on_true" else "%zero"
    text = f"""func.func @main(%x: {WIDE}) -> ({WIDE}, {WIDE}) {{
  %zero = grad.const 0.0 : {WIDE}
  %t = grad.sin %x : {WIDE}
  %f = grad.neg %x : {WIDE}
  %c = grad.cmplt %x, %zero : {WIDE}
  %w = grad.where %c, %t, %f : {WIDE}
  %keep = grad.add {keep_true}, {keep_false} : {WIDE}
  func.return %w, %keep : {WIDE}, {WIDE}
}}
"""
    program, plan = plan_of(text)
    assert outs(plan)["w"] == {"on_true": 1, "on_false": 2, "both": 1}[dying]
    x = np.resize(np.array([-1.0, 2.0, -0.0, np.nan], np.float32), SELECT_BITS_FROM)
    w, keep = program.interpreter.call("main", [x])
    t, f = np.sin(x), np.negative(x)
    assert bits(w) == bits(np.where(x < 0, t, f))
    zeros = np.zeros(SELECT_BITS_FROM, np.float32)
    expected = {"on_true": f, "on_false": t, "both": zeros}
    assert bits(keep) == bits(expected[dying] + np.float32(0.0))


def where_kernel(shape: tuple[int, ...], element: str, sides: str = "%a, %b"):
    """The kernel `grad.where` runs for `shape`, with the given sides (`%a`,
    `%b`, or `%zero`: the literal 0)."""
    type = f"tensor<{'x'.join(map(str, shape))}x{element}>"
    zero = "0.0" if element == "f32" else "0"
    text = f"""func.func @main(%c: {type.replace(element, "i1")}, %a: {type},
                 %b: {type}) -> {type} {{
  %zero = grad.const {zero} : {type}
  %r = grad.where %c, {sides} : {type}
  func.return %r : {type}
}}
"""
    _, plan = plan_of(text)
    (step,) = [step for step in plan.steps if step.op.name == "grad.where"]
    return step.kernel


def random_bits(data: st.DataObject, shape: tuple[int, ...], dtype: type) -> np.ndarray:
    return data.draw(hnp.arrays(np.uint32, shape)).view(dtype)


@pytest.mark.parametrize("element", ["f32", "i32"])
@settings(max_examples=25, deadline=None)
@given(data=st.data())
def test_where_by_bit_selection_takes_the_same_bits(
    element: str, data: st.DataObject
) -> None:
    shape = (32, SELECT_BITS_FROM // 32)
    kernel = where_kernel(shape, element)
    assert kernel is not np.where
    dtype = np.float32 if element == "f32" else np.int32
    a, b = (random_bits(data, shape, dtype) for _ in "ab")
    c = data.draw(hnp.arrays(np.bool_, shape))
    expected = bits(np.where(c, a, b))
    assert bits(kernel(c, a, b)) == expected
    into_true, into_false = a.copy(), b.copy()
    assert kernel(c, into_true, b, out=into_true) is into_true
    assert kernel(c, a, into_false, out=into_false) is into_false
    assert bits(into_true) == bits(into_false) == expected
    # a constant (a read-only broadcast) on either side
    zero = np.broadcast_to(np.zeros((), dtype), shape)
    assert bits(kernel(c, zero, b)) == bits(np.where(c, zero, b))
    assert bits(kernel(c, a, zero)) == bits(np.where(c, a, zero))


@pytest.mark.parametrize("element", ["f32", "i32"])
@pytest.mark.parametrize("sides", ["%a, %zero", "%zero, %b"])
@settings(max_examples=25, deadline=None)
@given(data=st.data())
def test_where_with_a_zero_literal_side_takes_the_same_bits(
    element: str, sides: str, data: st.DataObject
) -> None:
    shape = (SELECT_BITS_FROM,)
    kernel = where_kernel(shape, element, sides)
    assert kernel.func is select_or_zero  # one pass, not three
    dtype = np.float32 if element == "f32" else np.int32
    a, b = (random_bits(data, shape, dtype) for _ in "ab")
    c = data.draw(hnp.arrays(np.bool_, shape))
    zero = np.broadcast_to(np.zeros((), dtype), shape)
    on_true, on_false = (zero, b) if sides.startswith("%zero") else (a, zero)
    expected = bits(np.where(c, on_true, on_false))
    assert bits(kernel(c, on_true, on_false)) == expected
    kept = (on_false if sides.startswith("%zero") else on_true).copy()
    into = kernel(
        c, *((zero, kept) if sides.startswith("%zero") else (kept, zero)), out=kept
    )
    assert into is kept and bits(kept) == expected


def test_where_with_minus_zero_or_small_selects_as_np_where() -> None:
    assert where_kernel((SELECT_BITS_FROM,), "f32", "%a, %zero").func is select_or_zero
    mask = f"tensor<{SELECT_BITS_FROM}xi1>"
    text = f"""func.func @main(%c: {mask}, %a: {WIDE}) -> {WIDE} {{
  %m = grad.const -0.0 : {WIDE}
  %r = grad.where %c, %a, %m : {WIDE}
  func.return %r : {WIDE}
}}
"""
    _, plan = plan_of(text)
    assert plan.steps[-1].kernel.func is select_bits  # -0.0 is not zero bits
    assert where_kernel((SELECT_BITS_FROM - 1,), "f32") is np.where


def test_where_does_not_write_over_its_condition() -> None:
    text = """func.func @main(%x: tensor<3xi1>, %y: tensor<3xi1>) -> tensor<3xi1> {
  %c = grad.xor %x, %y : tensor<3xi1>
  %w = grad.where %c, %c, %y : tensor<3xi1>
  %v = grad.where %c, %x, %c : tensor<3xi1>
  %r = grad.and %w, %v : tensor<3xi1>
  func.return %r : tensor<3xi1>
}
"""
    program, plan = plan_of(text)
    assert outs(plan)["w"] is None and outs(plan)["v"] is None
    x, y = np.array([True, False, True]), np.array([True, True, False])
    (value,) = program.interpreter.call("main", [x, y])
    c = x ^ y
    assert value.tolist() == (np.where(c, c, y) & np.where(c, x, c)).tolist()


_F32_UNARY = by_domain(
    entries(Form.ELEMENTWISE, arity=1, accepts=F32, derivative=Derivative.RULES)
)
"""The f32 math of one operand, least restricted domain first: as a chain
from 0.5, neg, sin, exp2, recip, log2 and sqrt map (0, 1] into itself."""


def test_a_chain_of_large_tensors_runs_in_one_buffer() -> None:
    chain = [e.name for e in _F32_UNARY] * 8
    lines = ["func.func @main(%x: tensor<256x256xf32>) -> tensor<256x256xf32> {"]
    lines.append("  %v0 = grad.add %x, %x : tensor<256x256xf32>")
    lines += [
        f"  %v{i + 1} = grad.{op} %v{i} : tensor<256x256xf32>"
        for i, op in enumerate(chain)
    ]
    lines += [f"  func.return %v{len(chain)} : tensor<256x256xf32>", "}"]
    program, _ = plan_of("\n".join(lines))
    x = np.full((256, 256), 0.25, np.float32)
    tracemalloc.start()
    try:
        (value,) = program.interpreter.call("main", [x])
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 1.5 * x.nbytes  # the first result, written over by each op
    expected = x + x
    for entry in _F32_UNARY * 8:
        assert entry.numpy is not None
        expected = entry.numpy(expected)
        assert np.all(np.isfinite(expected)), f"{entry.name} left its domain"
    assert np.all((expected > 0) & (expected <= 1))
    assert bits(value) == bits(expected)


# --- loads that give a view of their slot -------------------------------------


def load_kernels(plan: Plan) -> list[str]:
    """`view` or `copy` for each load of `plan`."""
    return [
        "view" if step.kernel.__name__ == "load_view" else "copy"  # type: ignore[union-attr]
        for step in plan.steps
        if isinstance(step.op, LoadOp)
    ]


def test_a_load_is_a_view_only_while_nothing_writes_its_slot() -> None:
    text = """func.func @main(%s: memref<3xf32>, %t: memref<3xf32>)
    -> (tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) {
  %early = grad.load %s : memref<3xf32>
  %a = grad.neg %early : tensor<3xf32>
  %late = grad.load %s : memref<3xf32>
  %k = grad.const 9.0 : tensor<3xf32>
  grad.store %k, %s : memref<3xf32>
  %b = grad.neg %late : tensor<3xf32>
  %viewed = grad.load %t : memref<3xf32>
  %r = grad.reshape %viewed : tensor<3xf32> to tensor<3x1xf32>
  grad.store %k, %t : memref<3xf32>
  %r2 = grad.reshape %r : tensor<3x1xf32> to tensor<3xf32>
  %c = grad.neg %r2 : tensor<3xf32>
  func.return %a, %b, %c : tensor<3xf32>, tensor<3xf32>, tensor<3xf32>
}
"""
    program, plan = plan_of(text)
    # %late and %viewed (through its reshapes) are read after a store
    assert load_kernels(plan) == ["view", "copy", "copy"]
    s = np.array([1.0, 2.0, 3.0], np.float32)
    t = np.array([4.0, 5.0, 6.0], np.float32)
    a, b, c = program.interpreter.call("main", [s, t])
    assert a.tolist() == b.tolist() == [-1.0, -2.0, -3.0]
    assert c.tolist() == [-4.0, -5.0, -6.0]
    assert s.tolist() == t.tolist() == [9.0, 9.0, 9.0]


def test_a_load_is_copied_across_a_call_or_loop_and_when_returned() -> None:
    text = """func.func @main(%s: memref<2xf32>) -> (tensor<2xf32>, tensor<2xf32>,
                                              tensor<2xf32>) {
  %before_call = grad.load %s : memref<2xf32>
  func.call @bump(%s) : (memref<2xf32>) -> ()
  %a = grad.neg %before_call : tensor<2xf32>
  %before_loop = grad.load %s : memref<2xf32>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %c1 step %c1 {
    func.call @bump(%s) : (memref<2xf32>) -> ()
    scf.yield
  }
  %b = grad.neg %before_loop : tensor<2xf32>
  %returned = grad.load %s : memref<2xf32>
  func.call @bump(%s) : (memref<2xf32>) -> ()
  func.return %a, %b, %returned : tensor<2xf32>, tensor<2xf32>, tensor<2xf32>
}

func.func @bump(%s: memref<2xf32>) {
  %v = grad.load %s : memref<2xf32>
  %one = grad.const 1.0 : tensor<2xf32>
  %w = grad.add %v, %one : tensor<2xf32>
  grad.store %w, %s : memref<2xf32>
  func.return
}
"""
    program, plan = plan_of(text)
    assert load_kernels(plan) == ["copy", "copy", "copy"]
    assert load_kernels(program.interpreter.plans["bump"]) == ["view"]
    result = gradopt.run(text, slots=[np.array([1.0, 2.0], np.float32)])
    assert [r.tolist() for r in result.results] == [
        [-1.0, -2.0],
        [-2.0, -3.0],
        [3.0, 4.0],
    ]
    assert result.slots[0].tolist() == [4.0, 5.0]


def test_a_view_of_a_slot_is_read_only_and_the_slot_is_not() -> None:
    text = """func.func @main(%s: memref<2xf32>) -> tensor<2xf32> {
  %v = grad.load %s : memref<2xf32>
  %w = grad.neg %v : tensor<2xf32>
  %x = grad.add %w, %v : tensor<2xf32>
  grad.store %x, %s : memref<2xf32>
  %y = grad.load %s : memref<2xf32>
  %z = grad.sin %y : tensor<2xf32>
  func.return %z : tensor<2xf32>
}
"""
    program, plan = plan_of(text)
    assert load_kernels(plan) == ["view", "view"]
    s = np.array([1.0, 2.0], np.float32)
    view = plan.steps[0].kernel(s)
    assert isinstance(view, np.ndarray) and not view.flags.writeable
    assert s.flags.writeable
    (z,) = program.interpreter.call("main", [s])
    assert s.tolist() == [0.0, 0.0] and z.tolist() == [0.0, 0.0]


# --- splat constants, the compiled plan ---------------------------------------


def forwarded(plan: Plan) -> dict[str, int]:
    """The results computed straight into a slot, by name: the slot's index."""
    return {
        step.op.results[0].name_hint or "": step.into
        for step in plan.steps
        if step.into is not None
    }


def test_a_stored_update_is_computed_straight_into_its_slot() -> None:
    text = """func.func @main(%ws: memref<2x2xf32>, %d: tensor<2x2xf32>) {
  %w = grad.load %ws : memref<2x2xf32>
  %t = grad.permute %w [1, 0] : tensor<2x2xf32> to tensor<2x2xf32>
  %u = grad.mul %t, %d : tensor<2x2xf32>
  %n = grad.add %w, %u : tensor<2x2xf32>
  grad.store %n, %ws : memref<2x2xf32>
  func.return
}
"""
    program, plan = plan_of(text)
    assert forwarded(plan) == {"n": 0}
    assert [step.op.name for step in plan.steps][-1] == "grad.add"  # no store
    ws = np.array([[1.0, 2.0], [3.0, -0.0]], np.float32)
    d = np.array([[0.5, -1.0], [2.0, 0.0]], np.float32)
    expected = ws + ws.T * d
    slot = ws
    program.interpreter.call("main", [ws, d])
    assert ws is slot and bits(ws) == bits(expected)


def test_a_ufunc_reading_its_slot_transposed_writes_it_as_if_copied_first() -> None:
    text = """func.func @main(%ws: memref<64x64xf32>) {
  %w = grad.load %ws : memref<64x64xf32>
  %t = grad.permute %w [1, 0] : tensor<64x64xf32> to tensor<64x64xf32>
  %n = grad.add %t, %w : tensor<64x64xf32>
  grad.store %n, %ws : memref<64x64xf32>
  func.return
}
"""
    program, plan = plan_of(text)
    assert forwarded(plan) == {"n": 0}
    ws = np.random.default_rng(0).standard_normal((64, 64)).astype(np.float32)
    expected = ws.T + ws
    program.interpreter.call("main", [ws])
    assert bits(ws) == bits(expected)


def test_a_store_stays_where_the_slot_is_read_after_its_value_is_made() -> None:
    text = """func.func @main(%ws: memref<3xf32>, %vs: memref<3xf32>,
                 %x: tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>) {
  %w = grad.load %ws : memref<3xf32>
  %n = grad.add %x, %x : tensor<3xf32>
  %m = grad.mul %w, %w : tensor<3xf32>
  grad.store %n, %ws : memref<3xf32>
  %a = grad.neg %x : tensor<3xf32>
  %again = grad.load %vs : memref<3xf32>
  grad.store %a, %vs : memref<3xf32>
  %b = grad.sin %x : tensor<3xf32>
  grad.store %b, %vs : memref<3xf32>
  %c = grad.exp2 %x : tensor<3xf32>
  grad.store %c, %ws : memref<3xf32>
  func.return %m, %c : tensor<3xf32>, tensor<3xf32>
}
"""
    # %n: a view of %ws is read after it; %a: %vs is loaded between;
    # %c is returned; only %b goes straight into its slot
    program, plan = plan_of(text)
    assert forwarded(plan) == {"b": 1}
    ws = np.array([1.0, 2.0, 3.0], np.float32)
    vs = np.zeros(3, np.float32)
    x = np.array([0.5, -1.0, 2.0], np.float32)
    m, c = program.interpreter.call("main", [ws, vs, x])
    assert bits(m) == bits(np.array([1.0, 4.0, 9.0], np.float32))
    assert bits(ws) == bits(c) == bits(np.exp2(x))
    assert c is not ws
    assert bits(vs) == bits(np.sin(x))


def test_stores_in_a_loop_body_go_straight_into_their_slots_where_safe() -> None:
    text = """func.func @main(%ws: memref<3xf32>, %vs: memref<3xf32>,
                 %d: tensor<3xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  scf.for %i = %c0 to %c3 step %c1 {
    %w = grad.load %ws : memref<3xf32>
    %n = grad.add %w, %d : tensor<3xf32>
    grad.store %n, %ws : memref<3xf32>
    %v = grad.load %vs : memref<3xf32>
    %m = grad.mul %v, %w : tensor<3xf32>
    grad.store %m, %vs : memref<3xf32>
    scf.yield
  }
  func.return
}
"""
    # %w is read after %ws is stored: a copy, so both stores can go
    result = Program(text).run(slots=[[1, 2, 3], [1, 1, 1]], args=[[0.5, 1, 2]])
    w, v = np.float32([1, 2, 3]), np.float32([1, 1, 1])
    for _ in range(3):
        w, v = w + np.float32([0.5, 1, 2]), v * w
    assert bits(result.slots[0]) == bits(w) and bits(result.slots[1]) == bits(v)


def test_a_store_of_a_value_not_made_by_a_ufunc_stays() -> None:
    text = f"""func.func @main(%ws: memref<{SELECT_BITS_FROM}xf32>, %x: {WIDE}) {{
  %zero = grad.const 0.0 : {WIDE}
  %c = grad.cmplt %x, %zero : {WIDE}
  %n = grad.neg %x : {WIDE}
  %r = grad.where %c, %x, %n : {WIDE}
  grad.store %r, %ws : memref<{SELECT_BITS_FROM}xf32>
  func.return
}}
"""
    program, plan = plan_of(text)
    assert forwarded(plan) == {}
    ws = np.zeros(SELECT_BITS_FROM, np.float32)
    x = np.resize(np.array([-1.0, 2.0, -0.0], np.float32), SELECT_BITS_FROM)
    program.interpreter.call("main", [ws, x])
    assert bits(ws) == bits(np.where(x < 0, x, -x))


def test_ops_of_literals_are_computed_once_when_planned() -> None:
    text = """func.func @main(%s: memref<3xf32>, %x: tensor<3xf32>)
    -> (tensor<3xf32>, tensor<3xf32>) {
  %one = grad.const 1.0 : tensor<f32>
  %k = grad.const -0.1 : tensor<f32>
  %seed = grad.mul %one, %k : tensor<f32>
  %b = grad.broadcast %seed [] : tensor<f32> to tensor<3xf32>
  %three = grad.const 3 : tensor<i32>
  %zero = grad.const 0 : tensor<i32>
  %q = grad.idiv %three, %zero : tensor<i32>
  %v = grad.add %x, %b : tensor<3xf32>
  %w = grad.neg %b : tensor<3xf32>
  grad.store %w, %s : memref<3xf32>
  func.return %v, %b : tensor<3xf32>, tensor<3xf32>
}
"""
    program, plan = plan_of(text)
    constant = {
        step.op.results[0].name_hint
        for step in plan.steps
        if step.result in plan.constants
    }
    # %q divides by zero: left for the run, which reports it
    assert constant == {"one", "k", "seed", "b", "three", "zero", "w"}
    with pytest.raises(GradoptError, match=r"'grad\.idiv' divides by zero"):
        program.run(args=[[1.0, 2.0, 3.0]])
    text = text.replace("  %q = grad.idiv %three, %zero : tensor<i32>\n", "")
    result = Program(text).run(args=[[1.0, 2.0, 3.0]])
    k = np.float32(1.0) * np.float32(-0.1)
    assert bits(result.results[0]) == bits(np.float32([1.0, 2.0, 3.0]) + k)
    assert bits(result.results[1]) == bits(np.full(3, k))
    assert bits(result.slots[0]) == bits(np.full(3, -k))  # stored, though folded


@pytest.mark.parametrize("permuted", [False, True])
def test_a_broadcast_is_a_read_only_view_of_any_layout(permuted: bool) -> None:
    """Built on the memory of a C-ordered operand with the strides known when
    planning; a transposed view (F-ordered, also one buffer) by its own."""
    source = "tensor<4x3xf32>" if permuted else "tensor<3x4xf32>"
    permute = "grad.permute %a [1, 0] : tensor<3x4xf32> to tensor<4x3xf32>"
    text = f"""func.func @main(%s: memref<3x4xf32>) -> tensor<{source[7:-5]}x2xf32> {{
  %a = grad.load %s : memref<3x4xf32>
  %t = {permute if permuted else "grad.detach %a : tensor<3x4xf32>"}
  %b = grad.broadcast %t [0, 1] : {source} to tensor<{source[7:-5]}x2xf32>
  func.return %b : tensor<{source[7:-5]}x2xf32>
}}
"""
    program = Program(text)
    x = np.arange(12, dtype=np.float32).reshape(3, 4)
    (view,) = program.interpreter.call("main", [x])
    expected = x.T if permuted else x
    assert bits(view) == bits(np.broadcast_to(expected[:, :, None], view.shape))
    assert not view.flags.writeable and view.strides[-1] == 0


def test_a_splat_constant_takes_no_memory_and_is_read_only() -> None:
    text = """func.func @main() -> (tensor<1024x1024xf32>, tensor<2xi32>) {
  %c = grad.const -0.0 : tensor<1024x1024xf32>
  %i = grad.const 7 : tensor<2xi32>
  func.return %c, %i : tensor<1024x1024xf32>, tensor<2xi32>
}
"""
    tracemalloc.start()
    try:
        program, _ = plan_of(text)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 1 << 20  # not the 4 MiB of the whole tensor
    c, i = program.interpreter.call("main", [])
    assert c.shape == (1024, 1024) and not c.flags.writeable
    assert bits(c[0, 0]) == bits(np.float32(-0.0)) and i.tolist() == [7, 7]
    result = program.run()  # copied out: a plain array
    assert result.results[0].flags.writeable and result.results[0].strides[1] == 4


def test_an_error_names_its_op_in_a_long_plan() -> None:
    lines = ["func.func @main(%x: tensor<i32>) -> tensor<i32> {"]
    lines += [f"  %v{i + 1} = grad.add %v{i}, %v{i} : tensor<i32>" for i in range(50)]
    lines[1] = lines[1].replace("%v0", "%x")
    lines += [
        "  %zero = grad.const 0 : tensor<i32>",
        "  %q = grad.idiv %v50, %zero : tensor<i32>",
        "  func.return %q : tensor<i32>",
        "}",
    ]
    with pytest.raises(GradoptError, match=r"^<input>:53:3: error: 'grad.idiv'"):
        gradopt.run("\n".join(lines), args=[np.array(1, np.int32)])


# --- values are freed after their last use ------------------------------------


def chain(length: int, shape: str) -> str:
    lines = [f"func.func @main(%x0: {shape}) -> {shape} {{"]
    lines += [f"  %x{i + 1} = grad.add %x{i}, %x{i} : {shape}" for i in range(length)]
    lines += [f"  func.return %x{length} : {shape}", "}"]
    return "\n".join(lines)


def test_each_step_of_a_chain_frees_its_operand() -> None:
    interpreter = Program(chain(5, "tensor<f32>")).interpreter
    interpreter.prepare("main")
    steps = interpreter.plans["main"].steps
    assert [step.free for step in steps] == [step.operands[:1] for step in steps]


def traced_run(text: str, x: np.ndarray) -> tuple[np.ndarray, int]:
    """The result of @main on `x`, and the peak memory that running it took
    (planning, which allocates the constants, done before)."""
    planned = Program(text)
    planned.interpreter.prepare("main")
    tracemalloc.start()
    try:
        (value,) = planned.run(args=[x]).results
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return value, peak


def test_a_chain_of_large_tensors_keeps_no_intermediates() -> None:
    x = np.ones((256, 256), np.float32)  # 256 KiB
    value, peak = traced_run(chain(64, "tensor<256x256xf32>"), x)
    assert value[0, 0] == 2.0**64
    assert peak < 4 * x.nbytes  # the input, an operand and its result


def test_a_loop_body_frees_intermediates_and_carried_values() -> None:
    body = "\n".join(
        f"    %y{i + 1} = grad.mul %y{i}, %half : tensor<256x256xf32>"
        for i in range(16)
    )
    text = f"""func.func @main(%x: tensor<256x256xf32>) -> tensor<256x256xf32> {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %half = grad.const 0.5 : tensor<256x256xf32>
  %r = scf.for %i = %c0 to %c4 step %c1 iter_args(%y0 = %x) -> (tensor<256x256xf32>) {{
{body}
    scf.yield %y16 : tensor<256x256xf32>
  }}
  func.return %r : tensor<256x256xf32>
}}
"""
    x = np.ones((256, 256), np.float32)
    value, peak = traced_run(text, x)
    assert value[0, 0] == 2.0**-64
    assert peak < 4 * x.nbytes  # the input, an operand and its result


# --- against a naive evaluation -----------------------------------------------

T = "tensor<2x3xf32>"
M = "memref<2x3xf32>"

_BINARY = names(
    entries(Form.ELEMENTWISE, arity=2, accepts=F32, derivative=Derivative.RULES)
)
_UNARY = names(_F32_UNARY)


def _line(kind: str, name: str, a: str, b: str, slot: int, extra: int) -> list[str]:
    """The lines of one op of a random program, defining `name` (or nothing)."""
    if kind == "binary":
        return [f"%{name} = grad.{_BINARY[extra % len(_BINARY)]} {a}, {b} : {T}"]
    if kind == "unary":
        return [f"%{name} = grad.{_UNARY[extra % len(_UNARY)]} {a} : {T}"]
    if kind == "where":
        return [
            f"%{name}_c = grad.cmplt {a}, {b} : {T}",
            f"%{name} = grad.where %{name}_c, {a}, {b} : {T}",
        ]
    if kind == "const":
        return [f"%{name} = grad.const {extra / 4 - 1} : {T}"]
    if kind == "detach":
        return [f"%{name} = grad.detach {a} : {T}"]
    if kind == "permute":
        return [
            f"%{name}_p = grad.permute {a} [1, 0] : {T} to tensor<3x2xf32>",
            f"%{name} = grad.permute %{name}_p [1, 0] : tensor<3x2xf32> to {T}",
        ]
    if kind == "reshape":
        return [
            f"%{name}_r = grad.reshape {a} : {T} to tensor<6xf32>",
            f"%{name} = grad.reshape %{name}_r : tensor<6xf32> to {T}",
        ]
    if kind == "broadcast":
        return [
            f"%{name}_s = grad.reduce add {a} [0] : {T} to tensor<3xf32>",
            f"%{name} = grad.broadcast %{name}_s [1] : tensor<3xf32> to {T}",
        ]
    if kind == "dot":
        return [
            f"%{name}_t = grad.permute {b} [1, 0] : {T} to tensor<3x2xf32>",
            f"%{name}_d = grad.dot {a}, %{name}_t : {T}, tensor<3x2xf32> to "
            "tensor<2x2xf32>",
            f"%{name}_v = grad.reshape %{name}_d : tensor<2x2xf32> to tensor<4xf32>",
            f"%{name}_w = grad.reduce max %{name}_v [0] : tensor<4xf32> to tensor<f32>",
            f"%{name} = grad.broadcast %{name}_w [] : tensor<f32> to {T}",
        ]
    if kind == "load":
        return [f"%{name} = grad.load %s{slot} : {M}"]
    if kind == "store":
        return [f"grad.store {a}, %s{slot} : {M}"]
    assert kind == "bump"
    return [f"func.call @bump(%s{slot}) : ({M}) -> ()"]


_KINDS = [
    "binary",
    "unary",
    "where",
    "const",
    "detach",
    "permute",
    "reshape",
    "broadcast",
    "dot",
    "load",
    "store",
    "bump",
]
_DEFINES = {"store": False, "bump": False}


def random_program(choices: list[tuple[int, int, int, int, int]], returned: int) -> str:
    values = ["%x"]
    body: list[str] = []
    for n, (kind, i, j, slot, extra) in enumerate(choices):
        name = f"v{n}"
        a, b = values[i % len(values)], values[j % len(values)]
        body += _line(_KINDS[kind], name, a, b, slot % 2, extra)
        if _DEFINES.get(_KINDS[kind], True):
            values.append(f"%{name}")
    results = [values[-1 - k % len(values)] for k in range(returned)]
    results = results or [values[-1]]
    lines = [
        f"func.func @main(%s0: {M}, %s1: {M}, %x: {T}) -> "
        f"({', '.join([T] * len(results))}) {{",
        *("  " + line for line in body),
        f"  func.return {', '.join(results)} : {', '.join([T] * len(results))}",
        "}",
        f"func.func @bump(%s: {M}) {{",
        f"  %v = grad.load %s : {M}",
        f"  %two = grad.const 2.0 : {T}",
        f"  %w = grad.mul %v, %two : {T}",
        f"  grad.store %w, %s : {M}",
        "  func.return",
        "}",
    ]
    return "\n".join(lines)


def naive(module: ModuleOp, name: str, arguments: list[object]) -> list[object]:
    """Each op's kernel on its operands in program order, nothing reused."""
    functions = {op.sym_name.data: op for op in module.ops if isinstance(op, FuncOp)}
    block = functions[name].body.block
    values: dict[object, object] = dict(zip(block.args, arguments, strict=True))
    for op in block.ops:
        operands = [values[v] for v in op.operands]
        if isinstance(op, ReturnOp):
            return operands
        if isinstance(op, CallOp):
            naive(module, op.callee.string_value(), operands)
            continue
        assert isinstance(op, KernelOp)
        result = op.kernel()(*operands)
        if op.results:
            values[op.results[0]] = result
    raise AssertionError("no return")


_CHOICE = st.tuples(
    st.integers(0, len(_KINDS) - 1),
    st.integers(0, 30),
    st.integers(0, 30),
    st.integers(0, 1),
    st.integers(0, 9),
)


@settings(max_examples=150, deadline=None)
@given(choices=st.lists(_CHOICE, min_size=1, max_size=25), returned=st.integers(0, 3))
def test_random_programs_run_as_the_naive_evaluation(
    choices: list[tuple[int, int, int, int, int]], returned: int
) -> None:
    program = Program(random_program(choices, returned))
    rng = np.random.default_rng(len(choices))
    inputs = [rng.standard_normal((2, 3)).astype(np.float32) for _ in range(3)]
    copies = [array.copy() for array in inputs]
    with np.errstate(all="ignore"):
        expected = naive(program.module, "main", copies)
    values = program.interpreter.call("main", inputs)
    assert [bits(v) for v in values] == [bits(v) for v in expected]
    assert [bits(v) for v in inputs] == [bits(v) for v in copies]


# --- the MLP example ----------------------------------------------------------

MLP = (
    Path(__file__).resolve().parent.parent / "examples" / "mlp_step.mlir"
).read_text()


def test_the_mlp_example_takes_the_sgd_step_numpy_takes() -> None:
    rng = np.random.default_rng(3)
    x = rng.standard_normal((4, 3)).astype(np.float32)
    y = np.eye(2, dtype=np.float32)[[0, 1, 1, 0]]
    weights = [
        rng.standard_normal(shape).astype(np.float32)
        for shape in [(3, 5), 5, (5, 2), 2]
    ]
    program = Program(MLP)
    result = program.run(slots=[x, y, *weights])
    # the same step in float64 NumPy, by the usual formulas
    w1, b1, w2, b2 = (w.astype(np.float64) for w in weights)
    pre = x @ w1 + b1
    hidden = np.maximum(pre, 0)
    z = hidden @ w2 + b2
    p = np.exp(z - z.max(1, keepdims=True))
    p /= p.sum(1, keepdims=True)
    loss = -(y * np.log(p)).sum() / 4
    dz = (p - y) / 4
    dpre = (dz @ w2.T) * (pre > 0)
    gradients = [x.T @ dpre, dpre.sum(0), hidden.T @ dz, dz.sum(0)]
    assert result.results[0] == pytest.approx(loss, rel=1e-5)
    for new, old, gradient in zip(result.slots[2:], weights, gradients, strict=True):
        np.testing.assert_allclose(new, old - 0.1 * gradient, rtol=1e-5, atol=1e-6)
    # a second step from the updated weights lowers the loss
    again = program.run(slots=result.slots)
    assert again.results[0] < result.results[0]
