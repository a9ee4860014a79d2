"""The named linalg ops of MLIR (IREE 3.13) that xDSL lacks, SPEC §10.2: each
one's value, gradient (`grad.vjp` to every operand, the init among them) and
tangent (`grad.jvp` along each input) at random points, with strides and
dilations, against a float64 reference that runs the op as MLIR's OpDSL
defines it (restated here: each operand's indices as expressions of named
loops); and, with the `iree` extra, each op's generic form printed as
`iree-opt --mlir-print-op-generic` prints it and run with the bits of
`iree-opt --linalg-generalize-named-ops`'s generic."""

from __future__ import annotations

import importlib.util
import io
import math
import re
import subprocess
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import pytest
from xdsl.parser import Parser
from xdsl.printer import Printer

from gradopt import Program
from gradopt.dialect.context import make_context

HAVE_IREE = importlib.util.find_spec("iree") is not None and all(
    importlib.util.find_spec(m) for m in ("iree.compiler", "iree.runtime")
)
STRIDES, DILATIONS = (2, 1, 2), (1, 2, 1)
SIZES = {"n": 2, "c": 2, "f": 3, "m": 2, "b": 2, "j": 3, "k": 3, "r": 2, "s": 3}
"""Loop sizes by the loop's letter; `o0 o1 o2` (output positions) are 2 and
`k0 k1 k2` (window positions) 2, `i0 i1 i2` is `o * stride + k * dilation`."""


@dataclass(frozen=True)
class Named:
    """A named op: its operands' indices (inputs, then the init), how it
    combines them ("mac": init + a * b, or a pooling's "sum"/"max"/"min"),
    and, if the program gives its `indexing_maps`, the loops in the op's
    order (`d0`, `d1`, ...)."""

    operands: tuple[str, ...]
    kind: str = "mac"
    maps: str | None = None


def _conv(input: str, filter: str, output: str, kind: str = "mac") -> Named:
    return Named((input, filter, output), kind)


OPS: dict[str, Named] = {
    "batch_matvec": Named(("b r k", "b k", "b r")),
    "batch_vecmat": Named(("b k", "b k s", "b s")),
    "mmt4d": Named(("r k m j", "s k f j", "r s m f")),
    "batch_mmt4d": Named(("b r k m j", "b s k f j", "b r s m f")),
    "batch_reduce_matmul": Named(("b r k", "b k s", "r s")),
    "matmul": Named(("k r", "k s", "r s"), maps="r s k"),
    "batch_matmul": Named(("b r k", "k s", "b r s"), maps="b r s k"),
    "contract": Named(("k r j", "k j s", "r s"), maps="j r s k"),
    "conv_3d": _conv("o0+k0 o1+k1 o2+k2", "k0 k1 k2", "o0 o1 o2"),
    "conv_3d_ndhwc_dhwcf": _conv("n i0 i1 i2 c", "k0 k1 k2 c f", "n o0 o1 o2 f"),
    "conv_3d_ncdhw_fcdhw": _conv("n c i0 i1 i2", "f c k0 k1 k2", "n f o0 o1 o2"),
    "depthwise_conv_1d_nwc_wc": _conv("n i0 c", "k0 c", "n o0 c"),
    "depthwise_conv_1d_ncw_cw": _conv("n c i0", "c k0", "n c o0"),
    "depthwise_conv_1d_nwc_wcm": _conv("n i0 c", "k0 c m", "n o0 c m"),
    "depthwise_conv_2d_nchw_chw": _conv("n c i0 i1", "c k0 k1", "n c o0 o1"),
    "depthwise_conv_2d_nhwc_hwcm": _conv("n i0 i1 c", "k0 k1 c m", "n o0 o1 c m"),
    "depthwise_conv_3d_ndhwc_dhwc": _conv("n i0 i1 i2 c", "k0 k1 k2 c", "n o0 o1 o2 c"),
    "depthwise_conv_3d_ncdhw_cdhw": _conv("n c i0 i1 i2", "c k0 k1 k2", "n c o0 o1 o2"),
    "depthwise_conv_3d_ndhwc_dhwcm": _conv(
        "n i0 i1 i2 c", "k0 k1 k2 c m", "n o0 o1 o2 c m"
    ),
    "pooling_nchw_max": _conv("n c i0 i1", "k0 k1", "n c o0 o1", "max"),
    "pooling_nhwc_min": _conv("n i0 i1 c", "k0 k1", "n o0 o1 c", "min"),
    "pooling_nwc_min": _conv("n i0 c", "k0", "n o0 c", "min"),
    "pooling_ndhwc_sum": _conv("n i0 i1 i2 c", "k0 k1 k2", "n o0 o1 o2 c", "sum"),
    "pooling_ndhwc_max": _conv("n i0 i1 i2 c", "k0 k1 k2", "n o0 o1 o2 c", "max"),
    "pooling_ndhwc_min": _conv("n i0 i1 i2 c", "k0 k1 k2", "n o0 o1 o2 c", "min"),
}


