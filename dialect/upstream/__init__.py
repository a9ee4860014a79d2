"""The upstream dialects as gradopt reads them (SPEC §10.5): xDSL's `arith`,
`math`, `tensor` and `linalg` with the ops of SPEC §10.2 that xDSL 0.74
lacks or refuses, IREE's `util` function ops and the `iree_linalg_ext` ops
its input conversion makes.

The extended dialects are new `Dialect` objects holding xDSL's op classes
plus gradopt's; xDSL's own dialect objects are left as they are, so that
other users of xDSL (plain `xdsl-opt`, other plugins) see xDSL's dialects
unchanged. gradopt's context and `grad-opt` load these instead.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from functools import cache
from types import MappingProxyType

from xdsl.ir import Attribute, Dialect, Operation


def _extended(
    base: Dialect,
    ops: tuple[type[Operation], ...],
    attributes: tuple[type[Attribute], ...] = (),
) -> Dialect:
    """`base` with `ops` added, each replacing the op of `base` of its name,
    and with its attributes (and `attributes`) and interfaces (the constant
    materialization that folding patterns ask the dialect for)."""
    names = {op.name for op in ops}
    kept = [op for op in base.operations if op.name not in names]
    interfaces = list(base._interfaces)  # pyright: ignore[reportPrivateUsage]
    return Dialect(
        base.name, [*kept, *ops], [*base.attributes, *attributes], interfaces
    )


@cache
def arith() -> Dialect:
    from xdsl.dialects.arith import Arith

    from gradopt.dialect.upstream.arith import RemfOp

    return _extended(Arith, (RemfOp,))


@cache
def math() -> Dialect:
    from xdsl.dialects.math import Math

    return Math


@cache
def tensor() -> Dialect:
    from xdsl.dialects.tensor import Tensor

    from gradopt.dialect.upstream.tensor import ExpandShapeOp, GenerateOp

    return _extended(Tensor, (ExpandShapeOp, GenerateOp))


@cache
def linalg() -> Dialect:
    from xdsl.dialects.linalg import Linalg

    from gradopt.dialect.upstream import linalg_maps
    from gradopt.dialect.upstream.linalg import OPS

    return _extended(Linalg, OPS + linalg_maps.OPS, linalg_maps.ATTRIBUTES)


@cache
def util() -> Dialect:
    from gradopt.dialect.upstream.util import Util

    return Util


@cache
def iree_linalg_ext() -> Dialect:
    from gradopt.dialect.upstream.iree_attention import AttentionOp
    from gradopt.dialect.upstream.iree_linalg_ext import IreeLinalgExt

    return _extended(IreeLinalgExt, (AttentionOp,))


@cache
def cf() -> Dialect:
    """`cf.assert` alone, as torch-mlir checks indices in a gather's body;
    the branches are not gradopt's (structured control flow is `scf`)."""
    from xdsl.dialects.cf import AssertOp

    return Dialect("cf", [AssertOp])


DIALECTS: Mapping[str, Callable[[], Dialect]] = MappingProxyType(
    {
        "arith": arith,
        "math": math,
        "tensor": tensor,
        "linalg": linalg,
        "util": util,
        "iree_linalg_ext": iree_linalg_ext,
        "cf": cf,
    }
)
"""Each upstream dialect's factory, loaded lazily by name (importing xDSL's
`linalg` costs a tenth of a second)."""
