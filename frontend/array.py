"""The traced array: a `grad` value that behaves like a NumPy array.

An `Array` is an SSA value of the function being traced. Its operators, methods
and the functions here follow NumPy: dtype promotion (Python numbers are weak,
as in JAX: `int32 array * 2.5` is float32), broadcasting (done here with
`grad.broadcast` and splat constants, because the `grad` ops want equal
operand types), reductions with `axis` and `keepdims`, and basic indexing.

Values are `tensor<...xf32|i32|i1>`, i.e. float32, int32 and bool. NumPy data
of another dtype (float64, int64) is refused rather than converted: a float64
array silently computed in float32 would be a surprise; Python numbers and
lists, which have no dtype of their own, are converted.
"""

from __future__ import annotations

import builtins
import math
import operator
from collections.abc import Callable, Iterator, Sequence
from typing import Any, TypeAlias, TypeGuard

import numpy as np
from numpy.typing import DTypeLike
from xdsl.dialects.builtin import DenseIntOrFPElementsAttr, TensorType, f32, i1, i32
from xdsl.ir import Attribute, Operation, SSAValue

from gradopt.dialect.ops import (
    AddOp,
    AndOp,
    BroadcastOp,
    CastOp,
    CmpEqOp,
    CmpLtOp,
    CmpNeOp,
    ConcatOp,
    ConstOp,
    DetachOp,
    DotOp,
    Exp2Op,
    IDivOp,
    Log2Op,
    MaxOp,
    ModOp,
    MulOp,
    NegOp,
    OrOp,
    PadOp,
    PermuteOp,
    RecipOp,
    ReduceOp,
    ReshapeOp,
    ReverseOp,
    SinOp,
    SliceOp,
    SqrtOp,
    WhereOp,
    XorOp,
)
from gradopt.dialect.types import fits_i32
from gradopt.frontend.trace import Trace, current_trace, error

FLOAT32, INT32, BOOL = np.dtype(np.float32), np.dtype(np.int32), np.dtype(np.bool_)
ELEMENTS: dict[np.dtype, Attribute] = {FLOAT32: f32, INT32: i32, BOOL: i1}
DTYPES: dict[Attribute, np.dtype] = {e: d for d, e in ELEMENTS.items()}
_RANK = {BOOL: 0, INT32: 1, FLOAT32: 2}
_BY_RANK = [BOOL, INT32, FLOAT32]

Scalar: TypeAlias = "bool | int | float"
ArrayLike: TypeAlias = "Array | np.ndarray | np.generic | bool | int | float | Sequence"
Shape: TypeAlias = tuple[int, ...]
Axis: TypeAlias = "int | Sequence[int] | None"