def _expressions(indices: str) -> list[str]:
    """`n i0 c` as the index expressions `n`, `o0*2+k0*1`, `c`."""

    def expand(word: str) -> str:
        if re.fullmatch(r"i\d", word):
            d = int(word[1])
            return f"o{d}*{STRIDES[d]}+k{d}*{DILATIONS[d]}"
        return word

    return [expand(word) for word in indices.split()]


def _loops(named: Named) -> list[str]:
    found = {
        loop
        for indices in named.operands
        for e in _expressions(indices)
        for loop in re.findall(r"[a-z]\d?", e)
    }
    return sorted(found)


def _size(loop: str) -> int:
    return 2 if re.fullmatch(r"[ok]\d", loop) else SIZES[loop]


def _shape(indices: str) -> tuple[int, ...]:
    """The extent an operand's indices reach."""
    expressions = _expressions(indices)
    loops = {loop for e in expressions for loop in re.findall(r"[a-z]\d?", e)}
    top = {loop: _size(loop) - 1 for loop in loops}
    return tuple(eval(e, {}, top) + 1 for e in expressions)


def _type(shape: tuple[int, ...]) -> str:
    return f"tensor<{''.join(f'{n}x' for n in shape)}f32>"


def _spatial(named: Named) -> int:
    return max(
        (int(w[1]) + 1 for w in re.findall(r"i\d", named.operands[0])), default=0
    )


def op_text(name: str, named: Named) -> tuple[str, list[str]]:
    """The op over `%arg0...` as MLIR's custom form writes it, and its
    operands' types."""
    types = [_type(_shape(i)) for i in named.operands]
    attributes = ""
    if spatial := _spatial(named):
        dense = "dense<[{}]> : tensor<{}xi64>".format
        s, d = STRIDES[:spatial], DILATIONS[:spatial]
        attributes = (
            f" {{dilations = {dense(', '.join(map(str, d)), spatial)}, "
            f"strides = {dense(', '.join(map(str, s)), spatial)}}}"
        )
    if named.maps is not None:
        order = named.maps.split()
        dims = ", ".join(f"d{i}" for i in range(len(order)))
        maps = [
            f"affine_map<({dims}) -> "
            f"({', '.join(f'd{order.index(w)}' for w in indices.split())})>"
            for indices in named.operands
        ]
        attributes = f" indexing_maps = [{', '.join(maps)}]"
    ins = ", ".join(f"%arg{i}" for i in range(len(types) - 1))
    text = (
        f"%0 = linalg.{name}{attributes} ins({ins} : {', '.join(types[:-1])}) "
        f"outs(%arg{len(types) - 1} : {types[-1]}) -> {types[-1]}"
    )
    return text, types


# --- the float64 reference ----------------------------------------------------


