"""The xDSL context that gradopt's programs are read in."""

from __future__ import annotations

from xdsl.context import Context
from xdsl.dialects.arith import Arith
from xdsl.dialects.builtin import Builtin
from xdsl.dialects.func import Func
from xdsl.dialects.scf import Scf

from gradopt.dialect import Grad


def make_context() -> Context:
    """A context with the dialects a gradopt program is made of (SPEC §3.5):
    `builtin`, `func`, `scf`, `arith` and `grad`, and nothing else, so that an
    op the interpreter could not run is already refused by the parser."""
    ctx = Context()
    for dialect in (Builtin, Func, Scf, Arith, Grad):
        ctx.load_dialect(dialect)
    return ctx
