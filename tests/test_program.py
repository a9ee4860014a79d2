"""`gradopt.run` and `Program`: inputs checked against the entry's signature,
results of exactly the declared types, located errors, gradients expanded."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest
from xdsl.dialects.builtin import ModuleOp

import gradopt
from gradopt import GradoptError, Program
from gradopt.dialect.context import make_context
from gradopt.support.diagnostics import LocatedError, parse_module

CUBIC = (Path(__file__).resolve().parent.parent / "examples" / "cubic.mlir").read_text()

MIXED = """func.func @main(%s: memref<2xf32>, %x: tensor<2x2xi32>, %t: memref<f32>,
                 %flag: tensor<i1>) -> (tensor<f32>, tensor<2x2xi32>, tensor<i1>) {
  %v = grad.load %t : memref<f32>
  %w = grad.load %s : memref<2xf32>
  %one = grad.const 1.0 : tensor<2xf32>
  %u = grad.add %w, %one : tensor<2xf32>
  grad.store %u, %s : memref<2xf32>
  func.return %v, %x, %flag : tensor<f32>, tensor<2x2xi32>, tensor<i1>
}
"""


def test_slots_and_args_are_numbered_among_their_kind() -> None:
    x = np.array([[1, 2], [3, 4]], np.int32)
    result = gradopt.run(
        MIXED,
        slots=[np.array([1.0, 2.0], np.float32), np.array(0.5, np.float32)],
        args=[x, np.array(True)],
    )
    value, ints, flag = result.results
    assert (value.shape, value.dtype, value.item()) == ((), np.float32, 0.5)
    assert ints.dtype == np.int32 and ints.tolist() == x.tolist()
    assert flag.shape == () and flag.dtype == np.bool_ and flag.item() is True
    assert [s.tolist() for s in result.slots] == [[2.0, 3.0], 0.5]


def test_inputs_by_index_and_missing_inputs_start_as_zeros() -> None:
    result = gradopt.run(MIXED, slots={1: np.array(-2.0, np.float32)})
    value, ints, flag = result.results
    assert value == -2.0 and ints.tolist() == [[0, 0], [0, 0]] and not flag
    assert result.slots[0].tolist() == [1.0, 1.0]


def test_inputs_are_copied_and_results_are_fresh_arrays() -> None:
    s = np.array([1.0, 2.0], np.float32)
    x = np.ones((2, 2), np.int32)
    result = gradopt.run(MIXED, slots=[s], args=[x])
    assert s.tolist() == [1.0, 2.0]
    assert result.slots[0] is not s and result.results[1] is not x
    result.results[1][0, 0] = 7  # writeable, and not the caller's array
    assert x[0, 0] == 1


@pytest.mark.parametrize(
    ("slots", "args", "message"),
    [
        (
            [np.zeros((2, 1))],
            None,
            "slot 0: error: expected float32 data of shape (2,) for memref<2xf32>, "
            "got float64 data of shape (2, 1)",
        ),
        (
            [[1.0, 2.0, 3.0]],
            None,
            "slot 0: error: expected float32 data of shape (2,) for memref<2xf32>, "
            "got a list of shape (3,)",
        ),
        (
            [["a", "b"]],
            None,
            "slot 0: error: cannot convert a list to float32 for memref<2xf32>: ",
        ),
        (
            [np.zeros(3, np.float32)],
            None,
            "slot 0: error: expected float32 data of shape (2,) for memref<2xf32>, "
            "got float32 data of shape (3,)",
        ),
        (
            None,
            {1: np.array([True])},
            "arg 1: error: expected bool data of shape () for tensor<i1>, got bool "
            "data of shape (1,)",
        ),
        (
            None,
            {0: [[2**40, 0], [0, 0]]},
            "arg 0: error: cannot convert a list to int32 for tensor<2x2xi32>: ",
        ),
        (
            None,
            [np.zeros((2, 2), np.int32), np.array(True), np.array(True)],
            "arg 2: error: no such arg: the entry function has 2 args",
        ),
        ({5: np.zeros(2, np.float32)}, None, "slot 5: error: no such slot"),
    ],
)
def test_inputs_are_checked_against_the_signature(
    slots: object, args: object, message: str
) -> None:
    with pytest.raises(GradoptError) as caught:
        gradopt.run(MIXED, slots=slots, args=args)  # pyright: ignore[reportArgumentType]
    assert str(caught.value).startswith(message)


def test_a_parse_error_is_located_and_rendered() -> None:
    text = "func.func @main() {\n  %x = grad.const 1.0 : memref<2xf32>\n}\n"
    with pytest.raises(GradoptError) as caught:
        gradopt.run(text, filename="bad.mlir")
    assert isinstance(caught.value, LocatedError)
    assert str(caught.value) == (
        "bad.mlir:2:25: error: expected a statically shaped tensor of f32, i32 or "
        "i1, got memref<2xf32>\n"
        "  %x = grad.const 1.0 : memref<2xf32>\n"
        "                        ^\n"
    )


def test_a_verification_error_is_located() -> None:
    text = """func.func @main(%a: tensor<2xf32>) {
  %r = grad.cast %a : tensor<2xf32> to tensor<3xi32>
  func.return
}
"""
    with pytest.raises(GradoptError) as caught:
        gradopt.run(text, filename="v.mlir")
    assert str(caught.value).startswith(
        "v.mlir:2:3: error: 'grad.cast' op result shape must equal the input shape"
    )


@pytest.mark.parametrize(
    ("entry", "message"),
    [
        ("missing", "<input>: error: no function @missing to run\n"),
        ("declared", "<input>: error: @declared has no body to run\n"),
        ("indexed", "<input>: error: argument 0 of @indexed is index: only tensors"),
    ],
)
def test_entry_errors(entry: str, message: str) -> None:
    text = """func.func private @declared()
