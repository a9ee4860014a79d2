"""Properties of `grad.slice`, `grad.pad`, `grad.reverse`, `grad.concat` and
the batched `grad.dot` on random shapes.

Each example builds a small program, runs it with `gradopt.run`, and checks it
against a NumPy reference written here from SPEC §3.2 and §6 (`a[s:l:k]` per
dim, a stablehlo-style pad, `np.flip`, `np.concatenate`, `np.matmul`), not
against gradopt's rules:

- the data-movement ops move every bit (any element type, NaN, -0.0,
  subnormals), forward and, through `grad.vjp` and `grad.jvp`, backward and
  along a tangent;
- the adjoint identities hold in float64 on the f32 results: <slice(x), y> =
  <x, vjp_slice(y)> (the vjp expands to a pad), <pad(x), y> = <x, vjp_pad(y)>
  (a slice), and likewise for reverse, concat (several targets) and the batched
  dot (f32 tolerance there: it computes);
- gradients of a nonlinear loss through each op, and through random chains of
  them, agree with central finite differences of a float64 reference.

Each property runs on `GRADOPT_PROPERTY_EXAMPLES` examples (30 by default),
derandomized; `GRADOPT_PROPERTY_RANDOM=1` draws other examples on each run.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import gradopt

EXAMPLES = int(os.environ.get("GRADOPT_PROPERTY_EXAMPLES", "30"))

PROPERTY = settings(
    max_examples=EXAMPLES,
    deadline=None,
    derandomize=not os.environ.get("GRADOPT_PROPERTY_RANDOM"),
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)

Shape = tuple[int, ...]
DTYPES = {"f32": np.float32, "i32": np.int32, "i1": np.bool_}


# --- the NumPy reference (SPEC §3.2, §6) --------------------------------------


def ref_slice(
    a: np.ndarray, start: Sequence[int], limit: Sequence[int], stride: Sequence[int]
) -> np.ndarray:
    index = tuple(
        slice(s, lim, k) for s, lim, k in zip(start, limit, stride, strict=True)
    )
    return np.ascontiguousarray(a[index])


def pad_shape(
    shape: Shape, low: Sequence[int], high: Sequence[int], interior: Sequence[int]
) -> Shape:
    return tuple(
        lo + n + (n - 1) * i + hi if n else lo + hi
        for n, lo, hi, i in zip(shape, low, high, interior, strict=True)
    )


def ref_pad(
    a: np.ndarray,
    low: Sequence[int],
    high: Sequence[int],
    interior: Sequence[int],
    value: object,
) -> np.ndarray:
    out = np.full(pad_shape(a.shape, low, high, interior), value, a.dtype)
    if a.size:
        index = tuple(
            slice(lo, lo + (n - 1) * (i + 1) + 1, i + 1)
            for n, lo, i in zip(a.shape, low, interior, strict=True)
        )
        out[index] = a
    return out


def ref_reverse(a: np.ndarray, dims: Sequence[int]) -> np.ndarray:
    return np.ascontiguousarray(np.flip(a, tuple(dims)))


def ref_concat(operands: Sequence[np.ndarray], dim: int) -> np.ndarray:
    return np.concatenate(operands, axis=dim)


# --- programs -----------------------------------------------------------------


def ttype(shape: Shape, dtype: str = "f32") -> str:
    return f"tensor<{''.join(f'{d}x' for d in shape)}{dtype}>"


def ints(values: Sequence[int]) -> str:
    return "[" + ", ".join(str(v) for v in values) + "]"


def literal(value: object, dtype: str) -> str:
    """A pad value in the custom syntax: f32 as the shortest decimal that
    reads back as the same float32, i32 as an integer, i1 as true/false."""
    if dtype == "f32":
        return repr(float(np.float32(value)))  # type: ignore[arg-type]
    if dtype == "i1":
        return "true" if value else "false"
    return str(int(value))  # type: ignore[call-overload]


@dataclass(frozen=True)
class Slice:
    shape: Shape
    start: tuple[int, ...]
    limit: tuple[int, ...]
    stride: tuple[int, ...]

    @property
    def result(self) -> Shape:
        return tuple(
            -(-(lim - s) // k)
            for s, lim, k in zip(self.start, self.limit, self.stride, strict=True)
        )

    def line(self, out: str, a: str, dtype: str = "f32") -> str:
        return (
            f"{out} = grad.slice {a} {ints(self.start)} {ints(self.limit)} "
            f"{ints(self.stride)} : {ttype(self.shape, dtype)} to "
            f"{ttype(self.result, dtype)}"
        )

    def apply(self, a: np.ndarray) -> np.ndarray:
        return ref_slice(a, self.start, self.limit, self.stride)

    def transpose(self, g: np.ndarray) -> np.ndarray:
        """The adjoint, written independently of the spec's pad formula: g
        scattered into zeros of the input's shape."""
        out = np.zeros(self.shape, g.dtype)
        index = tuple(
            slice(s, lim, k)
            for s, lim, k in zip(self.start, self.limit, self.stride, strict=True)
        )
        out[index] = g
        return out


