"""The `GRADOPT_*` environment variables, each read and checked one way.

A malformed value is never ignored (a user who sets a limit wants it) and never
a traceback: reading it raises `SettingError`, whose text is one line naming
the variable, what it takes and what it holds. Values are read when they are
used, never at import, so that `import gradopt` cannot fail on them; the
drivers check every variable before they start (`check_all`), so that a bad
one is the first and only line they print.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Container
from functools import cache

TRUE = ("1", "true", "yes", "on")
FALSE = ("", "0", "false", "no", "off")


class SettingError(ValueError):
    """A `GRADOPT_*` variable whose value gradopt cannot use."""


_STORE: Container[object] = getattr(os.environ, "_data", os.environ)
"""What `os.environ` keeps its variables in (updated with it), by encoded name
(`os.environ` itself where it keeps none)."""


@cache
def _key(variable: str) -> object:
    """`variable`'s name as `_STORE` holds it."""
    return os.environ.encodekey(variable) if _STORE is not os.environ else variable


def is_set(variable: str) -> bool:
    """Whether `variable` is in the environment: one dictionary lookup, where
    `os.environ.get` answers a missing name by raising and catching a
    `KeyError` (1 us; after a run of the small MLP step, with cold caches,
    4 us). The variables read at each run are unset but for a few users."""
    return _key(variable) in _STORE


def _text(variable: str) -> str | None:
    """The variable's value, None when it is unset or blank (the default)."""
    if not is_set(variable):
        return None
    value = os.environ.get(variable)
    return None if value is None or not value.strip() else value


def integer(variable: str, default: int, minimum: int = 0, unit: str = "bytes") -> int:
    """The whole number `variable` holds (at least `minimum`), or `default`."""
    text = _text(variable)
    if text is None:
        return default
    try:
        value = int(text.strip())
    except ValueError:
        value = minimum - 1
    if value < minimum:
        least = "a positive" if minimum == 1 else f"a whole ({minimum} or more)"
        raise SettingError(f"{variable} must be {least} number of {unit}, got '{text}'")
    return value


def flag(variable: str) -> bool:
    """Whether `variable` is set to 1 (or true, yes, on); 0, false, no, off or
    unset is False."""
    value = (_text(variable) or "").strip().lower()
    if value in FALSE:
        return False
    if value in TRUE:
        return True
    raise SettingError(f"{variable} must be 1 or 0, got '{os.environ[variable]}'")


def directory(variable: str) -> str | None:
    """The folder `variable` names (None when unset); a path that exists and
    is not a folder is an error rather than a cache that silently fails."""
    text = _text(variable)
    if text is None:
        return None
    path = os.path.expanduser(text)
    if os.path.exists(path) and not os.path.isdir(path):
        raise SettingError(f"{variable} must name a folder, got '{text}', a file")
    return path


VARIABLES: dict[str, Callable[[str], object]] = {
    "GRADOPT_MAX_PROGRAM_BYTES": lambda name: integer(name, 0, minimum=1),
    "GRADOPT_MAX_DATA_BYTES": lambda name: integer(name, 0, minimum=1),
    "GRADOPT_CACHE_DIR": directory,
    "GRADOPT_CACHE_MAX_BYTES": lambda name: integer(name, 0),
    "GRADOPT_DETERMINISTIC": flag,
    "GRADOPT_RUN_CACHE": lambda name: integer(name, 0, unit="programs"),
    "GRADOPT_RUN_CACHE_BYTES": lambda name: integer(name, 0),
    "GRADOPT_JIT_CACHE_BYTES": lambda name: integer(name, 0),
}
"""Every variable gradopt reads, with its check (the modules that use one
read it with the same function and their own default)."""


def check_all() -> None:
    """Raise `SettingError` for the first malformed variable of `VARIABLES`."""
    for name, check in VARIABLES.items():
        check(name)
