"""`differentiate-module`: append a `grad.gradient` to a module that has none
(SPEC §10.5).

A program lowered from JAX or torch (`iree-compile --compile-to=input`) has
no differentiation op; this adds one to its entry function, naming the loss
by result position and the targets by argument position, and returns the
gradients after the function's own results:

    util.func public @main(%w: tensor<4xf32>, %x: tensor<4xf32>)
        -> (tensor<f32>, tensor<4xf32>) {
      ...
      %g = grad.gradient %loss wrt %w : tensor<f32>, tensor<4xf32>
      util.return %loss, %g : tensor<f32>, tensor<4xf32>
    }

A program with loops, branches or calls (what IREE makes of `lax.scan`,
`while_loop`, `cond`, or a `util.call`) gets `control_flow` (SPEC §11), as
the front end marks what it traces; `control_flow=False` asks for the
lesson's rules, `True` sets it anyway.

It only builds the op: whether the gradient can be taken (a rule for every op
on the path, SPEC §4) is checked when the module is verified, as for an op
written by hand.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from xdsl.context import Context
from xdsl.dialects import func, scf
from xdsl.dialects.builtin import ArrayAttr, DictionaryAttr, ModuleOp, UnitAttr, f32
from xdsl.passes import ModulePass
from xdsl.rewriter import Rewriter

from gradopt.dialect.differentiation import DifferentiationOp, GradientOp
from gradopt.dialect.errors import OpError
from gradopt.dialect.types import is_f32_tensor


def entry_function(module: ModuleOp, entry: str) -> func.FuncOp:
    """The function `entry` of `module` (`func.func` or `util.func`), with a
    body; an `OpError` on the module otherwise."""
    for op in module.ops:
        if isinstance(op, func.FuncOp) and op.sym_name.data == entry:
            if op.is_declaration:
                raise OpError(op, f"@{entry} has no body to differentiate")
            return op
    raise OpError(module, f"has no function @{entry} to differentiate")


def has_control_flow(module: ModuleOp) -> bool:
    """Whether `module` holds a call, a loop or a branch (SPEC §11)."""
    return any(
        isinstance(op, func.CallOp | scf.ForOp | scf.WhileOp | scf.IfOp)
        for op in module.walk()
    )


def append_gradient(
    module: ModuleOp,
    loss: int,
    wrt: Sequence[int],
    entry: str = "main",
    control_flow: bool | None = None,
) -> GradientOp:
    """Append `grad.gradient` of result `loss` of `entry` with respect to its
    arguments `wrt` (all its f32 arguments when empty: indices and labels are
    not differentiated), and return the gradients
    after the function's results; it says `control_flow` as asked, or (None)
    when the module has calls or structured control flow. An `OpError` names
    what does not fit."""
    for op in module.walk():
        if isinstance(op, DifferentiationOp):
            raise OpError(
                op, "is already in the module: differentiate_module adds the first"
            )
    function = entry_function(module, entry)
    block = function.body.block
    terminator = block.last_op
    if not isinstance(terminator, func.ReturnOp):
        raise OpError(function, f"@{entry} does not end in a return")
    results, arguments = len(terminator.arguments), len(block.args)
    if not 0 <= loss < results:
        raise OpError(
            function,
            f"has no result {loss} to be the loss: @{entry} returns {results} "
            f"value{'s' * (results != 1)}",
        )
    positions = list(wrt) or [
        p for p, a in enumerate(block.args) if is_f32_tensor(a.type) or a.type == f32
    ]
    if not positions:
        raise OpError(function, f"@{entry} has no f32 argument to differentiate")
    for position in positions:
        if not 0 <= position < arguments:
            raise OpError(
                function,
                f"has no argument {position} to differentiate with respect to: "
                f"@{entry} takes {arguments}",
            )
    if len(set(positions)) != len(positions):
        raise OpError(function, f"is asked for argument {positions} twice")
    gradient = GradientOp(
        terminator.arguments[loss], [block.args[p] for p in positions]
    )
    if has_control_flow(module) if control_flow is None else control_flow:
        gradient.control_flow = UnitAttr()
    block.insert_op_before(gradient, terminator)
    returned = type(terminator)(*terminator.arguments, *gradient.gradients)
    Rewriter.replace_op(terminator, returned)
    function.update_function_type()
    if function.res_attrs is not None:
        function.res_attrs = ArrayAttr(
            [*function.res_attrs, *(DictionaryAttr({}) for _ in positions)]
        )
    return gradient


@dataclass(frozen=True)
class DifferentiateModulePass(ModulePass):
    """Append a grad.gradient of one result of the entry function with respect
    to some of its arguments, and return the gradients too.

    `differentiate-module{loss=0 wrt=0,2}`: result 0 with respect to
    arguments 0 and 2 of @main (`entry=NAME` for another function; every
    f32 argument when `wrt` is not given; `control_flow=true|false` to say it or
    not, which by default it does when the module has calls, loops or
    branches)."""

    name = "differentiate-module"

    entry: str = "main"
    loss: int = 0
    wrt: tuple[int, ...] = field(default=())
    control_flow: bool | None = None

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        append_gradient(op, self.loss, self.wrt, self.entry, self.control_flow)
