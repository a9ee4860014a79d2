"""gradopt as a GradBench tool (bench/gradbench): each eval's functions on small
inputs made here, as the eval's README describes them, against float64
references (NumPy, or JAX for the derivatives NumPy has no formula for),
within GradBench's tolerance |a - b| / max(1, |a| + |b|) <= 1e-4 and with the
exact JSON shape GradBench compares; and the protocol loop of `tool.py`
driven line by line through a subprocess."""

from __future__ import annotations

import importlib.util
import json
import math
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np
import pytest

import gradopt

ROOT = Path(__file__).resolve().parent.parent
TOOL = ROOT / "bench" / "gradbench" / "tool.py"
sys.path.insert(0, str(TOOL.parent))

from evals import (  # noqa: E402
    ba,
    det,
    gmm,
    hello,
    ht,
    kmeans,
    llsq,
    lse,
    lstm,
    ode,
    particle,
    saddle,
    solver,
)
from frontend_checks import central_difference  # noqa: E402
from run import table, versus  # noqa: E402


def compute(module: ModuleType, function: str, input: Any) -> Any:
    """What the tool answers for `function` of `module` on `input`."""
    spec = module.FUNCTIONS[function]
    traced = gradopt.jit(spec.compute, static_argnums=spec.static_argnums)
    return spec.output(traced(*spec.arguments(input)), input)


def mismatches(expected: Any, actual: Any, path: str = "") -> list[str]:
    """GradBench's comparison (its `compare_json_objects`): the same JSON
    structure, integers equal, floats within the tolerance."""
    if isinstance(expected, dict):
        if not isinstance(actual, dict) or expected.keys() != actual.keys():
            return [f"{path}: keys {sorted(expected)} != {actual!r:.80}"]
        return [m for k in expected for m in mismatches(expected[k], actual[k], k)]
    if isinstance(expected, list):
        if not isinstance(actual, list) or len(expected) != len(actual):
            return [f"{path}: a list of {len(expected)} != {actual!r:.80}"]
        return [
            m
            for i, (a, b) in enumerate(zip(expected, actual, strict=True))
            for m in mismatches(a, b, f"{path}[{i}]")
        ]
    if isinstance(expected, int) and not isinstance(expected, bool):
        return [] if actual == expected and type(actual) is int else [f"{path}"]
    if not isinstance(actual, float):
        return [f"{path}: {actual!r} is not a float"]
    scale = max(1.0, abs(expected) + abs(actual))
    return [] if abs(expected - actual) / scale <= 1e-4 else [f"{path}: {expected}"]


def check(expected: Any, actual: Any) -> None:
    assert not (found := mismatches(expected, actual)), found[:5]


def test_the_comparison_fails_outside_the_tolerance() -> None:
    assert mismatches(1.0, 1.0 + 3e-4)
    assert not mismatches(1.0, 1.0 + 2e-4)
    assert mismatches(0.0, 1.5e-4)
    assert mismatches([1, 2.0], [1.0, 2.0])
    assert mismatches({"a": 1.0}, {"b": 1.0})


# --- Evals with NumPy references ---------------------------------------------------


def test_hello() -> None:
    check(6.25, compute(hello, "square", 2.5))
    check(-3.0, compute(hello, "double", -1.5))


def test_lse() -> None:
    x = np.random.default_rng(1).uniform(-100, 100, 300)
    top = x.max()
    check(top + math.log(np.exp(x - top).sum()), compute(lse, "primal", {"x": list(x)}))
    softmax = np.exp(x - top) / np.exp(x - top).sum()
    check(softmax.tolist(), compute(lse, "gradient", {"x": list(x)}))


@pytest.mark.parametrize(("n", "m"), [(16, 8), (33, 13)])
def test_llsq(n: int, m: int) -> None:
    x = np.random.default_rng(n).random(m)
    t = -1 + np.arange(n) * 2 / (n - 1)
    powers = t[:, None] ** np.arange(m)
    residual = np.sign(t) - powers @ x
    input = {"x": x.tolist(), "n": n}
    check(0.5 * residual @ residual, compute(llsq, "primal", input))
    check((-powers.T @ residual).tolist(), compute(llsq, "gradient", input))


