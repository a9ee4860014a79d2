# ruff: noqa: E501 (MLIR text: one op a line, as MLIR prints it)
"""The gradient rules of the upstream dialects (SPEC §10.2): every `arith`
and `math` row on scalars and tensors, the `tensor` data movement, `linalg`
generics (parallel, addf and max reductions with ties) and named ops,
checked against float64 references (central finite differences of a NumPy
reimplementation, `jax.grad` for the corpus), and jvp against vjp."""

from __future__ import annotations

import importlib.util
import re
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

import gradopt
from gradopt import GradoptError, Program

HAVE_JAX = importlib.util.find_spec("jax") is not None
HAVE_IREE = importlib.util.find_spec("iree") is not None and all(
    importlib.util.find_spec(m) for m in ("iree.compiler", "iree.runtime")
)
CORPUS = Path(__file__).resolve().parent / "corpus"


def finite_differences(
    f: Callable[..., float], args: list[np.ndarray], h: float = 1e-6
) -> list[np.ndarray]:
    """The gradient of `f` in float64 by central differences."""
    args64 = [np.asarray(a, np.float64) for a in args]
    grads = []
    for i, a in enumerate(args64):
        g = np.zeros_like(a)
        for idx in np.ndindex(*a.shape):
            up = [x.copy() for x in args64]
            down = [x.copy() for x in args64]
            up[i][idx] += h
            down[i][idx] -= h
            g[idx] = (f(*up) - f(*down)) / (2 * h)
        grads.append(g)
    return grads


def close(found: np.ndarray, expected: np.ndarray, tol: float = 2e-3) -> bool:
    scale = max(1.0, float(np.max(np.abs(expected))))
    return float(np.max(np.abs(found - expected))) <= tol * scale


UNARY: dict[str, tuple[Callable[[np.ndarray], np.ndarray], tuple[float, float]]] = {
    "math.exp": (np.exp, (-1, 1)),
    "math.exp2": (np.exp2, (-1, 1)),
    "math.expm1": (np.expm1, (-1, 1)),
    "math.log": (np.log, (0.5, 2)),
    "math.log2": (np.log2, (0.5, 2)),
    "math.log10": (np.log10, (0.5, 2)),
    "math.log1p": (np.log1p, (0.5, 2)),
    "math.sqrt": (np.sqrt, (0.5, 2)),
    "math.rsqrt": (lambda a: 1 / np.sqrt(a), (0.5, 2)),
    "math.tanh": (np.tanh, (-1, 1)),
    "math.sin": (np.sin, (-1, 1)),
    "math.cos": (np.cos, (-1, 1)),
    "math.tan": (np.tan, (-1, 1)),
    "math.atan": (np.arctan, (-1, 1)),
    "math.erf": (lambda a: np.vectorize(__import__("math").erf)(a), (-1, 1)),
    "math.absf": (np.abs, (0.2, 1)),
    "arith.negf": (np.negative, (-1, 1)),
}

BINARY: dict[str, tuple[Callable[[np.ndarray, np.ndarray], np.ndarray], float]] = {
    "arith.addf": (np.add, 0.0),
    "arith.subf": (np.subtract, 0.0),
    "arith.mulf": (np.multiply, 0.0),
    "arith.divf": (np.divide, 2.0),
    "arith.maximumf": (np.maximum, 0.0),
    "arith.minimumf": (np.minimum, 0.0),
    "arith.maxnumf": (np.fmax, 0.0),
    "arith.minnumf": (np.fmin, 0.0),
    "arith.remf": (np.fmod, 2.0),
    "math.atan2": (np.arctan2, 0.0),
    "math.powf": (np.power, 2.0),
    "math.copysign": (np.copysign, -2.0),
}


def scalar_program(op: str, arity: int) -> str:
    args = ", ".join(f"%a{i}: f32" for i in range(arity))
    operands = ", ".join(f"%a{i}" for i in range(arity))
    targets = ", ".join("f32" for _ in range(arity))
    return f"""
func.func @main({args}) -> ({targets}) {{
  %y = {op} {operands} : f32
  %g:{arity} = grad.gradient %y wrt {operands} : f32, {targets}
  func.return {", ".join(f"%g#{i}" for i in range(arity))} : {targets}
}}"""


def tensor_program(op: str, arity: int, shape: str = "3") -> str:
    """`sum(op(a...))` over tensors, the sum as a linalg reduction."""
    t = f"tensor<{shape}xf32>"
    args = ", ".join(f"%a{i}: {t}" for i in range(arity))
    operands = ", ".join(f"%a{i}" for i in range(arity))
    targets = ", ".join(t for _ in range(arity))
    return f"""
func.func @main({args}) -> ({targets}) {{
  %y = {op} {operands} : {t}
  %z = arith.constant dense<0.0> : tensor<f32>
  %s = linalg.generic {{indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> ()>], iterator_types = ["reduction"]}} ins(%y : {t}) outs(%z : tensor<f32>) {{
  ^bb0(%in: f32, %acc: f32):
    %r = arith.addf %acc, %in : f32
    linalg.yield %r : f32
  }} -> tensor<f32>
  %g:{arity} = grad.gradient %s wrt {operands} : tensor<f32>, {targets}
  func.return {", ".join(f"%g#{i}" for i in range(arity))} : {targets}
}}"""


