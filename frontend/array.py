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
from xdsl.dialects.builtin import TensorType, f32, i1, i32
from xdsl.ir import Attribute, Operation, SSAValue

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

    __slots__ = ("owner", "value")
    __hash__ = object.__hash__  # `==` builds an op, identity still hashes

    def __init__(self, owner: Trace, value: SSAValue) -> None:
        self.owner = owner  # the trace that made it (`trace` is NumPy's method)
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
        return _NUMPY["transpose"](self)

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
        return _NUMPY["getitem"](self, key)

    def __setitem__(self, key: object, value: object) -> None:
        raise error(
            "gradopt arrays are immutable: build a new one (gnp.where, "
            "gnp.concatenate, gnp.pad)"
        )

    def __neg__(self) -> Array:
        return _NUMPY["negative"](self)

    def __pos__(self) -> Array:
        return self

    def __abs__(self) -> Array:
        return _NUMPY["absolute"](self)

    def __invert__(self) -> Array:
        return _NUMPY["invert"](self)

    def __add__(self, other: ArrayLike) -> Array:
        return _NUMPY["add"](self, other)

    def __radd__(self, other: ArrayLike) -> Array:
        return _NUMPY["add"](other, self)

    def __sub__(self, other: ArrayLike) -> Array:
        return _NUMPY["subtract"](self, other)

    def __rsub__(self, other: ArrayLike) -> Array:
        return _NUMPY["subtract"](other, self)

    def __mul__(self, other: ArrayLike) -> Array:
        return _NUMPY["multiply"](self, other)

    def __rmul__(self, other: ArrayLike) -> Array:
        return _NUMPY["multiply"](other, self)

    def __truediv__(self, other: ArrayLike) -> Array:
        return _NUMPY["true_divide"](self, other)

    def __rtruediv__(self, other: ArrayLike) -> Array:
        return _NUMPY["true_divide"](other, self)

    def __floordiv__(self, other: ArrayLike) -> Array:
        return _NUMPY["floor_divide"](self, other)

    def __rfloordiv__(self, other: ArrayLike) -> Array:
        return _NUMPY["floor_divide"](other, self)

    def __mod__(self, other: ArrayLike) -> Array:
        return _NUMPY["remainder"](self, other)

    def __rmod__(self, other: ArrayLike) -> Array:
        return _NUMPY["remainder"](other, self)

    def __pow__(self, other: ArrayLike) -> Array:
        return _NUMPY["power"](self, other)

    def __rpow__(self, other: ArrayLike) -> Array:
        return _NUMPY["power"](other, self)

    def __matmul__(self, other: ArrayLike) -> Array:
        return _NUMPY["matmul"](self, other)

    def __rmatmul__(self, other: ArrayLike) -> Array:
        return _NUMPY["matmul"](other, self)

    def __and__(self, other: ArrayLike) -> Array:
        return _NUMPY["bitwise_and"](self, other)

    def __rand__(self, other: ArrayLike) -> Array:
        return _NUMPY["bitwise_and"](other, self)

    def __or__(self, other: ArrayLike) -> Array:
        return _NUMPY["bitwise_or"](self, other)

    def __ror__(self, other: ArrayLike) -> Array:
        return _NUMPY["bitwise_or"](other, self)

    def __xor__(self, other: ArrayLike) -> Array:
        return _NUMPY["bitwise_xor"](self, other)

    def __rxor__(self, other: ArrayLike) -> Array:
        return _NUMPY["bitwise_xor"](other, self)

    def __lt__(self, other: ArrayLike) -> Array:
        return _NUMPY["less"](self, other)

    def __le__(self, other: ArrayLike) -> Array:
        return _NUMPY["less_equal"](self, other)

    def __gt__(self, other: ArrayLike) -> Array:
        return _NUMPY["greater"](self, other)

    def __ge__(self, other: ArrayLike) -> Array:
        return _NUMPY["greater_equal"](self, other)

    def __eq__(self, other: Any) -> Array:  # pyright: ignore[reportIncompatibleMethodOverride]
        return _NUMPY["equal"](self, other)

    def __ne__(self, other: Any) -> Array:  # pyright: ignore[reportIncompatibleMethodOverride]
        return _NUMPY["not_equal"](self, other)

    def astype(self, dtype: DTypeLike) -> Array:
        return _NUMPY["astype"](self, dtype)

    def reshape(self, *shape: Any) -> Array:
        return _NUMPY["reshape"](self, shape[0] if len(shape) == 1 else shape)

    def transpose(self, *axes: Any) -> Array:
        return _NUMPY["transpose"](self, (axes[0] if len(axes) == 1 else axes) or None)

    def ravel(self) -> Array:
        return _NUMPY["reshape"](self, (-1,))

    flatten = ravel

    def squeeze(self, axis: Axis = None) -> Array:
        return _NUMPY["squeeze"](self, axis)

    def sum(self, axis: Axis = None, keepdims: bool = False) -> Array:
        return _NUMPY["sum"](self, axis, keepdims=keepdims)

    def mean(self, axis: Axis = None, keepdims: bool = False) -> Array:
        return _NUMPY["mean"](self, axis, keepdims=keepdims)

    def var(self, axis: Axis = None, ddof: int = 0, keepdims: bool = False) -> Array:
        return _NUMPY["var"](self, axis, ddof=ddof, keepdims=keepdims)

    def std(self, axis: Axis = None, ddof: int = 0, keepdims: bool = False) -> Array:
        return _NUMPY["std"](self, axis, ddof=ddof, keepdims=keepdims)

    def max(self, axis: Axis = None, keepdims: bool = False) -> Array:
        return _NUMPY["max"](self, axis, keepdims=keepdims)

    def min(self, axis: Axis = None, keepdims: bool = False) -> Array:
        return _NUMPY["min"](self, axis, keepdims=keepdims)

    def prod(self, axis: Axis = None, keepdims: bool = False) -> Array:
        return _NUMPY["prod"](self, axis, keepdims=keepdims)

    def any(self, axis: Axis = None, keepdims: bool = False) -> Array:
        return _NUMPY["any"](self, axis, keepdims=keepdims)

    def all(self, axis: Axis = None, keepdims: bool = False) -> Array:
        return _NUMPY["all"](self, axis, keepdims=keepdims)

    def argmax(self, axis: int | None = None, keepdims: bool = False) -> Array:
        return _NUMPY["argmax"](self, axis, keepdims=keepdims)

    def argmin(self, axis: int | None = None, keepdims: bool = False) -> Array:
        return _NUMPY["argmin"](self, axis, keepdims=keepdims)

    @property
    def at(self) -> Any:
        """JAX's `x.at[idx].set(v)`, `.add(v)`, `.multiply(v)`, `.get()`:
        out-of-place updates of the elements `x[idx]` selects."""
        return _NUMPY["at"](self)

    def trace(
        self, offset: int = 0, axis1: int = 0, axis2: int = 1, dtype: Any = None
    ) -> Array:
        return _NUMPY["trace"](self, offset, axis1, axis2, dtype)

    def diagonal(self, offset: int = 0, axis1: int = 0, axis2: int = 1) -> Array:
        return _NUMPY["diagonal"](self, offset, axis1, axis2)

    def cumsum(self, axis: int | None = None, dtype: Any = None) -> Array:
        return _NUMPY["cumsum"](self, axis, dtype)

    def cumprod(self, axis: int | None = None, dtype: Any = None) -> Array:
        return _NUMPY["cumprod"](self, axis, dtype)

    def repeat(self, repeats: Any, axis: int | None = None) -> Array:
        return _NUMPY["repeat"](self, repeats, axis)

    def round(self, decimals: int = 0) -> Array:
        return _NUMPY["round"](self, decimals)

    def clip(self, a_min: ArrayLike | None = None, a_max: ArrayLike | None = None):
        return _NUMPY["clip"](self, a_min, a_max)


_NUMPY: dict[str, Callable[..., Any]] = {}
"""NumPy's functions on traced arrays, by name, which `gradopt.frontend.numpy`
provides (`provide_numpy`): they build on `Array`, and the operators and
methods of `Array` and NumPy's dispatch (`np.exp(x)`) call them from here."""


def provide_numpy(functions: dict[str, Callable[..., Any]]) -> None:
    _NUMPY.update(functions)


def _numpy_function(name: str, args: tuple, kwargs: dict) -> Array:
    if name not in _NUMPY or name == "getitem":
        raise error(f"numpy.{name} has no gradopt.numpy counterpart for traced arrays")
    return _NUMPY[name](*args, **kwargs)


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


def python_number(x: Any) -> Any:
    """NumPy scalars of dtypes gradopt does not hold (float64, int64) are plain
    numbers, like Python's; those of float32, int32 and bool stay typed."""
    if isinstance(x, np.generic) and x.dtype not in ELEMENTS and x.dtype.kind in "biuf":
        return x.item()
    return x


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
