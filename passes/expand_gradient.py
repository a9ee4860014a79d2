"""`expand-gradient`: replace every `grad.gradient`, `grad.vjp` and `grad.jvp`
by ordinary ops, in program order (SPEC §5, §5.7).

Reverse-mode ops of the same loss and seed in a block are expanded together by
one backward walk, so extra targets and extra gradient ops of one loss cost no
extra walk. Program order makes gradients of gradients work (an inner op is
always expanded before an op whose loss depends on it) and keeps every shared
constant ahead of its uses.
"""

from __future__ import annotations

import gc
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Block, SSAValue
from xdsl.passes import ModulePass

from gradopt.dialect.emitter import ConstantPool
from gradopt.dialect.ops import DifferentiationOp, GradientOp, JvpOp, VjpOp
from gradopt.passes.walks import ReverseOp, expand_jvp, expand_reverse

GroupKey = tuple[Block | None, SSAValue, SSAValue | None]


def group_key(op: ReverseOp) -> GroupKey:
    """Ops with equal keys share one walk: same block, loss and seed."""
    seed = op.cotangent if isinstance(op, VjpOp) else None
    return op.parent, op.loss, seed


@contextmanager
def _cyclic_gc_paused() -> Iterator[None]:
    """The walks allocate millions of long-lived IR objects and no garbage
    cycles; Python's cyclic collector would rescan the growing heap again and
    again, making the pass superlinear (2.3x the time per op at 100k ops)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def expand_in_program_order(
    module: ModuleOp, selected: Callable[[DifferentiationOp], bool]
) -> None:
    """Expand the `selected` differentiation ops of `module` in program order,
    each group of reverse-mode ops at the position of its first member."""
    with _cyclic_gc_paused():
        _expand(module, selected)


def _expand(module: ModuleOp, selected: Callable[[DifferentiationOp], bool]) -> None:
    groups: dict[GroupKey, list[ReverseOp]] = {}
    work: list[list[ReverseOp] | JvpOp] = []
    for node in module.walk():
        if not isinstance(node, DifferentiationOp) or not selected(node):
            continue
        if isinstance(node, JvpOp):
            work.append(node)
        else:
            assert isinstance(node, GradientOp | VjpOp)
            key = group_key(node)
            if key not in groups:
                groups[key] = []
                work.append(groups[key])
            groups[key].append(node)
    constants = ConstantPool()
    for item in work:
        if isinstance(item, JvpOp):
            expand_jvp(item, constants)
        else:
            expand_reverse(item, constants)


class ExpandGradientPass(ModulePass):
    """Replace every differentiation op by the ops that compute its result."""

    name = "expand-gradient"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        expand_in_program_order(op, lambda _: True)
