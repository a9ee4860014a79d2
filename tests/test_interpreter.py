"""The interpreter against SPEC §6: every op's values, edge values included,
control flow, memory and run-time errors (how the executor reaches them, values
freed after their last use among it, is `test_executor.py`'s concern)."""

from __future__ import annotations

import math
from functools import cache

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from inventory import F32, Domain, Entry, Form, entries

import gradopt
from gradopt import GradoptError, Program
from gradopt.dialect import kernels

F32_MAX = float(np.finfo(np.float32).max)
I32_MIN, I32_MAX = -(2**31), 2**31 - 1
EDGES = [0.0, -0.0, 1.0, -1.0, 0.5, 3.0, -2.5, 1e-45, F32_MAX, math.inf, -math.inf]
EDGES.append(math.nan)
ELEMENT = {np.dtype(np.float32): "f32", np.dtype(np.int32): "i32", np.dtype(bool): "i1"}


def f32(*values: float) -> np.ndarray:
    return np.array(values, np.float32)


def i32(*values: int) -> np.ndarray:
    return np.array(values, np.int32)


def tensor_type(array: np.ndarray) -> str:
    return f"tensor<{''.join(f'{d}x' for d in array.shape)}{ELEMENT[array.dtype]}>"


def bits(array: np.ndarray) -> np.ndarray:
    """Floats compared by their bits: -0.0 differs from 0.0, NaN equals NaN."""
    return np.asarray(array, np.float32).view(np.uint32)


def program(line: str, *inputs: np.ndarray, result: str) -> str:
    """A @main that computes `%r = LINE` from its tensor arguments %a, %b, %c."""
    names = "abc"[: len(inputs)]
    params = ", ".join(
        f"%{n}: {tensor_type(x)}" for n, x in zip(names, inputs, strict=True)
    )
    return (
        f"func.func @main({params}) -> {result} {{\n"
        f"  %r = {line}\n"
        f"  func.return %r : {result}\n"
        f"}}\n"
    )


@cache
def prepared(text: str) -> Program:
    return Program(text)


def compute(line: str, *inputs: np.ndarray, result: str) -> np.ndarray:
    """The value of `%r = LINE`, checked to have exactly the declared type."""
    text = program(line, *inputs, result=result)
    (value,) = prepared(text).run(args=inputs).results
    assert isinstance(value, np.ndarray)
    assert tensor_type(value) == result
    return value


def pairs() -> tuple[np.ndarray, np.ndarray]:
    """Every pair of edge values, as two f32 vectors."""
    a, b = np.meshgrid(f32(*EDGES), f32(*EDGES))
    return a.ravel(), b.ravel()


# --- elementwise f32 ----------------------------------------------------------


def with_numpy(arity: int) -> list[Entry]:
    """The elementwise f32 ops of `arity` operands whose NumPy meaning the
    inventory gives (SPEC §6)."""
    return [e for e in entries(Form.ELEMENTWISE, arity=arity, accepts=F32) if e.numpy]


@pytest.mark.parametrize("entry", with_numpy(2), ids=lambda e: e.name)
def test_binary_f32_is_ieee_float32_bit_exact(entry: Entry) -> None:
    a, b = pairs()
    type = tensor_type(a)
    value = compute(f"grad.{entry.name} %a, %b : {type}", a, b, result=type)
    assert entry.numpy is not None
    with np.errstate(all="ignore"):
        expected = entry.numpy(a, b)
    np.testing.assert_array_equal(bits(value), bits(expected))


@pytest.mark.parametrize("entry", with_numpy(1), ids=lambda e: e.name)
def test_unary_f32_is_numpy_float32(entry: Entry) -> None:
    a = f32(*EDGES, 0.1, 1.5, 100.0, -100.0, 1e-30)
    type = tensor_type(a)
    value = compute(f"grad.{entry.name} %a : {type}", a, result=type)
    assert entry.numpy is not None
    with np.errstate(all="ignore"):
        expected = entry.numpy(a)
    assert expected.dtype == np.float32
    np.testing.assert_array_equal(bits(value), bits(expected))


def test_signed_zeros_and_infinities() -> None:
    zeros = f32(-0.0, -0.0, 0.0)
    type = "tensor<3xf32>"
    added = compute(
        f"grad.add %a, %b : {type}", zeros, f32(-0.0, 0.0, -0.0), result=type
    )
    np.testing.assert_array_equal(bits(added), bits(f32(-0.0, 0.0, 0.0)))
    negated = compute(f"grad.neg %a : {type}", zeros, result=type)
    np.testing.assert_array_equal(bits(negated), bits(f32(0.0, 0.0, -0.0)))
    recip = compute(f"grad.recip %a : {type}", zeros, result=type)
    assert recip.tolist() == [-math.inf, -math.inf, math.inf]
    sqrt = compute(f"grad.sqrt %a : {type}", f32(-0.0, -1.0, math.inf), result=type)
    assert bits(sqrt)[0] == bits(f32(-0.0))[0] and sqrt[2] == math.inf
    assert math.isnan(sqrt[1])