@dataclass(frozen=True)
class Pad:
    shape: Shape
    low: tuple[int, ...]
    high: tuple[int, ...]
    interior: tuple[int, ...]
    value: float = 0.0

    @property
    def result(self) -> Shape:
        return pad_shape(self.shape, self.low, self.high, self.interior)

    def line(self, out: str, a: str, dtype: str = "f32", value: object = None) -> str:
        value = self.value if value is None else value
        return (
            f"{out} = grad.pad {a} low {ints(self.low)} high {ints(self.high)} "
            f"interior {ints(self.interior)} value {literal(value, dtype)} : "
            f"{ttype(self.shape, dtype)} to {ttype(self.result, dtype)}"
        )

    def apply(self, a: np.ndarray, value: object = None) -> np.ndarray:
        value = self.value if value is None else value
        return ref_pad(a, self.low, self.high, self.interior, value)

    def transpose(self, g: np.ndarray) -> np.ndarray:
        """The adjoint of the linear part: the elements of g at x's places."""
        index = tuple(
            slice(lo, lo + n * (i + 1), i + 1)
            for n, lo, i in zip(self.shape, self.low, self.interior, strict=True)
        )
        return np.ascontiguousarray(g[index])


@dataclass(frozen=True)
class Reverse:
    shape: Shape
    dims: tuple[int, ...]

    @property
    def result(self) -> Shape:
        return self.shape

    def line(self, out: str, a: str, dtype: str = "f32") -> str:
        return (
            f"{out} = grad.reverse {a} {ints(self.dims)} : {ttype(self.shape, dtype)}"
        )

    def apply(self, a: np.ndarray) -> np.ndarray:
        return ref_reverse(a, self.dims)

    def transpose(self, g: np.ndarray) -> np.ndarray:
        return ref_reverse(g, self.dims)


@dataclass(frozen=True)
class Concat:
    shapes: tuple[Shape, ...]
    dim: int

    @property
    def result(self) -> Shape:
        first = list(self.shapes[0])
        first[self.dim] = sum(s[self.dim] for s in self.shapes)
        return tuple(first)

    def line(self, out: str, operands: Sequence[str], dtype: str = "f32") -> str:
        types = ", ".join(ttype(s, dtype) for s in self.shapes)
        return (
            f"{out} = grad.concat {', '.join(operands)} [{self.dim}] : {types} to "
            f"{ttype(self.result, dtype)}"
        )

    def apply(self, operands: Sequence[np.ndarray]) -> np.ndarray:
        return ref_concat(operands, self.dim)

    def transpose(self, g: np.ndarray) -> list[np.ndarray]:
        cuts = np.cumsum([s[self.dim] for s in self.shapes])[:-1]
        return [np.ascontiguousarray(p) for p in np.split(g, cuts, axis=self.dim)]


# --- strategies ---------------------------------------------------------------


def shapes(
    min_rank: int = 1, max_rank: int = 3, min_size: int = 0
) -> st.SearchStrategy:
    return st.lists(st.integers(min_size, 4), min_size=min_rank, max_size=max_rank).map(
        tuple
    )