def _reference(
    named: Named, values: list[np.ndarray], ct: np.ndarray, tangents: list[np.ndarray]
) -> tuple[np.ndarray, list[np.ndarray], np.ndarray]:
    """The op's value, the gradient of `sum(ct * value)` to each operand, and
    the tangent along `tangents` (one per operand), in float64, over every
    point of the loops at once."""
    loops = _loops(named)
    grid = np.indices([_size(loop) for loop in loops]).reshape(len(loops), -1)
    env = dict(zip(loops, grid, strict=True))
    at = [
        tuple(
            np.broadcast_to(eval(e, {}, env), grid.shape[1:]) for e in _expressions(i)
        )
        for i in named.operands
    ]
    x = [np.asarray(v, np.float64) for v in values]
    t = [np.asarray(v, np.float64) for v in tangents]
    out, grads = x[-1].copy(), [np.zeros_like(v) for v in x]
    g = np.asarray(ct, np.float64)
    tangent = t[-1].copy()
    if named.kind == "mac":
        a, b = x[0][at[0]], x[1][at[1]]
        np.add.at(out, at[-1], a * b)
        np.add.at(grads[0], at[0], g[at[-1]] * b)
        np.add.at(grads[1], at[1], g[at[-1]] * a)
        np.add.at(tangent, at[-1], t[0][at[0]] * b + a * t[1][at[1]])
        grads[-1] = g
        return out, grads, tangent
    read = x[0][at[0]]
    if named.kind == "sum":
        np.add.at(out, at[-1], read)
        np.add.at(grads[0], at[0], g[at[-1]])
        np.add.at(tangent, at[-1], t[0][at[0]])
        grads[-1] = g
        return out, grads, tangent
    (np.maximum if named.kind == "max" else np.minimum).at(out, at[-1], read)
    hit, kept = read == out[at[-1]], x[-1] == out
    count = kept.astype(np.float64)
    np.add.at(count, at[-1], hit)
    np.add.at(grads[0], at[0], np.where(hit, g[at[-1]] / count[at[-1]], 0.0))
    grads[-1] = np.where(kept, g / count, 0.0)
    tangent = np.where(kept, t[-1], 0.0)
    np.add.at(tangent, at[-1], np.where(hit, t[0][at[0]], 0.0))
    return out, grads, tangent / count


def _close(found: np.ndarray, expected: np.ndarray) -> bool:
    scale = max(1.0, float(np.max(np.abs(expected))))
    return float(np.max(np.abs(found - expected))) <= 1e-5 * scale


def _program(line: str, types: list[str], differentiated: list[int]) -> str:
    """`line`, the vjp of its result to the operands `differentiated`, and
    its jvp along each of them."""
    arguments = [f"%arg{i}: {t}" for i, t in enumerate(types)]
    arguments += [f"%ct: {types[-1]}"] + [f"%t{k}: {types[k]}" for k in differentiated]
    out = types[-1]
    grads = ", ".join(f"%g{k}" for k in differentiated)
    targets = ", ".join(f"%arg{k}" for k in differentiated)
    body = [
        line,
        f"{grads} = grad.vjp %0, %ct wrt {targets} : {out}, "
        + ", ".join(types[k] for k in differentiated),
    ]
    body += [
        f"%j{k} = grad.jvp %0 wrt %arg{k}, %t{k} : {out}, {types[k]}"
        for k in differentiated
    ]
    results = ["%0", *(f"%g{k}" for k in differentiated)]
    results += [f"%j{k}" for k in differentiated]
    result_types = [out, *(types[k] for k in differentiated)]
    result_types += [out] * len(differentiated)
    return (
        f"func.func @main({', '.join(arguments)}) -> ({', '.join(result_types)}) {{\n  "
        + "\n  ".join(body)
        + f"\n  func.return {', '.join(results)} : {', '.join(result_types)}\n}}"
    )


