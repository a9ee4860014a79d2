"""Lazy factories for gradopt's dialect and passes.

Registered as an `xdsl.universe` entry point, so plain `xdsl-opt` knows them;
`grad-opt` uses the same object.
"""

from __future__ import annotations

from xdsl.ir import Dialect
from xdsl.passes import ModulePass
from xdsl.universe import Universe


def get_grad_dialect() -> Dialect:
    from gradopt.dialect import Grad

    return Grad


def _all_passes() -> dict[str, type[ModulePass]]:
    return {}


GRADOPT_UNIVERSE = Universe(
    all_dialects={"grad": get_grad_dialect},
    all_passes={},
)
