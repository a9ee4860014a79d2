"""The NumPy meaning of the `arith` and `math` ops (SPEC §10.4), for scalars
and, elementwise, for tensors and for the whole-array bodies of
`linalg.generic`.

Each op is one function of its operand values, which may be NumPy scalars,
Python ints (`index` values) or arrays that broadcast together. f32 values are
computed in float32 by NumPy's own float32 functions, so an op computes the
bits of the `grad` op of the same meaning (`arith.addf` is `grad.add`,
`math.sqrt` is `grad.sqrt`, `math.rsqrt` is `grad.recip` of `grad.sqrt`).
Integers wrap as two's complement; a zero divisor is a run-time error naming
the op.
"""

from __future__ import annotations

import operator
from collections.abc import Callable
from typing import Any

import numpy as np
from xdsl.dialects import arith, math
from xdsl.dialects.builtin import (
    AnyFloat,
    BFloat16Type,
    DenseIntOrFPElementsAttr,
    FloatAttr,
    IndexType,
    IntegerAttr,
    IntegerType,
    MemRefType,
    ShapedType,
    TensorType,
    i64,
)
from xdsl.ir import Attribute, Operation, SSAValue

from gradopt.dialect.errors import OpError
from gradopt.dialect.upstream.arith import RemfOp
from gradopt.interpreter.inline import Inline

Value = Any
"""A value as the interpreter holds it: a NumPy array or scalar, or a Python
int for `index` (NumPy's own functions take and give all of them)."""

Function = Callable[..., Value]
"""An op's meaning: operand values to its result value."""


def dtype_of(type: Attribute, op: Operation) -> np.dtype:
    """The NumPy dtype of values of element or scalar type `type` (`index` is
    int64); an error naming `op` for a type NumPy has no dtype for."""
    if isinstance(type, TensorType | MemRefType):
        type = type.get_element_type()
    if isinstance(type, IndexType):
        return np.dtype(np.int64)
    if isinstance(type, IntegerType):
        width = type.width.data
        if width == 1:
            return np.dtype(np.bool_)
        if width in (8, 16, 32, 64):
            return np.dtype(f"int{width}")
    if isinstance(type, AnyFloat) and not isinstance(type, BFloat16Type):
        return np.dtype(f"float{type.bitwidth}")
    raise OpError(op, f"cannot run values of type {type}: NumPy has no such type")


def _unsigned(value: Value) -> np.ndarray:
    array = np.asarray(value)
    return array.view(f"uint{array.dtype.itemsize * 8}")


def _signed_like(value: np.ndarray, like: Value) -> Value:
    return value.view(np.asarray(like).dtype)[()]


def _scalar(value: np.ndarray) -> Value:
    """A 0-d result as a NumPy scalar, as NumPy's ufuncs give for scalars."""
    return value[()] if isinstance(value, np.ndarray) and not value.ndim else value


# --- floats -----------------------------------------------------------------


def maximumf(a: Value, b: Value) -> Value:
    """IEEE 754-2019 `maximum` (`arith.maximumf`): NaN if either is NaN, and
    +0.0 for -0.0 and +0.0 (NumPy's `maximum` may give either zero)."""
    result = np.maximum(a, b)
    equal = np.equal(a, b)
    if not np.any(equal):
        return result
    bits = np.bitwise_and(_unsigned(a), _unsigned(b))  # clears the sign of ±0
    return _scalar(np.where(equal, _signed_like(bits, result), result))


def minimumf(a: Value, b: Value) -> Value:
    """IEEE 754-2019 `minimum`: NaN if either is NaN, -0.0 for -0.0 and +0.0."""
    result = np.minimum(a, b)
    equal = np.equal(a, b)
    if not np.any(equal):
        return result
    bits = np.bitwise_or(_unsigned(a), _unsigned(b))  # sets the sign of ±0
    return _scalar(np.where(equal, _signed_like(bits, result), result))


def _round(a: Value) -> Value:
    """`math.round`: halfway cases away from zero (`np.round` rounds to even)."""
    truncated = np.trunc(a)
    away = np.abs(np.subtract(a, truncated)) >= 0.5  # exact: no rounding
    return _scalar(np.where(away, truncated + np.sign(a), truncated))