@st.composite
def slices(draw: st.DrawFn, min_size: int = 0) -> Slice:
    shape = draw(shapes(min_size=min_size))
    start, limit, stride = [], [], []
    for n in shape:
        s = draw(st.integers(0, n))
        start.append(s)
        limit.append(draw(st.integers(s, n)))
        stride.append(draw(st.integers(1, 3)))
    return Slice(shape, tuple(start), tuple(limit), tuple(stride))


@st.composite
def pads(draw: st.DrawFn, min_size: int = 0) -> Pad:
    shape = draw(shapes(min_size=min_size))
    amounts = [
        tuple(draw(st.integers(0, 2)) for _ in shape)
        for _ in ("low", "high", "interior")
    ]
    value = draw(st.sampled_from([0.0, -1.5, 2.0]))
    return Pad(shape, *amounts, value=value)


@st.composite
def reverses(draw: st.DrawFn, min_size: int = 0) -> Reverse:
    shape = draw(shapes(min_size=min_size))
    dims = draw(
        st.lists(st.integers(0, len(shape) - 1), min_size=1, unique=True).map(
            lambda d: tuple(sorted(d))
        )
    )
    return Reverse(shape, dims)


@st.composite
def concats(draw: st.DrawFn, min_size: int = 0) -> Concat:
    shape = draw(shapes(min_size=min_size))
    dim = draw(st.integers(0, len(shape) - 1))
    count = draw(st.integers(2, 4))
    parts = []
    for _ in range(count):
        part = list(shape)
        part[dim] = draw(st.integers(min_size, 3))
        parts.append(tuple(part))
    return Concat(tuple(parts), dim)


@dataclass(frozen=True)
class Dot:
    batch: Shape
    m: int
    k: int
    n: int

    @property
    def lhs(self) -> Shape:
        return (*self.batch, self.m, self.k)

    @property
    def rhs(self) -> Shape:
        return (*self.batch, self.k, self.n)

    @property
    def result(self) -> Shape:
        return (*self.batch, self.m, self.n)

    def line(self, out: str, a: str, b: str) -> str:
        return (
            f"{out} = grad.dot {a}, {b} : {ttype(self.lhs)}, {ttype(self.rhs)} to "
            f"{ttype(self.result)}"
        )


def dots(min_size: int = 0) -> st.SearchStrategy:
    size = st.integers(max(min_size, 1), 3)
    return st.builds(
        Dot,
        st.lists(st.integers(max(min_size, 1), 3), min_size=0, max_size=2).map(tuple),
        size,
        st.integers(min_size, 3),
        size,
    )


def data_of(seed: int, shape: Shape, dtype: str = "f32", special: bool = False):
    """Random data; with `special`, some f32 elements are NaN, infinities,
    -0.0 and subnormals (bit patterns a move must keep)."""
    rng = np.random.default_rng(seed)
    if dtype == "i1":
        return rng.integers(0, 2, shape).astype(np.bool_)
    if dtype == "i32":
        return rng.integers(-(2**31), 2**31, shape, dtype=np.int64).astype(np.int32)
    values = rng.standard_normal(shape).astype(np.float32)
    if special and values.size:
        odd = np.array([np.nan, np.inf, -np.inf, -0.0, 1e-45, -3e-39], np.float32)
        mask = rng.random(shape) < 0.3
        values[mask] = rng.choice(odd, int(mask.sum()))
    return values


def module(
    params: Sequence[tuple[str, Shape, str]],
    body: Sequence[str],
    results: Sequence[tuple[str, str]],
) -> str:
    args = ", ".join(f"{name}: {ttype(shape, dtype)}" for name, shape, dtype in params)
    names = ", ".join(name for name, _ in results)
    types = ", ".join(type for _, type in results)
    lines = [f"func.func @main({args}) -> ({types}) {{"]
    lines += [f"  {line}" for line in body]
    lines += [f"  func.return {names} : {types}", "}"]
    return "\n".join(lines)


def run(text: str, args: Sequence[np.ndarray]) -> list[np.ndarray]:
    return gradopt.run(text, args=list(args)).results


