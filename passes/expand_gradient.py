"""`expand-gradient`: replace every `grad.gradient`, `grad.vjp` and `grad.jvp`
by ordinary ops, in program order (SPEC §5, §5.7).

Reverse-mode ops of the same loss and seed in a block are expanded together by
one backward walk, so extra targets and extra gradient ops of one loss cost no
extra walk. Program order makes gradients of gradients work (an inner op is
always expanded before an op whose loss depends on it) and keeps every shared
constant ahead of its uses.
"""

from __future__ import annotations

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass

from gradopt.autodiff.walks import expand_in_program_order


class ExpandGradientPass(ModulePass):
    """Replace every differentiation op by the ops that compute its result."""

    name = "expand-gradient"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        expand_in_program_order(op, lambda _: True)
