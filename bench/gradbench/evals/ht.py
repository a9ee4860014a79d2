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

The Jacobian's 26 theta columns are 26 `gradopt.jvp`s of the one objective
(forward mode: 26 inputs, 3 n_points outputs). In the `us` variant each
point's offset depends only on its own (u0, u1), so two more `jvp`s, with
tangent (1, 0) and (0, 1) at every point, give the two columns that GradBench
stores for us (the diagonal blocks of that part of the Jacobian).
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


def rotation(cos: Any, sin: Any, axes: tuple[int, int], count: int) -> Any:
    """`count` 3 x 3 rotations in the plane of `axes`: entries (a, a) and
    (b, b) cos, (b, a) sin, (a, b) -sin, the rest of the identity."""
    a, b = axes
    other = 3 - a - b
    entries = [[gnp.zeros(count)] * 3 for _ in range(3)]
    entries[other][other] = gnp.ones(count)
    entries[a][a] = entries[b][b] = cos
    entries[b][a], entries[a][b] = sin, -sin
    return gnp.stack([gnp.stack(row, axis=1) for row in entries], axis=1)


def euler_rotations(pose: Any) -> Any:
    """Per bone, Rz Ry Rx for the bone's (x, z, y) angles: (n_bones, 3, 3)."""
    count = pose.shape[1]
    rx = rotation(gnp.cos(pose[0]), gnp.sin(pose[0]), (1, 2), count)
    ry = rotation(gnp.cos(pose[2]), gnp.sin(pose[2]), (2, 0), count)
    rz = rotation(gnp.cos(pose[1]), gnp.sin(pose[1]), (0, 1), count)
    return rz @ ry @ rx


def angle_axis(vector: Any) -> Any:
    """The rotation matrix of an angle-axis 3-vector (the identity below an
    angle of 1e-4, as in the reference)."""
    squared = gnp.sum(vector * vector)
    turning = squared >= 1e-8
    norm = gnp.sqrt(gnp.where(turning, squared, 1.0))
    axis = vector / norm
    x, y, z = axis[0], axis[1], axis[2]
    zero = gnp.zeros(())
    cross = gnp.stack(
        [gnp.stack([zero, -z, y]), gnp.stack([z, zero, -x]), gnp.stack([-y, x, zero])]
    )
    c = gnp.cos(norm)
    outer = axis[:, None] * axis[None, :]
    matrix = c * gnp.eye(3) + (1.0 - c) * outer + gnp.sin(norm) * cross
    return gnp.where(turning, matrix, gnp.eye(3))


Structure = tuple[tuple[int, ...], bool, bool]
"""What selects the traced program besides shapes: the bones' parents,
whether the model is mirrored, whether the points have `us`."""


def vertices(theta: Any, model: dict[str, Any], structure: Structure) -> Any:
    """The posed model's vertex positions, (3, n_vertices)."""
    parents, mirrored, _ = structure
    bones = model["base_relatives"].shape[0]
    pose = gnp.reshape(model["scatter"] @ theta, (3, bones + 3))
    pose = pose + np.eye(1, bones + 3, 1, dtype=np.float32)
    turn = gnp.pad(euler_rotations(pose[:, 3:]), ((0, 0), (0, 1), (0, 1)))
    corner = np.zeros((4, 4), np.float32)
    corner[3, 3] = 1.0
    relatives = model["base_relatives"] @ (turn + corner)
    absolutes: list[Any] = []
    for bone, parent in enumerate(parents):
        relative = relatives[bone]
        absolutes.append(relative if parent < 0 else absolutes[parent] @ relative)
    transforms = gnp.stack(absolutes) @ model["inverse_base_absolutes"]
    moved = (transforms @ model["base_positions"])[:, :3, :]
    skinned = gnp.sum(moved * model["weights"][:, None, :], axis=0)
    if mirrored:
        skinned = skinned * np.array([[-1.0], [1.0], [1.0]], np.float32)
    return angle_axis(pose[:, 0]) @ skinned + pose[:, 2:3]


def offsets(theta: Any, us: Any, model: dict[str, Any], structure: Structure) -> Any:
    """points - model points, (n_points, 3); without `us` (then a
    placeholder) the model points are vertices, with it points on triangles."""
    posed = vertices(theta, model, structure)
    corners = model["corners"]
    if not structure[2]:
        return model["points"] - gnp.transpose(posed @ corners[0])
    u0, u1 = us[:, 0:1], us[:, 1:2]
    on = [gnp.transpose(posed @ corner) for corner in corners]
    return model["points"] - (u0 * on[0] + u1 * on[1] + (1.0 - u0 - u1) * on[2])


def objective(theta: Any, us: Any, model: dict[str, Any], structure: Structure) -> Any:
    return gnp.reshape(offsets(theta, us, model, structure), (-1,))


def jacobian(theta: Any, us: Any, model: dict[str, Any], structure: Structure) -> Any:
    """The (3 n_points, 2 + 26) Jacobian (26 columns without `us`): the us
    columns first, as GradBench's reference stores them."""
    columns = []
    if structure[2]:
        for unit in np.eye(2, dtype=np.float32):
            direction = gnp.broadcast_to(unit, us.shape)
            _, column = gradopt.jvp(
                lambda u: objective(theta, u, model, structure), (us,), (direction,)
            )
            columns.append(column)
    for unit in np.eye(theta.shape[0], dtype=np.float32):
        _, column = gradopt.jvp(
            lambda t: objective(t, us, model, structure), (theta,), (unit,)
        )
        columns.append(column)
    return gnp.stack(columns, axis=1)


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
