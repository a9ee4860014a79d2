"""`expand-jvp`: replace every `grad.jvp` by its forward walk (SPEC §5.6).

A `grad.gradient` or `grad.vjp` on a jvp's path is expanded just before the jvp
(SPEC §5.7); the other reverse-mode ops are left for `expand-gradient`.
"""

from __future__ import annotations

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import OpResult
from xdsl.passes import ModulePass

from gradopt.dialect.emitter import ConstantPool
from gradopt.dialect.ops import GradientOp, JvpOp, VjpOp
from gradopt.dialect.paths import post_order
from gradopt.passes.expand_gradient import GroupKey, group_key
from gradopt.passes.walks import ReverseOp, expand_jvp, expand_reverse


class ExpandJvpPass(ModulePass):
    """Replace every `grad.jvp` by forward mode."""

    name = "expand-jvp"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        constants = ConstantPool()
        for jvp in [node for node in op.walk() if isinstance(node, JvpOp)]:
            groups: dict[GroupKey, list[ReverseOp]] = {}
            for value in post_order(jvp.output):
                if isinstance(value, OpResult) and isinstance(
                    value.op, GradientOp | VjpOp
                ):
                    group = groups.setdefault(group_key(value.op), [])
                    if value.op not in group:
                        group.append(value.op)
            for group in groups.values():
                block = group[0].parent
                assert block is not None
                expand_reverse(sorted(group, key=block.get_operation_index), constants)
            expand_jvp(jvp, constants)