class Array:
    """A value of the traced function, with NumPy's operators and methods."""

    __slots__ = ("trace", "value")
    __hash__ = object.__hash__  # `==` builds an op, identity still hashes

    def __init__(self, trace: Trace, value: SSAValue) -> None:
        self.trace = trace
        self.value = value

    @property
    def type(self) -> TensorType:
        assert isinstance(self.value.type, TensorType)
        return self.value.type

    @property
    def shape(self) -> Shape:
        return self.type.get_shape()

    @property
    def dtype(self) -> np.dtype:
        return DTYPES[self.type.get_element_type()]

    @property
    def ndim(self) -> int:
        return len(self.shape)

    @property
    def size(self) -> int:
        return math.prod(self.shape)

    @property
    def T(self) -> Array:
        return transpose(self)

    def __repr__(self) -> str:
        return f"Array(shape={self.shape}, dtype={self.dtype})"

    def __bool__(self) -> bool:
        raise error(
            "the truth value of a traced array is not known while tracing: use "
            "gnp.where rather than if, and, or, not"
        )

    def _concrete(self, *_: object) -> object:
        raise error(
            "a traced array has no value while tracing: it cannot become a Python "
            "number or a NumPy array (return it from the traced function instead)"
        )

    __float__ = __int__ = __index__ = __array__ = _concrete

    def __array_ufunc__(
        self, ufunc: np.ufunc, method: str, *inputs: object, **kwargs: object
    ) -> Array:
        """NumPy's ufuncs on a traced array (`np.exp(x)`, and `numpy_array + x`,
        which NumPy makes `np.add(numpy_array, x)`) are gradopt.numpy's."""
        plain = method == "__call__" and "out" not in kwargs
        return _numpy_function(
            ufunc.__name__ if plain else f"{ufunc.__name__}.{method}", inputs, kwargs
        )

    def __array_function__(
        self, func: object, types: object, args: tuple, kwargs: dict
    ) -> object:
        """NumPy's functions on a traced array (`np.sum(x, axis=0)`) likewise."""
        return _numpy_function(getattr(func, "__name__", str(func)), args, kwargs)

    def __len__(self) -> int:
        if not self.shape:
            raise error("len() of a 0-d array")
        return self.shape[0]

    def __iter__(self) -> Iterator[Array]:
        return (self[i] for i in range(len(self)))

    def __getitem__(self, key: object) -> Array:
        return getitem(self, key)

    def __setitem__(self, key: object, value: object) -> None:
        raise error(
            "gradopt arrays are immutable: build a new one (gnp.where, "
            "gnp.concatenate, gnp.pad)"
        )

    def __neg__(self) -> Array:
        return negative(self)

    def __pos__(self) -> Array:
        return self

    def __abs__(self) -> Array:
        return absolute(self)

    def __invert__(self) -> Array:
        return invert(self)

    def __add__(self, other: ArrayLike) -> Array:
        return add(self, other)

    def __radd__(self, other: ArrayLike) -> Array:
        return add(other, self)

    def __sub__(self, other: ArrayLike) -> Array:
        return subtract(self, other)

    def __rsub__(self, other: ArrayLike) -> Array:
        return subtract(other, self)

    def __mul__(self, other: ArrayLike) -> Array:
        return multiply(self, other)

    def __rmul__(self, other: ArrayLike) -> Array:
        return multiply(other, self)

    def __truediv__(self, other: ArrayLike) -> Array:
        return true_divide(self, other)

    def __rtruediv__(self, other: ArrayLike) -> Array:
        return true_divide(other, self)

    def __floordiv__(self, other: ArrayLike) -> Array:
        return floor_divide(self, other)

    def __rfloordiv__(self, other: ArrayLike) -> Array:
        return floor_divide(other, self)

    def __mod__(self, other: ArrayLike) -> Array:
        return remainder(self, other)

    def __rmod__(self, other: ArrayLike) -> Array:
        return remainder(other, self)

    def __pow__(self, other: ArrayLike) -> Array:
        return power(self, other)

    def __rpow__(self, other: ArrayLike) -> Array:
        return power(other, self)

    def __matmul__(self, other: ArrayLike) -> Array:
        return matmul(self, other)

    def __rmatmul__(self, other: ArrayLike) -> Array:
        return matmul(other, self)

    def __and__(self, other: ArrayLike) -> Array:
        return bitwise_and(self, other)

    def __rand__(self, other: ArrayLike) -> Array:
        return bitwise_and(other, self)

    def __or__(self, other: ArrayLike) -> Array:
        return bitwise_or(self, other)

    def __ror__(self, other: ArrayLike) -> Array:
        return bitwise_or(other, self)

    def __xor__(self, other: ArrayLike) -> Array:
        return bitwise_xor(self, other)

    def __rxor__(self, other: ArrayLike) -> Array:
        return bitwise_xor(other, self)

    def __lt__(self, other: ArrayLike) -> Array:
        return less(self, other)

    def __le__(self, other: ArrayLike) -> Array:
        return less_equal(self, other)

    def __gt__(self, other: ArrayLike) -> Array:
        return greater(self, other)

    def __ge__(self, other: ArrayLike) -> Array:
        return greater_equal(self, other)

    def __eq__(self, other: Any) -> Array:  # pyright: ignore[reportIncompatibleMethodOverride]
        return equal(self, other)

    def __ne__(self, other: Any) -> Array:  # pyright: ignore[reportIncompatibleMethodOverride]
        return not_equal(self, other)

    def astype(self, dtype: DTypeLike) -> Array:
        return astype(self, dtype)

    def reshape(self, *shape: Any) -> Array:
        return reshape(self, shape[0] if len(shape) == 1 else shape)

    def transpose(self, *axes: Any) -> Array:
        return transpose(self, (axes[0] if len(axes) == 1 else axes) or None)

    def ravel(self) -> Array:
        return reshape(self, (-1,))

    flatten = ravel

    def squeeze(self, axis: Axis = None) -> Array:
        return squeeze(self, axis)

    def sum(self, axis: Axis = None, keepdims: bool = False) -> Array:
        return sum(self, axis, keepdims=keepdims)

    def mean(self, axis: Axis = None, keepdims: bool = False) -> Array:
        return mean(self, axis, keepdims=keepdims)

    def var(self, axis: Axis = None, ddof: int = 0, keepdims: bool = False) -> Array:
        return var(self, axis, ddof=ddof, keepdims=keepdims)

    def std(self, axis: Axis = None, ddof: int = 0, keepdims: bool = False) -> Array:
        return std(self, axis, ddof=ddof, keepdims=keepdims)

    def max(self, axis: Axis = None, keepdims: bool = False) -> Array:
        return max(self, axis, keepdims=keepdims)

    def min(self, axis: Axis = None, keepdims: bool = False) -> Array:
        return min(self, axis, keepdims=keepdims)

    def prod(self, axis: Axis = None, keepdims: bool = False) -> Array:
        return prod(self, axis, keepdims=keepdims)

    def any(self, axis: Axis = None, keepdims: bool = False) -> Array:
        return any(self, axis, keepdims=keepdims)

    def all(self, axis: Axis = None, keepdims: bool = False) -> Array:
        return all(self, axis, keepdims=keepdims)

    def argmax(self, axis: int | None = None) -> Array:
        return argmax(self, axis)

    def argmin(self, axis: int | None = None) -> Array:
        return argmin(self, axis)

    def clip(self, a_min: ArrayLike | None = None, a_max: ArrayLike | None = None):
        return clip(self, a_min, a_max)


def _numpy_function(name: str, args: tuple, kwargs: dict) -> Array:
    from gradopt.frontend import numpy as gnp  # which imports this module

    if name not in gnp.__all__:
        raise error(f"numpy.{name} has no gradopt.numpy counterpart for traced arrays")
    return getattr(gnp, name)(*args, **kwargs)


# --- Making values -----------------------------------------------------------