def test_kmeans() -> None:
    rng = np.random.default_rng(2)
    points = rng.random((60, 3))
    centroids = points[-4:]
    distances = ((points[:, None] - centroids[None]) ** 2).sum(axis=2)
    nearest = distances.argmin(axis=1)
    input = {"points": points.tolist(), "centroids": centroids.tolist()}
    check(distances.min(axis=1).sum(), compute(kmeans, "cost", input))
    count = np.bincount(nearest, minlength=4)[:, None]
    sums = np.stack([points[nearest == j].sum(axis=0) for j in range(4)])
    gradient, hessian = 2 * (count * centroids - sums), 2 * count
    check((gradient / hessian).tolist(), compute(kmeans, "dir", input))


@pytest.mark.parametrize("ell", [1, 2, 4, 6])
def test_det(ell: int) -> None:
    a = np.random.default_rng(ell).random((ell, ell))
    input = {"A": a.ravel().tolist(), "ell": ell}
    check(float(np.linalg.det(a)), compute(det, "primal", input))
    adjugate = np.linalg.det(a) * np.linalg.inv(a).T
    check(adjugate.ravel().tolist(), compute(det, "gradient", input))


def test_det_expansions_pick_each_minor_once() -> None:
    """E_s[j] maps every set of s columns containing j to the set without j,
    with the sign of j's position: row sums over j are the sets' sizes."""
    for s, matrix in enumerate(det.expansions(5), start=2):
        assert (np.abs(matrix).sum(axis=(0, 2)) == s).all()
        assert (np.abs(matrix).sum(axis=2) <= 1).all()


def rk4(x: np.ndarray, s: int) -> np.ndarray:
    """The ODE eval's reference integration (its C++ `primal`), float64."""
    h, y = 2.0 / s, np.zeros_like(x)

    def slope(y: np.ndarray) -> np.ndarray:
        return x * np.concatenate([[1.0], y[:-1]])

    for _ in range(s):
        k1 = slope(y)
        k2 = slope(y + h * k1 / 2)
        k3 = slope(y + h * k2 / 2)
        k4 = slope(y + h * k3)
        y = y + h * (k1 + 2 * k2 + 2 * k3 + k4) / 6
    return y


def test_ode_primal() -> None:
    x = np.random.default_rng(3).random(12)
    check(rk4(x, 3).tolist(), compute(ode, "primal", {"x": x.tolist(), "s": 3}))


# --- Evals with JAX references ----------------------------------------------------


@pytest.fixture(scope="module")
def jax() -> Iterator[Any]:
    """JAX in float64 for this module's tests, and as it was after them."""
    jax = pytest.importorskip("jax")
    before = jax.config.jax_enable_x64
    jax.config.update("jax_enable_x64", True)
    yield jax
    jax.config.update("jax_enable_x64", before)


def test_ode_gradient(jax: Any) -> None:
    x = np.random.default_rng(4).random(12)

    def last(x: Any) -> Any:
        h, y = 2.0 / 3, jax.numpy.zeros_like(x)
        for _ in range(3):
            k = [x * jax.numpy.concatenate([jax.numpy.ones(1), y[:-1]])]
            for step in (h / 2, h / 2, h):
                z = y + step * k[-1]
                k.append(x * jax.numpy.concatenate([jax.numpy.ones(1), z[:-1]]))
            y = y + h * (k[0] + 2 * k[1] + 2 * k[2] + k[3]) / 6
        return y[-1]

    expected = np.asarray(jax.jit(jax.grad(last))(x)).tolist()
    check(expected, compute(ode, "gradient", {"x": x.tolist(), "s": 3}))


