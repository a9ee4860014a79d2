"""Verification of a whole module: every op, with its failure as an `OpError`.

xDSL's verifier reports a failure by dumping the whole module and checks no
dominance; this one names the failing op, so that the drivers can point at its
source line, and checks what MLIR checks of single-block regions.
"""

from __future__ import annotations

from xdsl.ir import Operation, SSAValue
from xdsl.traits import NoTerminator
from xdsl.utils.exceptions import VerifyException

from gradopt.dialect.errors import OpError
from gradopt.dialect.paths import shared_path_checks


def verify_module(module: Operation) -> None:
    """Verify every op of `module`, raising an `OpError` for the first that fails."""
    with shared_path_checks():
        for op in module.walk():
            try:
                op.verify(verify_nested_ops=False)
            except VerifyException as error:
                raise OpError(op, str(error)) from None
            _check_not_empty(op)
    _check_dominance(module)


def _check_not_empty(op: Operation) -> None:
    """A single-block region needs at least a terminator (`func.return`, ...).

    xDSL checks this when it verifies a block, which `verify_nested_ops=False`
    skips; an empty function body then ran as if it returned nothing."""
    if op.has_trait(NoTerminator):
        return
    for i, region in enumerate(op.regions):
        if len(region.blocks) == 1 and region.block.first_op is None:
            raise OpError(
                op, f"region #{i} is empty: its block needs at least a terminator"
            )


def _check_dominance(op: Operation, visible: set[SSAValue] | None = None) -> None:
    """Every operand is defined before its use, in its block or an enclosing one,
    as MLIR requires of single-block regions (xDSL's verifier does not check
    this, and its parser accepts forward references)."""
    visible = set() if visible is None else visible
    for region in op.regions:
        if len(region.blocks) != 1:
            continue
        block = region.block
        added: list[SSAValue] = [*block.args]
        visible.update(block.args)
        for inner in block.ops:
            for index, operand in enumerate(inner.operands):
                if operand not in visible:
                    raise OpError(inner, f"operand #{index} does not dominate this use")
            if inner.regions:
                _check_dominance(inner, visible)
            visible.update(inner.results)
            added += inner.results
        visible.difference_update(added)