func.func @indexed(%i: index) {
  func.return
}
"""
    with pytest.raises(GradoptError) as caught:
        gradopt.run(text, entry=entry)
    assert str(caught.value).startswith(message)


def test_a_program_runs_many_times_on_fresh_slots() -> None:
    program = Program(MIXED)
    first = program.run(slots=[np.array([1.0, 1.0], np.float32)])
    second = program.run(slots=[np.array([1.0, 1.0], np.float32)])
    assert first.slots[0].tolist() == second.slots[0].tolist() == [2.0, 2.0]
    signature = program.signature()
    assert [str(t) for t in signature.slots] == ["memref<2xf32>", "memref<f32>"]
    assert [str(t) for t in signature.args] == ["tensor<2x2xi32>", "tensor<i1>"]
    assert len(signature.results) == 3


def test_the_seed_exercise_stores_the_derivative_of_the_cubic() -> None:
    xs = np.array([1.0, 2.0, 3.0, 4.0, 5.0], np.float32)
    result = gradopt.run(CUBIC, slots=[xs])
    assert result.slots[1].tolist() == [1.0, 10.0, 25.0, 46.0, 73.0]
    xs = np.array([-1.5, 0.0, 0.25, -0.0, 10.0], np.float32)
    expected = 3 * xs * xs - np.float32(2)
    assert gradopt.run(CUBIC, slots=[xs]).slots[1].tolist() == expected.tolist()


def test_a_module_passed_in_is_not_changed_by_expanding_its_gradients() -> None:
    module = parse_module(make_context(), CUBIC, "cubic.mlir")
    before = str(module)
    assert isinstance(module, ModuleOp) and "grad.gradient" in before
    xs = np.array([1.0, 2.0, 3.0, 4.0, 5.0], np.float32)
    assert gradopt.run(module, slots=[xs]).slots[1].tolist()[0] == 1.0
    assert str(module) == before


def test_reverse_and_forward_mode_run() -> None:
    text = """func.func @main(%x: tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>) {
  %sq = grad.mul %x, %x : tensor<3xf32>
  %loss = grad.reduce add %sq [0] : tensor<3xf32> to tensor<f32>
  %g = grad.gradient %loss wrt %x : tensor<f32>, tensor<3xf32>
  %s = grad.sin %x : tensor<3xf32>
  %t = grad.const 1.0 : tensor<3xf32>
  %j = grad.jvp %s wrt %x, %t : tensor<3xf32>, tensor<3xf32>
  func.return %g, %j : tensor<3xf32>, tensor<3xf32>
}
"""
    x = np.array([0.0, 1.5, -2.0], np.float32)
    gradient, tangent = gradopt.run(text, args=[x]).results
    assert gradient.tolist() == (x + x).tolist()
    np.testing.assert_allclose(tangent, np.cos(x), atol=1e-6)  # sin(x + pi/2)


def test_a_gradient_rule_violation_is_located() -> None:
    text = """func.func @main(%x: tensor<2xf32>) -> tensor<2xf32> {
  %p = grad.reduce mul %x [0] : tensor<2xf32> to tensor<f32>
  %g = grad.gradient %p wrt %x : tensor<f32>, tensor<2xf32>
  func.return %g : tensor<2xf32>
}
"""
    with pytest.raises(GradoptError) as caught:
        gradopt.run(text, filename="g.mlir")
    assert str(caught.value).startswith("g.mlir:3:3: error: 'grad.gradient' op ")


def test_an_op_the_dialect_composes_says_how_to_write_it() -> None:
    """The API's parser gives grad-opt's hints."""
    text = """func.func @main(%x: tensor<f32>) -> tensor<f32> {
  %y = grad.cos %x : tensor<f32>
  func.return %y : tensor<f32>
}"""
    with pytest.raises(gradopt.GradoptError, match=r"'grad\.cos' is not an op: sin"):
        gradopt.Program(text)


STEP = """
func.func @main(%w: memref<3xf32>, %x: tensor<3xf32>) -> tensor<f32> {
  %v = grad.load %w : memref<3xf32>
  %p = grad.mul %v, %x : tensor<3xf32>
  %l = grad.reduce add %p [0] : tensor<3xf32> to tensor<f32>
  %g = grad.gradient %l wrt %v : tensor<f32>, tensor<3xf32>
  %n = grad.add %v, %g : tensor<3xf32>
  grad.store %n, %w : memref<3xf32>
  func.return %l : tensor<f32>
}
"""


def test_run_prepares_a_text_once(monkeypatch: pytest.MonkeyPatch) -> None:
    from gradopt.runtime import program as api

    monkeypatch.setattr(api, "_prepared_programs", type(api._prepared_programs)())
    prepared: list[str] = []
    original = api.Program.__init__

    def counted(self: Program, program: object, filename: str = "<input>") -> None:
        prepared.append(filename)
        original(self, program, filename)  # type: ignore[arg-type]

    monkeypatch.setattr(api.Program, "__init__", counted)
    x = np.ones(3, np.float32)
    first = gradopt.run(STEP, slots=[np.zeros(3, np.float32)], args=[x])
    second = gradopt.run(STEP, slots=[np.zeros(3, np.float32)], args=[x])
    assert prepared == ["<input>"]
    np.testing.assert_array_equal(first.slots[0], second.slots[0])
    gradopt.run(STEP, slots=[np.zeros(3, np.float32)], args=[x], filename="b")
    assert prepared == ["<input>", "b"]


def test_the_run_cache_is_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    from gradopt.runtime import program as api

    monkeypatch.setattr(api, "_prepared_programs", type(api._prepared_programs)())
    monkeypatch.setattr(api, "RUN_CACHE_SIZE", 2)
    for name in ("a", "b", "c"):
        gradopt.run(STEP, filename=name)
    assert [key[1] for key in api._prepared_programs] == ["b", "c"]


def test_in_place_slots_are_the_callers_arrays() -> None:
    program = Program(STEP)
    w = np.array([1.0, 2.0, 3.0], np.float32)
    x = np.array([0.5, 0.5, 0.5], np.float32)
    copied = program.run(slots=[w], args=[x])
    assert copied.slots[0] is not w
    np.testing.assert_array_equal(w, [1.0, 2.0, 3.0])
    result = program.run(slots=[w], args=[x], in_place=True)
    assert result.slots[0] is w
    np.testing.assert_array_equal(w, copied.slots[0])


@pytest.mark.parametrize(
    ("slot", "message"),
    [
        (np.zeros(3, np.float64), "expected float32 data of shape (3,)"),
        (np.zeros(6, np.float32)[::2], "needs a writable, C-ordered array"),
        ([0.0, 0.0, 0.0], "expected a NumPy array, got a list"),
    ],
)
def test_in_place_refuses_what_it_cannot_update(slot: object, message: str) -> None:
    with pytest.raises(GradoptError, match=re.escape(message)):
        Program(STEP).run(slots=[slot], in_place=True)  # type: ignore[list-item]


@pytest.mark.parametrize(
    ("slots", "message"),
    [
        ([np.zeros(3, np.float32)] * 2, "slot 1: error: no such slot"),
        ({0: np.zeros(3, np.float32), "w": np.zeros(3, np.float32)}, "given twice"),
        ("www", "slots must be a sequence of values or a mapping"),
    ],
)
def test_in_place_reads_slots_as_a_run_does(slots: object, message: str) -> None:
    program = Program(STEP)
    x = np.zeros(3, np.float32)
    error = TypeError if isinstance(slots, str) else GradoptError
    for in_place in (False, True):
        with pytest.raises(error, match=re.escape(message)):
            program.run(slots=slots, args=[x], in_place=in_place)  # type: ignore[arg-type]


def test_in_place_takes_arrays_of_a_subclass_and_slots_by_name() -> None:
    class Weights(np.ndarray):
        pass

    program = Program(STEP)
    x = np.array([0.5, 0.5, 0.5], np.float32)
    w = np.array([1.0, 2.0, 3.0], np.float32).view(Weights)
    expected = program.run(slots=[w], args=[x]).slots[0]
    assert program.run(slots={"w": w}, args=[x], in_place=True).slots[0] is w
    np.testing.assert_array_equal(w, expected)


def test_in_place_refuses_slots_that_share_memory() -> None:
    two = STEP.replace(
        "%w: memref<3xf32>, %x", "%w: memref<3xf32>, %u: memref<3xf32>, %x"
    )
    program = Program(two)
    w = np.zeros(3, np.float32)
    whole = np.zeros(8, np.float32)
    buffer = bytearray(32)
    shared = [
        [w, w],
        [whole[:3], whole[2:5]],  # views of one array that overlap
        [np.frombuffer(buffer, np.float32, 3), np.frombuffer(buffer, np.float32, 3)],
        [whole[1:4], np.frombuffer(memoryview(whole), np.float32, 3, 4)],
    ]
    for slots in shared:
        with pytest.raises(GradoptError, match=r"slot 1: .*must not share memory"):
            program.run(slots=slots, in_place=True)
    # views of one array that do not overlap, and arrays of their own
    for slots in ([whole[:3], whole[3:6]], [w, np.zeros(3, np.float32)]):
        program.run(slots=slots, in_place=True)


def test_the_signature_is_read_once() -> None:
    program = Program(STEP)
    assert program.signature() is program.signature()