def test_math_stays_in_float32() -> None:
    """sin(1.0) in float32 is one ulp off the float32 nearest the exact value:
    the result shows that NumPy's float32 loop ran, not a float64 one."""
    one = np.array(1.0, np.float32)
    value = compute("grad.sin %a : tensor<f32>", one, result="tensor<f32>")
    assert value == np.sin(np.float32(1.0))
    assert value != np.float32(math.sin(1.0))


def test_max_propagates_nan_and_keeps_ties() -> None:
    a, b = f32(math.nan, 1.0, 2.0, -3.0), f32(1.0, math.nan, 2.0, -3.0)
    value = compute("grad.max %a, %b : tensor<4xf32>", a, b, result="tensor<4xf32>")
    assert np.isnan(value[:2]).all()
    assert value[2:].tolist() == [2.0, -3.0]


# --- elementwise i32 ----------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("add", [I32_MIN, I32_MAX, 131072, -4]),
        ("mul", [I32_MAX, I32_MIN, 0, -21]),
        ("max", [I32_MAX, -1, 65536, 3]),
    ],
)
def test_i32_arithmetic_wraps(name: str, expected: list[int]) -> None:
    a, b = i32(I32_MAX, I32_MIN, 65536, -7), i32(1, -1, 65536, 3)
    type = tensor_type(a)
    value = compute(f"grad.{name} %a, %b : {type}", a, b, result=type)
    assert value.tolist() == expected


def test_i32_neg_and_rank_0_values_wrap() -> None:
    a = i32(I32_MAX, I32_MIN, 0)
    negated = compute("grad.neg %a : tensor<3xi32>", a, result="tensor<3xi32>")
    assert negated.tolist() == [-I32_MAX, I32_MIN, 0]
    scalar = np.array(I32_MAX, np.int32)
    assert compute("grad.add %a, %a : tensor<i32>", scalar, result="tensor<i32>") == -2


def c_quotient(a: int, b: int) -> int:
    """The exact quotient rounded toward zero, as C's `/` computes it."""
    return abs(a) // abs(b) * (1 if (a < 0) == (b < 0) else -1)


def wrapped(value: int) -> int:
    return (value - I32_MIN) % 2**32 + I32_MIN


INT16 = hnp.arrays(np.int32, 16, elements=st.integers(I32_MIN, I32_MAX))
NONZERO16 = hnp.arrays(
    np.int32, 16, elements=st.integers(I32_MIN, I32_MAX).filter(bool)
)


@settings(max_examples=50, deadline=None)
@given(INT16, NONZERO16)
def test_idiv_and_mod_round_toward_zero_as_in_c(a: np.ndarray, b: np.ndarray) -> None:
    type = tensor_type(a)
    quotient = compute(f"grad.idiv %a, %b : {type}", a, b, result=type)
    remainder = compute(f"grad.mod %a, %b : {type}", a, b, result=type)
    for x, y, q, r in zip(
        a.tolist(), b.tolist(), quotient.tolist(), remainder.tolist(), strict=True
    ):
        assert q == wrapped(c_quotient(x, y))
        assert r == x - y * c_quotient(x, y)


def test_negative_idiv_and_mod() -> None:
    a, b = i32(-7, 7, -7, 7, I32_MIN, I32_MIN), i32(2, -2, -2, 2, -1, 1)
    type = tensor_type(a)
    quotient = compute(f"grad.idiv %a, %b : {type}", a, b, result=type)
    remainder = compute(f"grad.mod %a, %b : {type}", a, b, result=type)
    assert quotient.tolist() == [-3, -3, 3, 3, I32_MIN, I32_MIN]
    assert remainder.tolist() == [-1, 1, -1, 1, 0, 0]


def with_domain(domain: Domain) -> list[str]:
    return [e.name for e in entries(Form.ELEMENTWISE) if e.domain is domain]


@pytest.mark.parametrize("name", with_domain(Domain.DIVISOR))
def test_zero_divisor_is_a_located_error(name: str) -> None:
    text = program(
        f"grad.{name} %a, %b : tensor<2xi32>",
        i32(1, 2),
        i32(1, 2),
        result="tensor<2xi32>",
    )
    with pytest.raises(GradoptError) as caught:
        gradopt.run(text, args=[i32(4, 4), i32(2, 0)], filename="div.mlir")
    assert str(caught.value).startswith(
        f"div.mlir:2:3: error: 'grad.{name}' divides by zero\n"
    )
    assert caught.value.location.line == 2