@pytest.mark.parametrize("op", sorted(UNARY))
def test_unary_rules_on_scalars_and_tensors(op: str) -> None:
    f, (low, high) = UNARY[op]
    rng = np.random.default_rng(1)
    x = rng.uniform(low, high, 3).astype(np.float32)
    (found,) = Program(tensor_program(op, 1)).run(args=[x]).results
    (expected,) = finite_differences(lambda a: float(np.sum(f(a))), [x])
    assert close(found, expected)
    (scalar,) = Program(scalar_program(op, 1)).run(args=[x[0]]).results
    assert close(np.asarray(scalar), expected[:1].reshape(()))


@pytest.mark.parametrize("op", sorted(BINARY))
def test_binary_rules_on_scalars_and_tensors(op: str) -> None:
    f, shift = BINARY[op]
    rng = np.random.default_rng(2)
    a = rng.uniform(0.5, 1.5, 3).astype(np.float32) + np.float32(shift)
    b = rng.uniform(0.5, 1.5, 3).astype(np.float32)
    found = Program(tensor_program(op, 2)).run(args=[a, b]).results
    expected = finite_differences(lambda x, y: float(np.sum(f(x, y))), [a, b])
    for got, want in zip(found, expected, strict=True):
        assert close(got, want)
    scalars = Program(scalar_program(op, 2)).run(args=[a[0], b[0]]).results
    for got, want in zip(scalars, expected, strict=True):
        assert close(np.asarray(got), want[0])


@pytest.mark.parametrize("op", ["arith.maximumf", "arith.minimumf"])
def test_ties_split_evenly(op: str) -> None:
    a = np.array([1.0, 2.0, 3.0], np.float32)
    b = np.array([1.0, 0.0, 4.0], np.float32)
    ga, gb = Program(tensor_program(op, 2)).run(args=[a, b]).results
    np.testing.assert_array_equal(ga + gb, [1.0, 1.0, 1.0])
    assert ga[0] == gb[0] == 0.5


def test_select_and_fma() -> None:
    text = """
func.func @main(%c: i1, %a: f32, %b: f32, %d: f32) -> (f32, f32, f32) {
  %s = arith.select %c, %a, %b : f32
  %y = math.fma %s, %b, %d : f32
  %g:3 = grad.gradient %y wrt %a, %b, %d : f32, f32, f32, f32
  func.return %g#0, %g#1, %g#2 : f32, f32, f32
}"""
    a, b, d = np.float32(0.7), np.float32(-1.3), np.float32(2.0)
    for c in (True, False):
        found = Program(text).run(args=[np.bool_(c), a, b, d]).results

        def f(x: np.ndarray, y: np.ndarray, z: np.ndarray, c: bool = c) -> float:
            return float((x if c else y) * y + z)

        expected = finite_differences(f, [a, b, d])
        for got, want in zip(found, expected, strict=True):
            assert close(np.asarray(got), want)


TENSOR_PROGRAM = """
func.func @main(%a: tensor<4x6xf32>, %n: i32, %s: f32) -> (tensor<4x6xf32>, f32) {
  %i = arith.index_cast %n : i32 to index
  %x = tensor.extract_slice %a[1, %i] [2, 3] [1, 2] : tensor<4x6xf32> to tensor<2x3xf32>
  %c = arith.constant 0.0 : f32
  %p = tensor.pad %x low[1, 0] high[0, 2] {
  ^bb0(%j: index, %k: index):
    tensor.yield %c : f32
  } : tensor<2x3xf32> to tensor<3x5xf32>
  %q = tensor.collapse_shape %p [[0, 1]] : tensor<3x5xf32> into tensor<15xf32>
  %e = tensor.expand_shape %q [[0, 1]] output_shape [5, 3] : tensor<15xf32> into tensor<5x3xf32>
  %sp = tensor.splat %s : tensor<5x3xf32>
  %m = arith.mulf %e, %sp : tensor<5x3xf32>
  %sq = arith.mulf %m, %m : tensor<5x3xf32>
  %k = tensor.concat dim(0) %m, %sq : (tensor<5x3xf32>, tensor<5x3xf32>) -> tensor<10x3xf32>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c6 = arith.constant 6 : index
  %el = tensor.extract %k[%c6, %c1] : tensor<10x3xf32>
  %ins = tensor.insert %el into %k[%c0, %c0] : tensor<10x3xf32>
  %el2 = tensor.extract %ins[%c0, %c0] : tensor<10x3xf32>
  %el4 = tensor.extract %ins[%c1, %c1] : tensor<10x3xf32>
  %fe = tensor.from_elements %el2, %el4 : tensor<2xf32>
  %e0 = tensor.extract %fe[%c0] : tensor<2xf32>
  %e1 = tensor.extract %fe[%c1] : tensor<2xf32>
  %l = arith.mulf %e0, %e1 : f32
  %ga, %gs = grad.gradient %l wrt %a, %s : f32, tensor<4x6xf32>, f32
  func.return %ga, %gs : tensor<4x6xf32>, f32
}"""


def test_tensor_data_movement() -> None:
    rng = np.random.default_rng(3)
    a = rng.uniform(-1, 1, (4, 6)).astype(np.float32)
    s = np.float32(1.5)

    def f(a: np.ndarray, s: np.ndarray) -> float:
        x = a[1:3, 1:7:2]
        p = np.pad(x, ((1, 0), (0, 2)))
        m = p.reshape(5, 3) * s
        k = np.concatenate([m, m * m])
        ins = k.copy()
        ins[0, 0] = k[6, 1]
        return float(ins[0, 0] * ins[1, 1])

    found = Program(TENSOR_PROGRAM).run(args=[a, np.int32(1), s]).results
    expected = finite_differences(f, [a, s])
    for got, want in zip(found, expected, strict=True):
        assert close(np.asarray(got), want)


