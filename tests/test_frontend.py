"""The tracing front end: promotion and broadcasting, indexing that needs no new
op, the jit cache, result structures, the transforms and how they nest, and
errors that name the user's source line."""

from __future__ import annotations

import inspect
import subprocess
import sys
import traceback
from typing import Any

import numpy as np
import pytest
from frontend_checks import central_difference, f32
from hypothesis import given, settings
from hypothesis.extra import numpy as hnp
from xdsl.dialects.builtin import FileLineColLoc

import gradopt
import gradopt.nn as gnn
import gradopt.numpy as gnp
from gradopt import GradoptError
from gradopt.frontend import lax as frontend_lax


def line_of(marker: str) -> int:
    """The line of this file that ends with the comment `marker`."""
    lines = inspect.getsource(inspect.getmodule(line_of)).splitlines()  # type: ignore[arg-type]
    return next(i for i, text in enumerate(lines, 1) if text.endswith(marker))


# --- Types, promotion and broadcasting ----------------------------------------


def test_python_numbers_are_weakly_typed_and_numpy_data_is_not() -> None:
    i = np.array([1, 2], np.int32)
    b = np.array([True, False])
    x = np.array([0.5, 1.5], np.float32)
    out = gradopt.jit(
        lambda i, b, x: (
            i * 2,
            i * 2.5,
            b + 1,
            b * 1.0,
            x * 2,
            i + x,
            b & (i > 1),
            i + True,
        )
    )(i, b, x)
    assert [o.dtype for o in out] == [
        np.int32,
        np.float32,
        np.int32,
        np.float32,
        np.float32,
        np.float32,
        np.bool_,
        np.int32,
    ]
    np.testing.assert_array_equal(out[1], [2.5, 5.0])
    np.testing.assert_array_equal(out[5], [1.5, 3.5])


def test_python_numbers_and_lists_as_inputs_and_constants() -> None:
    out = gradopt.jit(lambda a, n, flag: (a * n, gnp.add(a, [1.0, 2.0]), n + 1, ~flag))(
        2.5, 3, True
    )
    assert out[0].dtype == np.float32 and out[0] == 7.5
    assert out[1].tolist() == [3.5, 4.5] and out[2].dtype == np.int32 and out[2] == 4
    assert out[3].dtype == np.bool_ and not out[3]


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ((3, 1), (1, 4)),
        ((), (2, 3)),
        ((4,), (2, 3, 4)),
        ((2, 1, 3), (5, 1)),
        ((1,), (1,)),
        ((0, 3), (1, 3)),
        ((2, 1), (2, 0)),
    ],
)
def test_broadcasting_matches_numpy(a: tuple[int, ...], b: tuple[int, ...]) -> None:
    x, y = f32(*a), f32(*b)
    got = gradopt.jit(lambda x, y: (x + y, x * y, gnp.maximum(x, y), x < y))(x, y)
    for g, w in zip(got, (x + y, x * y, np.maximum(x, y), x < y), strict=True):
        assert g.shape == w.shape
        np.testing.assert_array_equal(g, w)


def test_the_gradient_of_a_broadcast_operand_is_summed_back() -> None:
    x, y = f32(3, 1), f32(4)
    gx, gy = gradopt.grad(lambda x, y: gnp.sum(gnp.sin(x * y)), argnums=(0, 1))(x, y)
    x64, y64 = x.astype(np.float64), y.astype(np.float64)
    np.testing.assert_allclose(
        gx, (np.cos(x64 * y64) * y64).sum(1, keepdims=True), rtol=1e-5
    )
    np.testing.assert_allclose(gy, (np.cos(x64 * y64) * x64).sum(0), rtol=1e-5)


shapes = hnp.array_shapes(min_dims=0, max_dims=3, min_side=1, max_side=3)


@settings(max_examples=40, deadline=None, derandomize=True)
@given(
    hnp.mutually_broadcastable_shapes(
        num_shapes=3, base_shape=(), max_dims=3, max_side=3
    )
)
def test_broadcast_where_and_arithmetic_of_random_shapes(shapes: Any) -> None:
    a, b, c = (f32(*s) for s in shapes.input_shapes)

    def f(a: Any, b: Any, c: Any) -> Any:
        return gnp.where(a > 0, b, c) - a / (gnp.abs(c) + 1)

    np.testing.assert_allclose(
        gradopt.jit(f)(a, b, c),
        np.where(a > 0, b, c) - a / (np.abs(c) + 1),
        rtol=1e-6,
        atol=1e-6,  # a · recip(b) is not a / b, and the difference may cancel
    )