@pytest.mark.parametrize(
    ("name", "ints", "flags"),
    [
        ("and", [0, 8, I32_MIN], [True, False, False, False]),
        ("or", [-5, 14, -1], [True, True, True, False]),
        ("xor", [-5, 6, I32_MAX], [False, True, True, False]),
    ],
)
def test_bitwise_ops_on_i32_and_i1(
    name: str, ints: list[int], flags: list[bool]
) -> None:
    a, b = i32(-8, 12, I32_MIN), i32(3, 10, -1)
    type = tensor_type(a)
    assert compute(f"grad.{name} %a, %b : {type}", a, b, result=type).tolist() == ints
    p, q = np.array([True, True, False, False]), np.array([True, False, True, False])
    type = tensor_type(p)
    assert compute(f"grad.{name} %a, %b : {type}", p, q, result=type).tolist() == flags


def test_shifts_wrap_and_are_arithmetic() -> None:
    a, s = i32(1, -1, 3, I32_MAX, -8), i32(31, 1, 0, 1, 2)
    type = tensor_type(a)
    left = compute(f"grad.shl %a, %b : {type}", a, s, result=type)
    right = compute(f"grad.shr %a, %b : {type}", a, s, result=type)
    assert left.tolist() == [I32_MIN, -2, 3, -2, -32]
    assert right.tolist() == [0, -1, 3, 2**30 - 1, -2]


@pytest.mark.parametrize("name", with_domain(Domain.SHIFT))
@pytest.mark.parametrize("shift", [32, -1])
def test_shift_out_of_range_is_a_located_error(name: str, shift: int) -> None:
    text = program(
        f"grad.{name} %a, %b : tensor<2xi32>",
        i32(1, 2),
        i32(1, 2),
        result="tensor<2xi32>",
    )
    with pytest.raises(GradoptError, match=f"2:3: error: 'grad.{name}' shift amount"):
        gradopt.run(text, args=[i32(1, 1), i32(0, shift)])


# --- conversions --------------------------------------------------------------


def test_cast_f32_to_i32_truncates_and_saturates() -> None:
    a = f32(2.7, -2.7, 0.5, -0.0, 3e9, -3e9, math.inf, -math.inf, math.nan, 2.0**31)
    line = "grad.cast %a : tensor<10xf32> to tensor<10xi32>"
    value = compute(line, a, result="tensor<10xi32>")
    expected = [2, -2, 0, 0, I32_MAX, I32_MIN, I32_MAX, I32_MIN, 0, I32_MAX]
    assert value.tolist() == expected


def saturated(x: float) -> int:
    """x rounded toward zero and clamped to i32; NaN gives 0."""
    if math.isnan(x):
        return 0
    if math.isinf(x):
        return I32_MAX if x > 0 else I32_MIN
    return max(I32_MIN, min(I32_MAX, math.trunc(x)))


@settings(max_examples=50, deadline=None)
@given(hnp.arrays(np.float32, 16, elements=st.floats(width=32)))
def test_cast_f32_to_i32_matches_truncation(a: np.ndarray) -> None:
    line = "grad.cast %a : tensor<16xf32> to tensor<16xi32>"
    value = compute(line, a, result="tensor<16xi32>")
    assert value.tolist() == [saturated(x) for x in a.tolist()]


def test_cast_i32_to_f32_rounds_to_nearest_even() -> None:
    a = i32(16777217, 16777219, I32_MAX, I32_MIN, -3)
    value = compute(
        "grad.cast %a : tensor<5xi32> to tensor<5xf32>", a, result="tensor<5xf32>"
    )
    assert value.tolist() == [16777216.0, 16777220.0, 2.0**31, -(2.0**31), -3.0]


def test_cast_to_and_from_i1() -> None:
    a = f32(0.0, -0.0, math.nan, 2.0, -1e-45)
    flags = compute(
        "grad.cast %a : tensor<5xf32> to tensor<5xi1>", a, result="tensor<5xi1>"
    )
    assert flags.tolist() == [False, False, True, True, True]
    ints = compute(
        "grad.cast %a : tensor<3xi32> to tensor<3xi1>",
        i32(0, -5, 1),
        result="tensor<3xi1>",
    )
    assert ints.tolist() == [False, True, True]
    p = np.array([True, False])
    as_float = compute(
        "grad.cast %a : tensor<2xi1> to tensor<2xf32>", p, result="tensor<2xf32>"
    )
    as_int = compute(
        "grad.cast %a : tensor<2xi1> to tensor<2xi32>", p, result="tensor<2xi32>"
    )
    assert (as_float.tolist(), as_int.tolist()) == ([1.0, 0.0], [1, 0])


