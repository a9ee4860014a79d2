"""The xDSL context that gradopt's programs are read in."""

from __future__ import annotations

from xdsl.context import Context
from xdsl.dialects.builtin import Builtin
from xdsl.dialects.func import Func
from xdsl.dialects.scf import Scf
from xdsl.ir import Dialect

from gradopt.dialect import Grad


def _arith() -> Dialect:
    from xdsl.dialects.arith import Arith

    return Arith


def make_context() -> Context:
    """A context with the dialects a gradopt program is made of (SPEC §3.5):
    `builtin`, `func`, `scf`, `arith` and `grad`, and nothing else, so that an
    op the interpreter could not run is already refused by the parser. `arith`
    (index constants, rare in gradopt programs) is loaded when an op of it is
    first read: importing it costs a fifth of a driver's start-up."""
    ctx = Context()
    for dialect in (Builtin, Func, Scf, Grad):
        ctx.load_dialect(dialect)
    ctx.register_dialect("arith", _arith)
    return ctx
