"""GradBench's `llsq` (cmpad's `llsq_obj`):
y(x) = 1/2 sum_i (s_i - sum_j x_j t_i^j)^2 with t_i = -1 + 2i/(n - 1) and
s_i = sign(t_i), and its gradient by `gradopt.grad`.

`n` is static (it is the length of t), so each n is its own traced program;
t, s and the powers t_i^j are computed inside it. The powers are built by
doubling (the columns 0..k-1 times t^k give the columns k..2k-1), so each is a
product of float32 multiplications rather than `power`'s exp2/log2.
"""

from __future__ import annotations

from typing import Any

import gradopt
import gradopt.numpy as gnp
from evals import Function, Json, floats


def powers(t: Any, m: int) -> Any:
    """The nxm matrix of t_i^j, j < m."""
    table = gnp.ones((t.shape[0], 1))
    while table.shape[1] < m:
        width = min(table.shape[1], m - table.shape[1])
        top = table[:, -1:] * t[:, None]
        table = gnp.concatenate([table, table[:, :width] * top], axis=1)
    return table


def llsq(x: Any, n: int) -> Any:
    t = gnp.arange(n).astype(gnp.float32) * (2.0 / (n - 1)) - 1.0
    s = gnp.sign(t)
    residual = s - powers(t, x.shape[0]) @ x
    return 0.5 * gnp.sum(residual * residual)


def _x_n(input: Json) -> tuple[Any, ...]:
    return floats(input["x"]), int(input["n"])


FUNCTIONS = {
    "primal": Function(llsq, _x_n, static_argnums=(1,)),
    "gradient": Function(gradopt.grad(llsq), _x_n, static_argnums=(1,)),
}