def test_cast_to_the_same_type_is_the_identity() -> None:
    a = f32(-0.0, math.nan, 1.5)
    value = compute(
        "grad.cast %a : tensor<3xf32> to tensor<3xf32>", a, result="tensor<3xf32>"
    )
    np.testing.assert_array_equal(bits(value), bits(a))


def test_bitcast_reinterprets_negative_numbers() -> None:
    a = f32(-1.0, -0.0, -math.inf, -2.5)
    value = compute(
        "grad.bitcast %a : tensor<4xf32> to tensor<4xi32>", a, result="tensor<4xi32>"
    )
    assert value.tolist() == [-1082130432, I32_MIN, -8388608, -1071644672]
    ints = i32(-1, I32_MIN, -1082130432, -4194304)
    back = compute(
        "grad.bitcast %a : tensor<4xi32> to tensor<4xf32>", ints, result="tensor<4xf32>"
    )
    assert back.view(np.uint32).tolist() == [
        0xFFFFFFFF,
        0x80000000,
        0xBF800000,
        0xFFC00000,
    ]


def test_bitcast_of_a_rank_0_value() -> None:
    value = compute(
        "grad.bitcast %a : tensor<f32> to tensor<i32>",
        np.array(-2.0, np.float32),
        result="tensor<i32>",
    )
    assert value.shape == () and value == -1073741824


def test_detach_is_the_identity() -> None:
    a = f32(-0.0, math.nan, 3.0)
    value = compute("grad.detach %a : tensor<3xf32>", a, result="tensor<3xf32>")
    np.testing.assert_array_equal(bits(value), bits(a))


# --- literals -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("literal", "type", "expected"),
    [
        ("-2.5", "tensor<2xf32>", f32(-2.5, -2.5)),
        ("1e-3", "tensor<f32>", np.array(np.float32(0.001))),
        ("0x7FC00001", "tensor<f32>", np.array(0x7FC00001, np.uint32).view(np.float32)),
        ("0x80000000", "tensor<f32>", np.array(-0.0, np.float32)),
        ("-7", "tensor<2x2xi32>", np.full((2, 2), -7, np.int32)),
        ("true", "tensor<3xi1>", np.ones(3, bool)),
        (
            "dense<[[1.5, -0.0], [0.1, 2.0]]>",
            "tensor<2x2xf32>",
            np.array([[1.5, -0.0], [0.1, 2.0]], np.float32),
        ),
        ("dense<[true, false]>", "tensor<2xi1>", np.array([True, False])),
    ],
)
def test_const_gives_its_literal_bit_for_bit(
    literal: str, type: str, expected: np.ndarray
) -> None:
    value = compute(f"grad.const {literal} : {type}", result=type)
    assert value.tobytes() == expected.tobytes()


# --- shapes -------------------------------------------------------------------


RNG = np.random.default_rng(7)


def scattered(*shape: int) -> np.ndarray:
    """float32 data of mixed magnitudes, whose sums depend on the order."""
    values = RNG.standard_normal(shape) * 10.0 ** RNG.integers(-6, 7, shape)
    return values.astype(np.float32)


@pytest.mark.parametrize("kind", ["add", "max", "mul"])
@pytest.mark.parametrize("axes", [[0], [1], [2], [0, 2], [0, 1, 2]])
def test_reduce_is_one_numpy_reduction(kind: str, axes: list[int]) -> None:
    a = scattered(4, 5, 6)
    kept = [d for i, d in enumerate(a.shape) if i not in axes]
    result = f"tensor<{''.join(f'{d}x' for d in kept)}f32>"
    line = f"grad.reduce {kind} %a {axes} : {tensor_type(a)} to {result}"
    value = compute(line, a, result=result)
    ufunc = {"add": np.add, "max": np.maximum, "mul": np.multiply}[kind]
    with np.errstate(all="ignore"):
        expected = ufunc.reduce(a, axis=tuple(axes), dtype=np.float32)
    np.testing.assert_array_equal(bits(value), bits(expected))


def test_reduce_add_is_in_float32() -> None:
    a = f32(1e8, 1.0, -1e8)
    value = compute(
        "grad.reduce add %a [0] : tensor<3xf32> to tensor<f32>", a, result="tensor<f32>"
    )
    assert value == 0.0  # 1.0 is lost in float32; float64 would give 1.0