def _fpowi(a: Value, n: Value) -> Value:
    """`math.fpowi`: a float to an integer power, in a's precision (NumPy
    would promote a float32 to float64 for an int64 exponent)."""
    base = np.asarray(a)
    return _scalar(np.power(base, np.asarray(n).astype(base.dtype)))


def _fma(a: Value, b: Value, c: Value) -> Value:
    """`a * b + c` with the product exact (in float64, which holds a float32
    product) and the sum rounded to float64 then float32."""
    dtype = np.result_type(a, b, c)
    if dtype == np.float64:
        return np.add(np.multiply(a, b), c)
    wide = np.add(np.multiply(a, b, dtype=np.float64), c, dtype=np.float64)
    return wide.astype(dtype) if isinstance(wide, np.ndarray) else dtype.type(wide)


_SERIES_TERMS = 60
_SERIES_LIMIT = 2.5


def erf(a: Value) -> Value:
    """`math.erf`, which NumPy lacks: computed in float64 (its Taylor series
    for |x| <= 2.5, the continued fraction of erfc beyond), then rounded to
    the operand's type. Vectorized: a fixed number of whole-array steps."""
    x = np.asarray(a, np.float64)
    small = np.minimum(np.abs(x), _SERIES_LIMIT)
    small = np.copysign(small, x)
    square = small * small
    term = small.copy()
    total = small.copy()
    for n in range(1, _SERIES_TERMS):
        term = term * (-square) / n
        total = total + term / (2 * n + 1)
    series = total * (2 / np.sqrt(np.pi))
    large = np.maximum(np.abs(x), _SERIES_LIMIT)
    fraction = large.copy()
    for k in range(_SERIES_TERMS, 0, -1):
        fraction = large + (k / 2) / fraction
    tail = np.exp(-large * large) / np.sqrt(np.pi) / fraction
    result = np.where(np.abs(x) <= _SERIES_LIMIT, series, np.copysign(1.0 - tail, x))
    result = np.where(np.isnan(x) | (x == 0), x, result)  # NaN, and ±0 kept
    dtype = np.asarray(a).dtype
    return _scalar(result.astype(dtype if dtype.kind == "f" else np.float64))


def _rsqrt(a: Value) -> Value:
    root = np.sqrt(a)
    return np.divide(np.asarray(root).dtype.type(1), root)


def _compare_float(predicate: str) -> Function:
    """`arith.cmpf`'s predicates: ordered ones are false, unordered ones true,
    when either operand is NaN."""

    def unordered(a: Value, b: Value) -> Value:
        return np.logical_or(np.isnan(a), np.isnan(b))

    table: dict[str, Function] = {
        "false": lambda a, b: np.zeros(np.broadcast(a, b).shape, np.bool_)[()],
        "oeq": np.equal,
        "ogt": np.greater,
        "oge": np.greater_equal,
        "olt": np.less,
        "ole": np.less_equal,
        "one": lambda a, b: np.logical_and(
            np.not_equal(a, b), np.logical_not(unordered(a, b))
        ),
        "ord": lambda a, b: np.logical_not(unordered(a, b)),
        "ueq": lambda a, b: np.logical_or(np.equal(a, b), unordered(a, b)),
        "ugt": lambda a, b: np.logical_not(np.less_equal(a, b)),
        "uge": lambda a, b: np.logical_not(np.less(a, b)),
        "ult": lambda a, b: np.logical_not(np.greater_equal(a, b)),
        "ule": lambda a, b: np.logical_not(np.greater(a, b)),
        "une": np.not_equal,
        "uno": unordered,
        "true": lambda a, b: np.ones(np.broadcast(a, b).shape, np.bool_)[()],
    }
    return table[predicate]


_FLOAT_PREDICATES = [
    "false",
    "oeq",
    "ogt",
    "oge",
    "olt",
    "ole",
    "one",
    "ord",
    "ueq",
    "ugt",
    "uge",
    "ult",
    "ule",
    "une",
    "uno",
    "true",
]
_INTEGER_PREDICATES = [
    "eq",
    "ne",
    "slt",
    "sle",
    "sgt",
    "sge",
    "ult",
    "ule",
    "ugt",
    "uge",
]