def assert_bits(actual: np.ndarray, expected: np.ndarray, what: str) -> None:
    actual, expected = np.asarray(actual), np.asarray(expected)
    assert (actual.dtype, actual.shape) == (expected.dtype, expected.shape), (
        f"{what}: {actual.dtype}{actual.shape}, expected "
        f"{expected.dtype}{expected.shape}"
    )
    assert actual.tobytes() == expected.tobytes(), f"{what}: {actual} != {expected}"


def inner(x: np.ndarray, y: np.ndarray) -> tuple[float, float]:
    """<x, y> in float64, and the sum of |x_i y_i| (its scale)."""
    terms = np.asarray(x, np.float64) * np.asarray(y, np.float64)
    return float(terms.sum()), float(np.abs(terms).sum())


def assert_close(actual: Sequence[np.ndarray], expected: Sequence[np.ndarray]) -> None:
    """f32 results within float32 tolerance of the float64 reference: 2e-4
    relative, plus 2e-5 of the largest magnitude (as test_properties.py)."""
    for i, (a, b) in enumerate(zip(actual, expected, strict=True)):
        a, b = np.asarray(a, np.float64), np.asarray(b, np.float64)
        assert a.shape == b.shape, f"result {i}: {a.shape} != {b.shape}"
        scale = max(1.0, float(np.max(np.abs(b), initial=0.0)))
        bad = ~(np.abs(a - b) <= 2e-4 * np.abs(b) + 2e-5 * scale)
        assert not bad.any(), f"result {i}: gradopt {a}, float64 reference {b}"


# --- data moves, bit for bit --------------------------------------------------


@PROPERTY
@given(
    st.one_of(slices(), pads(), reverses(), concats()),
    st.sampled_from(list(DTYPES)),
    st.integers(0, 2**32 - 1),
    st.booleans(),
)
def test_the_ops_move_every_bit(op, dtype: str, seed: int, special: bool) -> None:
    """Forward, in every element type: exactly the reference's bits."""
    if isinstance(op, Concat):
        inputs = [data_of(seed + i, s, dtype, special) for i, s in enumerate(op.shapes)]
        names = [f"%a{i}" for i in range(len(inputs))]
        params = [(n, s, dtype) for n, s in zip(names, op.shapes, strict=True)]
        body = [op.line("%r", names, dtype)]
        expected = op.apply(inputs)
    else:
        inputs = [data_of(seed, op.shape, dtype, special)]
        params = [("%a0", op.shape, dtype)]
        if isinstance(op, Pad):
            value = {"f32": np.float32(op.value), "i32": np.int32(-7), "i1": True}[
                dtype
            ]
            body = [op.line("%r", "%a0", dtype, value)]
            expected = op.apply(inputs[0], value)
        else:
            body = [op.line("%r", "%a0", dtype)]
            expected = op.apply(inputs[0])
    text = module(params, body, [("%r", ttype(op.result, dtype))])
    (result,) = run(text, inputs)
    assert_bits(result, expected, text)


def linear_program(op: Slice | Pad | Reverse) -> str:
    """y = op(x); its vjp for the cotangent ct; its jvp along the tangent tx."""
    x, y = ttype(op.shape), ttype(op.result)
    body = [
        op.line("%y", "%x"),
        f"%v = grad.vjp %y, %ct wrt %x : {y}, {x}",
        f"%t = grad.jvp %y wrt %x, %tx : {y}, {x}",
    ]
    params = [
        ("%x", op.shape, "f32"),
        ("%ct", op.result, "f32"),
        ("%tx", op.shape, "f32"),
    ]
    return module(params, body, [("%y", y), ("%v", x), ("%t", y)])


def check_linear(op: Slice | Pad | Reverse, seed: int, special: bool) -> None:
    x = data_of(seed, op.shape, special=special)
    ct = data_of(seed + 1, op.result, special=special)
    tx = data_of(seed + 2, op.shape, special=special)
    y, v, t = run(linear_program(op), [x, ct, tx])
    assert_bits(y, op.apply(x), "forward")
    assert_bits(v, op.transpose(ct), "vjp")
    tangent = op.apply(tx, 0.0) if isinstance(op, Pad) else op.apply(tx)
    assert_bits(t, tangent, "jvp")
    if special:
        return
    # the adjoint identity, in float64 on the f32 results (for pad, of its
    # linear part: the padding itself, pad(0), is taken off, exactly)
    linear = y - op.apply(np.zeros_like(x)) if isinstance(op, Pad) else y
    left, scale = inner(linear, ct)
    right, other = inner(x, v)
    assert abs(left - right) <= 1e-12 * (scale + other)