@pytest.mark.parametrize("name", OPS)
def test_value_gradient_and_tangent_against_float64(name: str) -> None:
    named = OPS[name]
    line, types = op_text(name, named)
    # a pooling's window operand only gives the window's shape
    differentiated = [0, len(types) - 1] if named.kind != "mac" else [0, 1, 2]
    rng = np.random.default_rng(sum(map(ord, name)))
    shapes = [_shape(i) for i in named.operands]
    values = [rng.standard_normal(s).astype(np.float32) for s in shapes]
    ct = rng.standard_normal(shapes[-1]).astype(np.float32)
    tangents = [
        rng.standard_normal(shapes[k]).astype(np.float32) for k in differentiated
    ]
    results = (
        Program(_program(line, types, differentiated))
        .run(args=[*values, ct, *tangents])
        .results
    )
    zeros = [np.zeros(s) for s in shapes]
    value, grads, _ = _reference(named, values, ct, zeros)
    assert _close(results[0], value)
    count = len(differentiated)
    for i, (k, t) in enumerate(zip(differentiated, tangents, strict=True)):
        assert _close(results[1 + i], grads[k]), f"gradient to operand {k}"
        along = [t if j == k else z for j, z in enumerate(zeros)]
        tangent = _reference(named, values, ct, along)[2]
        assert _close(results[1 + count + i], tangent), f"tangent along operand {k}"


UNARY: dict[str, Callable[[np.ndarray], np.ndarray]] = {
    "exp": np.exp,
    "log": np.log,
    "abs": np.abs,
    "negf": np.negative,
    "reciprocal": np.reciprocal,
    "sqrt": np.sqrt,
    "rsqrt": lambda a: 1 / np.sqrt(a),
    "square": np.square,
    "tanh": np.tanh,
    "erf": np.vectorize(math.erf),
    "sin": np.sin,
    "cos": np.cos,
    "tan": np.tan,
    "atan": np.arctan,
    "log10": np.log10,
    "log1p": np.log1p,
    "log2": np.log2,
}
BINARY: dict[str, Callable[[np.ndarray, np.ndarray], np.ndarray]] = {
    "add": np.add,
    "sub": np.subtract,
    "mul": np.multiply,
    "div": np.divide,
    "max_signed": np.maximum,
    "min_signed": np.minimum,
    "powf": np.power,
}
"""The kinds of `linalg.elementwise` with a gradient rule (`ceil`, `floor`
and `round` are dead ends; `acos`, `acosh`, `asin`, `asinh`, `atanh` have no
rule, SPEC §10.2) and their float64 meaning."""