LINALG_PROGRAM = """
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
#col = affine_map<(d0, d1) -> (d1)>
func.func @main(%a: tensor<2x3xf32>, %b: tensor<3xf32>, %w: tensor<3x4xf32>) -> (f32, tensor<2x3xf32>, tensor<3xf32>, tensor<3x4xf32>) {
  %e = tensor.empty() : tensor<2x3xf32>
  %y = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]} ins(%a, %b : tensor<2x3xf32>, tensor<3xf32>) outs(%e : tensor<2x3xf32>) {
  ^bb0(%x: f32, %c: f32, %o: f32):
    %m = arith.mulf %x, %c : f32
    %s = math.sin %m : f32
    %t = arith.addf %s, %x : f32
    %u = math.exp %t : f32
    linalg.yield %u : f32
  } -> tensor<2x3xf32>
  %z = arith.constant 0.0 : f32
  %e2 = tensor.empty() : tensor<2x4xf32>
  %f = linalg.fill ins(%z : f32) outs(%e2 : tensor<2x4xf32>) -> tensor<2x4xf32>
  %mm = MATMUL
  %ninf = arith.constant 0xFF800000 : f32
  %e3 = tensor.empty() : tensor<2xf32>
  %f3 = linalg.fill ins(%ninf : f32) outs(%e3 : tensor<2xf32>) -> tensor<2xf32>
  %mx = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]} ins(%mm : tensor<2x4xf32>) outs(%f3 : tensor<2xf32>) {
  ^bb0(%x: f32, %o: f32):
    %r = arith.maximumf %o, %x : f32
    linalg.yield %r : f32
  } -> tensor<2xf32>
  %init = arith.constant dense<0.0> : tensor<f32>
  %sum = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> ()>], iterator_types = ["reduction"]} ins(%mx : tensor<2xf32>) outs(%init : tensor<f32>) {
  ^bb0(%x: f32, %o: f32):
    %r = arith.addf %o, %x : f32
    linalg.yield %r : f32
  } -> tensor<f32>
  %l = tensor.extract %sum[] : tensor<f32>
  %ga, %gb, %gw = grad.gradient %l wrt %a, %b, %w : f32, tensor<2x3xf32>, tensor<3xf32>, tensor<3x4xf32>
  func.return %l, %ga, %gb, %gw : f32, tensor<2x3xf32>, tensor<3xf32>, tensor<3x4xf32>
}"""

NAMED = "linalg.matmul ins(%y, %w : tensor<2x3xf32>, tensor<3x4xf32>) outs(%f : tensor<2x4xf32>) -> tensor<2x4xf32>"
GENERIC = """linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%y, %w : tensor<2x3xf32>, tensor<3x4xf32>) outs(%f : tensor<2x4xf32>) {
  ^bb0(%p: f32, %q: f32, %acc: f32):
    %pq = arith.mulf %p, %q : f32
    %r = arith.addf %acc, %pq : f32
    linalg.yield %r : f32
  } -> tensor<2x4xf32>"""


def _linalg_reference(a: np.ndarray, b: np.ndarray, w: np.ndarray) -> float:
    return float((np.exp(np.sin(a * b) + a) @ w).max(1).sum())


@pytest.mark.parametrize("form", ["named", "generic"])
def test_generic_bodies_matmul_and_reductions(form: str) -> None:
    text = LINALG_PROGRAM.replace("MATMUL", NAMED if form == "named" else GENERIC)
    rng = np.random.default_rng(4)
    args = [rng.uniform(-1, 1, s).astype(np.float32) for s in [(2, 3), (3,), (3, 4)]]
    loss, *found = Program(text).run(args=args).results
    expected = finite_differences(_linalg_reference, args)
    assert abs(float(loss) - _linalg_reference(*args)) < 1e-4
    for got, want in zip(found, expected, strict=True):
        assert close(got, want, 1e-3)


def test_named_matmul_gives_the_generic_forms_bits() -> None:
    rng = np.random.default_rng(5)
    args = [rng.uniform(-1, 1, s).astype(np.float32) for s in [(2, 3), (3,), (3, 4)]]
    named = Program(LINALG_PROGRAM.replace("MATMUL", NAMED)).run(args=args)
    generic = Program(LINALG_PROGRAM.replace("MATMUL", GENERIC)).run(args=args)
    for x, y in zip(named.results, generic.results, strict=True):
        np.testing.assert_array_equal(x, y)


def test_max_reduction_ties_split_evenly() -> None:
    text = LINALG_PROGRAM.replace("MATMUL", NAMED)
    a = np.zeros((2, 3), np.float32)
    b = np.zeros(3, np.float32)
    w = np.ones((3, 4), np.float32)
    _, _, _, gw = Program(text).run(args=[a, b, w]).results
    # every row of y @ w ties four ways: each position gets a quarter of g
    np.testing.assert_allclose(gw, np.full((3, 4), 0.5, np.float32))


def test_no_grad_compute_op_after_expansion() -> None:
    text = LINALG_PROGRAM.replace("MATMUL", NAMED)
    program = Program(text)
    printed = str(program.module)
    assert not re.search(r"= grad\.", printed)