def trace() -> Trace:
    """The active trace; gradopt.numpy has nothing to compute on outside one."""
    if (active := current_trace()) is None:
        raise error(
            "gradopt.numpy and gradopt.nn work on traced values: call this inside "
            "a function given to gradopt.jit, grad, value_and_grad, vjp or jvp"
        )
    return active


def emit(op: Operation) -> Array:
    active = trace()
    active.emit(op)
    return Array(active, op.results[0])


def tensor(dtype: np.dtype, shape: Sequence[int]) -> TensorType:
    return TensorType(ELEMENTS[dtype], [int(d) for d in shape])


def canonical_dtype(dtype: DTypeLike) -> np.dtype:
    """One of float32, int32 and bool; Python's `float`, `int` and `bool` name
    them (as in JAX), anything else is refused."""
    for python, canonical in ((float, FLOAT32), (int, INT32), (bool, BOOL)):
        if dtype is python:
            return canonical
    try:
        result = np.dtype(dtype)
    except TypeError:
        raise error(f"not a dtype: {dtype!r}") from None
    if result not in ELEMENTS:
        raise error(
            f"gradopt arrays hold float32, int32 or bool data, not {result}"
            + (": convert it with .astype(np.float32)" if result.kind == "f" else "")
            + (": convert it with .astype(np.int32)" if result.kind in "iu" else "")
        )
    return result


def is_scalar(x: object) -> TypeGuard[bool | int | float]:
    """A Python number (weakly typed: it takes the other operand's dtype)."""
    return isinstance(x, bool | int | float) and not isinstance(x, np.generic)


def int_list(values: object, what: str) -> list[int]:
    """An int or a sequence of ints (NumPy's too) as a list of ints."""
    try:
        if isinstance(values, int | np.integer):
            return [operator.index(values)]
        return [operator.index(v) for v in values]  # pyright: ignore[reportGeneralTypeIssues]
    except TypeError:
        raise error(f"{what} must be an int or ints, got {values!r}") from None


def scalar_dtype(x: Scalar) -> np.dtype:
    """The dtype a Python number has on its own (an input, a constant)."""
    return BOOL if isinstance(x, bool) else INT32 if isinstance(x, int) else FLOAT32


def _python(x: Any) -> Any:
    """NumPy scalars of dtypes gradopt does not hold (float64, int64) are plain
    numbers, like Python's; those of float32, int32 and bool stay typed."""
    if isinstance(x, np.generic) and x.dtype not in ELEMENTS and x.dtype.kind in "biuf":
        return x.item()
    return x


def full(shape: Sequence[int], value: Scalar, dtype: DTypeLike | None = None) -> Array:
    """A splat constant (one scalar attribute whatever the shape)."""
    if not is_scalar(value) and not isinstance(value, np.generic):
        raise error(f"a fill value must be a number, got {value!r}")
    dtype = canonical_dtype(dtype) if dtype is not None else scalar_dtype(value)
    if dtype == INT32 and not fits_i32(int(value)):
        raise error(f"{value} is out of range for int32")
    item = np.asarray(value).astype(dtype)
    active, shape = trace(), tuple(shape)
    key = ("splat", dtype, shape, item.tobytes())
    if (known := active.constants.get(key)) is None:
        known = active.emit(ConstOp.splat(item.item(), tensor(dtype, shape))).results[0]
        active.constants[key] = known
    return Array(active, known)


def constant(data: np.ndarray) -> Array:
    """NumPy data of a supported dtype as a `grad.const`."""
    flat = np.ascontiguousarray(data).reshape(-1)
    bits = flat.view(np.uint8).reshape(flat.size, flat.itemsize)
    if flat.size and (bits == bits[0]).all():  # one value: a splat
        return full(data.shape, flat[0].item(), data.dtype)
    active = trace()
    key = ("dense", data.dtype, data.shape, flat.tobytes())
    if (known := active.constants.get(key)) is None:
        type = tensor(data.dtype, data.shape)
        attr = DenseIntOrFPElementsAttr.from_list(
            type,  # pyright: ignore[reportArgumentType, reportCallIssue]
            flat.tolist(),
        )
        known = active.emit(ConstOp(attr, type)).results[0]
        active.constants[key] = known
    return Array(active, known)


def asarray(x: ArrayLike, dtype: DTypeLike | None = None) -> Array:
    """`x` as a traced array: an `Array` of this trace, or a constant."""
    x = _python(x)
    if isinstance(x, Array):
        if x.trace is not trace():
            raise error(
                "a traced array was used outside the function call that traced it"
            )
        return x if dtype is None else astype(x, dtype)
    if is_scalar(x):
        return full((), x, dtype)
    if isinstance(x, list | tuple):
        if builtins.any(isinstance(e, Array) for e in _leaves(x)):
            return _stack_nested(x, dtype)
        data = np.asarray(x)
        if dtype is None and data.dtype.kind in "biuf":  # Python data has no dtype
            dtype = {"b": BOOL, "f": FLOAT32}.get(data.dtype.kind, INT32)
            if (
                dtype == INT32
                and data.size
                and not (fits_i32(int(data.min())) and fits_i32(int(data.max())))
            ):
                raise error("a list of integers out of range for int32")
        x = data
    if isinstance(x, np.ndarray | np.generic):
        data = np.asarray(x)
        if dtype is not None:
            data = data.astype(canonical_dtype(dtype))
        canonical_dtype(data.dtype)
        return constant(data)
    raise error(f"cannot use a {type(x).__name__} as an array")