def test_elementwise_kinds_against_float64() -> None:
    """Every kind, one of them with a broadcast input through its maps, and
    `select`: the value, the gradient to each input and the tangent along it
    (central differences of the float64 meaning), in one program."""
    t, v = "tensor<2x3xf32>", "tensor<3xf32>"
    cases = [(kind, [t], f) for kind, f in UNARY.items()]
    cases += [(kind, [t, t], f) for kind, f in BINARY.items()]
    cases.append(("mul", [v, t], np.multiply))
    lines, arguments, results, types, inputs = [], [], [], [], []
    rng = np.random.default_rng(5)
    for i, (kind, ins, _) in enumerate(cases):
        names = [f"%x{i}_{k}" for k in range(len(ins))]
        arguments += [f"{n}: {type}" for n, type in zip(names, ins, strict=True)]
        inputs += [rng.uniform(0.3, 0.9, (3,) if type == v else (2, 3)) for type in ins]
        maps = ""
        if ins[0] == v:
            maps = (
                " indexing_maps = [affine_map<(d0, d1) -> (d1)>, "
                "affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>]"
            )
        lines.append(
            f"%y{i} = linalg.elementwise <{kind}>{maps} ins({', '.join(names)} : "
            f"{', '.join(ins)}) outs(%o : {t}) -> {t}"
        )
        grads = ", ".join(f"%g{i}_{k}" for k in range(len(ins)))
        lines.append(
            f"{grads} = grad.vjp %y{i}, %ct wrt {', '.join(names)} : {t}, "
            + ", ".join(ins)
        )
        for k, n in enumerate(names):
            arguments.append(f"%t{i}_{k}: {ins[k]}")
            lines.append(
                f"%j{i}_{k} = grad.jvp %y{i} wrt {n}, %t{i}_{k} : {t}, {ins[k]}"
            )
        results += [
            f"%y{i}",
            *grads.split(", "),
            *(f"%j{i}_{k}" for k in range(len(ins))),
        ]
        types += [t, *ins, *[t] * len(ins)]
    lines.append(
        f"%ys = linalg.elementwise <select> ins(%c, %x0_0, %x1_0 : "
        f"tensor<2x3xi1>, {t}, {t}) outs(%o : {t}) -> {t}"
    )
    lines.append(f"%gs:2 = grad.vjp %ys, %ct wrt %x0_0, %x1_0 : {t}, {t}, {t}")
    results += ["%gs#0", "%gs#1"]
    types += [t, t]
    text = (
        f"func.func @main(%o: {t}, %ct: {t}, %c: tensor<2x3xi1>, "
        f"{', '.join(arguments)}) -> ({', '.join(types)}) {{\n  "
        + "\n  ".join(lines)
        + f"\n  func.return {', '.join(results)} : {', '.join(types)}\n}}"
    )
    ct = rng.standard_normal((2, 3)).astype(np.float32)
    condition = rng.standard_normal((2, 3)) > 0
    values, arrays = [], iter(inputs)
    for _, ins, _ in cases:
        xs = [next(arrays) for _ in ins]
        values.append((xs, [rng.standard_normal(x.shape) for x in xs]))
    flat = [a.astype(np.float32) for xs, ts in values for a in (*xs, *ts)]
    zeros = np.zeros((2, 3), np.float32)
    found = iter(Program(text).run(args=[zeros, ct, condition, *flat]).results)
    for (kind, ins, f), (xs, ts) in zip(cases, values, strict=True):
        x64 = [np.asarray(x, np.float32).astype(np.float64) for x in xs]
        assert _close(next(found), f(*x64)), kind
        slopes = []
        for k in range(len(ins)):
            up = [x + (1e-6 if j == k else 0) for j, x in enumerate(x64)]
            down = [x - (1e-6 if j == k else 0) for j, x in enumerate(x64)]
            slopes.append((f(*up) - f(*down)) / 2e-6)
        for k, slope in enumerate(slopes):
            expected = np.sum(ct * slope, axis=0) if ins[k] == v else ct * slope
            assert _close(next(found), expected), f"gradient of {kind} to input {k}"
        for k, slope in enumerate(slopes):
            tangent = np.asarray(ts[k], np.float32).astype(np.float64)
            assert _close(next(found), slope * tangent), f"tangent of {kind} along {k}"
    assert _close(next(found), np.where(condition, ct, 0.0))
    assert _close(next(found), np.where(condition, 0.0, ct))
    assert next(found, None) is None


ELEMENTWISE_TEXT = [
    ("%0 = linalg.elementwise <exp> ins(%arg0 : T) outs(%arg1 : T) -> T", 2),
    ("%0 = linalg.elementwise <reciprocal> ins(%arg0 : T) outs(%arg1 : T) -> T", 2),
    ("%0 = linalg.elementwise <powf> ins(%arg0, %arg1 : T, T) outs(%arg2 : T) -> T", 3),
]


def _all_ops() -> tuple[str, list[str]]:
    """One function holding every new op (and a few elementwise kinds), each
    over arguments of its own, returning every result."""
    arguments: list[str] = []
    lines: list[str] = []
    results: list[str] = []
    texts = [op_text(name, named) for name, named in OPS.items()]
    texts += [(text, ["tensor<2x3xf32>"] * n) for text, n in ELEMENTWISE_TEXT]
    for i, (text, types) in enumerate(texts):
        base = len(arguments)
        text = text.replace("T", "tensor<2x3xf32>").replace("%0 =", f"%r{i} =")
        text = re.sub(r"%arg(\d+)", lambda m, b=base: f"%arg{b + int(m[1])}", text)
        lines.append(text)
        arguments += types
        results.append(types[-1])
    signature = ", ".join(f"%arg{i}: {t}" for i, t in enumerate(arguments))
    returned = ", ".join(f"%r{i}" for i in range(len(lines)))
    text = (
        f"func.func @main({signature}) -> ({', '.join(results)}) {{\n  "
        + "\n  ".join(lines)
        + f"\n  return {returned} : {', '.join(results)}\n}}\n"
    )
    return text, arguments


