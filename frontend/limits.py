"""Sizes a run can hold, checked at trace time before anything is made.

Some functions make their data while tracing (`arange`, `one_hot`) or build
values whose size the caller chooses (`pad`); a size beyond the machine's
memory used to reach NumPy as a `MemoryError` (after growing to 24 GB, for
`one_hot(x, 10**9)`) or an `OverflowError`. It is a located error instead.
"""

from __future__ import annotations

import math
import os
from collections.abc import Sequence
from functools import cache

import numpy as np

from gradopt.frontend.trace import error
from gradopt.runtime.program import MAX_BYTES


@cache
def memory_bytes() -> int:
    """The most one value of a run can hold: the machine's physical memory
    (or, where it is not known, the most NumPy can index)."""
    try:
        return min(os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE"), MAX_BYTES)
    except (ValueError, OSError, AttributeError):
        return MAX_BYTES


def check_size(what: str, shape: Sequence[int], dtype: np.dtype) -> None:
    """Raise a located error if a value of `shape` and `dtype` cannot be held."""
    size = math.prod(shape) * dtype.itemsize
    if size > memory_bytes():
        raise error(
            f"{what}: a {dtype} array of shape {tuple(shape)} ({size} bytes) is "
            f"larger than this machine's memory ({memory_bytes()} bytes)"
        )