def test_reduce_i32_wraps() -> None:
    a = i32(I32_MAX, 1, 65536, 65536)
    added = compute(
        "grad.reduce add %a [0] : tensor<4xi32> to tensor<i32>", a, result="tensor<i32>"
    )
    multiplied = compute(
        "grad.reduce mul %a [0] : tensor<2xi32> to tensor<i32>",
        a[2:],
        result="tensor<i32>",
    )
    maximum = compute(
        "grad.reduce max %a [0] : tensor<4xi32> to tensor<i32>", a, result="tensor<i32>"
    )
    assert (added, multiplied, maximum) == (I32_MIN + 131072, 0, I32_MAX)


def test_reduce_max_propagates_nan() -> None:
    a = f32(1.0, math.nan, 2.0)
    value = compute(
        "grad.reduce max %a [0] : tensor<3xf32> to tensor<f32>", a, result="tensor<f32>"
    )
    assert math.isnan(value)


def test_reduce_max_across_short_rows_has_the_bits_of_one_reduction() -> None:
    """`grad.reduce max` over short trailing axes reduces a transposed copy
    (`kernels.maximum_reduce`, several times faster), with the bits of
    NumPy's reduction as written: signed zeros, NaN payloads and signs, the
    rows in every mix (in that order, 2915 of 3000 such arrays came out with
    other bits)."""
    nans = np.array([0x7FC00001, 0xFFC00002, 0x7FC00000], np.uint32).view(np.float32)
    mixed = np.concatenate([f32(0.0, -0.0, 1.0, -1.0, math.inf, -math.inf), nans])
    a = RNG.choice(mixed, size=(300, 3, 4)).astype(np.float32)
    a[:5] = RNG.standard_normal((5, 3, 4))  # rows without a zero or a NaN
    plain = RNG.standard_normal((300, 3, 4)).astype(np.float32)
    for axes, result in (([2], "tensor<300x3xf32>"), ([1, 2], "tensor<300xf32>")):
        line = f"grad.reduce max %a {axes} : tensor<300x3x4xf32> to {result}"
        for array in (a, plain):
            value = compute(line, array, result=result)
            expected = np.maximum.reduce(array, axis=tuple(axes))
            np.testing.assert_array_equal(bits(value), bits(expected))


def test_reduce_max_reduces_across_rows_only_where_that_pays() -> None:
    """The transposed copy of `kernels.maximum_reduce` costs a few
    microseconds; fewer than `FEWEST_ROWS` rows are reduced as written."""
    copies = []
    original = np.ascontiguousarray

    def counted(a: np.ndarray, *args: object) -> np.ndarray:
        copies.append(a.shape)
        return original(a, *args)  # type: ignore[call-overload]

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(kernels.np, "ascontiguousarray", counted)
        for rows in (kernels.FEWEST_ROWS - 1, kernels.FEWEST_ROWS):
            a = RNG.standard_normal((rows, 10)).astype(np.float32)
            found = kernels.maximum_reduce(a, (1,))
            np.testing.assert_array_equal(found, a.max(axis=1))
    assert copies == [(10, kernels.FEWEST_ROWS)]


@pytest.mark.parametrize("kind", ["add", "mul", "max"])
def test_reduce_over_a_permuted_view_equals_reduce_over_its_copy(kind: str) -> None:
    """The bits of a reduction depend on the values only, not on whether a
    permute left a strided view."""
    a = scattered(48, 300)
    viewed = Program(
        "func.func @main(%a: tensor<48x300xf32>) -> tensor<48xf32> {\n"
        "  %t = grad.permute %a [1, 0] : tensor<48x300xf32> to tensor<300x48xf32>\n"
        f"  %r = grad.reduce {kind} %t [0] : tensor<300x48xf32> to tensor<48xf32>\n"
        "  func.return %r : tensor<48xf32>\n"
        "}\n"
    )
    copied = np.ascontiguousarray(a.T)
    line = f"grad.reduce {kind} %a [0] : tensor<300x48xf32> to tensor<48xf32>"
    expected = compute(line, copied, result="tensor<48xf32>")
    (value,) = viewed.run(args=[a]).results
    np.testing.assert_array_equal(bits(value), bits(expected))