def _leaves(x: object) -> Iterator[object]:
    if isinstance(x, list | tuple):
        for e in x:
            yield from _leaves(e)
    else:
        yield x


def _stack_nested(x: list | tuple, dtype: DTypeLike | None) -> Array:
    parts = [
        asarray(e) if not isinstance(e, list | tuple) else _stack_nested(e, None)
        for e in x
    ]
    result = stack(parts)
    return result if dtype is None else astype(result, dtype)


# --- Types and shapes of operands --------------------------------------------


def result_dtype(*xs: Array | Scalar) -> np.dtype:
    """NumPy's promotion among bool < int32 < float32, Python numbers weak."""
    return _BY_RANK[
        builtins.max(
            _RANK[x.dtype if isinstance(x, Array) else scalar_dtype(x)] for x in xs
        )
    ]


def broadcast_shapes(*shapes: Shape) -> Shape:
    try:
        return tuple(np.broadcast_shapes(*shapes))
    except ValueError:
        raise error(
            "shapes " + " and ".join(str(s) for s in shapes) + " do not broadcast"
        ) from None


def operands(*xs: ArrayLike, dtype: np.dtype | None = None) -> list[Array]:
    """`xs` as arrays of one dtype (promoted, or `dtype`) and one shape."""
    values = [_python(x) for x in xs]
    values = [x if is_scalar(x) else asarray(x) for x in values]
    dtype = result_dtype(*values) if dtype is None else dtype
    shape = broadcast_shapes(*(x.shape for x in values if isinstance(x, Array)))
    return [
        broadcast_to(astype(x, dtype), shape)
        if isinstance(x, Array)
        else full(shape, x, dtype)
        for x in values
    ]


def astype(x: ArrayLike, dtype: DTypeLike) -> Array:
    x, dtype = asarray(x), canonical_dtype(dtype)
    if x.dtype == dtype:
        return x
    return emit(CastOp(x.value, tensor(dtype, x.shape)))


def floating(x: ArrayLike) -> Array:
    """`x` as float32 (NumPy computes `exp` of ints in floating point too)."""
    x = asarray(x)
    return x if x.dtype == FLOAT32 else astype(x, FLOAT32)


def broadcast_to(x: ArrayLike, shape: Sequence[int]) -> Array:
    """NumPy's `broadcast_to`: trailing dims aligned, size-1 dims expanded."""
    x, shape = asarray(x), tuple(shape)
    if x.shape == shape:
        return x
    offset = len(shape) - x.ndim
    if offset < 0 or builtins.any(
        d not in (1, shape[offset + i]) for i, d in enumerate(x.shape)
    ):
        raise error(f"cannot broadcast shape {x.shape} to {shape}")
    return broadcast_in_dim(x, shape, range(offset, len(shape)))


def broadcast_in_dim(x: Array, shape: Sequence[int], dims: Sequence[int]) -> Array:
    return emit(BroadcastOp(x.value, list(dims), tensor(x.dtype, shape)))


def _unary(cls: Callable[..., Operation], x: Array) -> Array:
    return emit(cls(x.value))


def _binary(cls: Callable[..., Operation], a: Array, b: Array) -> Array:
    return emit(cls(a.value, b.value))


def _no_float(what: str, *xs: Array) -> None:
    if builtins.any(x.dtype == FLOAT32 for x in xs):
        raise error(f"{what} needs int32 or bool operands, got float32")


# --- Elementwise arithmetic ----------------------------------------------------


def add(a: ArrayLike, b: ArrayLike) -> Array:
    a, b = operands(a, b)
    return _binary(OrOp if a.dtype == BOOL else AddOp, a, b)


def multiply(a: ArrayLike, b: ArrayLike) -> Array:
    a, b = operands(a, b)
    return _binary(AndOp if a.dtype == BOOL else MulOp, a, b)


def negative(x: ArrayLike) -> Array:
    x = asarray(x)
    if x.dtype == BOOL:
        raise error("negative of a bool array: use ~ or gnp.logical_not")
    return _unary(NegOp, x)


def subtract(a: ArrayLike, b: ArrayLike) -> Array:
    a, b = operands(a, b)
    if a.dtype == BOOL:
        raise error("subtraction of bool arrays: use ^ or gnp.logical_xor")
    return _binary(AddOp, a, _unary(NegOp, b))


def reciprocal(x: ArrayLike) -> Array:
    return _unary(RecipOp, floating(x))


def true_divide(a: ArrayLike, b: ArrayLike) -> Array:
    """`a · recip(b)`; a Python number `b` becomes the constant `1/b`."""
    b = _python(b)
    if is_scalar(b) and not isinstance(b, bool):
        with np.errstate(divide="ignore"):  # 1/0 is inf, as it will be at run time
            return multiply(floating(a), float(np.float32(1) / np.float32(b)))
    a, b = operands(a, b, dtype=FLOAT32)
    return _binary(MulOp, a, _unary(RecipOp, b))


divide = true_divide


def floor_divide(a: ArrayLike, b: ArrayLike) -> Array:
    """Python's `//` on int32: the quotient rounded down (grad.idiv rounds
    toward zero, as C does; one less where the signs differ and it is inexact)."""
    a, b = operands(a, b)
    _no_float("// (floor division)", a)
    q, r = _binary(IDivOp, a, b), _binary(ModOp, a, b)
    return subtract(q, astype(_inexact_opposite(r, b), INT32))


