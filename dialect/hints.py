"""Ops that users expect of a tensor dialect but `grad` does not have, and how
each is written with the ops there are.

The dialect keeps a small set of primitives (SPEC §3): each has one NumPy
meaning and one derivative, and everything else is a composite of them, as in
tinygrad. A newcomer who types `grad.exp` or `grad.sub` should learn that at
the op, not from the spec: the drivers' parser quotes these texts for an
unknown op (`'grad.exp' is not an op: exp2 of x·log2(e) computes it`).
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

MISSING_OPS: Mapping[str, str] = MappingProxyType(
    {
        "grad.exp": "exp2 of x·log2(e) computes it "
        "(grad.mul by 1.442695, then grad.exp2)",
        "grad.log": "log2 of x times ln(2) computes it "
        "(grad.log2, then grad.mul by 0.6931472)",
        "grad.log10": "log2 of x times log10(2) computes it "
        "(grad.log2, then grad.mul by 0.30103)",
        "grad.sub": "a + (-b) computes it (grad.neg, then grad.add)",
        "grad.div": "a · recip(b) computes it (grad.recip, then grad.mul)",
        "grad.cos": "sin(x + π/2) computes it (grad.add of 1.5707964, then grad.sin)",
        "grad.tan": "sin(x) · recip(sin(x + π/2)) computes it "
        "(grad.sin, grad.add, grad.recip, grad.mul)",
        "grad.tanh": "1 - 2 · recip(exp2(2x·log2(e)) + 1) computes it "
        "(grad.mul, grad.exp2, grad.add, grad.recip)",
        "grad.sigmoid": "recip(1 + exp2(-x·log2(e))) computes it "
        "(grad.mul, grad.exp2, grad.add, grad.recip)",
        "grad.relu": "max(x, 0.0) computes it (grad.const, then grad.max)",
        "grad.abs": "max(x, -x) computes it (grad.neg, then grad.max)",
        "grad.min": "-max(-a, -b) computes it (grad.neg, grad.max, grad.neg)",
        "grad.rsqrt": "recip(sqrt(x)) computes it (grad.sqrt, then grad.recip)",
        "grad.square": "x · x computes it (grad.mul %x, %x)",
        "grad.pow": "exp2(b · log2(a)) computes it for a > 0 "
        "(grad.log2, grad.mul, grad.exp2)",
        "grad.sum": "grad.reduce add over the axes computes it",
        "grad.mean": "grad.reduce add times 1/n computes it",
        "grad.matmul": "grad.dot computes it",
        "grad.transpose": "grad.permute computes it",
        "grad.select": "grad.where computes it",
        "grad.constant": "grad.const computes it",
        "grad.cmpgt": "grad.cmplt with the operands swapped computes it",
        "grad.cmple": "grad.cmplt with the operands swapped, then grad.xor "
        "with true, computes it",
        "grad.cmpge": "grad.cmplt, then grad.xor with true, computes it",
        "grad.not": "grad.xor with true computes it",
    }
)
"""Op name to how it is written with `grad`'s ops."""
