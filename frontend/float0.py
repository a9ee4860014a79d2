"""`float0`, JAX's dtype for the tangent or cotangent of an int32 or bool
value: such a value has no derivative, so `jvp` takes a float0 tangent for an
integer primal and gives one for an integer output, `vjp` gives float0
cotangents for integer primals, and `grad(..., allow_int=True)` a float0
gradient. A float0 array has a shape and no data (its items take no bytes),
so a traced function takes and returns float0 arrays as constants: they are
neither arguments nor results of the traced program.

`FLOAT0` is NumPy's `dtype([('float0', 'V')])`, which is `jax.dtypes.float0`
itself: arrays made by either library are accepted by the other.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from typing import Any

import numpy as np

from gradopt.frontend.array import BOOL, INT32

FLOAT0 = np.dtype([("float0", "V")])
"""The dtype of a tangent of an int32 or bool value."""


def is_float0(leaf: object) -> bool:
    """Whether `leaf` is a float0 array (NumPy's, or JAX's, which has the
    same dtype)."""
    return getattr(leaf, "dtype", None) == FLOAT0


def zeros(shape: Sequence[int]) -> np.ndarray:
    """The float0 tangent of an integer value of shape `shape`."""
    return np.zeros(tuple(shape), FLOAT0)


def integral(dtype: np.dtype) -> bool:
    """Whether values of `dtype` take float0 tangents (int32, bool)."""
    return dtype in (INT32, BOOL)


def placed(
    template: Sequence[np.ndarray | None], values: Iterable[Any]
) -> Iterator[Any]:
    """The entries of `template`, each None replaced by the next of `values`:
    the leaves of a tree whose float0 leaves were set aside."""
    others = iter(values)
    for entry in template:
        yield next(others) if entry is None else entry
