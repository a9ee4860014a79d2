"""The xDSL context that gradopt's programs are read in."""

from __future__ import annotations

from xdsl.context import Context
from xdsl.dialects.builtin import Builtin
from xdsl.dialects.func import Func
from xdsl.dialects.scf import Scf

from gradopt.dialect import Grad
from gradopt.dialect.upstream import DIALECTS


def make_context() -> Context:
    """A context with the dialects a gradopt program is made of (SPEC §3.5,
    §10): `builtin`, `func`, `scf` and `grad`, and the upstream dialects
    `arith`, `math`, `tensor`, `linalg` and `util` as gradopt extends them
    (`gradopt.dialect.upstream`), and nothing else. The upstream dialects are
    loaded when an op of theirs is first read: importing them costs a fifth
    of a driver's start-up."""
    ctx = Context()
    for dialect in (Builtin, Func, Scf, Grad):
        ctx.load_dialect(dialect)
    for name, factory in DIALECTS.items():
        ctx.register_dialect(name, factory)
    return ctx