def gmm_input(d: int, k: int, n: int, m: int, gamma: float) -> dict[str, Any]:
    """An input as GradBench's gmm eval generates one."""
    rng = np.random.default_rng(d * k)
    return {
        "d": d,
        "k": k,
        "n": n,
        "x": rng.normal(size=(n, d)).tolist(),
        "m": m,
        "gamma": gamma,
        "alpha": rng.normal(size=k).tolist(),
        "mu": rng.uniform(size=(k, d)).tolist(),
        "q": rng.normal(size=(k, d)).tolist(),
        "l": rng.normal(size=(k, d * (d - 1) // 2)).tolist(),
    }


def gmm_naive(
    jnp: Any, input: dict[str, Any], alpha: Any, mu: Any, q: Any, ltri: Any
) -> Any:
    """log(p(X | theta, phi) p(theta)) from the README's definition: Gaussian
    densities with precision matrices Q^T Q and Wishart densities of them."""
    d, k, m, gamma = input["d"], input["k"], input["m"], input["gamma"]
    x = jnp.asarray(input["x"])
    phi = jnp.exp(alpha) / jnp.sum(jnp.exp(alpha))
    dof = d + m + 1
    log_gamma_d = 0.25 * d * (d - 1) * math.log(math.pi) + sum(
        math.lgamma(0.5 * dof + 0.5 * (1 - j)) for j in range(1, d + 1)
    )
    rows, cols = np.tril_indices(d, -1, d)
    order = np.lexsort((rows, cols))  # l fills the triangle column by column
    lower = jnp.zeros((k, d, d)).at[:, rows[order], cols[order]].set(ltri)
    triangles = lower + jnp.exp(q)[:, :, None] * jnp.eye(d)
    precisions = jnp.einsum("kji,kjl->kil", triangles, triangles)
    dets = jnp.linalg.det(precisions)
    centred = x[None] - mu[:, None]
    quadratic = jnp.einsum("kni,kij,knj->kn", centred, precisions, centred)
    normal = jnp.exp(-quadratic / 2) * jnp.sqrt(dets / (2 * math.pi) ** d)[:, None]
    density = jnp.sum(phi[:, None] * normal, axis=0)
    prior = jnp.sum(
        (dof - d - 1) / 2 * jnp.log(dets)
        - gamma**2 * jnp.trace(precisions, axis1=1, axis2=2) / 2
        - dof * d / 2 * math.log(2)
        + dof * d * math.log(gamma)
        - log_gamma_d
    )
    return jnp.sum(jnp.log(density)) + prior


def test_gmm(jax: Any) -> None:
    input = gmm_input(d=3, k=4, n=30, m=1, gamma=1.3)
    independent = [jax.numpy.asarray(input[name]) for name in ("alpha", "mu", "q", "l")]

    def posterior(*args: Any) -> Any:
        return gmm_naive(jax.numpy, input, *args)

    value, gradient = jax.jit(jax.value_and_grad(posterior, argnums=(0, 1, 2, 3)))(
        *independent
    )
    check(float(value), compute(gmm, "objective", input))
    expected = {
        name: np.asarray(g).tolist()
        for name, g in zip(("alpha", "mu", "q", "l"), gradient, strict=True)
    }
    check(expected, compute(gmm, "jacobian", input))


BA_INPUT = {
    "n": 3,
    "m": 4,
    "p": 10,
    "cam": [-0.7, -1.1, -0.8, 34.5, 39.6, 53.8, 419.1, 5.8, -8.5, 0.08, 0.0027],
    "x": [7.2, 0.0011, 3.02],
    "w": 0.41,
    "feat": [31.5, -14.25],
}
"""ADBench's first camera and point, with a feature that the projection
(about (266, 842)) misses by much: with ADBench's own feature the residual
is 0.24 px, a difference of two float32 numbers near 266 whose error is
about 1e-4 (see bench/gradbench/RESULTS.md)."""


def ba_residual(jnp: Any, cam: Any, x: Any, w: Any, feat: Any) -> Any:
    """One observation's reprojection error, as ADBench's C++ computes it."""
    rotation, point = cam[:3], x - cam[3:6]
    theta = jnp.sqrt(rotation @ rotation)
    axis = rotation / theta
    rotated = (
        point * jnp.cos(theta)
        + jnp.cross(axis, point) * jnp.sin(theta)
        + axis * (axis @ point) * (1 - jnp.cos(theta))
    )
    projected = rotated[:2] / rotated[2]
    radius = projected @ projected
    distortion = 1 + cam[9] * radius + cam[10] * radius**2
    return w * (projected * distortion * cam[6] + cam[7:9] - feat)


def test_ba(jax: Any) -> None:
    jnp = jax.numpy
    cam, x, feat = (jnp.asarray(BA_INPUT[k]) for k in ("cam", "x", "feat"))
    w, (n, m, p) = BA_INPUT["w"], (BA_INPUT["n"], BA_INPUT["m"], BA_INPUT["p"])
    error = ba_residual(jnp, cam, x, w, feat)
    expected = {
        "reproj_error": {"elements": np.asarray(error).tolist(), "repeated": p},
        "w_err": {"element": 1 - w * w, "repeated": p},
    }
    check(expected, compute(ba, "objective", BA_INPUT))
    blocks = jax.jit(
        jax.jacfwd(lambda c, y, v: ba_residual(jnp, c, y, v, feat), (0, 1, 2))
    )
    d_cam, d_x, d_w = (np.asarray(b) for b in blocks(cam, x, w))
    rows = np.concatenate([d_cam, d_x, d_w[:, None]], axis=1)
    first_cols = [*range(11), 11 * n, 11 * n + 1, 11 * n + 2, 11 * n + 3 * m]
    expected = {
        "rows": [15 * r for r in range(21)] + [300 + r for r in range(1, 10)] + [310],
        "cols": first_cols * 2 + [11 * n + 3 * m + p - 1],
        "vals": [*rows.ravel().tolist(), -2 * w],
    }
    check(expected, compute(ba, "jacobian", BA_INPUT))


def test_ba_observations_see_cameras_and_points_in_turn() -> None:
    """Observation i sees camera i mod n and point i mod m, as in GradBench's
    C++ reading of the input."""
    rows = np.arange(12, dtype=np.float32).reshape(4, 3)
    tiled = gradopt.jit(lambda r: ba.observed(r, 10))(rows)
    np.testing.assert_array_equal(tiled, rows[np.arange(10) % 4])


def hand_input(us: bool) -> dict[str, Any]:
    """A made-up hand in the eval's input shape: 22 bones (the pose layout of
    26 parameters needs them), each the child of an earlier one, 30 vertices
    skinned to random bones, 12 points."""
    rng = np.random.default_rng(5)
    bones, count, points = 22, 30, 12

    def transforms() -> list[Any]:
        matrices = np.tile(np.eye(4), (bones, 1, 1))
        matrices[:, :3, :] += rng.normal(scale=0.3, size=(bones, 3, 4))
        return matrices.tolist()

    weights = rng.random((count, bones)) * (rng.random((count, bones)) < 0.2)
    weights[:, 0] += 0.1
    triangles = rng.integers(0, count, size=(20, 3))
    return {
        "theta": rng.normal(scale=0.5, size=26).tolist(),
        "data": {
            "model": {
                "bone_count": bones,
                "bone_names": [f"bone{i}" for i in range(bones)],
                "parents": [-1, *(int(rng.integers(0, i)) for i in range(1, bones))],
                "base_relatives": transforms(),
                "inverse_base_absolutes": transforms(),
                "base_positions": np.c_[
                    rng.normal(size=(count, 3)), np.ones(count)
                ].tolist(),
                "weights": (weights / weights.sum(axis=1, keepdims=True)).tolist(),
                "triangles": triangles.tolist(),
                "is_mirrored": True,
            },
            "correspondences": rng.integers(0, 20 if us else count, points).tolist(),
            "points": rng.normal(size=(points, 3)).tolist(),
        },
        "us": rng.random((points, 2)).tolist() if us else [],
    }


def hand_offsets(jnp: Any, input: dict[str, Any], theta: Any, us: Any) -> Any:
    """The eval's C++ objective, one bone at a time, with NumPy or JAX as
    `jnp`."""
    model, data = input["data"]["model"], input["data"]
    pose = [[theta[0], 1.0, theta[3]], [theta[1], 1.0, theta[4]]]
    pose.append([theta[2], 1.0, theta[5]])
    columns = [[pose[r][c] for r in range(3)] for c in range(3)]
    columns += [[0.0, 0.0, 0.0]] * 2
    at = 6
    for _ in range(5):
        columns += [[theta[at], theta[at + 1], 0.0], [theta[at + 2], 0.0, 0.0]]
        columns += [[theta[at + 3], 0.0, 0.0], [0.0, 0.0, 0.0]]
        at += 4
    absolutes: list[Any] = []
    for bone, parent in enumerate(model["parents"]):
        tx, tz, ty = columns[bone + 3]
        c, s = jnp.cos, jnp.sin
        rx = jnp.array([[1, 0, 0], [0, c(tx), -s(tx)], [0, s(tx), c(tx)]])
        ry = jnp.array([[c(ty), 0, s(ty)], [0, 1, 0], [-s(ty), 0, c(ty)]])
        rz = jnp.array([[c(tz), -s(tz), 0], [s(tz), c(tz), 0], [0, 0, 1]])
        turn = jnp.pad(rz @ ry @ rx, ((0, 1), (0, 1))) + np.diag([0, 0, 0, 1.0])
        relative = jnp.asarray(model["base_relatives"][bone]) @ turn
        absolutes.append(relative if parent < 0 else absolutes[parent] @ relative)
    base = jnp.asarray(model["base_positions"]).T
    weights = jnp.asarray(model["weights"])
    positions = jnp.zeros((3, base.shape[1]))
    for bone, absolute in enumerate(absolutes):
        moved = absolute @ jnp.asarray(model["inverse_base_absolutes"][bone]) @ base
        positions = positions + moved[:3] * weights[:, bone]
    positions = positions * np.array([[-1.0], [1.0], [1.0]])
    angle = jnp.sqrt(theta[:3] @ theta[:3])
    k = theta[:3] / angle
    cross = jnp.array([[0, -k[2], k[1]], [k[2], 0, -k[0]], [-k[1], k[0], 0]])
    turn = jnp.eye(3) + jnp.sin(angle) * cross + (1 - jnp.cos(angle)) * cross @ cross
    positions = turn @ positions + theta[3:6, None]
    targets = np.asarray(data["correspondences"])
    if us is None:
        on = positions[:, targets]
    else:
        a, b, c = np.asarray(model["triangles"])[targets].T
        u0, u1 = us[:, 0], us[:, 1]
        on = u0 * positions[:, a] + u1 * positions[:, b]
        on = on + (1 - u0 - u1) * positions[:, c]
    return jnp.ravel(jnp.asarray(data["points"]) - on.T)


def test_ht_vertices() -> None:
    input = hand_input(us=False)
    expected = hand_offsets(np, input, np.asarray(input["theta"]), None)
    check(expected.tolist(), compute(ht, "objective", input))


def test_ht_triangles(jax: Any) -> None:
    """The variant with us, whose Jacobian has every column kind (us first,
    then theta)."""
    input = hand_input(us=True)
    theta, us = (np.asarray(input[k]) for k in ("theta", "us"))
    expected = hand_offsets(np, input, theta, us)
    check(expected.tolist(), compute(ht, "objective", input))
    d_theta, d_us = jax.jit(
        jax.jacfwd(lambda t, u: hand_offsets(jax.numpy, input, t, u), (0, 1))
    )(jax.numpy.asarray(theta), jax.numpy.asarray(us))
    d_us = np.asarray(d_us).reshape(-1, 12, 2)
    own = d_us[np.arange(36), np.arange(36) // 3]  # each point's own (u0, u1)
    expected = np.concatenate([own, np.asarray(d_theta)], axis=1)
    check(expected.tolist(), compute(ht, "jacobian", input))


def lstm_loss(jnp: Any, main: Any, extra: Any, state: Any, sequence: Any) -> Any:
    """ADBench's LSTM objective as its C++ computes it: the layers and the
    characters in Python loops, gate by gate."""
    layers, bits = main.shape[0] // 2, sequence.shape[1]
    hidden = [state[2 * i] for i in range(layers)]
    cell = [state[2 * i + 1] for i in range(layers)]

    def sigmoid(x: Any) -> Any:
        return 1 / (1 + jnp.exp(-x))

    total = 0.0
    for t in range(sequence.shape[0] - 1):
        value = sequence[t] * extra[0]
        for i in range(layers):
            w, b = (main[2 * i + j].reshape(4, bits) for j in range(2))
            forget = sigmoid(value * w[0] + b[0])
            ingate = sigmoid(hidden[i] * w[1] + b[1])
            outgate = sigmoid(value * w[2] + b[2])
            change = jnp.tanh(hidden[i] * w[3] + b[3])
            cell[i] = cell[i] * forget + ingate * change
            hidden[i] = value = outgate * jnp.tanh(cell[i])
        predicted = value * extra[1] + extra[2]
        normalised = predicted - jnp.log(jnp.sum(jnp.exp(predicted)) + 2)
        total = total + jnp.sum(sequence[t + 1] * normalised)
    return -total / ((sequence.shape[0] - 1) * bits)


def test_lstm() -> None:
    """Two layers, seven characters of five bits: the eval's input shapes;
    the gradient's reference is float64 central differences of the loss."""
    rng = np.random.default_rng(6)
    layers, count, bits = 2, 7, 5
    arrays = [
        rng.random((2 * layers, 4 * bits)),
        rng.random((3, bits)),
        rng.random((2 * layers, bits)),
        (rng.random((count, bits)) < 0.5).astype(float),
    ]
    names = ("main_params", "extra_params", "state", "sequence")
    input = {name: value.tolist() for name, value in zip(names, arrays, strict=True)}
    check(float(lstm_loss(np, *arrays)), compute(lstm, "objective", input))

    def loss(*arrays: np.ndarray) -> float:
        return lstm_loss(np, *arrays)

    expected = [central_difference(loss, arrays, i).ravel() for i in (0, 1)]
    check(np.concatenate(expected).tolist(), compute(lstm, "jacobian", input))


def walk(
    f: Callable[[np.ndarray], float],
    gradient: Callable[[np.ndarray], np.ndarray],
    x: np.ndarray,
    eta: float,
) -> np.ndarray:
    """`solver.argmin` in float64 NumPy, with a given gradient."""
    fx, gx, i = f(x), gradient(x), 0
    while np.linalg.norm(gx) > 1e-5:
        if i == 10:
            eta, i = 2 * eta, 0
            continue
        moved = x - eta * gx
        if np.linalg.norm(x - moved) <= 1e-5:
            break
        if (f_moved := f(moved)) < fx:
            x, fx, gx, i = moved, f_moved, gradient(moved), i + 1
        else:
            eta, i = eta / 2, 0
    return x


@pytest.mark.parametrize("modes", ["rr", "fr"])
def test_saddle(modes: str) -> None:
    """The nested walks with a first step of 0.2 rather than the eval's 1e-5
    (a few dozen steps rather than hundreds). The inner maximum does not
    depend on x, so the outer walk's gradient is 2x: the float64 reference
    needs no derivative of the inner walk."""
    start = np.array([0.7, -0.4])
    y = walk(lambda y: y @ y, lambda y: 2 * y, start, 0.2)
    x = walk(lambda x: x @ x - y @ y, lambda x: 2 * x, start, 0.2)
    points = saddle.saddle(solver.MODES[modes[0]], solver.MODES[modes[1]], 0.2)
    found = gradopt.jit(points)(start.astype(np.float32))
    check([*x, *y], np.asarray(found, np.float64).tolist())


def crossing(w: float) -> float:
    """`particle.crossing` in float64 NumPy, with the potential's gradient
    written out."""
    charges = np.array([[10.0, 10.0 - w], [10.0, 0.0]])
    x, velocity = np.array([0.0, 8.0]), np.array([0.75, 0.0])
    while (moved := x + 0.1 * velocity)[1] > 0:
        away = x - charges
        slope = -(away / np.linalg.norm(away, axis=1)[:, None] ** 3).sum(axis=0)
        x, velocity = moved, velocity - 0.1 * slope
    return (x[0] - x[1] / velocity[1] * velocity[0]) ** 2


@pytest.mark.parametrize("modes", ["ff", "fr", "rf", "rr"])
def test_particle_crossing_and_its_derivative(modes: str) -> None:
    """What the walk over w reads: where the path crosses the axis, and the
    derivative of that through the Euler loop and the gradient inside it
    (the reference: float64 central differences)."""
    outer, inner = (solver.MODES[m] for m in modes)

    def squared(v: Any) -> Any:
        return particle.crossing(inner, v[0])

    w = np.array([0.1], np.float32)
    check(crossing(0.1), float(gradopt.jit(squared)(w)))
    slope = (crossing(0.1 + 1e-6) - crossing(0.1 - 1e-6)) / 2e-6
    check([slope], np.asarray(gradopt.jit(outer(squared))(w), np.float64).tolist())


# --- The protocol -----------------------------------------------------------------

SESSION = [
    {"id": 0, "kind": "start", "eval": "lse"},
    {"id": 1, "kind": "evaluate", "module": "lse", "function": "primal", "input": {}},
    {"id": 2, "kind": "define", "module": "lse"},
    {
        "id": 3,
        "kind": "evaluate",
        "module": "lse",
        "function": "gradient",
        "input": {"x": [0.0, 0.0, math.log(2.0)], "min_runs": 3, "min_seconds": 0},
    },
    {"id": 4, "kind": "analysis", "of": 3, "valid": True},
    "this is not JSON",
    [1, 2, 3],
    {"id": 5, "kind": "evaluate", "module": "lse", "function": "primal", "input": {}},
    {"id": 6, "kind": "evaluate", "module": "lse", "function": "dual", "input": {}},
    {
        "id": 7,
        "kind": "evaluate",
        "module": "lse",
        "function": "primal",
        "input": {"x": [[1.0], [2.0, 3.0]], "min_runs": 1, "min_seconds": 0},
    },
    {
        "id": 8,
        "kind": "evaluate",
        "module": "lse",
        "function": "primal",
        "input": {"x": [1.0, 2.0], "min_runs": 1, "min_seconds": 0.05},
    },
    {"id": 9, "kind": "define", "module": "no-such-eval"},
    {"id": 10, "kind": "define", "module": "saddle"},
    {"id": 11, "kind": "define", "module": "hello"},
    {"id": 12, "kind": "evaluate", "module": "hello", "function": "double", "input": 4},
    {"id": 13, "kind": "end"},
]


@pytest.fixture(scope="module")
def answers() -> list[dict[str, Any]]:
    """The tool's answers to SESSION, a line each."""
    lines = [m if isinstance(m, str) else json.dumps(m) for m in SESSION]
    done = subprocess.run(
        [sys.executable, str(TOOL)],
        input="\n".join(lines) + "\n",
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    answers = [json.loads(line) for line in done.stdout.splitlines()]
    assert len(answers) == len(SESSION)
    return answers


def evaluations(answer: dict[str, Any]) -> list[int]:
    return [t["nanoseconds"] for t in answer["timings"] if t["name"] == "evaluate"]


def test_start_names_gradopt_and_its_version(answers: list[dict[str, Any]]) -> None:
    assert answers[0] == {
        "id": 0,
        "tool": "gradopt",
        "config": {"version": gradopt.__version__, "backend": "numpy"},
    }


def test_evaluate_before_define_fails(answers: list[dict[str, Any]]) -> None:
    assert answers[1] == {
        "id": 1,
        "success": False,
        "error": "the module 'lse' was not defined",
    }


def test_evaluate_runs_prepares_once_and_times_each_run(
    answers: list[dict[str, Any]],
) -> None:
    assert answers[2] == {"id": 2, "success": True}
    answer = answers[3]
    assert answer["id"] == 3 and answer["success"] is True
    check([0.25, 0.25, 0.5], answer["output"])
    assert [t["name"] for t in answer["timings"]] == ["prepare"] + ["evaluate"] * 3
    assert all(t["nanoseconds"] > 0 for t in answer["timings"])
    assert answers[4] == {"id": 4}


def test_malformed_lines_get_an_error_and_the_tool_goes_on(
    answers: list[dict[str, Any]],
) -> None:
    assert answers[5]["id"] is None and answers[5]["success"] is False
    assert answers[5]["error"].startswith("malformed message: Expecting value")
    assert answers[6] == {
        "id": None,
        "success": False,
        "error": "a message is a JSON object with an id",
    }


def test_an_exception_in_an_eval_is_an_answer(answers: list[dict[str, Any]]) -> None:
    missing, unknown, ragged = answers[7], answers[8], answers[9]
    assert missing["id"] == 5 and missing["success"] is False
    assert "KeyError: 'x'" in missing["error"]
    assert unknown == {
        "id": 6,
        "success": False,
        "error": "the module 'lse' has no function 'dual'",
    }
    assert ragged["id"] == 7 and ragged["success"] is False
    assert "inhomogeneous" in ragged["error"]


def test_evaluate_runs_until_min_seconds(answers: list[dict[str, Any]]) -> None:
    answer = answers[10]
    assert answer["success"] is True
    check(2.0 + math.log1p(math.exp(-1.0)), answer["output"])
    assert sum(evaluations(answer)) >= 0.05e9


def test_define_knows_the_evals(answers: list[dict[str, Any]]) -> None:
    assert answers[11] == {
        "id": 9,
        "success": False,
        "error": "gradopt knows no eval named 'no-such-eval'",
    }
    assert answers[12] == {"id": 10, "success": True}


def test_hello_without_runs_runs_once(answers: list[dict[str, Any]]) -> None:
    assert answers[13] == {"id": 11, "success": True}
    answer = answers[14]
    assert answer["output"] == 8.0 and len(evaluations(answer)) == 1
    assert answers[15] == {"id": 13}


def test_prepare_leaves_no_one_time_work_to_the_first_run() -> None:
    """`hello` times a single run per input: the plan and the choice of
    BLAS's threads are made in `prepare`, not in that run."""
    import tool

    function = hello.FUNCTIONS["double"]
    traced = gradopt.jit(function.compute)
    args = function.arguments(3.0)
    tool.prepare(traced, args, "numpy")
    program = traced.compile(args, {}).program
    assert "blas_threads" in vars(program)
    assert float(traced(*args)) == 6.0


@pytest.mark.skipif(
    importlib.util.find_spec("iree") is None
    or importlib.util.find_spec("iree.runtime") is None,
    reason="IREE is not installed: pip install 'gradopt[iree]'",
)
def test_the_iree_backend_compiles_in_prepare() -> None:
    """With `--backend iree` the compilation is the `prepare` timing and the
    runs give the interpreter's answer."""
    input = {"x": [1.0, 3.0], "min_runs": 2, "min_seconds": 0}
    lines = [
        {"id": 0, "kind": "start"},
        {"id": 1, "kind": "define", "module": "lse"},
        {"id": 2, "kind": "evaluate", "module": "lse", "function": "gradient"}
        | {"input": input},
    ]
    done = subprocess.run(
        [sys.executable, str(TOOL), "--backend", "iree"],
        input="".join(json.dumps(line) + "\n" for line in lines),
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
    )
    start, _, answer = (json.loads(line) for line in done.stdout.splitlines())
    assert start["config"]["backend"] == "iree"
    assert [t["name"] for t in answer["timings"]] == ["prepare", "evaluate", "evaluate"]
    check([1 / (1 + math.e**2), 1 / (1 + math.e**-2)], answer["output"])


def test_the_table_pairs_primal_and_derivative(tmp_path: Path) -> None:
    log = tmp_path / "lse.jsonl"
    entries = [
        {"message": {"id": 0, "kind": "start", "eval": "lse"}},
        {"response": {"id": 0, "tool": "gradopt"}},
        {"message": {"id": 1, "kind": "evaluate", "function": "primal", **SIZE}},
        {"response": {"id": 1, "success": True, "timings": RUNS(2e6, 4e6)}},
        {"message": {"id": 2, "kind": "analysis", "of": 1, "valid": True}},
        {"response": {"id": 2}},
        {"message": {"id": 3, "kind": "evaluate", "function": "gradient", **SIZE}},
        {"response": {"id": 3, "success": True, "timings": RUNS(9e6)}},
        {"message": {"id": 4, "kind": "analysis", "of": 3, "valid": False}},
        {"response": {"id": 4}},
    ]
    log.write_text("".join(json.dumps(e) + "\n" for e in entries))
    lines = list(table([log], []))
    assert lines[0] == "### lse"
    assert lines[4] == (
        "| n=8 | gradopt | yes/**no** | 3 ms | 9 ms | 3.0 | 4 ms / - | - "
        "| 2 ms / 9 ms |"
    )


SIZE = {"module": "lse", "description": "n=8"}


def RUNS(*nanoseconds: float) -> list[dict[str, Any]]:
    return [{"name": "evaluate", "nanoseconds": int(n)} for n in nanoseconds]


def write_log(path: Path, eval: str, runs: dict[str, list[float]]) -> None:
    """A log of `eval` with one evaluation of n=8 per function, `runs` its
    timings."""
    entries: list[dict[str, Any]] = [
        {"message": {"id": 0, "kind": "start", "eval": eval}},
        {"response": {"id": 0, "tool": path.stem}},
    ]
    for i, (function, times) in enumerate(runs.items(), start=1):
        message = {"kind": "evaluate", "module": eval, "function": function}
        entries.append({"message": {"id": i, **message, "description": "n=8"}})
        entries.append(
            {"response": {"id": i, "success": True, "timings": RUNS(*times)}}
        )
    path.write_text("".join(json.dumps(e) + "\n" for e in entries))


def test_versus_sets_steady_times_beside_the_faster_peer(tmp_path: Path) -> None:
    """Each tool's time is the median of its runs after the first (JAX's
    compiles); a tool that ran once has none."""
    logs = [tmp_path / f"lse-{tool}.jsonl" for tool in ("gradopt", "jax", "torch")]
    gradient = [9e6, 2e6, 2e6, 50e6]  # a stall: the median passes it over
    write_log(logs[0], "lse", {"primal": [9e6, 1e6], "gradient": gradient})
    write_log(logs[1], "lse", {"primal": [5e8, 1e6], "gradient": [5e8, 4e6]})
    write_log(logs[2], "lse", {"primal": [1e6], "gradient": [1e6]})
    lines = list(versus(logs, "gradopt", ["jax", "torch"]))
    assert lines[4] == "| n=8 | 2 ms | 4 ms | - | jax | 0.50 | 2.0 |"
    assert lines[6] == (
        "gradopt at most the faster peer's time on 1 of 1 sizes; geometric mean "
        "of gradopt / faster: 0.50"
    )


def test_the_table_of_particle_has_a_column_per_mode(tmp_path: Path) -> None:
    log = tmp_path / "particle-gradopt.jsonl"
    write_log(
        log, "particle", {"rr": [3e6], "ff": [1e9, 3e9], "fr": [5e6], "rf": [7e6]}
    )
    lines = list(table([log], []))
    assert lines[2:5] == [
        "| size | tool | valid (rr/ff/fr/rf) | rr | ff | fr | rf | prepare |",
        "|---|---|---|---|---|---|---|---|",
        "| n=8 | gradopt | -/-/-/- | 3 ms | 2 s | 5 ms | 7 ms | - |",
    ]