@PROPERTY
@given(slices(), st.integers(0, 2**32 - 1), st.booleans())
def test_slice_and_its_vjp_are_adjoint(op: Slice, seed: int, special: bool) -> None:
    """<slice(x), ct> = <x, vjp(ct)>, the vjp (a pad) being ct scattered into
    zeros, bit for bit; the jvp is the slice of the tangent."""
    check_linear(op, seed, special)


@PROPERTY
@given(pads(), st.integers(0, 2**32 - 1), st.booleans())
def test_pad_and_its_vjp_are_adjoint(op: Pad, seed: int, special: bool) -> None:
    """<pad(x) - pad(0), ct> = <x, vjp(ct)>, the vjp (a slice) taking ct at x's
    places whatever the pad value; the jvp pads the tangent with 0.0."""
    check_linear(op, seed, special)


@PROPERTY
@given(reverses(), st.integers(0, 2**32 - 1), st.booleans())
def test_reverse_and_its_vjp_are_adjoint(op: Reverse, seed: int, special: bool) -> None:
    check_linear(op, seed, special)


@PROPERTY
@given(concats(), st.integers(0, 2**32 - 1), st.booleans())
def test_concat_and_its_vjp_are_adjoint(op: Concat, seed: int, special: bool) -> None:
    """One vjp w.r.t. every operand (one walk, several targets): each gets its
    part of ct; sum_j <a_j, v_j> = <concat(a), ct>. The jvp along a tangent of
    operand 0 is that tangent beside zeros."""
    count = len(op.shapes)
    inputs = [data_of(seed + i, s, special=special) for i, s in enumerate(op.shapes)]
    ct = data_of(seed + count, op.result, special=special)
    t0 = data_of(seed + count + 1, op.shapes[0], special=special)
    names = [f"%a{i}" for i in range(count)]
    vjps = [f"%v{i}" for i in range(count)]
    y, a0 = ttype(op.result), ttype(op.shapes[0])
    types = ", ".join(ttype(s) for s in op.shapes)
    body = [
        op.line("%y", names),
        f"{', '.join(vjps)} = grad.vjp %y, %ct wrt {', '.join(names)} : {y}, {types}",
        f"%t = grad.jvp %y wrt %a0, %t0 : {y}, {a0}",
    ]
    params = [(n, s, "f32") for n, s in zip(names, op.shapes, strict=True)]
    params += [("%ct", op.result, "f32"), ("%t0", op.shapes[0], "f32")]
    results = [("%y", y)] + [
        (v, ttype(s)) for v, s in zip(vjps, op.shapes, strict=True)
    ]
    text = module(params, body, [*results, ("%t", y)])
    y_value, *vs, t = run(text, [*inputs, ct, t0])
    assert_bits(y_value, op.apply(inputs), "forward")
    for i, (v, part) in enumerate(zip(vs, op.transpose(ct), strict=True)):
        assert_bits(v, part, f"vjp {i}")
    zeros = [t0] + [np.zeros(s, np.float32) for s in op.shapes[1:]]
    assert_bits(t, op.apply(zeros), "jvp")
    if not special:
        left, scale = inner(y_value, ct)
        terms = [inner(a, v) for a, v in zip(inputs, vs, strict=True)]
        right = sum(value for value, _ in terms)
        assert abs(left - right) <= 1e-12 * (scale + sum(s for _, s in terms))