JVP_PROGRAM = """
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
func.func @main(%a: tensor<2x3xf32>, %t: tensor<2x3xf32>, %ct: tensor<2xf32>) -> (tensor<2xf32>, tensor<2x3xf32>) {
  %e = tensor.empty() : tensor<2x3xf32>
  %y = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%a : tensor<2x3xf32>) outs(%e : tensor<2x3xf32>) {
  ^bb0(%x: f32, %o: f32):
    %s = math.tanh %x : f32
    %m = arith.mulf %s, %x : f32
    linalg.yield %m : f32
  } -> tensor<2x3xf32>
  %z = arith.constant dense<0.0> : tensor<2xf32>
  %r = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]} ins(%y : tensor<2x3xf32>) outs(%z : tensor<2xf32>) {
  ^bb0(%x: f32, %o: f32):
    %q = arith.addf %o, %x : f32
    linalg.yield %q : f32
  } -> tensor<2xf32>
  %tr = grad.jvp %r wrt %a, %t : tensor<2xf32>, tensor<2x3xf32>
  %g = grad.vjp %r, %ct wrt %a : tensor<2xf32>, tensor<2x3xf32>
  func.return %tr, %g : tensor<2xf32>, tensor<2x3xf32>
}"""


def test_jvp_agrees_with_vjp() -> None:
    rng = np.random.default_rng(6)
    a, t = (rng.uniform(-1, 1, (2, 3)).astype(np.float32) for _ in range(2))
    ct = rng.uniform(-1, 1, 2).astype(np.float32)
    tr, g = Program(JVP_PROGRAM).run(args=[a, t, ct]).results
    assert abs(float(np.dot(tr, ct)) - float(np.sum(g * t))) < 1e-5
    expected = (np.tanh(a) + a * (1 - np.tanh(a) ** 2)) * t
    np.testing.assert_allclose(tr, expected.sum(1), rtol=1e-5)


def test_structured_op_without_a_rule_names_the_map() -> None:
    text = """
func.func @main(%a: tensor<3xf32>, %ct: tensor<3xf32>) -> tensor<3xf32> {
  %e = tensor.empty() : tensor<3xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(d0) -> (2 - d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%a : tensor<3xf32>) outs(%e : tensor<3xf32>) {
  ^bb0(%x: f32, %o: f32):
    linalg.yield %x : f32
  } -> tensor<3xf32>
  %g = grad.vjp %y, %ct wrt %a : tensor<3xf32>, tensor<3xf32>
  func.return %g : tensor<3xf32>
}"""
    with pytest.raises(GradoptError, match=r"neither a projected permutation nor a"):
        Program(text)


def test_dynamic_shapes_are_refused() -> None:
    text = """
func.func @main(%a: tensor<?xf32>) -> tensor<?xf32> {
  %y = math.exp %a : tensor<?xf32>
  %c = arith.constant 0 : index
  %e = tensor.extract %y[%c] : tensor<?xf32>
  %g = grad.gradient %e wrt %a : f32, tensor<?xf32>
  func.return %g : tensor<?xf32>
}"""
    with pytest.raises(GradoptError, match="dynamic shapes are not supported"):
        Program(text)


def with_vjp(text: str, arguments: int) -> str:
    """The corpus program `text` (one result) returning also the vjp of its
    result with respect to every argument, along a cotangent of ones (through
    its loops, if it has any: `control_flow`)."""
    match = re.search(r"util\.return (%\S+) : (.+)\n", text)
    assert match is not None
    value, type = match.groups()
    header = re.search(r"util\.func public @main\((.*)\) -> (.+) \{", text)
    assert header is not None
    types = re.findall(r"%arg\d+: (tensor<[^>]*>)", header.group(1))
    names = ", ".join(f"%arg{i}" for i in range(arguments))
    results = ", ".join(f"%vjp#{i}" for i in range(arguments))
    control_flow = " control_flow" if "scf." in text else ""
    appended = (
        f"%ones = arith.constant dense<1.0> : {type}\n"
        f"    %vjp:{arguments} = grad.vjp {value}, %ones wrt {names}{control_flow} : "
        f"{type}, {', '.join(types)}\n"
        f"    util.return {value}, {results} : {type}, {', '.join(types)}\n"
    )
    text = text.replace(match.group(0), appended)
    return text.replace(
        header.group(0),
        f"util.func public @main({header.group(1)}) -> "
        f"({header.group(2)}, {', '.join(types)}) {{",
    )


@pytest.mark.skipif(not HAVE_JAX, reason="needs the jax extra")
@pytest.mark.parametrize("backend", ["numpy", "iree"])
@pytest.mark.parametrize("name", ["mlp", "layer_norm", "attention", "cnn", "scan"])
def test_corpus_vjp_matches_jax(name: str, backend: str) -> None:
    """IREE's input form of JAX programs, differentiated by gradopt, against
    `jax.vjp` (rel. err <= 1e-4), through the interpreter and IREE."""
    if backend == "iree" and not HAVE_IREE:
        pytest.skip("needs the iree extra")
    import sys

    import jax

    sys.path.insert(0, str(CORPUS.parent))
    try:
        from upstream_corpus import _functions  # pyright: ignore[reportPrivateUsage]
    finally:
        sys.path.remove(str(CORPUS.parent))
    function, _ = _functions()[name]
    data = np.load(CORPUS / f"{name}.npz")
    args = [data[f"arg{i}"] for i in range(len(data.files) - 1)]
    text = with_vjp((CORPUS / f"{name}.mlir").read_text(), len(args))
    _, *found = Program(text, f"{name}.mlir").run(args=args, backend=backend).results
    output, pullback = jax.vjp(function, *args)
    expected = pullback(np.ones_like(output))
    for got, want in zip(found, expected, strict=True):
        want = np.asarray(want, np.float64)
        error = np.max(np.abs(got - want)) / max(np.max(np.abs(want)), 1e-30)
        assert error <= 1e-4