def remainder(a: ArrayLike, b: ArrayLike) -> Array:
    """Python's `%` on int32: the remainder has the sign of the divisor."""
    a, b = operands(a, b)
    _no_float("% (remainder)", a)
    r = _binary(ModOp, a, b)
    return where(_inexact_opposite(r, b), add(r, b), r)


def _inexact_opposite(r: Array, b: Array) -> Array:
    return bitwise_and(not_equal(r, 0), not_equal(less(r, 0), less(b, 0)))


def power(a: ArrayLike, b: ArrayLike) -> Array:
    """`a ** b`. An integer `b` is repeated multiplication (exact, as JAX's
    integer_pow); 0.5 is `sqrt`; otherwise `exp2(b · log2 a)`, which is NaN
    for a negative `a`."""
    b = _python(b)
    if isinstance(b, float) and b.is_integer() and abs(b) <= 2**31:
        a, b = floating(a), int(b)  # as NumPy: an int to a float power is a float
    if isinstance(b, int) and not isinstance(b, bool):
        a = asarray(a)
        if a.dtype == BOOL:
            a = astype(a, INT32)
        if b < 0 and a.dtype != FLOAT32:
            raise error("integers to negative integer powers are not allowed")
        return _integer_power(a, b)
    if isinstance(b, float) and b == 0.5:
        return _unary(SqrtOp, floating(a))
    a, b = operands(a, b, dtype=FLOAT32)
    return _unary(Exp2Op, _binary(MulOp, b, _unary(Log2Op, a)))


def _integer_power(x: Array, n: int) -> Array:
    result, base, k = None, x, abs(n)
    while k:
        if k & 1:
            result = base if result is None else _binary(MulOp, result, base)
        k >>= 1
        if k:
            base = _binary(MulOp, base, base)
    if result is None:
        return full(x.shape, 1, x.dtype)
    return _unary(RecipOp, result) if n < 0 else result


def exp2(x: ArrayLike) -> Array:
    return _unary(Exp2Op, floating(x))


def log2(x: ArrayLike) -> Array:
    return _unary(Log2Op, floating(x))


def sqrt(x: ArrayLike) -> Array:
    return _unary(SqrtOp, floating(x))


def sin(x: ArrayLike) -> Array:
    return _unary(SinOp, floating(x))


def stop_gradient(x: ArrayLike) -> Array:
    """The value of `x`, through which no gradient flows (`grad.detach`)."""
    return _unary(DetachOp, asarray(x))


def maximum(a: ArrayLike, b: ArrayLike) -> Array:
    """Elementwise maximum; NaN if either is NaN; ties split the gradient."""
    a, b = operands(a, b)
    return _binary(OrOp if a.dtype == BOOL else MaxOp, a, b)


def minimum(a: ArrayLike, b: ArrayLike) -> Array:
    """`-max(-a, -b)`, exact; int32 uses `~` rather than `-`, which does not
    overflow."""
    a, b = operands(a, b)
    if a.dtype == BOOL:
        return _binary(AndOp, a, b)
    flip = invert if a.dtype == INT32 else negative
    return flip(_binary(MaxOp, flip(a), flip(b)))


def absolute(x: ArrayLike) -> Array:
    """`max(x, -x)`: at 0 the tie splits the gradient, which gives 0 (as
    JAX's `sign(0)`)."""
    x = asarray(x)
    return x if x.dtype == BOOL else _binary(MaxOp, x, _unary(NegOp, x))


def where(condition: ArrayLike, x: ArrayLike, y: ArrayLike) -> Array:
    c = asarray(condition)
    if c.dtype != BOOL:
        c = not_equal(c, 0)
    x, y = operands(x, y)
    shape = broadcast_shapes(c.shape, x.shape)
    c, x, y = (broadcast_to(v, shape) for v in (c, x, y))
    return emit(WhereOp(c.value, x.value, y.value))


def clip(
    x: ArrayLike, a_min: ArrayLike | None = None, a_max: ArrayLike | None = None
) -> Array:
    result = asarray(x)
    if a_min is not None:
        result = maximum(result, a_min)
    if a_max is not None:
        result = minimum(result, a_max)
    return result


# --- Comparisons and logic ----------------------------------------------------


def _ordered(a: ArrayLike, b: ArrayLike) -> list[Array]:
    """Operands for `<`: `grad.cmplt` orders f32 and i32, so bools become i32."""
    a, b = operands(a, b)
    return [astype(a, INT32), astype(b, INT32)] if a.dtype == BOOL else [a, b]


def less(a: ArrayLike, b: ArrayLike) -> Array:
    return _binary(CmpLtOp, *_ordered(a, b))


def greater(a: ArrayLike, b: ArrayLike) -> Array:
    return less(b, a)


def less_equal(a: ArrayLike, b: ArrayLike) -> Array:
    """`a < b or a == b` (not `not b < a`, which would hold for NaN)."""
    a, b = _ordered(a, b)
    return _binary(OrOp, _binary(CmpLtOp, a, b), _binary(CmpEqOp, a, b))


def greater_equal(a: ArrayLike, b: ArrayLike) -> Array:
    return less_equal(b, a)


def equal(a: ArrayLike, b: ArrayLike) -> Array:
    return _binary(CmpEqOp, *operands(a, b))


def not_equal(a: ArrayLike, b: ArrayLike) -> Array:
    return _binary(CmpNeOp, *operands(a, b))


