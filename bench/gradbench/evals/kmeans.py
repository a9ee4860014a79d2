"""GradBench's `kmeans`: the cost sum_i min_j |C_j - P_i|^2 and the Newton direction
J*H^-1, where J is the gradient of the cost with respect to C (`gradopt.grad`)
and H its Hessian, which is diagonal: H*1 = diag(H) is one Hessian-vector
product, a `gradopt.jvp` of the gradient along a tangent of ones.

The squared distances are |P|^2 - 2 P*C^T + |C|^2, an nxk matrix from one
matmul, rather than an nxkxd array of differences; |P_i|^2 does not depend
on j, so the cost is sum |P|^2 - sum_i max_j (2 P*C^T - |C|^2)_ij: three
passes over the nxk matrix (the matmul, adding -|C|^2, the maximum) where
the distances in full and a minimum (a maximum between two negations) took
six, 15-30% of the time of both functions.
"""

from __future__ import annotations

from typing import Any

import gradopt
import gradopt.numpy as gnp
from evals import Function, Json, floats


def cost(points: Any, centroids: Any) -> Any:
    closeness = points @ (2.0 * centroids).T + -gnp.sum(centroids * centroids, axis=1)
    return gnp.sum(points * points) - gnp.sum(gnp.max(closeness, axis=1))


def direction(points: Any, centroids: Any) -> Any:
    def gradient(c: Any) -> Any:
        return gradopt.grad(cost, argnums=1)(points, c)

    jacobian, diagonal = gradopt.jvp(
        gradient, (centroids,), (gnp.ones_like(centroids),)
    )
    return jacobian / diagonal


def _arguments(input: Json) -> tuple[Any, ...]:
    return floats(input["points"]), floats(input["centroids"])


FUNCTIONS = {
    "cost": Function(cost, _arguments),
    "dir": Function(direction, _arguments),
}