def test_reduce_over_a_broadcast_equals_reduce_over_its_copy() -> None:
    v = scattered(37)
    viewed = Program(
        "func.func @main(%v: tensor<37xf32>) -> tensor<37xf32> {\n"
        "  %b = grad.broadcast %v [0] : tensor<37xf32> to tensor<37x129xf32>\n"
        "  %r = grad.reduce add %b [1] : tensor<37x129xf32> to tensor<37xf32>\n"
        "  func.return %r : tensor<37xf32>\n"
        "}\n"
    )
    copied = np.ascontiguousarray(np.broadcast_to(v[:, None], (37, 129)))
    line = "grad.reduce add %a [1] : tensor<37x129xf32> to tensor<37xf32>"
    expected = compute(line, copied, result="tensor<37xf32>")
    (value,) = viewed.run(args=[v]).results
    np.testing.assert_array_equal(bits(value), bits(expected))


def test_broadcast_places_dims_and_expands_size_1() -> None:
    v = f32(1.0, 2.0, 3.0)
    rows = compute(
        "grad.broadcast %a [1] : tensor<3xf32> to tensor<2x3xf32>",
        v,
        result="tensor<2x3xf32>",
    )
    cols = compute(
        "grad.broadcast %a [0] : tensor<3xf32> to tensor<3x2xf32>",
        v,
        result="tensor<3x2xf32>",
    )
    assert rows.tolist() == [[1.0, 2.0, 3.0]] * 2
    assert cols.tolist() == [[1.0, 1.0], [2.0, 2.0], [3.0, 3.0]]
    one = np.array([[5], [6]], np.int32)
    wide = compute(
        "grad.broadcast %a [0, 2] : tensor<2x1xi32> to tensor<2x2x3xi32>",
        one,
        result="tensor<2x2x3xi32>",
    )
    np.testing.assert_array_equal(wide, np.broadcast_to(one[:, None, :], (2, 2, 3)))
    scalar = compute(
        "grad.broadcast %a [] : tensor<i1> to tensor<2xi1>",
        np.array(True),
        result="tensor<2xi1>",
    )
    assert scalar.tolist() == [True, True]


def test_reshape_and_permute() -> None:
    a = np.arange(24, dtype=np.int32).reshape(2, 3, 4)
    reshaped = compute(
        "grad.reshape %a : tensor<2x3x4xi32> to tensor<6x4xi32>",
        a,
        result="tensor<6x4xi32>",
    )
    np.testing.assert_array_equal(reshaped, a.reshape(6, 4))
    permuted = compute(
        "grad.permute %a [2, 0, 1] : tensor<2x3x4xi32> to tensor<4x2x3xi32>",
        a,
        result="tensor<4x2x3xi32>",
    )
    np.testing.assert_array_equal(permuted, np.transpose(a, (2, 0, 1)))
    flat = compute(
        "grad.reshape %a : tensor<2x3x4xi32> to tensor<24xi32>",
        a,
        result="tensor<24xi32>",
    )
    assert flat.tolist() == list(range(24))


def test_dot_is_matmul_in_float32_also_on_views() -> None:
    a, b = scattered(7, 33), scattered(33, 5)
    line = "grad.dot %a, %b : tensor<7x33xf32>, tensor<33x5xf32> to tensor<7x5xf32>"
    value = compute(line, a, b, result="tensor<7x5xf32>")
    np.testing.assert_array_equal(bits(value), bits(np.matmul(a, b)))
    transposed = Program(
        "func.func @main(%a: tensor<33x7xf32>, %b: tensor<33x5xf32>)\n"
        "    -> tensor<7x5xf32> {\n"
        "  %t = grad.permute %a [1, 0] : tensor<33x7xf32> to tensor<7x33xf32>\n"
        f"  %r = {line.replace('%a', '%t')}\n"
        "  func.return %r : tensor<7x5xf32>\n"
        "}\n"
    )
    (viewed,) = transposed.run(args=[np.ascontiguousarray(a.T), b]).results
    np.testing.assert_array_equal(bits(viewed), bits(value))


# --- memory, loops and calls --------------------------------------------------


def test_load_and_store_with_and_without_indices() -> None:
    text = """
    func.func @main(%m: memref<2x3xf32>, %out: memref<3xf32>)
        -> (tensor<3xf32>, tensor<f32>) {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c2 = arith.constant 2 : index
      %row = grad.load %m[%c1] : memref<2x3xf32>
      %x = grad.load %m[%c0, %c2] : memref<2x3xf32>
      grad.store %row, %out : memref<3xf32>
      grad.store %x, %m[%c1, %c1] : memref<2x3xf32>
      %whole = grad.load %m : memref<2x3xf32>
      %zero = grad.const 0.0 : tensor<3xf32>
      grad.store %zero, %m[%c0] : memref<2x3xf32>
      %again = grad.load %m[%c1] : memref<2x3xf32>
      func.return %again, %x : tensor<3xf32>, tensor<f32>
    }
    """
    m = np.arange(6, dtype=np.float32).reshape(2, 3)
    result = gradopt.run(text, slots=[m])
    assert [r.tolist() for r in result.results] == [[3.0, 2.0, 5.0], 2.0]
    assert result.slots[0].tolist() == [[0.0, 0.0, 0.0], [3.0, 2.0, 5.0]]
    assert result.slots[1].tolist() == [3.0, 4.0, 5.0]
    assert m.tolist() == [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]]  # the input is copied


