"""NumPy's floating-point warnings, ignored for a run at little cost.

The interpreter runs every plan with NumPy's floating-point warnings off: an
overflow to inf or a 0/0 to NaN is a value, as IREE computes it. Entering
`np.errstate(all="ignore")` builds NumPy's error state object anew each time
(3-6 us measured on this project's 2-core machine, more than a small op
costs). In NumPy 2 that state is a context variable holding the object,
which `ignoring_float_errors` builds once for each state it starts from (so
that a caller's `np.setbufsize` or `np.seterrcall` is kept, as `errstate`
keeps it) and sets and resets in about 1 us. Where NumPy has no such
variable (NumPy 1), it is `np.errstate`.
"""

from __future__ import annotations

import contextvars
import importlib
from contextlib import AbstractContextManager

import numpy as np

try:
    _umath = importlib.import_module("numpy._core.umath")
except ImportError:  # NumPy 1
    _umath = None
_state: contextvars.ContextVar[object] | None = getattr(
    _umath, "_extobj_contextvar", None
)
_make = getattr(_umath, "_make_extobj", None)

_last: tuple[object, object] = (None, None)
"""The state a run last started from, and that state with every warning
ignored (replaced whole, so that threads never see half of it)."""


class _Ignoring:
    """Every floating-point warning ignored while inside."""

    __slots__ = ("token",)

    def __enter__(self) -> None:
        global _last
        assert _state is not None and _make is not None
        current = _state.get()
        base, ignoring = _last
        if base is not current:
            ignoring = _make(all="ignore")
            _last = (current, ignoring)
        self.token = _state.set(ignoring)

    def __exit__(self, *exception: object) -> None:
        assert _state is not None
        _state.reset(self.token)


def ignoring_float_errors() -> AbstractContextManager[object]:
    """NumPy's floating-point warnings off while inside, as with
    `np.errstate(all="ignore")`."""
    if _state is None or _make is None:
        return np.errstate(all="ignore")
    return _Ignoring()
