"""Verification of a whole module: every op, with its failure as an `OpError`.

xDSL's verifier reports a failure by dumping the whole module and checks no
dominance; this one names the failing op, so that the drivers can point at its
source line, and checks what MLIR checks of dominance. It visits ops in
xDSL's order (an op's regions before the op itself), so that a module with
several errors reports the one `xdsl-opt` reports.
"""

from __future__ import annotations

from collections.abc import Callable
from contextvars import ContextVar
from typing import TypeVar, cast

from xdsl.dialects.builtin import UnregisteredOp
from xdsl.dialects.scf import IfOp, WhileOp
from xdsl.ir import Operation, SSAValue
from xdsl.traits import NoTerminator
from xdsl.utils.exceptions import VerifyException

from gradopt.dialect.errors import OpError, without_op_name

GRAPH_REGION_OPS = frozenset({"builtin.module", "equivalence.graph"})
"""Ops whose regions are graph regions, where a value may be used before its
definition (MLIR's `RegionKindInterface`, which xDSL does not have):
`builtin.module` is one in MLIR, and xDSL's e-graphs (`equivalence.graph`)
are graphs with cycles by design."""

GRAPH_REGION_DIALECTS = frozenset({"test"})
"""Dialects whose ops may hold graph regions: xDSL's `test` ops (`test.op`,
`test.pureop`, ...) stand for any op, as unregistered ops do in MLIR."""

EGRAPH_DIALECT = "equivalence"
"""xDSL's e-graph dialect: its equality-saturation passes place e-classes
straight in a function body, where an e-class is an operand of the ops it
contains (a cycle). A block that holds an e-class is an e-graph, which MLIR
would put in a graph region."""


def has_ssa_dominance(op: Operation) -> bool:
    """Whether `op`'s regions are SSACFG regions, in which every use must be
    dominated by its definition. As in MLIR, the regions of an op known to be
    a graph region op, or of an unregistered op (whose kind nobody knows), are
    graph regions; those of every other op (`func.func`, `scf.for`, ...) are
    SSACFG regions."""
    if isinstance(op, UnregisteredOp) or op.name in GRAPH_REGION_OPS:
        return False
    return op.name.split(".", 1)[0] not in GRAPH_REGION_DIALECTS


_MEMO: ContextVar[dict[object, object] | None] = ContextVar(
    "gradopt_verification_memo", default=None
)
T = TypeVar("T")


def verification_memo(kind: Callable[[], T]) -> T | None:
    """The one `kind()` of the module verification under way (made on first
    request), or None outside one: what several ops' verifiers compute once
    for all of them, such as the differentiation ops' shared path walks and
    value numbering."""
    memo = _MEMO.get()
    if memo is None:
        return None
    if kind not in memo:
        memo[kind] = kind()
    return cast(T, memo[kind])


def verify_module(module: Operation) -> None:
    """Verify every op of `module`, raising an `OpError` for the first that
    fails (in xDSL's order), then check dominance."""
    token = _MEMO.set({})
    try:
        _verify(module)
    finally:
        _MEMO.reset(token)
    _check_dominance(module, set())


def _verify(op: Operation) -> None:
    """As xDSL's `Operation.verify`: the ops of each block, then the block's
    emptiness, and the op itself once its regions verify."""
    for index, region in enumerate(op.regions):
        for block in region.blocks:
            for inner in block.ops:
                _verify(inner)
            _check_not_empty(op, index)
    try:
        # through the class: grad-opt lets `verify_module` stand for the
        # module's `verify` while xDSL's pass callback runs
        type(op).verify(op, verify_nested_ops=False)
    except OpError:
        raise
    except VerifyException as error:
        raise OpError(op, without_op_name(str(error), op)) from None
    _check_yields(op)


def _check_yields(op: Operation) -> None:
    """What the regions of `scf.if` and `scf.while` pass on has the types the
    op expects: xDSL 0.74 does not check it (and gives a region without a
    terminator an empty `scf.yield`), and a mismatch would reach the
    interpreter and the differentiation rules. (`scf.condition` passes on
    its operands after the condition.)"""
    if isinstance(op, IfOp):
        expected = [(region, op.result_types, 0) for region in op.regions]
    elif isinstance(op, WhileOp):
        expected = [
            (op.before_region, op.result_types, 1),
            (op.after_region, op.arguments.types, 0),
        ]
    else:
        return
    for region, types, skipped in expected:
        for block in region.blocks:
            terminator = block.last_op
            if terminator is None:
                continue
            passed = terminator.operands[skipped:]
            if tuple(v.type for v in passed) != tuple(types):
                raise OpError(
                    terminator,
                    f"passes on ({', '.join(str(v.type) for v in passed)}) where "
                    f"'{op.name}' expects ({', '.join(str(t) for t in types)})",
                )


def _check_not_empty(op: Operation, index: int) -> None:
    """A single-block region needs at least a terminator (`func.return`, ...).

    xDSL checks this when it verifies a block, which `verify_nested_ops=False`
    skips; an empty function body then ran as if it returned nothing."""
    region = op.regions[index]
    if (
        len(region.blocks) == 1
        and region.block.first_op is None
        and not op.has_trait(NoTerminator)
    ):
        raise OpError(
            op, f"region #{index} is empty: its block needs at least a terminator"
        )


def _check_dominance(op: Operation, visible: set[SSAValue]) -> None:
    """Every operand is defined before its use, in its block or an enclosing
    one, within the single-block SSACFG regions of `op` (xDSL's verifier does
    not check this, and its parser accepts forward references). In a graph
    region (see `has_ssa_dominance`, and a block holding an e-graph) every
    value of the block is visible to all its ops, and to the ops nested in
    them."""
    kind = has_ssa_dominance(op)
    for region in op.regions:
        if len(region.blocks) != 1:
            continue
        block = region.block
        ssa = kind and not any(
            inner.name.startswith(EGRAPH_DIALECT + ".") for inner in block.ops
        )
        added: list[SSAValue] = [*block.args]
        if not ssa:
            added += [r for inner in block.ops for r in inner.results]
        visible.update(added)
        for inner in block.ops:
            if ssa:
                for index, operand in enumerate(inner.operands):
                    if operand not in visible:
                        raise OpError(
                            inner, f"operand #{index} does not dominate this use"
                        )
            if inner.regions:
                _check_dominance(inner, visible)
            if ssa:
                visible.update(inner.results)
                added += inner.results
        visible.difference_update(added)