def test_a_load_is_a_copy_unaffected_by_later_stores() -> None:
    text = """
    func.func @main(%s: memref<2xi32>) -> tensor<2xi32> {
      %before = grad.load %s : memref<2xi32>
      %nine = grad.const 9 : tensor<2xi32>
      grad.store %nine, %s : memref<2xi32>
      func.return %before : tensor<2xi32>
    }
    """
    result = gradopt.run(text, slots=[i32(1, 2)])
    assert result.results[0].tolist() == [1, 2]
    assert result.slots[0].tolist() == [9, 9]


@pytest.mark.parametrize("index", [3, -1])
def test_index_out_of_range_is_a_located_error(index: int) -> None:
    text = f"""func.func @main(%s: memref<3xf32>) -> tensor<f32> {{
  %i = arith.constant {index} : index
  %x = grad.load %s[%i] : memref<3xf32>
  func.return %x : tensor<f32>
}}
"""
    with pytest.raises(GradoptError) as caught:
        gradopt.run(text, filename="load.mlir")
    assert str(caught.value) == (
        f"load.mlir:3:3: error: 'grad.load' index [{index}] is out of range for a "
        "slot of shape [3]\n  %x = grad.load %s[%i] : memref<3xf32>\n  ^\n"
    )


def test_store_out_of_range_is_a_located_error() -> None:
    text = """func.func @main(%s: memref<2x2xi1>) {
  %c2 = arith.constant 2 : index
  %c0 = arith.constant 0 : index
  %t = grad.const true : tensor<i1>
  grad.store %t, %s[%c0, %c2] : memref<2x2xi1>
  func.return
}
"""
    with pytest.raises(
        GradoptError, match=r"^<input>:5:3: error: 'grad.store' index \[0, 2\]"
    ):
        gradopt.run(text)


LOOPS = """
func.func @main(%xs: memref<4xf32>, %grid: memref<2x3xi32>)
    -> (tensor<f32>, tensor<f32>, tensor<f32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %zero = grad.const 0.0 : tensor<f32>
  %one = grad.const 1.0 : tensor<f32>
  %sum, %product = scf.for %i = %c0 to %c4 step %c1
      iter_args(%s = %zero, %p = %one) -> (tensor<f32>, tensor<f32>) {
    %x = grad.load %xs[%i] : memref<4xf32>
    %s2 = grad.add %s, %x : tensor<f32>
    %p2 = grad.mul %p, %x : tensor<f32>
    scf.yield %s2, %p2 : tensor<f32>, tensor<f32>
  }
  %odd = scf.for %i = %c1 to %c4 step %c2 iter_args(%s = %zero) -> (tensor<f32>) {
    %x = grad.load %xs[%i] : memref<4xf32>
    %s2 = grad.add %s, %x : tensor<f32>
    scf.yield %s2 : tensor<f32>
  }
  %k = grad.const 10 : tensor<i32>
  scf.for %i = %c0 to %c2 step %c1 {
    scf.for %j = %c0 to %c3 step %c1 {
      %v = grad.load %grid[%i, %j] : memref<2x3xi32>
      %w = grad.add %v, %k : tensor<i32>
      grad.store %w, %grid[%i, %j] : memref<2x3xi32>
      scf.yield
    }
    scf.yield
  }
  func.return %sum, %product, %odd : tensor<f32>, tensor<f32>, tensor<f32>
}
"""


def test_scf_for_carries_values_reads_outer_values_and_nests() -> None:
    grid = np.arange(6, dtype=np.int32).reshape(2, 3)
    result = gradopt.run(LOOPS, slots=[f32(1.0, 2.0, 3.0, 4.0), grid])
    assert [r.tolist() for r in result.results] == [10.0, 24.0, 6.0]
    assert result.slots[1].tolist() == [[10, 11, 12], [13, 14, 15]]


def test_scf_for_without_iterations_gives_its_initial_values() -> None:
    text = """func.func @main(%x: tensor<2xf32>) -> tensor<2xf32> {
  %c0 = arith.constant 0 : index
  %c5 = arith.constant 5 : index
  %c1 = arith.constant 1 : index
  %r = scf.for %i = %c5 to %c0 step %c1 iter_args(%s = %x) -> (tensor<2xf32>) {
    %t = grad.add %s, %s : tensor<2xf32>
    scf.yield %t : tensor<2xf32>
  }
  func.return %r : tensor<2xf32>
}
"""
    assert gradopt.run(text, args=[f32(1.5, -0.0)]).results[0].tolist() == [1.5, -0.0]


