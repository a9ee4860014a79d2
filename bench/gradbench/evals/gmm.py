"""GradBench's `gmm` (ADBench's GMM with GradBench's fixes): the log posterior
of a Gaussian mixture with a Wishart prior, in the simplified form of the
eval's README, and its gradient with respect to alpha, mu, q and l by
`gradopt.grad`.

The lower triangles Q_k are built column by column from l (a slice of l,
padded with zeros above the diagonal), so no integer indexing is needed; the
Mahalanobis terms are one batched matmul (k, n, d) x (k, d, d). The constant
parts (the 2pi term and the log multivariate gamma of the prior, which depend
only on n, d, m and gamma) are computed in float64 by Python and passed in.
"""

from __future__ import annotations

import math
from typing import Any

import gradopt
import gradopt.numpy as gnp
from evals import Function, Json, floats, to_json


def logsumexp(v: Any, axis: int) -> Any:
    """log sum exp along `axis`, shifted by the maximum, held constant (see
    lse.py)."""
    top = gradopt.stop_gradient(gnp.max(v, axis=axis, keepdims=True))
    return gnp.squeeze(top, axis) + gnp.log(gnp.sum(gnp.exp(v - top), axis=axis))


def lower_triangles(q: Any, ltri: Any) -> Any:
    """The k matrices Q(q_k, l_k), dxd, lower triangular with exp(q) on the
    diagonal and ltri (the eval's l) filling the rest column by column."""
    k, d = q.shape
    columns, offset = [], 0
    for c in range(d):
        below = d - 1 - c
        if below:
            column = gnp.pad(ltri[:, offset : offset + below], ((0, 0), (c + 1, 0)))
        else:
            column = gnp.zeros((k, d))
        columns.append(column)
        offset += below
    strict = gnp.stack(columns, axis=2)
    return strict + gnp.exp(q)[:, :, None] * gnp.eye(d)


def log_posterior(
    alpha: Any, mu: Any, q: Any, ltri: Any, x: Any, gamma: Any, m: Any, constant: Any
) -> Any:
    n = x.shape[0]
    triangles = lower_triangles(q, ltri)
    centred = x[None, :, :] - mu[:, None, :]
    mapped = gnp.matmul(centred, gnp.transpose(triangles, (0, 2, 1)))
    sum_q = gnp.sum(q, axis=1)
    beta = (alpha + sum_q)[:, None] - 0.5 * gnp.sum(mapped * mapped, axis=2)
    likelihood = gnp.sum(logsumexp(beta, axis=0)) - n * logsumexp(alpha, axis=0)
    frobenius = gnp.sum(gnp.exp(2.0 * q)) + gnp.sum(ltri * ltri)
    prior = m * gnp.sum(sum_q) - 0.5 * gamma * gamma * frobenius
    return constant + likelihood + prior


def constant(d: int, k: int, n: int, m: int, gamma: float) -> float:
    """The terms of the log posterior that no independent variable changes."""
    dof = d + m + 1
    log_gamma_d = 0.25 * d * (d - 1) * math.log(math.pi) + sum(
        math.lgamma(0.5 * dof + 0.5 * (1 - j)) for j in range(1, d + 1)
    )
    wishart = dof * d * (math.log(gamma) - 0.5 * math.log(2.0)) - log_gamma_d
    return -0.5 * n * d * math.log(2 * math.pi) + k * wishart


def _arguments(input: Json) -> tuple[Any, ...]:
    d, k, n = input["d"], input["k"], input["n"]
    m, gamma = input["m"], input["gamma"]
    return (
        floats(input["alpha"]),
        floats(input["mu"]).reshape(k, d),
        floats(input["q"]).reshape(k, d),
        floats(input["l"]).reshape(k, d * (d - 1) // 2),
        floats(input["x"]).reshape(n, d),
        floats(gamma),
        floats(m),
        floats(constant(d, k, n, m, gamma)),
    )


def _gradient(result: Any, input: Json) -> Json:
    names = ("alpha", "mu", "q", "l")
    return {name: to_json(value) for name, value in zip(names, result, strict=True)}


FUNCTIONS = {
    "objective": Function(log_posterior, _arguments),
    "jacobian": Function(
        gradopt.grad(log_posterior, argnums=(0, 1, 2, 3)), _arguments, _gradient
    ),
}