def bitwise_and(a: ArrayLike, b: ArrayLike) -> Array:
    a, b = operands(a, b)
    _no_float("&", a)
    return _binary(AndOp, a, b)


def bitwise_or(a: ArrayLike, b: ArrayLike) -> Array:
    a, b = operands(a, b)
    _no_float("|", a)
    return _binary(OrOp, a, b)


def bitwise_xor(a: ArrayLike, b: ArrayLike) -> Array:
    a, b = operands(a, b)
    _no_float("^", a)
    return _binary(XorOp, a, b)


def invert(x: ArrayLike) -> Array:
    """`~x`: logical not of bools, bitwise not of int32."""
    x = asarray(x)
    _no_float("~", x)
    return _binary(XorOp, x, full(x.shape, True if x.dtype == BOOL else -1, x.dtype))


# --- Shapes -------------------------------------------------------------------


def reshape(x: ArrayLike, shape: int | Sequence[int]) -> Array:
    x = asarray(x)
    shape = int_list(shape, "a shape")
    if shape.count(-1) > 1 or builtins.any(d < -1 for d in shape):
        raise error(f"invalid shape {tuple(shape)} for reshape")
    if -1 in shape:
        known = math.prod(d for d in shape if d != -1)
        if known == 0 or x.size % known:
            raise error(f"cannot reshape an array of shape {x.shape} to {tuple(shape)}")
        shape[shape.index(-1)] = x.size // known
    if math.prod(shape) != x.size:
        raise error(f"cannot reshape an array of shape {x.shape} to {tuple(shape)}")
    if tuple(shape) == x.shape:
        return x
    return emit(ReshapeOp(x.value, tensor(x.dtype, shape)))


def normalize_axis(axis: int, ndim: int) -> int:
    if not -ndim <= axis < ndim:
        raise error(f"axis {axis} is out of bounds for an array of dimension {ndim}")
    return axis % ndim


def normalize_axes(axis: Axis, ndim: int) -> tuple[int, ...]:
    """Sorted axes in [0, ndim); None is every axis."""
    if axis is None:
        return tuple(range(ndim))
    axes = int_list(axis, "axis")
    result = [normalize_axis(int(a), ndim) for a in axes]
    if len(set(result)) != len(result):
        raise error(f"repeated axis in {tuple(axes)}")
    return tuple(sorted(result))


def transpose(x: ArrayLike, axes: Sequence[int] | None = None) -> Array:
    x = asarray(x)
    perm = list(range(x.ndim))[::-1] if axes is None else int_list(axes, "axes")
    if len(perm) != x.ndim or sorted(normalize_axis(a, x.ndim) for a in perm) != list(
        range(x.ndim)
    ):
        raise error(f"axes {tuple(perm)} are not a permutation of {x.ndim} dims")
    perm = [normalize_axis(a, x.ndim) for a in perm]
    if perm == list(range(x.ndim)):
        return x
    shape = [x.shape[p] for p in perm]
    return emit(PermuteOp(x.value, perm, tensor(x.dtype, shape)))


def squeeze(x: ArrayLike, axis: Axis = None) -> Array:
    x = asarray(x)
    if axis is None:
        axes = tuple(i for i, d in enumerate(x.shape) if d == 1)
    else:
        axes = normalize_axes(axis, x.ndim)
    if builtins.any(x.shape[a] != 1 for a in axes):
        raise error(f"cannot squeeze axes {axes} of shape {x.shape}: not of size 1")
    return reshape(x, [d for i, d in enumerate(x.shape) if i not in axes])


def expand_dims(x: ArrayLike, axis: int | Sequence[int]) -> Array:
    x = asarray(x)
    axis = int_list(axis, "axis")
    ndim = x.ndim + len(axis)
    axes = normalize_axes(axis, ndim)
    return reshape(x, _kept_shape(x.shape, axes, len(axes)))


# --- Reductions ---------------------------------------------------------------


def _reduce(kind: str, x: Array, axes: tuple[int, ...], keepdims: bool) -> Array:
    if axes:
        kept = [d for i, d in enumerate(x.shape) if i not in axes]
        x = emit(ReduceOp(kind, x.value, axes, tensor(x.dtype, kept)))
    return x if not keepdims else reshape(x, _kept_shape(x.shape, axes, len(axes)))


def _kept_shape(shape: Shape, axes: tuple[int, ...], count: int) -> list[int]:
    sizes = iter(shape)
    return [1 if i in axes else next(sizes) for i in range(len(shape) + count)]


def _accumulate(
    kind: str, x: ArrayLike, axis: Axis, dtype: DTypeLike | None, keepdims: bool
) -> Array:
    """`sum` and `prod`: booleans count as int32, as in NumPy."""
    x = asarray(x)
    x = astype(x, dtype or (INT32 if x.dtype == BOOL else x.dtype))
    return _reduce(kind, x, normalize_axes(axis, x.ndim), keepdims)


def sum(
    x: ArrayLike,
    axis: Axis = None,
    dtype: DTypeLike | None = None,
    keepdims: bool = False,
) -> Array:
    return _accumulate("add", x, axis, dtype, keepdims)


def prod(
    x: ArrayLike,
    axis: Axis = None,
    dtype: DTypeLike | None = None,
    keepdims: bool = False,
) -> Array:
    """`grad.reduce mul`, which has no gradient rule (SPEC §4 rule 5)."""
    return _accumulate("mul", x, axis, dtype, keepdims)