@pytest.mark.parametrize("ties", [False, True])
def test_jvp_through_matmul_and_max_reduction_agrees_with_gradient(ties: bool) -> None:
    """Forward mode through a generic body, a matmul and a max reduction (a
    tie takes the mean of the tied tangents) against the reverse gradient."""
    text = LINALG_PROGRAM.replace("MATMUL", NAMED)
    text = (
        text.replace(
            "%w: tensor<3x4xf32>) -> (f32,",
            "%w: tensor<3x4xf32>, %tw: tensor<3x4xf32>, %ta: tensor<2x3xf32>) -> (f32, f32,",
        )
        .replace(
            "  %ga, %gb, %gw = grad.gradient",
            "  %tl = grad.jvp %l wrt %w, %tw : f32, tensor<3x4xf32>\n"
            "  %tl2 = grad.jvp %l wrt %a, %ta : f32, tensor<2x3xf32>\n"
            "  %tsum = arith.addf %tl, %tl2 : f32\n"
            "  %ga, %gb, %gw = grad.gradient",
        )
        .replace(
            "func.return %l, %ga, %gb, %gw : f32,",
            "func.return %l, %tsum, %ga, %gb, %gw : f32, f32,",
        )
    )
    rng = np.random.default_rng(7)
    a = rng.uniform(-1, 1, (2, 3)).astype(np.float32)
    b = rng.uniform(-1, 1, 3).astype(np.float32)
    w = (
        np.ones((3, 4), np.float32)
        if ties
        else rng.uniform(-1, 1, (3, 4)).astype(np.float32)
    )
    tw, ta = (
        rng.uniform(-1, 1, (3, 4)).astype(np.float32),
        rng.uniform(-1, 1, (2, 3)).astype(np.float32),
    )
    _, tangent, ga, _, gw = Program(text).run(args=[a, b, w, tw, ta]).results
    assert abs(float(tangent) - float(np.sum(gw * tw) + np.sum(ga * ta))) < 1e-4


GRAD_PROGRAM = """
func.func @main(%a: tensor<2x3xf32>, %b: tensor<2x3xf32>, %v: tensor<3xf32>) -> tensor<f32> {
  %rows = grad.broadcast %v [1] : tensor<3xf32> to tensor<2x3xf32>
  %m = grad.max %a, %rows : tensor<2x3xf32>
  %s = grad.sin %b : tensor<2x3xf32>
  %lt = grad.cmplt %a, %b : tensor<2x3xf32>
  %w = grad.where %lt, %m, %s : tensor<2x3xf32>
  %p = grad.pad %w low [1, 0] high [0, 2] interior [0, 1] value 0.0 : tensor<2x3xf32> to tensor<3x7xf32>
  %sl = grad.slice %p [1, 0] [3, 5] [1, 2] : tensor<3x7xf32> to tensor<2x3xf32>
  %c = grad.concat %sl, %a [0] : tensor<2x3xf32>, tensor<2x3xf32> to tensor<4x3xf32>
  %rv = grad.reverse %c [0] : tensor<4x3xf32>
  %idx = grad.const dense<[2, 0, 2]> : tensor<3xi32>
  %gt = grad.gather %rv, %idx [1] : tensor<4x3xf32>, tensor<3xi32> to tensor<4x3xf32>
  %pe = grad.permute %gt [1, 0] : tensor<4x3xf32> to tensor<3x4xf32>
  %d = grad.dot %pe, %c : tensor<3x4xf32>, tensor<4x3xf32> to tensor<3x3xf32>
  %r = grad.recip %d : tensor<3x3xf32>
  %mx = grad.reduce max %r [1] : tensor<3x3xf32> to tensor<3xf32>
  %sq = grad.mul %mx, %mx : tensor<3xf32>
  %l = grad.reduce add %sq [0] : tensor<3xf32> to tensor<f32>
  func.return %l : tensor<f32>
}
"""


def test_lowered_grad_program_has_the_grad_programs_gradient() -> None:
    """SPEC §10.3: `convert-grad-to-standard` output differentiated gives the
    gradient of the `grad` program it came from (up to reduction rounding),
    `reverse` and `gather` (lowered to reads inside a generic's body) too."""
    from xdsl.dialects.builtin import ModuleOp

    from gradopt.dialect.context import make_context
    from gradopt.passes.convert_grad_to_standard import ConvertGradToStandardPass
    from gradopt.support.diagnostics import parse_module

    module = parse_module(make_context(), GRAD_PROGRAM, "grad.mlir")
    assert isinstance(module, ModuleOp)
    ConvertGradToStandardPass().apply(make_context(), module)
    lowered = str(module)
    assert "grad." not in lowered
    rng = np.random.default_rng(0)
    args = [
        rng.uniform(1, 2, (2, 3)).astype(np.float32),
        rng.uniform(1, 2, (2, 3)).astype(np.float32),
        rng.uniform(1.2, 2.2, 3).astype(np.float32),
    ]
    args[1][0, 0] = args[0][0, 0]  # a tie in grad.max
    found = Program(gradopt.differentiate_module(lowered)).run(args=args).results
    expected = Program(gradopt.differentiate_module(GRAD_PROGRAM)).run(args=args)
    for got, want in zip(found, expected.results, strict=True):
        assert np.any(want != 0)
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-7)