def test_scf_for_with_a_non_positive_step_is_a_located_error() -> None:
    text = """func.func @main() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %c1 step %c0 {
    scf.yield
  }
  func.return
}
"""
    with pytest.raises(
        GradoptError,
        match=r"<input>:4:3: error: 'scf.for' step must be positive, got 0",
    ):
        gradopt.run(text)


CALLS = """
func.func @main(%s: memref<2xf32>, %x: tensor<2xf32>)
    -> (tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) {
  %a, %b = func.call @twice(%x, %s)
      : (tensor<2xf32>, memref<2xf32>) -> (tensor<2xf32>, tensor<2xf32>)
  %seen = grad.load %s : memref<2xf32>
  func.call @bump(%s) : (memref<2xf32>) -> ()
  func.return %a, %b, %seen : tensor<2xf32>, tensor<2xf32>, tensor<2xf32>
}

func.func @twice(%x: tensor<2xf32>, %s: memref<2xf32>)
    -> (tensor<2xf32>, tensor<2xf32>) {
  %old = grad.load %s : memref<2xf32>
  %y = grad.add %x, %x : tensor<2xf32>
  grad.store %y, %s : memref<2xf32>
  func.return %y, %old : tensor<2xf32>, tensor<2xf32>
}

func.func @bump(%s: memref<2xf32>) {
  %v = grad.load %s : memref<2xf32>
  %one = grad.const 1.0 : tensor<2xf32>
  %w = grad.add %v, %one : tensor<2xf32>
  grad.store %w, %s : memref<2xf32>
  func.return
}
"""


def test_func_call_returns_several_results_and_shares_slots() -> None:
    result = gradopt.run(CALLS, slots=[f32(7.0, 8.0)], args=[f32(1.0, 2.5)])
    assert [r.tolist() for r in result.results] == [[2.0, 5.0], [7.0, 8.0], [2.0, 5.0]]
    assert result.slots[0].tolist() == [3.0, 6.0]


def test_a_function_runs_with_another_entry() -> None:
    result = gradopt.run(CALLS, slots=[f32(1.0, 2.0)], entry="bump")
    assert result.results == [] and result.slots[0].tolist() == [2.0, 3.0]


def test_endless_recursion_is_a_located_error() -> None:
    text = """func.func @main() {
  func.call @main() : () -> ()
  func.return
}
"""
    with pytest.raises(
        GradoptError, match=r"<input>:2:3: error: 'func.call' of @main nests"
    ):
        gradopt.run(text)


def test_an_op_that_cannot_run_is_reported_before_anything_runs() -> None:
    text = """func.func @main(%s: memref<f32>) {
  %x = grad.const 1.0 : tensor<f32>
  grad.store %x, %s : memref<f32>
  %c = func.call @helper() : () -> i32
  func.return
}

func.func @helper() -> i32 {
  %c0 = arith.constant 0 : i32
  %c1 = math.ctlz %c0 : i32
  func.return %c1 : i32
}

func.func @other(%s: memref<f32>) {
  %x = grad.const 1.0 : tensor<f32>
  grad.store %x, %s : memref<f32>
  func.return
}
"""
    with pytest.raises(
        GradoptError, match=r"^<input>:10:3: error: 'math.ctlz' op cannot"
    ):
        gradopt.run(text)
    # a function that is never called is not looked at
    assert gradopt.run(text, entry="other").slots[0] == 1.0


@pytest.mark.parametrize(
    "shape",
    [(256, 512), (4096, 128), (300, 70), (3, 200, 96), (64, 64), (7,), (5, 1)],
)
def test_contiguous_copies_as_numpy_does(shape: tuple[int, ...]) -> None:
    """`kernels.contiguous` copies a transposed matrix a block of rows at a
    time (from `BLOCKED_FROM` bytes on: the first four shapes, with rows not
    a multiple of a block), and any other array as `np.ascontiguousarray`:
    the same elements, C-ordered, whatever the view."""
    source = RNG.standard_normal(shape).astype(np.float32)
    views = [source, source[..., ::2], source.T]
    if source.ndim >= 2:
        views.append(source.swapaxes(-1, -2))
    for view in views:
        copy = kernels.contiguous(view)
        assert copy.flags.c_contiguous and copy.shape == view.shape
        np.testing.assert_array_equal(bits(copy), bits(np.ascontiguousarray(view)))
