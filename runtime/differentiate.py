"""`gradopt.differentiate_module`: a program that has no differentiation op,
made to return a gradient too (SPEC §10.5).

    text = jax.jit(loss_fn).lower(w, x).as_text()        # StableHLO
    ir = iree_compile(text, "--compile-to=input")         # linalg, util.func
    program = gradopt.Program(gradopt.differentiate_module(ir, loss=0, wrt=0))
"""

from __future__ import annotations

import operator
from collections.abc import Sequence

import numpy as np
from xdsl.dialects.builtin import ModuleOp

from gradopt.dialect.context import make_context
from gradopt.dialect.errors import OpError
from gradopt.dialect.hints import MISSING_OPS
from gradopt.passes.differentiate_module import append_gradient
from gradopt.support.diagnostics import (
    GradoptError,
    LocatedError,
    SourceText,
    locate,
    parse_module,
)


def differentiate_module(
    module: ModuleOp | str,
    loss: int = 0,
    wrt: int | Sequence[int] = (),
    entry: str = "main",
    filename: str = "<input>",
    control_flow: bool | None = None,
) -> ModuleOp:
    """`module` (a module, which is left as it is, or its text) with a
    `grad.gradient` appended to function `entry`: of its result `loss` with
    respect to its arguments `wrt` (positions; by default every f32 one), the
    gradients returned after its own results. It says `control_flow` (SPEC
    §11) when the module has calls, loops or branches, as IREE makes of
    `lax.scan`, `while_loop` and `cond`, unless `control_flow` says otherwise.

    Only the op is built: `Program` or `grad-opt` verify it (an op on the
    path with no gradient rule is an error there) and expand it. Raises
    `GradoptError` for a module that cannot be read or a position that does
    not fit, `TypeError` for an argument of the wrong Python type."""
    if not isinstance(module, ModuleOp | str):
        raise TypeError(
            f"module must be a ModuleOp or its text, not {type(module).__name__}"
        )
    positions = _positions(wrt)
    try:
        if isinstance(loss, bool | np.bool_):
            raise TypeError
        loss = operator.index(loss)
    except TypeError:
        raise TypeError(f"loss must be a result position (int), not {loss!r}") from None
    source = SourceText()
    try:
        if isinstance(module, str):
            source.add(filename, module)
            parsed = parse_module(make_context(), module, filename, hints=MISSING_OPS)
        else:
            parsed = module.clone()
        append_gradient(parsed, loss, positions, entry, control_flow)
    except LocatedError as error:
        raise GradoptError(error, source) from None
    except OpError as error:
        located = locate(error.op, error.describe(), error.notes, filename)
        raise GradoptError(located, source) from None
    return parsed


def _positions(wrt: int | Sequence[int]) -> tuple[int, ...]:
    """`wrt` as a tuple of argument positions."""
    try:
        if isinstance(wrt, bool | np.bool_ | str | bytes):
            raise TypeError
        if isinstance(wrt, int | np.integer):
            return (operator.index(wrt),)
        if any(isinstance(w, bool | np.bool_) for w in wrt):
            raise TypeError
        return tuple(operator.index(w) for w in wrt)
    except TypeError:
        raise TypeError(
            f"wrt must be an argument position (int) or a sequence of them, not {wrt!r}"
        ) from None