CONV_PROGRAM = """
func.func @main(%x: tensor<2x3x9x8xf32>, %w: tensor<4x3x3x2xf32>, %k: tensor<3x2x3xf32>) -> (f32, tensor<2x3x9x8xf32>, tensor<4x3x3x2xf32>, tensor<3x2x3xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x4x3x3xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<2x4x3x3xf32>) -> tensor<2x4x3x3xf32>
  %c = linalg.conv_2d_nchw_fchw {dilations = dense<[2, 1]> : tensor<2xi64>, strides = dense<[2, 3]> : tensor<2xi64>} ins(%x, %w : tensor<2x3x9x8xf32>, tensor<4x3x3x2xf32>) outs(%z : tensor<2x4x3x3xf32>) -> tensor<2x4x3x3xf32>
  %et = tensor.empty() : tensor<2x9x8x3xf32>
  %xt = linalg.transpose ins(%x : tensor<2x3x9x8xf32>) outs(%et : tensor<2x9x8x3xf32>) permutation = [0, 2, 3, 1]
  %ed = tensor.empty() : tensor<2x3x3x3xf32>
  %zd = linalg.fill ins(%zero : f32) outs(%ed : tensor<2x3x3x3xf32>) -> tensor<2x3x3x3xf32>
  %d = linalg.depthwise_conv_2d_nhwc_hwc {dilations = dense<[2, 1]> : tensor<2xi64>, strides = dense<[2, 3]> : tensor<2xi64>} ins(%xt, %k : tensor<2x9x8x3xf32>, tensor<3x2x3xf32>) outs(%zd : tensor<2x3x3x3xf32>) -> tensor<2x3x3x3xf32>
  %ninf = arith.constant 0xFF800000 : f32
  %win = tensor.empty() : tensor<2x2xf32>
  %en = tensor.empty() : tensor<2x1x1x3xf32>
  %n = linalg.fill ins(%ninf : f32) outs(%en : tensor<2x1x1x3xf32>) -> tensor<2x1x1x3xf32>
  %m = linalg.pooling_nhwc_max {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%d, %win : tensor<2x3x3x3xf32>, tensor<2x2xf32>) outs(%n : tensor<2x1x1x3xf32>) -> tensor<2x1x1x3xf32>
  %init = arith.constant dense<0.0> : tensor<f32>
  %s1 = linalg.generic {indexing_maps = [affine_map<(a, b, c, d) -> (a, b, c, d)>, affine_map<(a, b, c, d) -> ()>], iterator_types = ["reduction", "reduction", "reduction", "reduction"]} ins(%c : tensor<2x4x3x3xf32>) outs(%init : tensor<f32>) {
  ^bb0(%in: f32, %acc: f32):
    %sq = arith.mulf %in, %in : f32
    %r = arith.addf %acc, %sq : f32
    linalg.yield %r : f32
  } -> tensor<f32>
  %s2 = linalg.generic {indexing_maps = [affine_map<(a, b, c, d) -> (a, b, c, d)>, affine_map<(a, b, c, d) -> ()>], iterator_types = ["reduction", "reduction", "reduction", "reduction"]} ins(%m : tensor<2x1x1x3xf32>) outs(%s1 : tensor<f32>) {
  ^bb0(%in: f32, %acc: f32):
    %r = arith.addf %acc, %in : f32
    linalg.yield %r : f32
  } -> tensor<f32>
  %l = tensor.extract %s2[] : tensor<f32>
  %gx, %gw, %gk = grad.gradient %l wrt %x, %w, %k : f32, tensor<2x3x9x8xf32>, tensor<4x3x3x2xf32>, tensor<3x2x3xf32>
  func.return %l, %gx, %gw, %gk : f32, tensor<2x3x9x8xf32>, tensor<4x3x3x2xf32>, tensor<3x2x3xf32>
}"""


def _conv_reference(x: np.ndarray, w: np.ndarray, k: np.ndarray) -> float:
    """The program above in float64: a strided, dilated convolution squared
    and summed, plus the max pool of a depthwise convolution."""
    c = np.zeros((2, 4, 3, 3))
    for i in range(3):
        for j in range(3):
            patch = x[:, :, 2 * i : 2 * i + 5 : 2, 3 * j : 3 * j + 2]
            c[:, :, i, j] = np.einsum("nchw,fchw->nf", patch, w)
    xt = x.transpose(0, 2, 3, 1)
    d = np.zeros((2, 3, 3, 3))
    for i in range(3):
        for j in range(3):
            patch = xt[:, 2 * i : 2 * i + 5 : 2, 3 * j : 3 * j + 2, :]
            d[:, i, j, :] = np.einsum("nhwc,hwc->nc", patch, k)
    m = d[:, 0:2, 0:2, :].max(axis=(1, 2))
    return float(np.sum(c * c) + np.sum(m))