def _compare_integer(predicate: str) -> Function:
    signed: dict[str, Function] = {
        "eq": np.equal,
        "ne": np.not_equal,
        "slt": np.less,
        "sle": np.less_equal,
        "sgt": np.greater,
        "sge": np.greater_equal,
    }
    if predicate in signed:
        return signed[predicate]
    compare = signed["s" + predicate[1:]]
    return lambda a, b: _scalar(compare(_unsigned(a), _unsigned(b)))


# --- integers ---------------------------------------------------------------


def _divisor(op: Operation, b: Value) -> None:
    if np.any(np.equal(b, 0)):
        raise OpError(op, "divides by zero", at_run_time=True)


def _truncating_division(op: Operation) -> Function:
    """`arith.divsi`: rounds toward zero, as C."""

    def divide(a: Value, b: Value) -> Value:
        _divisor(op, b)
        quotient = np.floor_divide(a, b)
        inexact = np.not_equal(np.remainder(a, b), 0)
        return _scalar(
            quotient + (inexact & np.not_equal(np.less(a, 0), np.less(b, 0)))
        )

    return divide


def _remainder(op: Operation) -> Function:
    """`arith.remsi`: the sign of the dividend, as C (`np.fmod`)."""

    def remainder(a: Value, b: Value) -> Value:
        _divisor(op, b)
        return np.fmod(a, b)

    return remainder


def _ceiling_division(op: Operation) -> Function:
    """`arith.ceildivsi`: the floor, one up where inexact (not `-(-a // b)`,
    whose `-a` wraps at the least int)."""

    def divide(a: Value, b: Value) -> Value:
        _divisor(op, b)
        inexact = np.not_equal(np.remainder(a, b), 0)
        return _scalar(np.floor_divide(a, b) + inexact)

    return divide


def _floor_division(op: Operation) -> Function:
    def divide(a: Value, b: Value) -> Value:
        _divisor(op, b)
        return np.floor_divide(a, b)

    return divide


def _unsigned_binary(function: Function, op: Operation | None = None) -> Function:
    def apply(a: Value, b: Value) -> Value:
        if op is not None:
            _divisor(op, b)
        return _signed_like(np.asarray(function(_unsigned(a), _unsigned(b))), a)

    return apply


_FLOAT_UNARY: dict[type[Operation], Function] = {
    arith.NegfOp: np.negative,
    math.AbsFOp: np.abs,
    math.CeilOp: np.ceil,
    math.FloorOp: np.floor,
    math.TruncOp: np.trunc,
    math.RoundEvenOp: np.rint,
    math.RoundOp: _round,
    math.ExpOp: np.exp,
    math.Exp2Op: np.exp2,
    math.ExpM1Op: np.expm1,
    math.LogOp: np.log,
    math.Log2Op: np.log2,
    math.Log10Op: np.log10,
    math.Log1pOp: np.log1p,
    math.SqrtOp: np.sqrt,
    math.RsqrtOp: _rsqrt,
    math.CbrtOp: np.cbrt,
    math.TanhOp: np.tanh,
    math.SinOp: np.sin,
    math.CosOp: np.cos,
    math.TanOp: np.tan,
    math.AtanOp: np.arctan,
    math.AsinOp: np.arcsin,
    math.AcosOp: np.arccos,
    math.SinhOp: np.sinh,
    math.CoshOp: np.cosh,
    math.AsinhOp: np.arcsinh,
    math.AcoshOp: np.arccosh,
    math.AtanhOp: np.arctanh,
    math.ErfOp: erf,
    math.AbsIOp: np.abs,
}

_BINARY: dict[type[Operation], Function] = {
    arith.AddfOp: np.add,
    arith.SubfOp: np.subtract,
    arith.MulfOp: np.multiply,
    arith.DivfOp: np.divide,
    RemfOp: np.fmod,
    arith.MaximumfOp: maximumf,
    arith.MinimumfOp: minimumf,
    arith.MaxnumfOp: np.fmax,
    arith.MinnumfOp: np.fmin,
    math.Atan2Op: np.arctan2,
    math.PowFOp: np.power,
    math.FPowIOp: _fpowi,
    math.CopySignOp: np.copysign,
    arith.AddiOp: np.add,
    arith.SubiOp: np.subtract,
    arith.MuliOp: np.multiply,
    arith.MaxSIOp: np.maximum,
    arith.MinSIOp: np.minimum,
    arith.AndIOp: np.bitwise_and,
    arith.OrIOp: np.bitwise_or,
    arith.XOrIOp: np.bitwise_xor,
    arith.MaxUIOp: _unsigned_binary(np.maximum),
    arith.MinUIOp: _unsigned_binary(np.minimum),
    arith.ShLIOp: np.left_shift,
    arith.ShRSIOp: np.right_shift,
    arith.ShRUIOp: _unsigned_binary(np.right_shift),
}