# --- Indexing that needs only reshape -----------------------------------------


def test_none_ellipsis_and_whole_slices_are_reshapes() -> None:
    x = f32(2, 1, 3)

    def f(x: Any) -> Any:
        return (
            x[None],
            x[:, None],
            x[..., None],
            x[...],
            x[:, 0],
            x[:, -1, :],
            x[0:2, :, ::1],
            x[gnp.newaxis, ..., None, :],
        )

    got = f(x)
    for g, w in zip(gradopt.jit(f)(x), got, strict=True):
        assert g.shape == w.shape
        np.testing.assert_array_equal(g, w)
    text = gradopt.jit(f).lower(x).as_text()
    assert "grad.slice" not in text and text.count("grad.reshape") == 6


def test_shape_ndim_size_len_and_iteration() -> None:
    def f(x: Any) -> Any:
        assert (x.shape, x.ndim, x.size, len(x), x.dtype) == (
            (1, 3),
            2,
            3,
            1,
            np.float32,
        )
        assert gnp.shape(x) == (1, 3) and gnp.ndim(x) == 2 and gnp.size(x) == 3
        return [row * 2 for row in x]

    (row,) = gradopt.jit(f)(np.ones((1, 3), np.float32))
    assert row.tolist() == [2.0, 2.0, 2.0]


# --- jit: the cache and the results -------------------------------------------


def test_a_signature_is_traced_once() -> None:
    traces = []

    @gradopt.jit
    def f(x: Any, n: Any) -> Any:
        traces.append((x.shape, n.dtype))
        return x * n

    x = np.ones(3, np.float32)
    f(x, 2.0)
    f(x + 1, 3.0)  # same shapes and dtypes, other values: no trace
    assert f(x, 4.0).tolist() == [4.0] * 3
    assert len(traces) == 1
    f(np.ones(4, np.float32), 2.0)  # another shape
    f(x, 2)  # a Python int is another signature than a float
    f(x, 5)
    assert traces == [((3,), np.float32), ((4,), np.float32), ((3,), np.int32)]
    assert len(f.cache) == 3


def test_the_signature_key_reads_inputs_as_the_trace_types_them() -> None:
    """The cache's key is each input's dtype and shape, not its TensorType:
    a Python float, a float32 scalar and a 0-d float32 array are one
    signature, and the key still refuses what typing the input refuses."""
    traces = []

    @gradopt.jit
    def f(x: Any) -> Any:
        traces.append(x.dtype)
        return x + 1

    for x in (2.0, np.float32(3.0), np.array(4.0, np.float32)):
        f(x)
    assert traces == [np.float32] and len(f.cache) == 1
    with pytest.raises(GradoptError, match="out of range for int32"):
        f(1 << 40)
    with pytest.raises(GradoptError, match="not float64"):
        f(np.float64(1.0))


def test_static_arguments_are_part_of_the_signature_by_value() -> None:
    traces = []

    def f(x: Any, axis: int) -> Any:
        traces.append(axis)
        return x.sum(axis=axis)

    g = gradopt.jit(f, static_argnums=1)
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    assert g(x, 0).tolist() == [3.0, 5.0, 7.0] and g(x, 1).tolist() == [3.0, 12.0]
    g(x, 0)
    assert traces == [0, 1]


def test_keyword_and_static_arguments() -> None:
    def f(scale: int, x: Any, *, shift: Any) -> Any:
        return x * scale + shift

    g = gradopt.jit(f, static_argnums=(0,))
    x = np.ones(2, np.float32)
    assert g(3, x, shift=np.float32(1)).tolist() == [4.0, 4.0]
    assert gradopt.jit(f, static_argnums=-3)(2, x, shift=0.5).tolist() == [2.5, 2.5]
    grad = gradopt.grad(lambda x, *, w: gnp.sum(x * w))(x, w=np.float32(3))
    assert grad.tolist() == [3.0, 3.0]