def mean(
    x: ArrayLike,
    axis: Axis = None,
    dtype: DTypeLike | None = None,
    keepdims: bool = False,
) -> Array:
    x = floating(x) if dtype is None else astype(x, dtype)
    axes = normalize_axes(axis, x.ndim)
    count = math.prod(x.shape[a] for a in axes)
    total = _reduce("add", x, axes, keepdims)
    return multiply(
        total, float(np.float32(1) / np.float32(count)) if count else np.nan
    )


def var(
    x: ArrayLike,
    axis: Axis = None,
    dtype: DTypeLike | None = None,
    ddof: int = 0,
    keepdims: bool = False,
) -> Array:
    x = floating(x) if dtype is None else astype(x, dtype)
    axes = normalize_axes(axis, x.ndim)
    centered = subtract(x, mean(x, axes, keepdims=True))
    count = math.prod(x.shape[a] for a in axes)
    total = sum(multiply(centered, centered), axes, keepdims=keepdims)
    return true_divide(total, float(builtins.max(count - ddof, 0)))


def std(
    x: ArrayLike,
    axis: Axis = None,
    dtype: DTypeLike | None = None,
    ddof: int = 0,
    keepdims: bool = False,
) -> Array:
    return sqrt(var(x, axis, dtype, ddof, keepdims))


def _extremum(x: ArrayLike, axis: Axis, what: str) -> tuple[Array, tuple[int, ...]]:
    x = asarray(x)
    axes = normalize_axes(axis, x.ndim)
    if builtins.any(x.shape[a] == 0 for a in axes):
        raise error(f"{what} of an empty array: it has no identity")
    return x, axes


def max(x: ArrayLike, axis: Axis = None, keepdims: bool = False) -> Array:
    """`grad.reduce max`; ties split the gradient evenly (SPEC §5.3)."""
    x, axes = _extremum(x, axis, "max")
    if x.dtype == BOOL:
        return astype(_reduce("max", astype(x, INT32), axes, keepdims), BOOL)
    return _reduce("max", x, axes, keepdims)


def min(x: ArrayLike, axis: Axis = None, keepdims: bool = False) -> Array:
    x, axes = _extremum(x, axis, "min")
    if x.dtype == BOOL:
        return astype(min(astype(x, INT32), axes, keepdims), BOOL)
    flip = invert if x.dtype == INT32 else negative
    return flip(_reduce("max", flip(x), axes, keepdims))


def any(x: ArrayLike, axis: Axis = None, keepdims: bool = False) -> Array:
    x = asarray(x)
    return max(x if x.dtype == BOOL else not_equal(x, 0), axis, keepdims)


def all(x: ArrayLike, axis: Axis = None, keepdims: bool = False) -> Array:
    x = asarray(x)
    return min(x if x.dtype == BOOL else not_equal(x, 0), axis, keepdims)


def argmax(x: ArrayLike, axis: int | None = None) -> Array:
    """The first index of the maximum (or of a NaN), as int32."""
    return _arg(asarray(x), axis, max, "argmax")


def argmin(x: ArrayLike, axis: int | None = None) -> Array:
    return _arg(asarray(x), axis, min, "argmin")


def _arg(
    x: Array, axis: int | None, extremum: Callable[..., Array], what: str
) -> Array:
    if axis is None:
        x, axis = reshape(x, (-1,)), 0
    axis = normalize_axis(axis, x.ndim)
    if x.shape[axis] == 0:
        raise error(f"{what} of an empty sequence")
    best = extremum(x, axis, keepdims=True)
    hit = equal(x, best)
    if x.dtype == FLOAT32:
        hit = bitwise_or(hit, not_equal(x, x))  # the first NaN, as NumPy
    index = np.arange(x.shape[axis], dtype=np.int32)
    index = broadcast_in_dim(constant(index), x.shape, [axis])
    return min(where(hit, index, x.shape[axis]), axis)


# --- Matrix products ------------------------------------------------------------


def matmul(a: ArrayLike, b: ArrayLike) -> Array:
    """NumPy's `matmul` in float32 with `grad.dot`: 1-D operands get a unit dim,
    batch dims broadcast. Batches on one side only fold into the matrix (rows
    of `a`, or columns of `b` after a permute), so that only batches on both
    sides need a batched `grad.dot`."""
    a, b = floating(a), floating(b)
    if a.ndim == 0 or b.ndim == 0:
        raise error("matmul of a 0-d array: use * to multiply by a scalar")
    shapes, vector_a, vector_b = (a.shape, b.shape), a.ndim == 1, b.ndim == 1
    if vector_a:
        a = reshape(a, (1, a.shape[0]))
    if vector_b:
        b = reshape(b, (b.shape[0], 1))
    (m, k), (k2, n) = a.shape[-2:], b.shape[-2:]
    if k != k2:
        raise error(
            f"matmul: shapes {shapes[0]} and {shapes[1]} do not align ({k} != {k2})"
        )
    batch = broadcast_shapes(a.shape[:-2], b.shape[:-2])
    size = math.prod(batch)
    if math.prod(b.shape[:-2]) == 1:
        rows = reshape(a, (math.prod(a.shape[:-1]), k))
        result = dot2d(rows, reshape(b, (k, n)))
    elif math.prod(a.shape[:-2]) == 1:
        b = broadcast_to(b, (*batch, k, n))
        columns = transpose(b, [len(batch), *range(len(batch)), len(batch) + 1])
        product = dot2d(reshape(a, (m, k)), reshape(columns, (k, size * n)))
        product = reshape(product, (m, *batch, n))
        result = transpose(product, [*range(1, len(batch) + 1), 0, len(batch) + 1])
    else:
        a = reshape(broadcast_to(a, (*batch, m, k)), (size, m, k))
        b = reshape(broadcast_to(b, (*batch, k, n)), (size, k, n))
        result = batched_dot(a, b)
    shape = [*batch, *([] if vector_a else [m]), *([] if vector_b else [n])]
    return reshape(result, shape)


