"""`expand-jvp`: replace every `grad.jvp` by its forward walk (SPEC §5.6).

The `grad.gradient` and `grad.vjp` ops on a jvp's path (§5.1) are expanded too,
as are those on their own paths, since a walk cannot pass an unexpanded op; the
others are left for `expand-gradient` (§5.7). Everything is expanded in program
order, as `expand-gradient` does, so constants stay ahead of their uses.
"""

from __future__ import annotations

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import OpResult, SSAValue
from xdsl.passes import ModulePass

from gradopt.autodiff.walks import expand_in_program_order, path_between
from gradopt.dialect.differentiation import DifferentiationOp, GradientOp, JvpOp, VjpOp


def _path_of(op: DifferentiationOp) -> set[SSAValue]:
    return path_between(op.root, op.differentiated)[1]


def needed_for_jvps(module: ModuleOp) -> set[DifferentiationOp]:
    """Every jvp, and every reverse-mode op that one of them needs expanded
    (none, without a search of the jvps' paths, in a module that has none)."""
    needed: set[DifferentiationOp] = set()
    ops = [op for op in module.walk() if isinstance(op, DifferentiationOp)]
    pending = [op for op in ops if isinstance(op, JvpOp)]
    if len(pending) == len(ops):
        return set(pending)
    while pending:
        op = pending.pop()
        if op in needed:
            continue
        needed.add(op)
        pending += [
            value.op
            for value in _path_of(op)
            if isinstance(value, OpResult) and isinstance(value.op, GradientOp | VjpOp)
        ]
    return needed


class ExpandJvpPass(ModulePass):
    """Replace every `grad.jvp` by forward mode."""

    name = "expand-jvp"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        needed = needed_for_jvps(op)
        expand_in_program_order(op, lambda node: node in needed)
