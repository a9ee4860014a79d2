"""GradBench's `ba` (ADBench's bundle adjustment): the reprojection errors of
p observations and the weight errors, and their sparse Jacobian.

The input is one camera, point, weight and feature that the tool repeats, as
GradBench's C++ tools do when they read it: n cameras, m points, p weights
and features, observation i seeing camera i mod n and point i mod m. The
traced function gathers each observation's camera and point (the tiled
arrays cut to p rows: the pattern i mod n is a broadcast, a reshape and a
slice, so no integer indexing is needed) and computes every observation.

The Jacobian has, per observation, two rows of 15 non-zeros (11 camera
parameters, 3 point coordinates, its weight), and one non-zero per weight
error. Each residual depends only on its own observation's gathered camera,
point and weight, so two `gradopt.vjp` pullbacks of the vectorised residuals
(cotangent (1, 0) and (0, 1) on every observation) give the two rows of every
block at once, and one more the weight errors' derivatives. All p blocks are
computed; the answer holds what GradBench compares: the first 30 and the last
entries of the matrix in CSR form (rows, cols, vals), as in its C++ tools.
"""

from __future__ import annotations

from typing import Any

import numpy as np

import gradopt
import gradopt.numpy as gnp
from evals import Function, Json, floats, to_json

BLOCK = 11 + 3 + 1
"""Non-zeros per row of a reprojection error: camera, point, weight."""


def cross(a: Any, b: Any) -> Any:
    """Row-wise cross products of two (p, 3) arrays."""
    a0, a1, a2 = a[:, 0:1], a[:, 1:2], a[:, 2:3]
    b0, b1, b2 = b[:, 0:1], b[:, 1:2], b[:, 2:3]
    return gnp.concatenate([a1 * b2 - a2 * b1, a2 * b0 - a0 * b2, a0 * b1 - a1 * b0], 1)


def rodrigues(rotation: Any, point: Any) -> Any:
    """`point` rotated by the angle-axis `rotation` (ADBench's form, with its
    first-order branch at angle 0)."""
    squared = gnp.sum(rotation * rotation, axis=1, keepdims=True)
    turning = squared != 0.0
    theta = gnp.sqrt(gnp.where(turning, squared, 1.0))
    cos, sin = gnp.cos(theta), gnp.sin(theta)
    axis = rotation / theta
    along = gnp.sum(axis * point, axis=1, keepdims=True) * (1.0 - cos)
    rotated = point * cos + cross(axis, point) * sin + axis * along
    return gnp.where(turning, rotated, point + cross(rotation, point))


def reprojection(cams: Any, points: Any, w: Any, feats: Any) -> Any:
    """The (p, 2) weighted reprojection errors, camera and point per row."""
    seen = rodrigues(cams[:, 0:3], points - cams[:, 3:6])
    projected = seen[:, 0:2] / seen[:, 2:3]
    radius = gnp.sum(projected * projected, axis=1, keepdims=True)
    distortion = 1.0 + cams[:, 9:10] * radius + cams[:, 10:11] * radius * radius
    image = projected * distortion * cams[:, 6:7] + cams[:, 7:9]
    return w[:, None] * (image - feats)


def weight_error(w: Any) -> Any:
    return 1.0 - w * w


def observed(rows: Any, p: int) -> Any:
    """Row i mod len(rows) for i < p: the rows tiled and cut."""
    count, width = rows.shape
    copies = -(-p // count)
    tiled = gnp.broadcast_to(rows[None], (copies, count, width))
    return gnp.reshape(tiled, (copies * count, width))[:p]


def objective(cams: Any, points: Any, w: Any, feats: Any) -> Any:
    p = w.shape[0]
    errors = reprojection(observed(cams, p), observed(points, p), w, feats)
    return errors, weight_error(w)


def jacobian(cams: Any, points: Any, w: Any, feats: Any) -> Any:
    """The (p, 2, 15) blocks of the reprojection errors' Jacobian and the p
    derivatives of the weight errors."""
    p = w.shape[0]
    _, pullback = gradopt.vjp(
        lambda c, x, v: reprojection(c, x, v, feats),
        observed(cams, p),
        observed(points, p),
        w,
    )
    rows = []
    for unit in np.eye(2, dtype=np.float32):
        d_cams, d_points, d_w = pullback(gnp.broadcast_to(unit, (p, 2)))
        rows.append(gnp.concatenate([d_cams, d_points, d_w[:, None]], axis=1))
    _, weights = gradopt.vjp(weight_error, w)
    (d_weights,) = weights(gnp.ones_like(w))
    return gnp.stack(rows, axis=1), d_weights


def _arguments(input: Json) -> tuple[Any, ...]:
    n, m, p = input["n"], input["m"], input["p"]
    return (
        np.tile(floats(input["cam"]), (n, 1)),
        np.tile(floats(input["x"]), (m, 1)),
        np.full(p, floats(input["w"])),
        np.tile(floats(input["feat"]), (p, 1)),
    )


def _objective(result: Any, input: Json) -> Json:
    errors, weights = result
    return {
        "reproj_error": {"elements": to_json(errors[0]), "repeated": len(errors)},
        "w_err": {"element": float(weights[0]), "repeated": len(weights)},
    }


def _jacobian(result: Any, input: Json) -> Json:
    """The first 30 and the last entries of rows, cols and vals in CSR form:
    the 2p block rows come first, observation by observation, then the p
    weight rows."""
    blocks, d_weights = result
    n, m, p = input["n"], input["m"], input["p"]
    shown = 2 * BLOCK
    rows = [BLOCK * min(r, 2 * p) + max(0, r - 2 * p) for r in range(shown)]
    first = [*range(11), 11 * n, 11 * n + 1, 11 * n + 2, 11 * n + 3 * m]
    return {
        "rows": [*rows, 2 * p * BLOCK + p],
        "cols": [*first, *first, 11 * n + 3 * m + p - 1],
        "vals": [*to_json(blocks[0].ravel()), float(d_weights[-1])],
    }


FUNCTIONS = {
    "objective": Function(objective, _arguments, _objective),
    "jacobian": Function(jacobian, _arguments, _jacobian),
}
