"""GradBench's `ht` (ADBench's hand tracking): the offsets between observed
points and a skinned hand model posed by 26 parameters theta, and their dense
Jacobian, in both of the eval's variants (with `us`, the points lie on the
model's triangles at barycentric coordinates us; without, on its vertices).

The model follows the eval's C++ reference: theta scattered into 3 x 25 pose
parameters, per bone an Euler-angle rotation after its base relative
transform, the bones' absolute transforms down the parent chain (a Python
loop over the 22 bones, unrolled when traced), linear blend skinning, a
mirror, the global angle-axis rotation and translation.

The front end has no integer-array indexing, so the fixed index patterns
are 0/1 matrices built in Python from the input: theta to pose parameters
(75 x 26), and the vertices the points refer to (n_vertices x n_points, one
per triangle corner in the `us` variant). The latter cost n_vertices x
n_points memory and multiply-adds, which a gather would not.

The model is written for a batch of inputs, which is how the Jacobian's
columns come from one `gradopt.jvp` (forward mode: 26 inputs, 3 n_points
outputs): the objective at 28 copies of (theta, us), the tangent of copy b
the direction of column b. In the `us` variant each point's offset depends
only on its own (u0, u1), so the tangents (1, 0) and (0, 1) at every point
give the two columns that GradBench stores for us (the diagonal blocks of
that part of the Jacobian). Without `vmap` in the front end, the batch is
written out by hand; the work is that of 28 forward passes, the trace that
of one.
"""

from __future__ import annotations

from typing import Any

import numpy as np

import gradopt
import gradopt.numpy as gnp
from evals import Function, Json, floats

FINGERS = 5


def pose_scatter(n_theta: int, n_bones: int) -> np.ndarray:
    """The 0/1 matrix taking theta to the 3 x (n_bones + 3) pose parameters,
    flattened row-major: column 0 the global rotation, 2 the translation
    (column 1, the global scale, is all ones and added separately), then per
    finger three bones of one (the first two) parameter each."""
    scatter = np.zeros((3, n_bones + 3, n_theta), np.float32)
    for i in range(3):
        scatter[i, 0, i] = scatter[i, 2, 3 + i] = 1.0
    theta, column = 6, 5
    for _ in range(FINGERS):
        for joint in range(3):
            scatter[0, column, theta] = 1.0
            theta += 1
            if joint == 0:
                scatter[1, column, theta] = 1.0
                theta += 1
            column += 1
        column += 1
    return scatter.reshape(3 * (n_bones + 3), n_theta)


def rotation(cos: Any, sin: Any, axes: tuple[int, int]) -> Any:
    """3 x 3 rotations in the plane of `axes`, one per entry of `cos` and
    `sin` (shape S; the result is S + (3, 3)): entries (a, a) and (b, b)
    cos, (b, a) sin, (a, b) -sin, the rest of the identity."""
    a, b = axes
    other = 3 - a - b
    entries = [[gnp.zeros_like(cos)] * 3 for _ in range(3)]
    entries[other][other] = gnp.ones_like(cos)
    entries[a][a] = entries[b][b] = cos
    entries[b][a], entries[a][b] = sin, -sin
    return gnp.stack([gnp.stack(row, axis=-1) for row in entries], axis=-2)


def euler_rotations(angles: Any) -> Any:
    """Rz Ry Rx for angles (batch, (x, z, y), bones): (batch, bones, 3, 3)."""
    x, z, y = angles[:, 0], angles[:, 1], angles[:, 2]
    rx = rotation(gnp.cos(x), gnp.sin(x), (1, 2))
    ry = rotation(gnp.cos(y), gnp.sin(y), (2, 0))
    rz = rotation(gnp.cos(z), gnp.sin(z), (0, 1))
    return rz @ ry @ rx


def angle_axis(vectors: Any) -> Any:
    """The rotation matrices of (batch, 3) angle-axis vectors (the identity
    below an angle of 1e-4, as in the reference): (batch, 3, 3)."""
    squared = gnp.sum(vectors * vectors, axis=1, keepdims=True)
    turning = squared >= 1e-8
    norm = gnp.sqrt(gnp.where(turning, squared, 1.0))
    axis = vectors / norm
    x, y, z = axis[:, 0], axis[:, 1], axis[:, 2]
    zero = gnp.zeros_like(x)
    rows = [[zero, -z, y], [z, zero, -x], [-y, x, zero]]
    cross = gnp.stack([gnp.stack(row, axis=-1) for row in rows], axis=-2)
    c, s = gnp.cos(norm)[:, :, None], gnp.sin(norm)[:, :, None]
    outer = axis[:, :, None] * axis[:, None, :]
    matrices = c * gnp.eye(3) + (1.0 - c) * outer + s * cross
    return gnp.where(turning[:, :, None], matrices, gnp.eye(3))


Structure = tuple[tuple[int, ...], bool, bool]
"""What selects the traced program besides shapes: the bones' parents,
whether the model is mirrored, whether the points have `us`."""