def test_numpy_functions_and_operators_on_traced_arrays_are_gradopt_numpy() -> None:
    x = np.array([1.0, -2.0], np.float32)
    ones = np.ones(2, np.float32)

    def f(x: Any) -> Any:
        return np.exp(x), np.sum(x, axis=0), ones + x, np.float32(2) * x, ones < x

    for got, want in zip(gradopt.jit(f)(x), f(x), strict=True):
        np.testing.assert_allclose(got, want, rtol=1e-6)
    grad = gradopt.grad(lambda x: np.sum(np.where(x > 0, np.tanh(x), x)))(x)
    np.testing.assert_allclose(grad, [1 - np.tanh(1.0) ** 2, 1.0], rtol=1e-6)
    with raises_at("# nancumsum", "numpy.nancumsum has no gradopt.numpy counterpart"):
        gradopt.jit(np.nancumsum)(x)  # nancumsum


def test_gradopt_imports_without_jax() -> None:
    code = (
        "import sys; sys.modules['jax'] = None\n"
        "import gradopt, gradopt.numpy, gradopt.nn, numpy as np\n"
        "f = gradopt.grad(lambda x: gradopt.numpy.sum(x * x))\n"
        "print(f(np.ones(2, np.float32)))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[2. 2.]"


def test_grad_is_cached_too_and_jit_of_grad_is_grad() -> None:
    traces = []

    def loss(w: Any) -> Any:
        traces.append(1)
        return gnp.sum(w * w)

    g = gradopt.grad(loss)
    w = np.ones(2, np.float32)
    g(w), g(w), gradopt.jit(g)(w)
    assert len(traces) == 2  # once for g, once for jit(g)'s own cache
    assert "grad.gradient" in gradopt.jit(g).lower(w).as_text()


def test_results_keep_their_structure() -> None:
    def f(x: Any) -> Any:
        return {"b": [x, (x * 2,)], "a": x.sum(), "none": None}, 3

    out = gradopt.jit(f)(np.ones(2, np.float32))
    assert set(out[0]) == {"a", "b", "none"} and out[0]["none"] is None
    assert out[0]["b"][1][0].tolist() == [2.0, 2.0] and isinstance(out[0]["b"], list)
    assert out[0]["a"] == 2.0 and out[1] == 3 and isinstance(out[1], np.ndarray)


def test_arguments_may_be_trees_of_arrays() -> None:
    params = {"w": np.ones((2, 2), np.float32), "b": [np.zeros(2, np.float32)]}
    out = gradopt.jit(lambda p, x: p["w"] @ x + p["b"][0])(
        params, np.ones(2, np.float32)
    )
    assert out.tolist() == [2.0, 2.0]


def test_the_module_text_is_a_gradopt_program_with_the_same_bits() -> None:
    """`lower().as_text()` gives the module with its `grad.gradient`; run as
    text it gives exactly the bits of the traced function (SPEC §5)."""
    x = f32(5)

    def loss(x: Any) -> Any:
        return gnp.sum(gnp.tanh(x) * x**3)

    text = gradopt.jit(gradopt.grad(loss)).lower(x).as_text()
    assert "grad.gradient" in text
    (by_text,) = gradopt.run(text, args=[x]).results
    assert by_text.tobytes() == gradopt.grad(loss)(x).tobytes()


def test_ops_carry_the_user_source_line() -> None:
    def f(x: Any) -> Any:
        y = gnp.exp(x)  # the exp line
        return y * 2  # the mul line

    module = gradopt.jit(f).lower(np.ones(2, np.float32)).module
    located = {
        op.name: op.location
        for op in module.walk()
        if isinstance(op.location, FileLineColLoc)
    }
    assert located["grad.exp2"].filename.data == __file__
    assert located["grad.exp2"].line.data == line_of("# the exp line")
    assert located["grad.mul"].line.data == line_of("# the mul line")


# --- Differentiation ----------------------------------------------------------


def test_grad_value_and_grad_argnums_and_has_aux() -> None:
    w, x = f32(3, 2), f32(4, 3)
    y = np.eye(2, dtype=np.float32)[[0, 1, 1, 0]]

    def loss(w: Any, x: Any, y: Any) -> Any:
        return -gnp.mean(gnp.sum(y * gnn.log_softmax(x @ w, axis=-1), axis=-1))

    def reference(w: Any, x: Any) -> float:
        z = x @ w
        z = z - np.log(np.exp(z).sum(-1, keepdims=True))
        return float(-np.mean(np.sum(y * z, axis=-1)))

    gw = gradopt.grad(loss)(w, x, y)
    np.testing.assert_allclose(
        gw, central_difference(reference, [w, x], 0), rtol=1e-4, atol=1e-6
    )
    value, (gw2, gx) = gradopt.value_and_grad(loss, argnums=(0, 1))(w, x, y)
    assert np.isclose(value, reference(w.astype(float), x.astype(float)), rtol=1e-6)
    assert gw2.tobytes() == gw.tobytes()
    np.testing.assert_allclose(
        gx, central_difference(reference, [w, x], 1), rtol=1e-4, atol=1e-6
    )
    (g, aux) = gradopt.grad(lambda w: (gnp.sum(w * w), w.shape[0]), has_aux=True)(w)
    assert aux == 3 and np.allclose(g, 2 * w)
    (v, aux), g = gradopt.value_and_grad(
        lambda w: (gnp.sum(w), {"w": w}), has_aux=True
    )(w)
    assert v == np.float32(w.sum(dtype=np.float32)) and np.array_equal(aux["w"], w)


def test_grad_of_a_tree_of_parameters_has_its_structure() -> None:
    params = {"layers": [(f32(2, 2), f32(2))], "scale": np.float32(1.5)}

    def loss(p: Any) -> Any:
        ((w, b),) = p["layers"]
        return gnp.sum((w @ b) * p["scale"])

    g = gradopt.grad(loss)(params)
    ((gw, gb),) = g["layers"]
    w, b = params["layers"][0]
    np.testing.assert_allclose(gw, 1.5 * np.outer(np.ones(2), b), rtol=1e-6)
    np.testing.assert_allclose(gb, 1.5 * w.sum(0), rtol=1e-6)
    np.testing.assert_allclose(g["scale"], (w @ b).sum(), rtol=1e-6)


def test_gradient_of_a_gradient() -> None:
    x = np.array([0.3, -1.2, 2.0], np.float32)

    def f(x: Any) -> Any:
        return gnp.sum(gnp.sin(x) * x**3)

    df = gradopt.grad(f)
    d2f = gradopt.grad(lambda x: gnp.sum(df(x)))
    d3f = gradopt.grad(lambda x: gnp.sum(d2f(x)))
    x64 = x.astype(np.float64)
    s, c = np.sin(x64), np.cos(x64)
    np.testing.assert_allclose(df(x), c * x64**3 + 3 * s * x64**2, rtol=1e-5)
    np.testing.assert_allclose(
        d2f(x), -s * x64**3 + 6 * c * x64**2 + 6 * s * x64, rtol=1e-5
    )
    d3 = -c * x64**3 - 9 * s * x64**2 + 18 * c * x64 + 6 * s
    np.testing.assert_allclose(d3f(x), d3, rtol=1e-4)


def test_hessian_vector_product_by_jvp_of_grad() -> None:
    a = f32(3, 3)
    a = a @ a.T
    x, v = f32(3), f32(3)

    def f(x: Any) -> Any:
        return gnp.sum(gnp.tanh(x @ a) * x) + 0.5 * x @ a @ x

    grad_f, hvp = gradopt.jvp(gradopt.grad(f), (x,), (v,))

    def gradient(x: np.ndarray) -> np.ndarray:  # of f, in float64
        z = x @ a
        return a @ ((1 - np.tanh(z) ** 2) * x) + np.tanh(z) + a @ x

    x64 = x.astype(np.float64)
    hessian = np.stack(
        [central_difference(lambda x, i=i: gradient(x)[i], [x64], 0) for i in range(3)]
    )
    np.testing.assert_allclose(grad_f, gradopt.grad(f)(x), rtol=1e-6)
    np.testing.assert_allclose(hvp, hessian @ v, rtol=1e-4, atol=1e-5)
    _, pullback = gradopt.vjp(gradopt.grad(f), x)  # the Hessian is symmetric
    np.testing.assert_allclose(pullback(v)[0], hvp, rtol=1e-4, atol=1e-5)


def test_jvp_against_central_differences_with_several_primals() -> None:
    x, y = f32(2, 3), f32(3)
    tx, ty = f32(2, 3), f32(3)

    def f(x: Any, y: Any) -> Any:
        return gnp.exp(x) * y, gnp.sum(x * y)

    out, tangent = gradopt.jvp(f, (x, y), (tx, ty))
    np.testing.assert_allclose(out[0], np.exp(x) * y, rtol=1e-6)
    h = 1e-3
    x64, y64, tx64, ty64 = (a.astype(np.float64) for a in (x, y, tx, ty))
    fd = (
        np.exp(x64 + h * tx64) * (y64 + h * ty64)
        - np.exp(x64 - h * tx64) * (y64 - h * ty64)
    ) / (2 * h)
    np.testing.assert_allclose(tangent[0], fd, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(tangent[1], (tx64 * y64 + x64 * ty64).sum(), rtol=1e-5)


def test_vjp_with_several_outputs_and_a_tree_of_primals() -> None:
    x, y = f32(3), f32(3)

    def f(p: Any) -> Any:
        return {"prod": p["x"] * p["y"], "sum": gnp.sum(p["x"])}

    out, vjp_fn = gradopt.vjp(f, {"x": x, "y": y})
    assert np.allclose(out["prod"], x * y)
    ct = {"prod": np.array([1.0, 2.0, 3.0], np.float32), "sum": np.float32(10.0)}
    (g,) = vjp_fn(ct)
    np.testing.assert_allclose(g["x"], ct["prod"] * y + 10.0, rtol=1e-6)
    np.testing.assert_allclose(g["y"], ct["prod"] * x, rtol=1e-6)


def test_grad_equals_vjp_with_a_unit_cotangent_and_jvp_along_a_basis() -> None:
    x = f32(4)

    def f(x: Any) -> Any:
        return gnp.sum(gnn.softplus(x) * gnp.cos(x))

    g = gradopt.grad(f)(x)
    _, vjp_fn = gradopt.vjp(f, x)
    assert vjp_fn(np.float32(1.0))[0].tobytes() == g.tobytes()
    for i in range(4):
        _, t = gradopt.jvp(f, (x,), (np.eye(4, dtype=np.float32)[i],))
        assert np.isclose(t, g[i], rtol=1e-5)


def test_a_closure_over_the_argument_is_a_constant_for_the_inner_derivative() -> None:
    """As in JAX: d/dx [d/dy (x·y) at y = x] = d/dx x = 1 (not 2: the inner
    derivative is taken with respect to y only)."""
    x = f32(3)

    def inner(x: Any) -> Any:
        return gradopt.grad(lambda y: gnp.sum(x * y))(x)

    assert gradopt.grad(lambda x: gnp.sum(inner(x)))(x).tolist() == [1.0] * 3
    assert gradopt.jit(inner)(x).tobytes() == x.tobytes()


def test_transforms_inside_jit_and_jit_inside_transforms() -> None:
    x = f32(3)

    def f(x: Any) -> Any:
        return gnp.sum(gnp.exp(x))

    assert np.allclose(gradopt.jit(lambda x: gradopt.grad(f)(x) * 2)(x), 2 * np.exp(x))
    assert np.allclose(gradopt.grad(gradopt.jit(f))(x), np.exp(x))
    _, t = gradopt.jit(lambda x: gradopt.jvp(f, (x,), (gnp.ones_like(x),)))(x)
    assert np.isclose(t, np.exp(x).sum(), rtol=1e-6)
    assert np.allclose(
        gradopt.jit(lambda x: gradopt.vjp(gnp.exp, x)[1](x)[0])(x), np.exp(x) * x
    )


def test_stop_gradient() -> None:
    x = f32(3)
    g = gradopt.grad(lambda x: gnp.sum(x * gradopt.stop_gradient(x)))(x)
    assert g.tobytes() == x.tobytes()
    tree = gradopt.grad(lambda x: gnp.sum(gradopt.stop_gradient({"a": x})["a"] + x))(x)
    assert tree.tolist() == [1.0] * 3
    assert gradopt.stop_gradient(x) is x  # outside a trace: the value itself


# --- Errors name the user's line ----------------------------------------------


def raises_at(marker: str, match: str) -> Any:
    return pytest.raises(
        GradoptError, match=f"^{__file__}:{line_of(marker)}:\\d+: error: .*{match}"
    )


def test_shapes_that_do_not_broadcast() -> None:
    def f(x: Any, y: Any) -> Any:
        return x + y  # bad broadcast

    with raises_at("# bad broadcast", r"shapes \(3,\) and \(4,\) do not broadcast"):
        gradopt.jit(f)(f32(3), f32(4))


def test_float64_and_int64_data_are_refused() -> None:
    with raises_at("# float64 input", r"float32, int32 or bool data, not float64"):
        gradopt.jit(gnp.exp)(np.ones(3))  # float64 input
    with raises_at(
        "# int64 constant", r"not int64: convert it with \.astype\(np\.int32\)"
    ):
        gradopt.jit(lambda x: x + np.arange(3))(f32(3))  # int64 constant
    with raises_at("# float64 dtype", "not float64"):
        gradopt.jit(lambda x: x.astype(np.float64))(f32(3))  # float64 dtype


def test_a_non_differentiable_argument() -> None:
    with raises_at("# int argument", "grad: argument 0 holds int32 data: only float32"):
        gradopt.grad(gnp.sum)(np.arange(3, dtype=np.int32))  # int argument
    with raises_at("# int number", "argument 1 holds int32"):
        gradopt.grad(lambda x, n: x * n, argnums=(0, 1))(1.0, 2)  # int number


def test_a_loss_that_is_not_a_scalar() -> None:
    with raises_at(
        "# vector loss",
        r"must return a float32 scalar, got float32 data of shape \(3,\)",
    ):
        gradopt.grad(gnp.sin)(f32(3))  # vector loss


def test_indexing_mistakes() -> None:
    x = f32(2, 3)
    with raises_at(
        "# out of bounds", "index 2 is out of bounds for axis 0 with size 2"
    ):
        gradopt.jit(lambda x: x[2])(x)  # out of bounds
    with raises_at("# too many", "too many indices for an array of dimension 2"):
        gradopt.jit(lambda x: x[0, 0, 0])(x)  # too many
    with raises_at("# two arrays", "could not be broadcast together"):
        gradopt.jit(lambda x: x[np.array([0, 1]), [1, 2, 0]])(x)  # two arrays
    with raises_at("# float", "only basic indexing"):
        gradopt.jit(lambda x: x[0.5])(x)  # float
    with raises_at("# assignment", "immutable"):
        gradopt.jit(lambda x: x.__setitem__(0, 1.0))(x)  # assignment


def test_python_control_flow_on_a_traced_value() -> None:
    def f(x: Any) -> Any:
        if x.sum() > 0:  # truth value
            return x
        return -x

    with raises_at("# truth value", "truth value of a traced array is not known"):
        gradopt.jit(f)(f32(3))
    with raises_at("# float()", "has no value while tracing"):
        gradopt.jit(lambda x: float(x))(np.float32(1))  # float()


def test_numpy_functions_outside_a_trace() -> None:
    with raises_at("# outside", "call this inside a function given to gradopt.jit"):
        gnp.exp(np.ones(2, np.float32))  # outside


def test_a_traced_value_that_escapes_its_trace() -> None:
    kept = []
    gradopt.jit(lambda x: kept.append(x) or x)(f32(2))
    with raises_at("# escaped", "used outside the function call that traced it"):
        gradopt.jit(lambda y: y + kept[0])(f32(2))  # escaped


def test_other_mistakes() -> None:
    with raises_at(
        "# bad matmul", r"matmul: shapes \(2, 3\) and \(2, 3\) do not align"
    ):
        gradopt.jit(lambda x: x @ x)(f32(2, 3))  # bad matmul
    with raises_at(
        "# bad reshape", r"cannot reshape an array of shape \(2, 3\) to \(4, -1\)"
    ):
        gradopt.jit(lambda x: x.reshape(4, -1))(f32(2, 3))  # bad reshape
    with raises_at("# bad axis", "axis 2 is out of bounds for an array of dimension 2"):
        gradopt.jit(lambda x: x.sum(axis=2))(f32(2, 3))  # bad axis
    with raises_at("# bad argument", "an argument of type str is not an array"):
        gradopt.jit(lambda s: s)("text")  # bad argument
    with raises_at("# bad backend", "unknown backend 'cuda'"):
        gradopt.jit(gnp.exp, backend="cuda")  # bad backend
    with raises_at(
        "# bad tangent", r"jvp: a tangent of float32 data of shape \(2,\) for a primal"
    ):
        gradopt.jvp(gnp.exp, (f32(3),), (f32(2),))  # bad tangent
    with raises_at("# bad cotangent", "vjp: a cotangent of shape"):
        gradopt.vjp(gnp.exp, f32(3))[1](f32(2))  # bad cotangent


@pytest.mark.parametrize(
    ("mistake", "message"),
    [
        (lambda x: x.reshape("ab"), "a shape must be an int or ints, got 'ab'"),
        (lambda x: x.sum(axis=1.5), "axis must be an int or ints, got 1.5"),
        (lambda x: x.transpose(0, 0), r"axes \(0, 0\) are not a permutation"),
        (lambda x: gnp.pad(x, ((1, 2, 3),)), "pad: "),
        (lambda x: gnp.pad(x, -1), "pad: widths must not be negative"),
        (lambda x: gnp.eye(-1), "eye: negative dimensions are not allowed"),
        (lambda x: gnp.full((2,), "x"), "a fill value must be a number"),
        (lambda x: x.astype("float16"), "not float16"),
        (lambda x: -(x > 0), "negative of a bool array"),
        (lambda x: x & 1, "& needs int32 or bool operands, got float32"),
        (lambda x: x.max(axis=0)[None].max(axis=(0, 0)), "repeated axis"),
        (lambda x: gnp.zeros((0, 2)).max(axis=0), "max of an empty array"),
        (lambda x: gnn.one_hot(x, 3), "one_hot: labels must be integers"),
        (lambda x: gnn.conv2d(x, x), "the weight must be"),
        (lambda x: gnp.concatenate([x, x[None]]), "cannot concatenate shapes"),
        (lambda x: gnp.squeeze(x, 0), "cannot squeeze axes"),
        (lambda x: gnp.arange(3) ** -1, "negative integer powers"),
    ],
)
def test_mistakes_in_array_functions(mistake: Any, message: str) -> None:
    with pytest.raises(
        GradoptError, match=f"^{__file__}:\\d+:\\d+: error: .*{message}"
    ):
        gradopt.jit(mistake)(f32(2, 3))


def test_a_verification_error_points_at_the_users_lines() -> None:
    """`grad.reduce mul` has no gradient rule (SPEC §4 rule 5): the verifier's
    error is at the line that asked for the gradient, its note at the op's
    (`gnp.prod` is a product tree, so the op comes from `lax` itself)."""

    def f(x: Any) -> Any:
        return frontend_lax.reduce("mul", x, [0])  # the product

    with pytest.raises(GradoptError) as caught:
        gradopt.grad(f)(f32(3))  # the gradient
    report = str(caught.value)
    assert report.startswith(f"{__file__}:{line_of('# the gradient')}:")
    assert "'grad.reduce mul' lies on the path from the target to the loss" in report
    assert f"{__file__}:{line_of('# the product')}:" in report
    assert 'frontend_lax.reduce("mul", x, [0])  # the product' in report


def test_the_traceback_of_a_mistake_shows_the_users_frames_only() -> None:
    def f(x: Any) -> Any:
        return x @ x

    with pytest.raises(GradoptError) as caught:
        gradopt.jit(f)(f32(2, 3))
    files = [
        frame.filename for frame in traceback.extract_tb(caught.value.__traceback__)
    ]
    internal = [name for name in files if "/frontend/" in name or "/gradopt/" in name]
    assert len(internal) == 1  # the boundary that re-raises, nothing below it
    assert files[-1] == __file__


def test_two_gradients_at_one_point_are_two_targets() -> None:
    """Two inner gradients taken at the same point, one's loss reading the
    other's result: the copies made to differentiate are not twins (SPEC §4
    rule 6), so the program is valid and the outer gradient is JAX's."""

    def f(x: Any, y: Any) -> Any:
        return gnp.sum(gnp.sin(x) * y)

    def outer(y: Any) -> Any:
        x0 = gnp.ones(3)
        a = gradopt.grad(f)(x0, y)
        b = gradopt.grad(lambda x: gnp.sum(x * x * a))(x0)
        return gnp.sum(b * y)

    y = np.array([0.5, -1.0, 2.0], np.float32)
    # d/dy sum(2 cos(1) y * y) = 4 cos(1) y
    np.testing.assert_allclose(gradopt.grad(outer)(y), 4 * np.cos(1.0) * y, rtol=1e-6)
