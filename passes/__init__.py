"""gradopt's passes: thin `ModulePass`es over `gradopt.autodiff` and
`gradopt.dialect` (`expand-gradient`, `expand-jvp`, the lowering, the graph
view), and the universe that names them.

`ExpandGradientPass` and `ExpandJvpPass` are loaded on first use (PEP 562), so
that the universe, which plain `xdsl-opt` imports at start-up, loads no pass.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from gradopt.passes.expand_gradient import ExpandGradientPass
    from gradopt.passes.expand_jvp import ExpandJvpPass

_LAZY = {
    "ExpandGradientPass": "gradopt.passes.expand_gradient",
    "ExpandJvpPass": "gradopt.passes.expand_jvp",
}

__all__ = ["ExpandGradientPass", "ExpandJvpPass"]


def __getattr__(name: str) -> object:
    if name in _LAZY:
        return getattr(import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'gradopt.passes' has no attribute '{name}'")
