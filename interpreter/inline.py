"""Kernels that a compiled plan writes as Python expressions.

A plan is compiled into Python source, one line a step (`interpreter.executor`):
`v3 = k2(v0, v1)`. For the scalar `index` ops of loop bounds and of schedules
worked out at run time (revolve's reverse runs about sixty an action) the call
costs more than the arithmetic: a Python function call, the conversions of
its operands, its result checked for int64 overflow by another call. An
`Inline` kernel carries an expression that computes the same value from its
operands' names, which the plan writes in place of the call: `v3 = v0 + v1`,
with the overflow check inline and a call only when it wraps.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

Kernel = Callable[..., Any]


@dataclass(frozen=True)
class Inline:
    """A kernel, and the Python expression of its value: `template` with the
    names of its operands for `{0}`, `{1}`, ..., which may read `names` (put
    in the plan's namespace) and the local `inline_value`. Both give the same
    value on every operand; the kernel serves where no plan is compiled
    (literals folded when planning)."""

    kernel: Kernel
    template: str
    names: Mapping[str, object] = field(default_factory=dict)

    def __call__(self, *values: Any) -> Any:
        return self.kernel(*values)

    def source(self, operands: list[str]) -> str:
        """The expression, on operands of these names."""
        return self.template.format(*operands)