_DIVISIONS: dict[type[Operation], Callable[[Operation], Function]] = {
    arith.DivSIOp: _truncating_division,
    arith.RemSIOp: _remainder,
    arith.CeilDivSIOp: _ceiling_division,
    arith.FloorDivSIOp: _floor_division,
    arith.DivUIOp: lambda op: _unsigned_binary(np.floor_divide, op),
    arith.RemUIOp: lambda op: _unsigned_binary(np.remainder, op),
}

_CASTS = (
    arith.IndexCastOp,
    arith.SIToFPOp,
    arith.FPToSIOp,
    arith.ExtFOp,
    arith.TruncFOp,
    arith.ExtSIOp,
    arith.TruncIOp,
)
"""Conversions that are NumPy's `astype` (to the result's dtype)."""


def _cast(op: Operation) -> Function:
    dtype = dtype_of(op.results[0].type, op)
    if isinstance(op, arith.IndexCastOp) and isinstance(op.results[0].type, IndexType):
        # index scalars are Python ints, as the interpreter's loop indices
        return lambda a: int(a) if np.ndim(a) == 0 else np.asarray(a).astype(dtype)
    if isinstance(op, arith.ExtUIOp | arith.UIToFPOp):
        return lambda a: _scalar(np.asarray(_unsigned(a)).astype(dtype))
    if isinstance(op, arith.FPToUIOp):
        return lambda a: _scalar(
            np.asarray(a).astype(np.dtype(f"uint{dtype.itemsize * 8}")).view(dtype)
        )
    return lambda a: _scalar(np.asarray(a).astype(dtype))


def _bitcast(op: Operation) -> Function:
    dtype = dtype_of(op.results[0].type, op)
    return lambda a: _scalar(np.asarray(a).view(dtype))


def _select(c: Value, a: Value, b: Value) -> Value:
    return _scalar(np.where(c, a, b))


def constant(op: arith.ConstantOp) -> Value:
    """The value of an `arith.constant`: a Python int for `index`, a NumPy
    scalar for a scalar, a read-only array for a tensor."""
    value, type = op.value, op.result.type
    if isinstance(type, IndexType):
        assert isinstance(value, IntegerAttr)
        return value.value.data
    dtype = dtype_of(type, op)
    if isinstance(value, IntegerAttr | FloatAttr):
        return dtype.type(value.value.data)
    if isinstance(value, DenseIntOrFPElementsAttr):
        assert isinstance(type, ShapedType)
        shape = type.get_shape()
        data = value.get_values()
        if len(data) == 1:
            array = np.full(shape, data[0], dtype)
        else:
            array = np.array(data, dtype).reshape(shape)
        array.flags.writeable = False
        return array if shape else array[()]
    raise OpError(op, f"cannot run a constant of {value}")


_INDEX_LOW, _INDEX_SPAN = -(1 << 63), 1 << 64


def _wrapped(result: int) -> int:
    """`result` wrapped into int64, as NumPy's int64 arithmetic wraps."""
    if _INDEX_LOW <= result < -_INDEX_LOW:
        return result
    return (result - _INDEX_LOW) % _INDEX_SPAN + _INDEX_LOW


def _on_index(operation: Callable[[int, int], int]) -> Function:
    """`operation` on two `index` scalars as Python ints (a loop's offsets:
    NumPy's scalar arithmetic costs a microsecond an op), wrapping as int64."""

    def apply(a: Value, b: Value) -> int:
        return _wrapped(operation(int(a), int(b)))

    return apply


def _truncated(a: int, b: int) -> int:
    quotient = abs(a) // abs(b)
    return quotient if (a < 0) == (b < 0) else -quotient