def _iree_opt(text: str, *flags: str) -> str:
    from iree.compiler.tools.binaries import find_tool

    done = subprocess.run(
        [find_tool("iree-opt"), *flags, "-"],
        input=text,
        capture_output=True,
        text=True,
        check=True,
    )
    return done.stdout


def _generic(text: str) -> list[str]:
    """The generic print of `text` as gradopt reads it, with what tells two
    equal programs apart removed: SSA names (numbered in order of appearance),
    the order of properties, and the indexing maps MLIR memoizes on an op
    when it prints it (`linalg.memoized_indexing_maps`)."""
    module = Parser(make_context(), text).parse_module()
    stream = io.StringIO()
    Printer(stream=stream, print_generic_format=True).print_op(module)
    printed = re.sub(
        r" \{linalg.memoized_indexing_maps = \[[^\]]*\]\}", "", stream.getvalue()
    )
    names: dict[str, str] = {}
    printed = re.sub(
        r"%[\w]+", lambda m: names.setdefault(m.group(0), f"%v{len(names)}"), printed
    )

    def sorted_properties(found: re.Match[str]) -> str:
        return "<{" + ", ".join(sorted(_top_level(found.group(1)))) + "}>"

    printed = re.sub(r"<\{(.*)\}>", sorted_properties, printed)
    return [line.strip() for line in printed.splitlines()]


def _but_matmul_sums(lines: list[str]) -> list[str]:
    """`lines` without the `arith.addf` of each `linalg.matmul`'s body:
    xDSL's own matmul writes its sum `mul + out`, MLIR's `out + mul`."""
    kept, in_matmul = [], False
    for line in lines:
        if '"linalg.matmul"' in line:
            in_matmul = True
        elif in_matmul and '"arith.addf"' in line:
            in_matmul = False
            continue
        kept.append(line)
    return kept


def _top_level(text: str) -> list[str]:
    """`text` split at the commas outside brackets."""
    parts, depth, current = [], 0, ""
    for char in text.replace("->", "\0"):
        depth += char in "([{<"
        depth -= char in ")]}>"
        if char == "," and depth == 0:
            parts.append(current.strip())
            current = ""
        else:
            current += char
    return [p.replace("\0", "->") for p in [*parts, current.strip()]]


@pytest.mark.skipif(not HAVE_IREE, reason="needs the iree extra (iree-opt)")
def test_generic_forms_are_mlirs() -> None:
    """The generic print of each op, read in its custom form, is iree-opt's
    (bodies with their casts and operand order, properties); each op runs
    with the bits of the generic that iree-opt generalizes it to."""
    text, types = _all_ops()
    theirs = _iree_opt(text, "--mlir-print-op-generic")
    assert _but_matmul_sums(_generic(text)) == _but_matmul_sums(_generic(theirs))
    generalized = _iree_opt(text, "--linalg-generalize-named-ops")
    rng = np.random.default_rng(3)
    shapes = [tuple(int(n) for n in re.findall(r"(\d+)x", t)) for t in types]
    values = [rng.standard_normal(s).astype(np.float32) for s in shapes]
    named = Program(text).run(args=values).results
    generic = Program(generalized).run(args=values).results
    assert len(named) == len(generic) == len(OPS) + len(ELEMENTWISE_TEXT)
    for i, (a, b) in enumerate(zip(named, generic, strict=True)):
        assert a.tobytes() == b.tobytes(), f"result {i}"
