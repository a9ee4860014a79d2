"""Host arrays that IREE's CPU runtime can use in place (`backend="iree"`).

IREE's CPU code reads its operands through 64-byte aligned pointers (the
alignment its executables declare for every buffer binding), and its runtime
would otherwise copy each NumPy argument into a buffer of its own. A C-ordered,
writable array of a dtype IREE knows, whose data starts on a 64-byte boundary,
is imported instead: the compiled function reads the caller's memory. NumPy
aligns its allocations to 16 bytes only, so `aligned_copy` allocates with
room to spare and starts the array at the first aligned byte.

Imported memory is only read. A result may lie in an argument's buffer (an
argument reshaped); such a result is copied by `IreeModule.call`, so that no
result aliases an input. An argument that the entry gives back as it came
(a slot left unchanged) IREE does not return at all: the call copies it
(`gradopt.runtime.iree_given`). Every other result is handed back as IREE
allocated it, mapped, not copied.
"""

from __future__ import annotations

import numpy as np

ALIGNMENT = 64
"""The byte alignment of the buffers IREE's CPU executables are given."""


def importable(array: np.ndarray) -> bool:
    """Whether IREE can use `array`'s memory without a copy (if it knows its
    dtype): C-ordered, writable (IREE imports only those) and aligned."""
    flags = array.flags
    return flags.c_contiguous and flags.writeable and array.ctypes.data % ALIGNMENT == 0


def aligned_copy(array: np.ndarray) -> np.ndarray:
    """A C-ordered copy of `array` whose data starts on an `ALIGNMENT`
    boundary (its base is the larger byte buffer it lies in)."""
    raw = np.empty(array.nbytes + ALIGNMENT, np.uint8)
    start = -raw.ctypes.data % ALIGNMENT
    copy = raw[start : start + array.nbytes].view(array.dtype).reshape(array.shape)
    np.copyto(copy, array)
    return copy