_INDEX_DIVISIONS: dict[type[Operation], Callable[[int, int], int]] = {
    arith.DivSIOp: _truncated,
    arith.RemSIOp: lambda a, b: a - b * _truncated(a, b),
    arith.CeilDivSIOp: lambda a, b: -(-a // b),
    arith.FloorDivSIOp: operator.floordiv,
}
"""The signed divisions of `_DIVISIONS`, on Python ints (before wrapping)."""


def _index_division(op: Operation, operation: Callable[[int, int], int]) -> Function:
    """A division of `_INDEX_DIVISIONS` on two `index` scalars; a zero divisor
    is the run-time error of `_divisor`."""

    def apply(a: Value, b: Value) -> int:
        divisor = int(b)
        if not divisor:
            raise OpError(op, "divides by zero", at_run_time=True)
        return _wrapped(operation(int(a), divisor))

    return apply


_UNSIGNED = (1 << 64) - 1


def _index_comparison(predicate: str) -> Function:
    """`arith.cmpi` of two `index` scalars: a NumPy bool, as NumPy's
    comparison gives; the unsigned predicates compare the int64 bits."""
    compare = {
        "eq": operator.eq,
        "ne": operator.ne,
        "lt": operator.lt,
        "le": operator.le,
        "gt": operator.gt,
        "ge": operator.ge,
    }[predicate[1:] if predicate[0] in "su" else predicate]
    mask = _UNSIGNED if predicate[0] == "u" else -1

    def apply(a: Value, b: Value) -> np.bool_:
        return np.True_ if compare(int(a) & mask, int(b) & mask) else np.False_

    return apply


def _index_select(c: Value, a: Value, b: Value) -> int:
    return int(a if c else b)


_WRAPPING = (
    f"(inline_value if {_INDEX_LOW} <= (inline_value := {{0}} {{op}} {{1}}) "
    f"<= {-_INDEX_LOW - 1} else index_wrapped(inline_value))"
)
"""The expression of a wrapping `index` op: the call only when it overflows."""


def _inline_arithmetic(operation: Callable[[int, int], int], symbol: str) -> Inline:
    template = _WRAPPING.replace("{op}", symbol)
    return Inline(_on_index(operation), template, {"index_wrapped": _wrapped})


_INDEX: dict[type[Operation], Function] = {
    arith.AddiOp: _inline_arithmetic(operator.add, "+"),
    arith.SubiOp: _inline_arithmetic(operator.sub, "-"),
    arith.MuliOp: _inline_arithmetic(operator.mul, "*"),
    arith.MaxSIOp: Inline(_on_index(max), "({1} if {1} > {0} else {0})"),
    arith.MinSIOp: Inline(_on_index(min), "({1} if {1} < {0} else {0})"),
}
"""The integer ops of `_BINARY` that scalar `index` values (Python ints, as
the interpreter's loop indices are) take a shortcut for, with the same
results."""

_SIGNED_SYMBOLS = {
    "eq": "==",
    "ne": "!=",
    "slt": "<",
    "sle": "<=",
    "sgt": ">",
    "sge": ">=",
}
_TRUTHS = {"index_true": np.True_, "index_false": np.False_}


def index_function(op: Operation) -> Function | None:
    """A shortcut for `op` as an op of its own on `index` scalars (not in
    the whole-array body of a `linalg.generic`, whose index values are
    arrays), or None: the integer ops of a loop's bounds and of a schedule
    such as revolve's, run once an iteration, where each NumPy call on a
    scalar costs a microsecond or more."""
    if isinstance(op, arith.CmpiOp):
        if not isinstance(op.lhs.type, IndexType):
            return None
        predicate = _INTEGER_PREDICATES[op.predicate.value.data]
        compare = _index_comparison(predicate)
        if (symbol := _SIGNED_SYMBOLS.get(predicate)) is None:
            return compare
        template = f"(index_true if {{0}} {symbol} {{1}} else index_false)"
        return Inline(compare, template, _TRUTHS)
    if isinstance(op, arith.IndexCastOp) and not isinstance(op.input.type, ShapedType):
        if isinstance(op.result.type, IndexType):
            return int
        # an index is an int64: NumPy's int64 of it is the cast
        return np.int64 if op.result.type == i64 else None
    if not isinstance(op.results[0].type if op.results else None, IndexType):
        return None
    if isinstance(op, arith.SelectOp):
        return Inline(_index_select, "({1} if {0} else {2})")
    if (division := _INDEX_DIVISIONS.get(type(op))) is not None:
        return _index_division(op, division)
    return _INDEX.get(type(op))


def same_index_operand(
    op: Operation, literal: Callable[[SSAValue], object]
) -> SSAValue | None:
    """The operand of an `index` `arith.addi` or `subi` of a literal 0, or
    `muli` by a literal 1, that is its result (`literal` gives a value's
    literal or None); None for any other op."""
    if not isinstance(op, arith.AddiOp | arith.SubiOp | arith.MuliOp):
        return None
    if not isinstance(op.result.type, IndexType):
        return None
    neutral = 1 if isinstance(op, arith.MuliOp) else 0
    if _is(literal(op.rhs), neutral):
        return op.lhs
    if not isinstance(op, arith.SubiOp) and _is(literal(op.lhs), neutral):
        return op.rhs
    return None


def _is(value: object, number: int) -> bool:
    return isinstance(value, int | np.integer) and value == number


def function_of(op: Operation) -> Function | None:
    """What `op` computes, if it is one of the `arith` or `math` ops run
    elementwise (every one but `arith.constant`), else None."""
    kind = type(op)
    if kind in _FLOAT_UNARY:
        return _FLOAT_UNARY[kind]
    if kind in _BINARY:
        return _BINARY[kind]
    if kind in _DIVISIONS:
        return _DIVISIONS[kind](op)
    if isinstance(op, arith.CmpfOp):
        return _compare_float(_FLOAT_PREDICATES[op.predicate.value.data])
    if isinstance(op, arith.CmpiOp):
        return _compare_integer(_INTEGER_PREDICATES[op.predicate.value.data])
    if isinstance(op, arith.SelectOp):
        return _select
    if isinstance(op, math.FmaOp):
        return _fma
    if isinstance(op, arith.BitcastOp):
        return _bitcast(op)
    if isinstance(op, (*_CASTS, arith.ExtUIOp, arith.UIToFPOp, arith.FPToUIOp)):
        return _cast(op)
    return None


Reduction = Callable[[np.ndarray, tuple[int, ...]], np.ndarray]
"""Reduces an array over some of its axes."""


def _by(ufunc: np.ufunc) -> Reduction:
    return lambda array, axes: ufunc.reduce(array, axes, array.dtype)


def reduce_maximumf(array: np.ndarray, axes: tuple[int, ...]) -> np.ndarray:
    """`arith.maximumf` over `axes`: NumPy's `maximum.reduce` (which keeps
    NaN), with a zero result made +0.0 where any of its elements is +0.0."""
    return _reduce_ieee(array, axes, np.maximum, positive=True)


def reduce_minimumf(array: np.ndarray, axes: tuple[int, ...]) -> np.ndarray:
    """`arith.minimumf` over `axes`; a zero result is -0.0 where any of its
    elements is -0.0."""
    return _reduce_ieee(array, axes, np.minimum, positive=False)


def _reduce_ieee(
    array: np.ndarray, axes: tuple[int, ...], ufunc: np.ufunc, positive: bool
) -> np.ndarray:
    result = np.asarray(ufunc.reduce(array, axes))
    zero = result == 0
    if not np.any(zero):
        return result
    signed = np.signbit(array) != positive
    found = np.logical_or.reduce((array == 0) & signed, axes)
    sign = result.dtype.type(0.0 if positive else -0.0)
    return np.where(zero & found, sign, result)


REDUCTIONS: dict[type[Operation], Reduction] = {
    arith.AddfOp: _by(np.add),
    arith.MulfOp: _by(np.multiply),
    arith.AddiOp: _by(np.add),
    arith.MuliOp: _by(np.multiply),
    arith.MaximumfOp: reduce_maximumf,
    arith.MinimumfOp: reduce_minimumf,
    arith.MaxnumfOp: _by(np.fmax),
    arith.MinnumfOp: _by(np.fmin),
    arith.MaxSIOp: _by(np.maximum),
    arith.MinSIOp: _by(np.minimum),
    arith.AndIOp: _by(np.bitwise_and),
    arith.OrIOp: _by(np.bitwise_or),
    arith.XOrIOp: _by(np.bitwise_xor),
}
"""The combining ops a reduction body may end in (`acc = op(acc, e)`), each
with the reduction of an array by it, computed in the array's dtype."""