@PROPERTY
@given(dots(), st.integers(0, 2**32 - 1))
def test_batched_dot_and_its_vjp_are_adjoint(op: Dot, seed: int) -> None:
    """<dot(a, b), ct> = <a, v_a> = <b, v_b> up to f32 rounding, the forward and
    both shares close to float64 matmuls, and the jvp along (t_a, 0) is
    dot(t_a, b)."""
    a, b = data_of(seed, op.lhs), data_of(seed + 1, op.rhs)
    ct, ta = data_of(seed + 2, op.result), data_of(seed + 3, op.lhs)
    lhs, rhs, out = ttype(op.lhs), ttype(op.rhs), ttype(op.result)
    body = [
        op.line("%y", "%a", "%b"),
        f"%va, %vb = grad.vjp %y, %ct wrt %a, %b : {out}, {lhs}, {rhs}",
        f"%t = grad.jvp %y wrt %a, %ta : {out}, {lhs}",
    ]
    params = [("%a", op.lhs, "f32"), ("%b", op.rhs, "f32")]
    params += [("%ct", op.result, "f32"), ("%ta", op.lhs, "f32")]
    text = module(params, body, [("%y", out), ("%va", lhs), ("%vb", rhs), ("%t", out)])
    y, va, vb, t = run(text, [a, b, ct, ta])
    a64, b64, ct64 = (np.asarray(v, np.float64) for v in (a, b, ct))
    assert_close(
        [y, va, vb, t],
        [
            a64 @ b64,
            ct64 @ np.swapaxes(b64, -1, -2),
            np.swapaxes(a64, -1, -2) @ ct64,
            np.asarray(ta, np.float64) @ b64,
        ],
    )
    # one numpy.matmul in float32 (SPEC §6): the same bits
    assert_bits(y, np.matmul(a, b), "forward")
    assert_bits(t, np.matmul(ta, b), "jvp")
    left, scale = inner(y, ct)
    for x, v in ((a, va), (b, vb)):
        right, other = inner(x, v)
        assert abs(left - right) <= 1e-5 * (scale + other) + 1e-30


# --- gradients against finite differences -------------------------------------


def finite_difference(
    loss: Callable[[list[np.ndarray]], float], inputs: list[np.ndarray], which: int
) -> np.ndarray:
    """d loss / d inputs[which] by central differences in float64, the step
    relative to the element's magnitude."""
    base = [np.asarray(x, np.float64) for x in inputs]
    result = np.zeros(base[which].shape)
    for index in np.ndindex(*base[which].shape):
        h = 1e-4 * max(1.0, abs(float(base[which][index])))
        plus = [x.copy() for x in base]
        minus = [x.copy() for x in base]
        plus[which][index] += h
        minus[which][index] -= h
        result[index] = (loss(plus) - loss(minus)) / (2 * h)
    return result


@st.composite
def differentiable(draw: st.DrawFn):
    """One op with f32 operands (no size 0, which has no derivative to check),
    as (operand shapes, result shape, forward lines, float64 forward)."""
    kind = draw(st.sampled_from(["slice", "pad", "reverse", "concat", "dot"]))
    if kind == "concat":
        op = draw(concats(min_size=1))
        names = [f"%a{i}" for i in range(len(op.shapes))]
        return list(op.shapes), op.result, [op.line("%r", names)], op.apply
    if kind == "dot":
        op = draw(dots(min_size=1))
        return (
            [op.lhs, op.rhs],
            op.result,
            [op.line("%r", "%a0", "%a1")],
            lambda xs: np.matmul(xs[0], xs[1]),
        )
    op = draw({"slice": slices, "pad": pads, "reverse": reverses}[kind](min_size=1))
    return [op.shape], op.result, [op.line("%r", "%a0")], lambda xs: op.apply(xs[0])