def test_convolutions_and_max_pooling_with_strides_and_dilations() -> None:
    rng = np.random.default_rng(8)
    args = [
        rng.uniform(-1, 1, s).astype(np.float32)
        for s in [(2, 3, 9, 8), (4, 3, 3, 2), (3, 2, 3)]
    ]
    loss, *found = Program(CONV_PROGRAM).run(args=args).results
    assert abs(float(loss) - _conv_reference(*args)) < 1e-3
    expected = finite_differences(_conv_reference, args)
    for got, want in zip(found, expected, strict=True):
        assert close(got, want, 1e-3)


TWO_RESULTS = """
#id = affine_map<(d0) -> (d0)>
func.func @main(%a: tensor<3xf32>, %c1: tensor<3xf32>, %c2: tensor<3xf32>, %t: tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) {
  %e = tensor.empty() : tensor<3xf32>
  %y1, %y2 = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]} ins(%a : tensor<3xf32>) outs(%e, %e : tensor<3xf32>, tensor<3xf32>) {
  ^bb0(%x: f32, %o1: f32, %o2: f32):
    %s = arith.mulf %x, %x : f32
    %q = math.sin %x : f32
    linalg.yield %s, %q : f32, f32
  } -> (tensor<3xf32>, tensor<3xf32>)
  %z = arith.mulf %y1, %y2 : tensor<3xf32>
  %g = grad.vjp %z, %c1 wrt %a : tensor<3xf32>, tensor<3xf32>
  %tz = grad.jvp %z wrt %a, %t : tensor<3xf32>, tensor<3xf32>
  func.return %z, %g, %tz : tensor<3xf32>, tensor<3xf32>, tensor<3xf32>
}
"""


def test_generic_of_two_results_both_modes() -> None:
    """Each result of a generic of several results gets its own share and
    tangent generic (the walks say which result they differentiate)."""
    a = np.array([0.3, -0.7, 1.1], np.float32)
    ct = np.array([1.0, 2.0, -1.0], np.float32)
    t = np.array([0.5, 1.0, -2.0], np.float32)
    _, g, tz = Program(TWO_RESULTS).run(args=[a, ct, ct, t]).results
    a64 = a.astype(np.float64)
    derivative = 2 * a64 * np.sin(a64) + a64 * a64 * np.cos(a64)
    np.testing.assert_allclose(g, ct * derivative, rtol=1e-5)
    np.testing.assert_allclose(tz, t * derivative, rtol=1e-5)


INDEX_AND_GATHER = """
#id = affine_map<(d0) -> (d0)>
func.func @main(%a: tensor<4xf32>, %table: tensor<4xf32>, %ct: tensor<4xf32>, %t: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %e = tensor.empty() : tensor<4xf32>
  %y = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]} ins(%a : tensor<4xf32>) outs(%e : tensor<4xf32>) {
  ^bb0(%x: f32, %o: f32):
    %i = linalg.index 0 : index
    %c3 = arith.constant 3 : index
    %r = arith.subi %c3, %i : index
    %v = tensor.extract %table[%r] : tensor<4xf32>
    %n = arith.index_cast %i : index to i32
    %f = arith.sitofp %n : i32 to f32
    %m = arith.mulf %x, %f : f32
    %s = arith.mulf %m, %v : f32
    %q = arith.mulf %s, %x : f32
    linalg.yield %q : f32
  } -> (tensor<4xf32>)
  %g = grad.vjp %y, %ct wrt %a : tensor<4xf32>, tensor<4xf32>
  %ty = grad.jvp %y wrt %a, %t : tensor<4xf32>, tensor<4xf32>
  func.return %g, %ty : tensor<4xf32>, tensor<4xf32>
}
"""


