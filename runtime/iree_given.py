"""Results that an entry gives back as it took them are not returned by IREE.

A training step returns every slot, and a slot it does not store to (the
batch it reads, say) is its argument given back unchanged. IREE returns such
a result as a view of the argument's imported buffer, which the call then
maps, finds to lie in an input and copies; and a run with `in_place` slots
copied that copy back into the slot it came from. So each public entry of a
lowered program that no function calls is rewritten, before IREE compiles
it, not to return the tensors it gives back as they came (`drop_given_back`):
the call makes each of them from its argument (`GivenBack.results`), a copy,
or for a slot updated in place the slot itself, untouched.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from xdsl.dialects import func
from xdsl.dialects.builtin import (
    ArrayAttr,
    FunctionType,
    ModuleOp,
    StringAttr,
    TensorType,
)
from xdsl.ir import BlockArgument, Operation, SSAValue


def given_back(function: func.FuncOp) -> dict[int, int]:
    """The results of the single-block `function` that are its arguments, as
    they came: each result's index, with its argument's."""
    entry = function.body.block
    ret = entry.last_op
    assert isinstance(ret, func.ReturnOp)
    return {
        j: value.index
        for j, value in enumerate(ret.arguments)
        if isinstance(value, BlockArgument) and value.block is entry
    }


def entries(module: ModuleOp) -> list[func.FuncOp]:
    """The public functions of `module` with a body that no function calls:
    those whose signature a call path may change (a callee's stays as the
    calls have it)."""
    called = {
        op.callee.root_reference.data
        for op in module.walk()
        if isinstance(op, func.CallOp)
    }
    return [
        function
        for function in module.ops
        if isinstance(function, func.FuncOp)
        and not function.is_declaration
        and function.sym_visibility in (None, StringAttr("public"))
        and function.sym_name.data not in called
    ]


def left_in_place(
    result: int, argument: int, results: int, in_place: Sequence[int]
) -> bool:
    """Whether `result`, of an entry's `results`, which is its argument
    `argument` given back as it came, is the final value of a slot updated
    in place whose own argument that is: the last results are the final
    values of the slots updated in place, whose arguments `in_place` lists.
    Such a result is the slot itself, which needs no copy; any other is a
    copy, even a slot's (it may be given another slot's first value)."""
    slot = result - (results - len(in_place))
    return slot >= 0 and in_place[slot] == argument


@dataclass(frozen=True)
class GivenBack:
    """Which of an entry's results are arguments given back as they came:
    for each result, its argument's index, or None for a result that IREE
    returns."""

    arguments: tuple[int | None, ...]

    def results(
        self,
        returned: Sequence[Any],
        arguments: Sequence[Any],
        in_place: Sequence[int] = (),
    ) -> list[Any]:
        """The entry's results: those IREE `returned`, in order, and for
        each argument given back a copy of it, or the argument itself where
        it is left in place (`left_in_place`)."""
        count = len(self.arguments)
        computed = iter(returned)
        return [
            next(computed)
            if argument is None
            else arguments[argument]
            if left_in_place(j, argument, count, in_place)
            else np.array(arguments[argument])
            for j, argument in enumerate(self.arguments)
        ]


def drop_given_back(module: ModuleOp) -> dict[str, GivenBack]:
    """Rewrite (in place) each single-block function of the lowered `module`
    that is one of its `entries` not to return the tensors it gives back as
    they came; returns, by name, those of the functions rewritten."""
    dropped = {}
    for function in entries(module):
        if len(function.body.blocks) == 1:
            given = {
                j: i
                for j, i in given_back(function).items()
                if isinstance(function.function_type.outputs.data[j], TensorType)
            }
            if given:
                dropped[function.sym_name.data] = _drop(function, given)
    return dropped


def _drop(function: func.FuncOp, given: dict[int, int]) -> GivenBack:
    """Drop the results `given` (by index, with their arguments') from
    `function`'s return and type."""
    ret = function.body.block.last_op
    assert isinstance(ret, func.ReturnOp)
    kept = [j for j in range(len(ret.arguments)) if j not in given]
    values: list[SSAValue] = [ret.arguments[j] for j in kept]
    new: Operation = type(ret)(*values)  # func.return, or util.return
    function.body.block.insert_op_before(new, ret)
    function.body.block.erase_op(ret)
    outputs = function.function_type.outputs.data
    function.function_type = FunctionType.from_lists(
        function.function_type.inputs.data, [outputs[j] for j in kept]
    )
    if function.res_attrs is not None:
        attrs = function.res_attrs.data
        function.res_attrs = ArrayAttr([attrs[j] for j in kept])
    return GivenBack(tuple(given.get(j) for j in range(len(outputs))))