def dot2d(a: Array, b: Array) -> Array:
    return _binary(DotOp, a, b)


# --- Indexing -------------------------------------------------------------------


def getitem(x: Array, key: object) -> Array:
    """Basic indexing: ints, slices (any step), `...` and `None`. A slice is a
    `grad.slice` (a negative step a `grad.reverse` first), then one reshape
    drops the integer-indexed dims and adds the `None` ones; what selects
    whole dims costs nothing."""
    keys = list(key) if isinstance(key, tuple) else [key]
    for k in keys:
        if not (k is None or k is Ellipsis or isinstance(k, slice) or _is_index(k)):
            raise error(
                f"only basic indexing (ints, slices, ..., None) is supported, "
                f"not {type(k).__name__}"
            )
    if keys.count(Ellipsis) > 1:
        raise error("an index can only have a single ellipsis ('...')")
    indexed = len([k for k in keys if k is not None and k is not Ellipsis])
    if indexed > x.ndim:
        raise error(f"too many indices for an array of dimension {x.ndim}")
    fill = [slice(None)] * (x.ndim - indexed)
    at = keys.index(Ellipsis) if Ellipsis in keys else len(keys)
    keys = keys[:at] + fill + keys[at + 1 :]
    start, limit, stride, reversed_dims, shape = [], [], [], [], []
    dim = 0
    for k in keys:
        if k is None:
            shape.append(1)
            continue
        size = x.shape[dim]
        if isinstance(k, slice):
            first, stop, step = k.indices(size)
            count = len(range(first, stop, step))
            if count <= 1:  # nothing, or one element: no step, no reverse
                first, step = (first if count else 0), 1
            elif step < 0:  # reversed, the same elements are a positive step
                reversed_dims.append(dim)
                first, step = size - 1 - first, -step
            start.append(first)
            limit.append(first + (count - 1) * step + 1 if count else first)
            stride.append(step)
            shape.append(count)
        elif _is_index(k):
            index = int(k)
            if not -size <= index < size:
                raise error(
                    f"index {index} is out of bounds for axis {dim} with size {size}"
                )
            start.append(index % size)
            limit.append(index % size + 1)
            stride.append(1)
        dim += 1
    if reversed_dims:
        x = reverse(x, reversed_dims)
    whole = start == [0] * x.ndim and limit == list(x.shape)
    if not whole or builtins.any(s != 1 for s in stride):
        x = slice_array(x, start, limit, stride)
    return reshape(x, shape)


def _is_index(k: object) -> TypeGuard[int | np.integer]:
    return isinstance(k, int | np.integer) and not isinstance(k, bool | np.bool_)


# --- Data movement: slice, pad, reverse, concat, batched dot --------------------


def slice_array(
    x: Array, start: Sequence[int], limit: Sequence[int], stride: Sequence[int]
) -> Array:
    """`grad.slice`: like `stablehlo.slice`."""
    start, limit, stride = ([int(v) for v in vs] for vs in (start, limit, stride))
    return emit(SliceOp(x.value, start, limit, stride))


def pad_array(
    x: Array,
    low: Sequence[int],
    high: Sequence[int],
    interior: Sequence[int],
    value: Scalar,
) -> Array:
    """`grad.pad`: like `stablehlo.pad`, `value` a literal of x's dtype."""
    literal = np.asarray(value).astype(x.dtype).item()
    low, high, interior = ([int(v) for v in vs] for vs in (low, high, interior))
    return emit(PadOp(x.value, low, high, interior, literal))


def reverse(x: Array, dims: Sequence[int]) -> Array:
    """`grad.reverse` of the listed dims."""
    return emit(ReverseOp(x.value, sorted(int(d) for d in dims)))


def concat(xs: Sequence[Array], dim: int) -> Array:
    """`grad.concat` of arrays of one dtype along `dim`."""
    if len(xs) == 1:
        return xs[0]
    return emit(ConcatOp([x.value for x in xs], int(dim)))


def batched_dot(a: Array, b: Array) -> Array:
    """`grad.dot` of rank 3: (B, M, K) by (B, K, N)."""
    return _binary(DotOp, a, b)


def stack(xs: Sequence[ArrayLike], axis: int = 0) -> Array:
    arrays = [asarray(x) for x in xs]
    if not arrays:
        raise error("need at least one array to stack")
    if len({x.shape for x in arrays}) != 1:
        raise error(
            "all arrays to stack must have the same shape, got "
            + ", ".join(str(x.shape) for x in arrays)
        )
    axis = normalize_axis(axis, arrays[0].ndim + 1)
    dtype = result_dtype(*arrays)
    return concat([expand_dims(astype(x, dtype), axis) for x in arrays], axis)