def nonlinear_loss(
    shapes_: Sequence[Shape],
    result: Shape,
    lines: Sequence[str],
    forward: Callable[[list[np.ndarray]], np.ndarray],
) -> tuple[str, Callable[[list[np.ndarray]], float]]:
    """The program computing l = sum(sin(r) * w) for r the op's result and a
    weight w (the last input), and its gradient w.r.t. every other input; and
    the float64 loss."""
    names = [f"%a{i}" for i in range(len(shapes_))]
    r = ttype(result)
    axes = ints(list(range(len(result))))
    body = [
        *lines,
        f"%s = grad.sin %r : {r}",
        f"%sw = grad.mul %s, %w : {r}",
        f"%l = grad.reduce add %sw {axes} : {r} to tensor<f32>",
    ]
    gradients = [f"%g{i}" for i in range(len(names))]
    types = ", ".join(ttype(s) for s in shapes_)
    body.append(
        f"{', '.join(gradients)} = grad.gradient %l wrt {', '.join(names)} "
        f": tensor<f32>, {types}"
    )
    params = [(n, s, "f32") for n, s in zip(names, shapes_, strict=True)]
    params.append(("%w", result, "f32"))
    text = module(
        params, body, [(g, ttype(s)) for g, s in zip(gradients, shapes_, strict=True)]
    )

    def loss(inputs: list[np.ndarray]) -> float:
        *operands, w = inputs
        return float((np.sin(forward(operands)) * w).sum())

    return text, loss


@PROPERTY
@given(differentiable(), st.integers(0, 2**32 - 1))
def test_gradients_match_finite_differences(case, seed: int) -> None:
    """d/da of sum(sin(op(a...)) * w) through each of the five ops."""
    shapes_, result, lines, forward = case
    text, loss = nonlinear_loss(shapes_, result, lines, forward)
    inputs = [data_of(seed + i, s) for i, s in enumerate([*shapes_, result])]
    gradients = run(text, inputs)
    expected = [finite_difference(loss, inputs, i) for i in range(len(shapes_))]
    assert_close(gradients, expected)


@st.composite
def chains(draw: st.DrawFn):
    """x -> 1 to 4 of slice, pad, reverse and concat of a value with itself ->
    its square r; no size 0, at most 64 elements before a pad or a concat."""
    first: Shape = draw(shapes(min_size=1))
    shape, current = first, "%a0"
    lines: list[str] = []
    steps: list[Callable[[np.ndarray], np.ndarray]] = []
    for i in range(draw(st.integers(1, 4))):
        kinds = ["slice", "reverse"]
        if int(np.prod(shape)) <= 64:
            kinds += ["pad", "concat"]
        kind = draw(st.sampled_from(kinds))
        out = f"%c{i}"
        if kind == "concat":
            op = Concat((shape, shape), draw(st.integers(0, len(shape) - 1)))
            lines.append(op.line(out, [current, current]))
            steps.append(lambda a, op=op: op.apply([a, a]))
            shape, current = op.result, out
            continue
        if kind == "slice":
            start, limit, stride = [], [], []
            for n in shape:
                s = draw(st.integers(0, n - 1))
                start.append(s)
                limit.append(draw(st.integers(s + 1, n)))
                stride.append(draw(st.integers(1, 3)))
            op = Slice(shape, tuple(start), tuple(limit), tuple(stride))
        elif kind == "pad":
            low, high, interior = (
                tuple(draw(st.integers(0, 1)) for _ in shape) for _ in range(3)
            )
            op = Pad(shape, low, high, interior, draw(st.sampled_from([0.0, 3.0])))
        else:
            dims = draw(
                st.lists(st.integers(0, len(shape) - 1), min_size=1, unique=True)
            )
            op = Reverse(shape, tuple(sorted(dims)))
        lines.append(op.line(out, current))
        steps.append(op.apply)
        shape, current = op.result, out
    lines.append(f"%r = grad.mul {current}, {current} : {ttype(shape)}")

    def forward(xs: list[np.ndarray]) -> np.ndarray:
        a = xs[0]
        for step in steps:
            a = step(a)
        return a * a

    return first, lines, shape, forward


@PROPERTY
@given(chains(), st.integers(0, 2**32 - 1))
def test_chains_of_the_ops_match_finite_differences(case, seed: int) -> None:
    """Gradients of sum(sin(chain(x)^2) * w) through chains of the ops, where
    a concat of a value with itself sends it two shares to add."""
    shape, lines, result, forward = case
    text, loss = nonlinear_loss([shape], result, lines, forward)
    inputs = [data_of(seed, shape) * np.float32(0.5), data_of(seed + 1, result)]
    (gradient,) = run(text, inputs)
    assert_close([gradient], [finite_difference(loss, inputs, 0)])