def vertices(thetas: Any, model: dict[str, Any], structure: Structure) -> Any:
    """The vertex positions of the model posed by each row of `thetas`:
    (batch, 3, n_vertices)."""
    parents, mirrored, _ = structure
    batch, bones = thetas.shape[0], len(parents)
    pose = gnp.reshape(thetas @ model["scatter"].T, (batch, 3, bones + 3))
    pose = pose + np.eye(1, bones + 3, 1, dtype=np.float32)
    turn = gnp.pad(euler_rotations(pose[:, :, 3:]), ((0, 0), (0, 0), (0, 1), (0, 1)))
    corner = np.zeros((4, 4), np.float32)
    corner[3, 3] = 1.0
    shape = (batch, bones, 4, 4)
    relatives = gnp.broadcast_to(model["base_relatives"], shape) @ (turn + corner)
    absolutes: list[Any] = []
    for bone, parent in enumerate(parents):
        relative = relatives[:, bone]
        absolutes.append(relative if parent < 0 else absolutes[parent] @ relative)
    inverses = gnp.broadcast_to(model["inverse_base_absolutes"], shape)
    transforms = (gnp.stack(absolutes, axis=1) @ inverses)[:, :, :3, :]
    moved = gnp.reshape(transforms, (-1, 4)) @ model["base_positions"]
    moved = gnp.reshape(moved, (batch, bones, 3, -1))
    skinned = gnp.sum(moved * model["weights"][None, :, None, :], axis=1)
    if mirrored:
        skinned = skinned * np.array([[-1.0], [1.0], [1.0]], np.float32)
    return angle_axis(pose[:, :, 0]) @ skinned + pose[:, :, 2:3]


def offsets(thetas: Any, us: Any, model: dict[str, Any], structure: Structure) -> Any:
    """points - model points for each row of `thetas` and of `us`: (batch,
    n_points, 3). Without `us` (then a placeholder) the model points are
    vertices, with it points on triangles."""
    posed = vertices(thetas, model, structure)
    batch = thetas.shape[0]
    on = [
        gnp.transpose(
            gnp.reshape(gnp.reshape(posed, (batch * 3, -1)) @ corner, (batch, 3, -1)),
            (0, 2, 1),
        )
        for corner in model["corners"]
    ]
    if not structure[2]:
        return model["points"] - on[0]
    u0, u1 = us[:, :, 0:1], us[:, :, 1:2]
    return model["points"] - (u0 * on[0] + u1 * on[1] + (1.0 - u0 - u1) * on[2])


def objective(theta: Any, us: Any, model: dict[str, Any], structure: Structure) -> Any:
    return gnp.reshape(offsets(theta[None], us[None], model, structure), (-1,))


def jacobian(theta: Any, us: Any, model: dict[str, Any], structure: Structure) -> Any:
    """The (3 n_points, 2 + 26) Jacobian (26 columns without `us`): the us
    columns first, as GradBench's reference stores them.

    One `jvp` of the objective batched over the columns: row b of the batch
    is the objective at (theta, us) again, with tangent e_b on theta for a
    theta column, and (1, 0) or (0, 1) at every point on us for the two us
    columns (each point's offset depends only on its own us)."""
    spare = 2 if structure[2] else 0
    batch = spare + theta.shape[0]
    directions = np.eye(batch, dtype=np.float32)
    thetas = gnp.broadcast_to(theta, (batch, theta.shape[0]))
    uses = gnp.broadcast_to(us, (batch, *us.shape))
    on_us = directions[:, :2] if spare else np.zeros((batch, 2), np.float32)
    _, columns = gradopt.jvp(
        lambda t, u: gnp.reshape(offsets(t, u, model, structure), (batch, -1)),
        (thetas, uses),
        (directions[:, spare:], gnp.broadcast_to(on_us[:, None, :], uses.shape)),
    )
    return gnp.transpose(columns)


def one_hot(indices: np.ndarray, count: int) -> np.ndarray:
    """The (count, len(indices)) 0/1 matrix whose column i picks row
    indices[i]."""
    matrix = np.zeros((count, len(indices)), np.float32)
    matrix[indices, np.arange(len(indices))] = 1.0
    return matrix


def _arguments(input: Json) -> tuple[Any, ...]:
    data, theta = input["data"], floats(input["theta"])
    spec = data["model"]
    base_positions = floats(spec["base_positions"])
    count = base_positions.shape[0]
    correspondences = np.asarray(data["correspondences"], np.int64)
    if not input["us"]:
        us = np.zeros((1, 2), np.float32)
        corners = (one_hot(correspondences, count),)
    else:
        us = floats(input["us"])
        triangles = np.asarray(spec["triangles"], np.int64)[correspondences]
        corners = tuple(one_hot(triangles[:, k], count) for k in range(3))
    model = {
        "scatter": pose_scatter(len(theta), len(spec["parents"])),
        "base_relatives": floats(spec["base_relatives"]),
        "inverse_base_absolutes": floats(spec["inverse_base_absolutes"]),
        "base_positions": np.ascontiguousarray(base_positions.T),
        "weights": np.ascontiguousarray(floats(spec["weights"]).T),
        "points": floats(data["points"]),
        "corners": corners,
    }
    parents = tuple(int(p) for p in spec["parents"])
    return theta, us, model, (parents, bool(spec["is_mirrored"]), bool(input["us"]))


FUNCTIONS = {
    "objective": Function(objective, _arguments, static_argnums=(3,)),
    "jacobian": Function(jacobian, _arguments, static_argnums=(3,)),
}