def test_linalg_index_and_gathers_off_the_path() -> None:
    """`linalg.index` and a `tensor.extract` of a tensor off the path (a
    reversed gather) inside a body are rebuilt and stay off the path."""
    rng = np.random.default_rng(9)
    a, table, ct, t = (rng.uniform(-1, 1, 4).astype(np.float32) for _ in range(4))
    g, ty = Program(INDEX_AND_GATHER).run(args=[a, table, ct, t]).results
    derivative = 2 * a.astype(np.float64) * np.arange(4) * table[::-1]
    np.testing.assert_allclose(g, ct * derivative, rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(ty, t * derivative, rtol=1e-5, atol=1e-7)


def test_tensor_rules_forward_mode_agrees_with_reverse() -> None:
    text = TENSOR_PROGRAM.replace(
        "%s: f32) -> (tensor<4x6xf32>, f32) {",
        "%s: f32, %ta: tensor<4x6xf32>) -> (tensor<4x6xf32>, f32, f32) {",
    ).replace(
        "  func.return %ga, %gs : tensor<4x6xf32>, f32",
        "  %tl = grad.jvp %l wrt %a, %ta : f32, tensor<4x6xf32>\n"
        "  func.return %ga, %gs, %tl : tensor<4x6xf32>, f32, f32",
    )
    rng = np.random.default_rng(10)
    a, ta = (rng.uniform(-1, 1, (4, 6)).astype(np.float32) for _ in range(2))
    ga, _, tl = Program(text).run(args=[a, np.int32(1), np.float32(1.5), ta]).results
    assert abs(float(tl) - float(np.sum(ga * ta))) < 1e-5


MAP = """
func.func @main(%a: tensor<5xf32>, %b: tensor<5xf32>, %ct: tensor<5xf32>, %ta: tensor<5xf32>, %tb: tensor<5xf32>) -> (tensor<5xf32>, tensor<5xf32>, tensor<5xf32>, tensor<5xf32>) {
  %e = tensor.empty() : tensor<5xf32>
  %r = linalg.map ins(%a, %b : tensor<5xf32>, tensor<5xf32>) outs(%e : tensor<5xf32>) (%x: f32, %y: f32, %o: f32) {
    %m = arith.mulf %x, %y : f32
    %s = math.sin %m : f32
    %q = arith.divf %s, %y : f32
    linalg.yield %q : f32
  }
  %ga, %gb = grad.vjp %r, %ct wrt %a, %b : tensor<5xf32>, tensor<5xf32>, tensor<5xf32>
  %t = grad.jvp %r wrt %a, %ta : tensor<5xf32>, tensor<5xf32>
  %u = grad.jvp %r wrt %b, %tb : tensor<5xf32>, tensor<5xf32>
  func.return %ga, %gb, %t, %u : tensor<5xf32>, tensor<5xf32>, tensor<5xf32>, tensor<5xf32>
}
"""


def test_linalg_map_both_modes() -> None:
    """`linalg.map` (a body taking the init's element last) as its generic
    form: sin(a b) / b, against its float64 derivatives."""
    rng = np.random.default_rng(11)
    a, ct, ta, tb = (rng.uniform(-1, 1, 5).astype(np.float32) for _ in range(4))
    b = rng.uniform(0.5, 2, 5).astype(np.float32)
    ga, gb, t, u = Program(MAP).run(args=[a, b, ct, ta, tb]).results
    a64, b64 = a.astype(np.float64), b.astype(np.float64)
    da = np.cos(a64 * b64)
    db = (a64 * np.cos(a64 * b64) * b64 - np.sin(a64 * b64)) / b64**2
    np.testing.assert_allclose(ga, ct * da, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(gb, ct * db, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(t, ta * da, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(u, tb * db, rtol=1e-5, atol=1e-6)


GATHERS = """
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
func.func @main(%a: tensor<3x4xf32>, %table: tensor<5xf32>, %s: f32, %ct: tensor<3xf32>, %tt: tensor<5xf32>, %ts: f32) -> (tensor<5xf32>, f32, tensor<3xf32>, tensor<3xf32>) {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<3xf32>
  %init = linalg.fill ins(%z : f32) outs(%e : tensor<3xf32>) -> tensor<3xf32>
  %w = math.exp %s : f32
  %y = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]} ins(%a : tensor<3x4xf32>) outs(%init : tensor<3xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %sum = arith.addi %i, %j : index
    %c2 = arith.constant 2 : index
    %k = arith.divui %sum, %c2 : index
    %v = tensor.extract %table[%k] : tensor<5xf32>
    %u = tensor.extract %table[%j] : tensor<5xf32>
    %p = arith.mulf %v, %x : f32
    %q = arith.mulf %p, %u : f32
    %r = arith.mulf %q, %w : f32
    %n = arith.addf %acc, %r : f32
    linalg.yield %n : f32
  } -> tensor<3xf32>
  %gt, %gs = grad.vjp %y, %ct wrt %table, %s : tensor<3xf32>, tensor<5xf32>, f32
  %t1 = grad.jvp %y wrt %table, %tt : tensor<3xf32>, tensor<5xf32>
  %t2 = grad.jvp %y wrt %s, %ts : tensor<3xf32>, f32
  func.return %gt, %gs, %t1, %t2 : tensor<5xf32>, f32, tensor<3xf32>, tensor<3xf32>
}
"""


def _gathers_reference(a: np.ndarray, table: np.ndarray, s: float) -> np.ndarray:
    """y[i] = sum_j table[(i + j) // 2] * a[i, j] * table[j] * exp(s), float64."""
    y = np.zeros(3)
    for i in range(3):
        for j in range(4):
            y[i] += table[(i + j) // 2] * a[i, j] * table[j] * np.exp(s)
    return y


@pytest.mark.parametrize("backend", ["numpy", "iree"])
def test_gathers_inside_a_body_both_modes(backend: str) -> None:
    """Two reads of one tensor on the path at computed indices (repeated
    indices among them) and an outer scalar on the path, in an addf
    reduction: reverse and forward mode against float64 finite differences."""
    if backend == "iree" and not HAVE_IREE:
        pytest.skip("needs the iree extra")
    rng = np.random.default_rng(12)
    a = rng.uniform(-1, 1, (3, 4)).astype(np.float32)
    table = rng.uniform(-1, 1, 5).astype(np.float32)
    ct = rng.uniform(-1, 1, 3).astype(np.float32)
    tt = rng.uniform(-1, 1, 5).astype(np.float32)
    s, ts = np.float32(0.3), np.float32(-0.7)
    gt, gs, t1, t2 = (
        Program(GATHERS).run(args=[a, table, s, ct, tt, ts], backend=backend).results
    )
    (d_table, d_s) = finite_differences(
        lambda t, v: float(ct @ _gathers_reference(a, t, float(v))),
        [table, np.asarray(s)],
    )
    jacobian = np.stack(
        [
            finite_differences(
                lambda t, i=i: float(_gathers_reference(a, t, s)[i]), [table]
            )[0]
            for i in range(3)
        ]
    )
    ds = _gathers_reference(a, table.astype(np.float64), float(s))
    assert close(gt, d_table, 1e-4) and close(np.asarray(gs), d_s, 1e-4)
    assert close(t1, jacobian @ tt, 1e-4)
    assert close(t2, ds * ts, 1e-4)
