# ruff: noqa: E501 (MLIR text: one op a line, as MLIR prints it)
"""Chains of `linalg` ops fused into one kernel (`gradopt.interpreter.fusion`)
and upstream results written over dying operands (`gradopt.interpreter.owned`)
give the bits of the same ops run one step each into new arrays: on random
programs (the generator's `grad` programs lowered by
`convert-grad-to-standard`, whose elementwise ops become chains of generics),
on NaN, infinities and signed zeros, and on the forms a chain can take
(broadcast inputs, several uses, a reduction at its end, a contraction that
must not read an absorbed value, a dtype change on the way) and the operands
that must not be written over (read twice, returned, seen through a view)."""

from __future__ import annotations

import os
import tracemalloc
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from programs import Program as Generated
from programs import programs
from xdsl.dialects.builtin import MemRefType

from gradopt import Program, differentiate_module
from gradopt.interpreter import fusion
from gradopt.interpreter import owned as ownership
from gradopt.interpreter.linalg import identity_input
from gradopt.runtime.iree import lower

EXAMPLES_DIR = Path(__file__).resolve().parent.parent / "examples"
PROPERTY_EXAMPLES = int(os.environ.get("GRADOPT_PROPERTY_EXAMPLES", "30"))


@pytest.fixture
def unfused() -> Iterator[None]:
    fusion.ENABLED = False
    try:
        yield
    finally:
        fusion.ENABLED = True


def bits(value: object) -> np.ndarray:
    array = np.asarray(value)
    return array.view(np.uint32) if array.dtype == np.float32 else array


def fused_steps(program: Program) -> int:
    """How many ops of `@main` the plan computes inside another op's kernel
    (a copy of an input that is no step, read where its input is, is not)."""
    block = program.function("main").body.block
    planned = {step.op for step in program.interpreter.plans["main"].steps}
    return sum(
        op.name.startswith("linalg.")
        and op not in planned
        and (identity_input(op) is None or fusion.absorbed(op))
        for op in block.ops
    )


def naive(text: str, args: list[np.ndarray]) -> list[np.ndarray]:
    """The results of `text` run one op a step, each upstream result a new
    array (no fusion, nothing written over an operand)."""
    switches = fusion.ENABLED, ownership.ENABLED
    fusion.ENABLED = ownership.ENABLED = False
    try:
        return Program(text).run(args=args).results
    finally:
        fusion.ENABLED, ownership.ENABLED = switches


def both_ways(text: str, args: list[np.ndarray]) -> tuple[list[np.ndarray], int]:
    """The results of `text` fused and written over dying operands, checked
    bit for bit against the same program run naively (and its arguments
    left as they were), and how many ops were fused away."""
    kept = [np.copy(a) for a in args]
    fused = Program(text)
    got = fused.run(args=args).results
    want = naive(text, args)
    for g, w in zip(got, want, strict=True):
        np.testing.assert_array_equal(bits(g), bits(w))
        assert np.asarray(g).dtype == np.asarray(w).dtype
    for a, k in zip(args, kept, strict=True):
        np.testing.assert_array_equal(bits(a), bits(k))
    return got, fused_steps(fused)


SPECIAL = np.array(
    [np.nan, -np.nan, np.inf, -np.inf, 0.0, -0.0, 1e-45, -3.4e38, 3.4e38, 1.0],
    np.float32,
)


def lowered_inputs(program: Program, data: Generated) -> list[np.ndarray]:
    """The data of a generated program in the order of its lowered form,
    whose arguments are the slots and staged inputs in their order."""
    slots, args = iter(data.slots), iter(data.args)
    return [
        np.array(next(slots if isinstance(t, MemRefType) else args), np.float32)
        for t in program.function("main").function_type.inputs
    ]


def examples(count: int) -> settings:
    return settings(
        max_examples=count,
        deadline=None,
        derandomize=not os.environ.get("GRADOPT_PROPERTY_RANDOM"),
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )


@examples(max(1, PROPERTY_EXAMPLES // 8))
@given(programs("gradient"))
def test_random_lowered_programs_fused_and_unfused_agree_bit_for_bit(
    generated: Generated,
) -> None:
    """Each random program, lowered to linalg, on its own data and on data a
    third of which is special values."""
    program = Program(generated.text)
    text = lower(program.module)
    for data in (generated, generated.with_special_data(7)):
        both_ways(text, lowered_inputs(program, data))


@pytest.mark.parametrize("name", ["mlp_step"])
def test_lowered_examples_fuse_chains_and_keep_their_bits(name: str) -> None:
    """The examples' gradient programs, lowered, have chains to fuse (so the
    property above compares fused plans), and keep the bits of the `grad`
    program they came from."""
    program = Program((EXAMPLES_DIR / f"{name}.mlir").read_text(), name)
    signature = program.signature()
    rng = np.random.default_rng(11)
    slots = [
        special(tuple(s.get_shape()), int(rng.integers(99))) for s in signature.slots
    ]
    args = [
        special(tuple(a.get_shape()), int(rng.integers(99))) for a in signature.args
    ]
    expected = program.run(slots=[s.copy() for s in slots], args=args)
    staged, kept = iter(args), iter(slots)
    ordered = [
        next(kept if isinstance(t, MemRefType) else staged)
        for t in program.function("main").function_type.inputs
    ]
    got, count = both_ways(lower(program.module), ordered)
    assert count > 0
    for want, found in zip([*expected.results, *expected.slots], got, strict=True):
        np.testing.assert_array_equal(bits(found), bits(want))


ID = "affine_map<(d0, d1) -> (d0, d1)>"
ROW = "affine_map<(d0, d1) -> (d1)>"
COLUMN = "affine_map<(d0, d1) -> (d0)>"
T = "tensor<4x6xf32>"

CHAIN = f"""func.func @main(%a: {T}, %b: {T}, %r: tensor<6xf32>) -> ({T}, tensor<4xf32>, {T}) {{
  %e = tensor.empty() : {T}
  %z = arith.constant 0.0 : f32
  %s = linalg.generic {{indexing_maps = [{ID}, {ROW}, {ID}], iterator_types = ["parallel", "parallel"]}} ins(%a, %r : {T}, tensor<6xf32>) outs(%e : {T}) {{
  ^bb0(%x: f32, %y: f32, %o: f32):
    %v = arith.subf %x, %y : f32
    linalg.yield %v : f32
  }} -> {T}
  %m = linalg.generic {{indexing_maps = [{ID}, {ID}, {ID}], iterator_types = ["parallel", "parallel"]}} ins(%s, %s : {T}, {T}) outs(%e : {T}) {{
  ^bb0(%x: f32, %y: f32, %o: f32):
    %p = arith.mulf %x, %y : f32
    %c = arith.cmpf ogt, %x, %z : f32
    %w = arith.select %c, %p, %z : f32
    linalg.yield %w : f32
  }} -> {T}
  %k = linalg.generic {{indexing_maps = [{ID}, {ID}], iterator_types = ["parallel", "parallel"]}} ins(%b : {T}) outs(%e : {T}) {{
  ^bb0(%x: f32, %o: f32):
    linalg.yield %x : f32
  }} -> {T}
  %q = linalg.generic {{indexing_maps = [{ID}, {ID}, {ID}], iterator_types = ["parallel", "parallel"]}} ins(%m, %k : {T}, {T}) outs(%e : {T}) {{
  ^bb0(%x: f32, %y: f32, %o: f32):
    %v = arith.divf %x, %y : f32
    %n = arith.negf %v : f32
    linalg.yield %n : f32
  }} -> {T}
  %zc = arith.constant dense<0.0> : tensor<4xf32>
  %t = linalg.generic {{indexing_maps = [{ID}, {COLUMN}], iterator_types = ["parallel", "reduction"]}} ins(%q : {T}) outs(%zc : tensor<4xf32>) {{
  ^bb0(%x: f32, %acc: f32):
    %ex = math.exp %x : f32
    %v = arith.addf %acc, %ex : f32
    linalg.yield %v : f32
  }} -> tensor<4xf32>
  %u = linalg.generic {{indexing_maps = [{ID}, {ID}], iterator_types = ["parallel", "parallel"]}} ins(%a : {T}) outs(%e : {T}) {{
  ^bb0(%x: f32, %o: f32):
    %v = math.sqrt %x : f32
    linalg.yield %v : f32
  }} -> {T}
  func.return %u, %t, %u : {T}, tensor<4xf32>, {T}
}}"""


def special(shape: tuple[int, ...], seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    values = rng.standard_normal(shape).astype(np.float32)
    chosen = rng.random(shape) < 0.4
    values[chosen] = rng.choice(SPECIAL, size=shape)[chosen]
    return values


def test_a_chain_into_a_reduction_is_one_step_with_the_same_bits() -> None:
    """Four generics (a broadcast input, one value read twice, a copy, a
    select) feed a sum: one step. `%u`, returned (twice), is not absorbed."""
    a, b, r = special((4, 6), 1), special((4, 6), 2), special((6,), 3)
    (u, total, again), count = both_ways(CHAIN, [a, b, r])
    assert count == 4
    with np.errstate(all="ignore"):
        s = a - r
        m = np.where(s > 0, s * s, np.float32(0))
        q = -(m / b)
        want = np.add.reduce(np.exp(q), 1)
    np.testing.assert_array_equal(bits(total), bits(want))
    assert u is not again


MATMUL = f"""func.func @main(%a: {T}, %w: tensor<6x3xf32>) -> tensor<4x3xf32> {{
  %e = tensor.empty() : {T}
  %r = linalg.generic {{indexing_maps = [{ID}, {ID}], iterator_types = ["parallel", "parallel"]}} ins(%a : {T}) outs(%e : {T}) {{
  ^bb0(%x: f32, %o: f32):
    %v = math.tanh %x : f32
    linalg.yield %v : f32
  }} -> {T}
  %z = arith.constant 0.0 : f32
  %o = tensor.empty() : tensor<4x3xf32>
  %f = linalg.fill ins(%z : f32) outs(%o : tensor<4x3xf32>) -> tensor<4x3xf32>
  %m = linalg.matmul ins(%r, %w : {T}, tensor<6x3xf32>) outs(%f : tensor<4x3xf32>) -> tensor<4x3xf32>
  func.return %m : tensor<4x3xf32>
}}"""


def test_a_contraction_reads_its_operands_materialized() -> None:
    """A matrix product reads its operands as arrays, not through its body:
    the `tanh` before it stays a step of its own."""
    a, w = special((4, 6), 4), special((6, 3), 5)
    (product,), count = both_ways(MATMUL, [a, w])
    assert count == 0
    with np.errstate(all="ignore"):
        want = np.add(np.float32(0), np.matmul(np.tanh(a), w))
    np.testing.assert_array_equal(bits(product), bits(want))


CAST = f"""func.func @main(%a: {T}) -> tensor<4x6xi32> {{
  %e = tensor.empty() : {T}
  %i = tensor.empty() : tensor<4x6xi32>
  %h = linalg.generic {{indexing_maps = [{ID}, {ID}], iterator_types = ["parallel", "parallel"]}} ins(%a : {T}) outs(%e : {T}) {{
  ^bb0(%x: f32, %o: f32):
    %c = arith.constant 2.5 : f32
    linalg.yield %c : f32
  }} -> {T}
  %n = linalg.generic {{indexing_maps = [{ID}, {ID}], iterator_types = ["parallel", "parallel"]}} ins(%h : {T}) outs(%i : tensor<4x6xi32>) {{
  ^bb0(%x: f32, %o: i32):
    %v = arith.fptosi %x : f32 to i32
    %j = linalg.index 1 : index
    %k = arith.index_cast %j : index to i32
    %s = arith.addi %v, %k : i32
    linalg.yield %s : i32
  }} -> tensor<4x6xi32>
  func.return %n : tensor<4x6xi32>
}}"""


def test_a_producer_of_one_literal_feeds_its_consumer_as_a_scalar() -> None:
    """A body that yields a literal hands the consumer a scalar, which
    broadcasts to the same values; the i32 result is exact."""
    (result,), count = both_ways(CAST, [np.ones((4, 6), np.float32)])
    assert count == 1
    np.testing.assert_array_equal(result, np.tile(np.arange(6) + 2, (4, 1)))


def test_fusion_is_off_in_the_unfused_fixture(unfused: None) -> None:
    """The switch the comparisons rely on: off, every op is a step."""
    program = Program(CHAIN)
    program.run(args=[np.ones((4, 6), np.float32)] * 2 + [np.ones(6, np.float32)])
    assert fused_steps(program) == 0


# --- what a generic's kernel does faster --------------------------------------

SELECT = """func.func @main(%x: tensor<64x40xf32>, %g: tensor<64x40xf32>, %h: tensor<40xf32>) -> (tensor<64x40xf32>, tensor<64x40xf32>) {
  %e = tensor.empty() : tensor<64x40xf32>
  %r:2 = linalg.generic {indexing_maps = [MAP, MAP, affine_map<(d0, d1) -> (d1)>, MAP, MAP], iterator_types = ["parallel", "parallel"]} ins(%x, %g, %h : tensor<64x40xf32>, tensor<64x40xf32>, tensor<40xf32>) outs(%e, %e : tensor<64x40xf32>, tensor<64x40xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32, %o: f32, %p: f32):
    %zero = arith.constant 0.0 : f32
    %half = arith.constant 0.5 : f32
    %eq = arith.cmpf oeq, %a, %zero : f32
    %m = arith.mulf %b, %half : f32
    %tie = arith.select %eq, %m, %zero : f32
    %gt = arith.cmpf ogt, %a, %zero : f32
    %relu = arith.select %gt, %b, %tie : f32
    %lt = arith.cmpf olt, %b, %c : f32
    %row = arith.select %lt, %zero, %c : f32
    %same = arith.select %lt, %m, %m : f32
    %both = arith.addf %row, %same : f32
    linalg.yield %relu, %both : f32, f32
  } -> (tensor<64x40xf32>, tensor<64x40xf32>)
  func.return %r#0, %r#1 : tensor<64x40xf32>, tensor<64x40xf32>
}""".replace("MAP", ID)


def test_a_select_over_many_elements_takes_the_bits_np_where_takes() -> None:
    """Over 2048 elements or more `arith.select` selects bits: NaN payloads
    and signed zeros as `np.where` gives them, with a literal zero on
    either side, with sides of another shape than the condition, and with
    one value on both sides."""
    x, g, h = special((64, 40), 6), special((64, 40), 7), special((40,), 8)
    x[::3] = 0.0
    x[1::5] = -0.0
    relu, row = Program(SELECT).run(args=[x, g, h]).results
    zero = np.float32(0)
    with np.errstate(all="ignore"):
        tie = np.where(x == 0, g * np.float32(0.5), zero)
        want_relu = np.where(x > 0, g, tie)
        want_row = np.where(g < h, zero, np.broadcast_to(h, (64, 40)))
        want_row = want_row + g * np.float32(0.5)
    np.testing.assert_array_equal(bits(relu), bits(want_relu))
    np.testing.assert_array_equal(bits(row), bits(want_row))


SUM = """func.func @main(%x: tensor<4x6xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %z = arith.constant dense<0.0> : tensor<4xf32>
  %n = arith.constant dense<-0.0> : tensor<4xf32>
  %a = linalg.generic {indexing_maps = [MAP, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<4x6xf32>) outs(%z : tensor<4xf32>) {
  ^bb0(%v: f32, %acc: f32):
    %s = arith.addf %acc, %v : f32
    linalg.yield %s : f32
  } -> tensor<4xf32>
  %b = linalg.generic {indexing_maps = [MAP, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<4x6xf32>) outs(%n : tensor<4xf32>) {
  ^bb0(%v: f32, %acc: f32):
    %s = arith.addf %acc, %v : f32
    linalg.yield %s : f32
  } -> tensor<4xf32>
  func.return %a, %b : tensor<4xf32>, tensor<4xf32>
}""".replace("MAP", ID)


def test_a_reduction_adds_its_zero_init_as_a_scalar_and_keeps_its_bits() -> None:
    """`0.0 + sum` with the zero read as a scalar (and written over the sum)
    has the bits of the sum added to an array of zeros, signed zeros and
    NaN included; a `-0.0` init is no zero literal."""
    x = np.full((4, 6), -0.0, np.float32)
    x[1] = special((6,), 9)
    plus, minus = Program(SUM).run(args=[x]).results
    total = np.add.reduce(x, 1)
    np.testing.assert_array_equal(bits(plus), bits(np.add(np.float32(0), total)))
    np.testing.assert_array_equal(bits(minus), bits(np.add(np.float32(-0.0), total)))


# --- random chains of generics ---------------------------------------------------

UNARY = ["arith.negf", "math.exp", "math.sqrt", "math.tanh", "math.absf"]
BINARY = [
    "arith.addf",
    "arith.subf",
    "arith.mulf",
    "arith.divf",
    "arith.maximumf",
    "arith.minimumf",
    "arith.maxnumf",
]
LITERALS = ["0.0", "-0.0", "1.5", "0x7FC00000", "0xFF800000"]


@st.composite
def chains(draw: st.DrawFn) -> tuple[str, list[np.ndarray]]:
    """A function of generics over one iteration space: each reads earlier
    values through identity maps (and a row or column through a broadcast),
    its body a few `arith`/`math` ops, selects on comparisons and literals
    (zero bits among them); its output is new or an earlier value that the
    body may read; some values are returned, some reduced. Large spaces take
    the bit-selecting `arith.select`."""
    rows, columns = draw(st.sampled_from([(3, 5), (1, 4), (4, 1), (64, 40)]))
    t = f"tensor<{rows}x{columns}xf32>"
    row, column = f"tensor<{columns}xf32>", f"tensor<{rows}xf32>"
    lines = [f"  %e = tensor.empty() : {t}"]
    pool = ["%a", "%b"]
    for n in range(draw(st.integers(2, 6))):
        reads = draw(st.lists(st.sampled_from(pool), min_size=1, max_size=3))
        extra = draw(st.sampled_from(["", "row", "column"]))
        out = draw(st.sampled_from(["%e", *pool]))
        names = [f"%i{n}_{k}" for k in range(len(reads))]
        maps = [ID] * len(reads)
        types = [t] * len(reads)
        if extra:
            reads = [*reads, "%r" if extra == "row" else "%c"]
            names.append(f"%i{n}_x")
            maps.append(ROW if extra == "row" else COLUMN)
            types.append(row if extra == "row" else column)
        values = [*names, f"%o{n}"]
        body = []
        for k in range(draw(st.integers(1, 4))):
            name = f"%v{n}_{k}"
            kind = draw(st.sampled_from(["unary", "binary", "binary", "select"]))
            pick = st.sampled_from(values)
            if kind == "unary":
                body.append(
                    f"{name} = {draw(st.sampled_from(UNARY))} {draw(pick)} : f32"
                )
            elif kind == "binary":
                op = draw(st.sampled_from(BINARY))
                body.append(f"{name} = {op} {draw(pick)}, {draw(pick)} : f32")
            else:
                literal = f"%l{n}_{k}"
                body.append(
                    f"{literal} = arith.constant {draw(st.sampled_from(LITERALS))} : f32"
                )
                predicate = draw(st.sampled_from(["ogt", "oeq", "ult", "une"]))
                body.append(
                    f"%c{n}_{k} = arith.cmpf {predicate}, {draw(pick)}, {literal} : f32"
                )
                sides = [draw(pick), literal]
                if draw(st.booleans()):
                    sides.reverse()
                body.append(
                    f"{name} = arith.select %c{n}_{k}, {sides[0]}, {sides[1]} : f32"
                )
            values.append(name)
        yielded = draw(st.sampled_from(values[-1:] + names[:1]))
        arguments = ", ".join(f"{v}: f32" for v in values[: len(names) + 1])
        lines.append(
            f"  %g{n} = linalg.generic {{indexing_maps = [{', '.join([*maps, ID])}], "
            f'iterator_types = ["parallel", "parallel"]}} ins({", ".join(reads)} : '
            f"{', '.join(types)}) outs({out} : {t}) {{\n  ^bb0({arguments}):\n"
            + "".join(f"    {line}\n" for line in body)
            + f"    linalg.yield {yielded} : f32\n  }} -> {t}"
        )
        pool.append(f"%g{n}")
    returned = ["%s", pool[-1], *draw(st.lists(st.sampled_from(pool[2:]), max_size=2))]
    combine = draw(st.sampled_from(["arith.addf", "arith.maximumf"]))
    lines.append(
        f"  %z = arith.constant dense<0.0> : {column}\n"
        f"  %s = linalg.generic {{indexing_maps = [{ID}, {COLUMN}], iterator_types = "
        f'["parallel", "reduction"]}} ins({draw(st.sampled_from(pool[2:]))} : {t}) '
        f"outs(%z : {column}) {{\n  ^bb0(%x: f32, %acc: f32):\n"
        f"    %y = {combine} %acc, %x : f32\n    linalg.yield %y : f32\n  }} -> {column}"
    )
    types = ", ".join([column] + [t] * (len(returned) - 1))
    text = (
        f"func.func @main(%a: {t}, %b: {t}, %r: {row}, %c: {column}) -> ({types}) {{\n"
        + "\n".join(lines)
        + f"\n  func.return {', '.join(returned)} : {types}\n}}"
    )
    seed = draw(st.integers(0, 2**16))
    shapes = [(rows, columns), (rows, columns), (columns,), (rows,)]
    return text, [special(shape, seed + i) for i, shape in enumerate(shapes)]


@examples(max(2, PROPERTY_EXAMPLES * 2 // 3))
@given(chains())
def test_random_chains_of_generics_fused_and_unfused_agree_bit_for_bit(
    chain: tuple[str, list[np.ndarray]],
) -> None:
    text, args = chain
    with np.errstate(all="ignore"):
        both_ways(text, args)


def test_a_long_chain_keeps_no_more_arrays_alive_than_its_ops_one_by_one() -> None:
    """12 generics in a chain, one kernel: each member's arrays are dropped
    once the next has them, so the peak is the unfused plan's."""
    t = "tensor<128x128xf32>"
    lines = []
    for n in range(12):
        source = "%x" if n == 0 else f"%g{n - 1}"
        lines.append(
            f"  %g{n} = linalg.generic {{indexing_maps = [{ID}, {ID}], iterator_types "
            f'= ["parallel", "parallel"]}} ins({source} : {t}) outs(%e : {t}) {{\n'
            f"  ^bb0(%a: f32, %o: f32):\n    %v = math.sin %a : f32\n"
            f"    linalg.yield %v : f32\n  }} -> {t}"
        )
    text = (
        f"func.func @main(%x: {t}) -> {t} {{\n  %e = tensor.empty() : {t}\n"
        + "\n".join(lines)
        + f"\n  func.return %g11 : {t}\n}}"
    )
    x = special((128, 128), 12)
    peaks = []
    for fused in (True, False):
        fusion.ENABLED = fused
        try:
            program = Program(text)
            program.run(args=[x])
            tracemalloc.start()
            program.run(args=[x])
            peaks.append(tracemalloc.get_traced_memory()[1])
            tracemalloc.stop()
        finally:
            fusion.ENABLED = True
        assert fused_steps(program) == (11 if fused else 0)
    fused_peak, unfused_peak = peaks
    assert fused_peak <= unfused_peak + 128 * 128 * 4, peaks


# --- upstream results written over dying operands ---------------------------------

OWNED = f"""func.func @main(%a: {T}, %b: {T}, %r: tensor<6xf32>) -> ({T}, {T}, {T}, {T}, tensor<24xf32>, {T}) {{
  %e = tensor.empty() : {T}
  %p0 = arith.mulf %a, %a : {T}
  %p = linalg.generic {{indexing_maps = [{ID}, {ID}], iterator_types = ["parallel", "parallel"]}} ins(%p0 : {T}) outs(%e : {T}) {{
  ^bb0(%x: f32, %o: f32):
    %v = math.tanh %x : f32
    linalg.yield %v : f32
  }} -> {T}
  %q = linalg.generic {{indexing_maps = [{ID}, {ROW}, {ID}], iterator_types = ["parallel", "parallel"]}} ins(%p, %r : {T}, tensor<6xf32>) outs(%e : {T}) {{
  ^bb0(%x: f32, %y: f32, %o: f32):
    %m = arith.mulf %x, %y : f32
    %v = arith.addf %m, %x : f32
    linalg.yield %v : f32
  }} -> {T}
  %s = arith.addf %q, %b : {T}
  %d = arith.mulf %b, %b : {T}
  %t = linalg.generic {{indexing_maps = [{ID}, {ID}, {ID}], iterator_types = ["parallel", "parallel"]}} ins(%d, %d : {T}, {T}) outs(%e : {T}) {{
  ^bb0(%x: f32, %y: f32, %o: f32):
    %m = math.exp %x : f32
    %v = arith.subf %m, %y : f32
    linalg.yield %v : f32
  }} -> {T}
  %v = arith.negf %a : {T}
  %w = linalg.generic {{indexing_maps = [{ID}, {ID}], iterator_types = ["parallel", "parallel"]}} ins(%v : {T}) outs(%e : {T}) {{
  ^bb0(%x: f32, %o: f32):
    %n = math.sin %x : f32
    linalg.yield %n : f32
  }} -> {T}
  %k = arith.mulf %b, %a : {T}
  %kv = tensor.collapse_shape %k [[0, 1]] : {T} into tensor<24xf32>
  %m = linalg.generic {{indexing_maps = [{ID}, {ID}], iterator_types = ["parallel", "parallel"]}} ins(%k : {T}) outs(%e : {T}) {{
  ^bb0(%x: f32, %o: f32):
    %n = math.absf %x : f32
    linalg.yield %n : f32
  }} -> {T}
  func.return %s, %t, %v, %w, %kv, %m : {T}, {T}, {T}, {T}, tensor<24xf32>, {T}
}}"""


def writes_over(program: Program) -> dict[str, bool]:
    """For each op of `@main` that the plan runs, by the name of its result,
    whether it writes that result over an operand that dies there."""
    return {
        step.op.results[0].name_hint or "": step.out is not None
        for step in program.interpreter.plans["main"].steps
        if step.op.results
    }


def test_upstream_results_are_written_over_dying_operands_with_the_same_bits(
    unfused: None,
) -> None:
    """One op a step, a generic writes over an input it alone reads,
    through an identity map, where it dies (`%p` over `%p0`, `%q` over
    `%p`), `arith.addf` over a generic's result (`%s` over `%q`); fused,
    the member `%p` of the kernel of `%q` writes over `%p0`. Never over an
    operand read twice (`%d`), returned (`%v`), or seen through a view
    that is alive (`%k`). The results are the naive run's, bit for bit."""
    a, b, r = special((4, 6), 13), special((4, 6), 14), special((6,), 15)
    for fused, over in ((False, {"p", "q", "s"}), (True, {"q", "s"})):
        fusion.ENABLED = fused
        got, count = both_ways(OWNED, [a, b, r])
        assert count == fused  # %p into %q
        program = Program(OWNED)
        program.run(args=[a, b, r])
        assert {name for name, out in writes_over(program).items() if out} == over
        with np.errstate(all="ignore"):
            p = np.tanh(a * a)
            want = np.add(np.add(np.multiply(p, r), p), b)
        np.testing.assert_array_equal(bits(got[0]), bits(want))
        np.testing.assert_array_equal(bits(got[2]), bits(-a))


def test_nothing_is_written_over_without_ownership() -> None:
    """The switch the comparisons rely on: off, no upstream step writes
    over an operand."""
    ownership.ENABLED = False
    try:
        program = Program(OWNED)
        program.run(args=[np.ones((4, 6), np.float32)] * 2 + [np.ones(6, np.float32)])
    finally:
        ownership.ENABLED = True
    assert not any(writes_over(program).values())


MLP = """func.func @main(%w1: tensor<8x40xf32>, %b1: tensor<40xf32>, %w2: tensor<40x3xf32>, %b2: tensor<3xf32>, %x: tensor<64x8xf32>) -> tensor<f32> {
  %zero = arith.constant 0.0 : f32
  %e0 = tensor.empty() : tensor<64x40xf32>
  %f0 = linalg.fill ins(%zero : f32) outs(%e0 : tensor<64x40xf32>) -> tensor<64x40xf32>
  %xw = linalg.matmul ins(%x, %w1 : tensor<64x8xf32>, tensor<8x40xf32>) outs(%f0 : tensor<64x40xf32>) -> tensor<64x40xf32>
  %bb = linalg.generic {indexing_maps = [ROW, MAP], iterator_types = ["parallel", "parallel"]} ins(%b1 : tensor<40xf32>) outs(%e0 : tensor<64x40xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<64x40xf32>
  %pre = linalg.generic {indexing_maps = [MAP, MAP, MAP], iterator_types = ["parallel", "parallel"]} ins(%xw, %bb : tensor<64x40xf32>, tensor<64x40xf32>) outs(%e0 : tensor<64x40xf32>) {
  ^bb0(%in: f32, %in_1: f32, %out: f32):
    %s = arith.addf %in, %in_1 : f32
    linalg.yield %s : f32
  } -> tensor<64x40xf32>
  %h = linalg.generic {indexing_maps = [MAP, MAP], iterator_types = ["parallel", "parallel"]} ins(%pre : tensor<64x40xf32>) outs(%e0 : tensor<64x40xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.maximumf %in, %zero : f32
    linalg.yield %m : f32
  } -> tensor<64x40xf32>
  %e1 = tensor.empty() : tensor<64x3xf32>
  %f1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<64x3xf32>) -> tensor<64x3xf32>
  %hw = linalg.matmul ins(%h, %w2 : tensor<64x40xf32>, tensor<40x3xf32>) outs(%f1 : tensor<64x3xf32>) -> tensor<64x3xf32>
  %z = linalg.generic {indexing_maps = [MAP, ROW, MAP], iterator_types = ["parallel", "parallel"]} ins(%hw, %b2 : tensor<64x3xf32>, tensor<3xf32>) outs(%e1 : tensor<64x3xf32>) {
  ^bb0(%in: f32, %in_1: f32, %out: f32):
    %s = arith.addf %in, %in_1 : f32
    %t = math.tanh %s : f32
    linalg.yield %t : f32
  } -> tensor<64x3xf32>
  %e2 = tensor.empty() : tensor<f32>
  %f2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<f32>) -> tensor<f32>
  %loss = linalg.generic {indexing_maps = [MAP, affine_map<(d0, d1) -> ()>], iterator_types = ["reduction", "reduction"]} ins(%z : tensor<64x3xf32>) outs(%f2 : tensor<f32>) {
  ^bb0(%in: f32, %out: f32):
    %q = arith.mulf %in, %in : f32
    %s = arith.addf %out, %q : f32
    linalg.yield %s : f32
  } -> tensor<f32>
  func.return %loss : tensor<f32>
}""".replace("MAP", ID).replace("ROW", ROW)


@pytest.mark.parametrize("seed", [16, 17])
def test_the_gradient_of_a_linalg_mlp_fuses_and_writes_over_operands(
    seed: int,
) -> None:
    """An MLP's loss in linalg as IREE writes it, differentiated: the
    gradient's generics take no input their bodies do not read, some fuse,
    some write over dying operands, and the results are the naive run's,
    bit for bit (ReLU ties at exact zeros, over 2048 elements: the
    bit-selecting `select`; the second seed with special values)."""
    text = str(differentiate_module(MLP, wrt=[0, 1, 2, 3]))
    shapes = [(8, 40), (40,), (40, 3), (3,), (64, 8)]
    rng = np.random.default_rng(seed)
    args = [
        special(shape, seed + i) if seed % 2 else rng.standard_normal(shape)
        for i, shape in enumerate(shapes)
    ]
    args = [np.asarray(a, np.float32) for a in args]
    args[4][::5] = 0.0  # zero rows: pre-activations of exactly the bias
    args[1][::4] = 0.0  # and of exactly 0
    _, count = both_ways(text, args)
    assert count > 0
    program = Program(text)
    program.run(args=args)
    assert any(writes_over(program).values())
    for op in program.function("main").body.block.ops:
        if op.name == "linalg.generic":
            block = op.regions[0].block
            assert all(
                arg.uses for arg in block.args[: len(op.operands) - len(op.results)]
            ), op


COPIES = f"""func.func @main(%a: {T}, %b: {T}) -> ({T}, {T}, {T}, {T}) {{
  %e = tensor.empty() : {T}
  %p = arith.mulf %a, %a : {T}
  %c = linalg.generic {{indexing_maps = [{ID}, {ID}], iterator_types = ["parallel", "parallel"]}} ins(%p : {T}) outs(%e : {T}) {{
  ^bb0(%x: f32, %o: f32):
    linalg.yield %x : f32
  }} -> {T}
  %u = arith.addf %c, %b : {T}
  %ca = linalg.generic {{indexing_maps = [{ID}, {ID}], iterator_types = ["parallel", "parallel"]}} ins(%a : {T}) outs(%e : {T}) {{
  ^bb0(%x: f32, %o: f32):
    linalg.yield %x : f32
  }} -> {T}
  %v = arith.subf %ca, %b : {T}
  %q = arith.negf %b : {T}
  %cq = linalg.generic {{indexing_maps = [{ID}, {ID}], iterator_types = ["parallel", "parallel"]}} ins(%q : {T}) outs(%e : {T}) {{
  ^bb0(%x: f32, %o: f32):
    linalg.yield %x : f32
  }} -> {T}
  func.return %u, %v, %cq, %q : {T}, {T}, {T}, {T}
}}"""


def test_a_generic_that_copies_an_input_is_no_step() -> None:
    """A copy (`yield` of an input's element, identity maps) is read where
    its input is: `%u` writes over `%p` through its copy, `%v` not over
    the argument `%a`; a copy returned beside its input is another array."""
    a, b = special((4, 6), 18), special((4, 6), 19)
    (u, v, cq, q), _ = both_ways(COPIES, [a, b])
    program = Program(COPIES)
    program.run(args=[a, b])
    ran = {
        step.op.results[0].name_hint
        for step in program.interpreter.plans["main"].steps
        if step.op.results
    }
    assert not ran & {"c", "ca", "cq"}
    assert {name for name, out in writes_over(program).items() if out} == {"u"}
    with np.errstate(all="ignore"):
        np.testing.assert_array_equal(bits(u), bits(a * a + b))
        np.testing.assert_array_equal(bits(v), bits(a - b))
    np.testing.assert_array_equal(bits(cq), bits(q))
    assert cq is not q


def test_a_copy_of_a_value_that_it_absorbs_is_a_step() -> None:
    """A copy whose input has no other user computes that input in its own
    kernel (fused), so it stays a step."""
    text = COPIES.replace("%c = linalg.generic", "%pp = linalg.generic").replace(
        "ins(%p : ", "ins(%pg : "
    )
    text = text.replace(
        "  %p = arith.mulf %a, %a : " + T,
        f"""  %pg = linalg.generic {{indexing_maps = [{ID}, {ID}], iterator_types = ["parallel", "parallel"]}} ins(%a : {T}) outs(%e : {T}) {{
  ^bb0(%x: f32, %o: f32):
    %m = arith.mulf %x, %x : f32
    linalg.yield %m : f32
  }} -> {T}""",
    ).replace("arith.addf %c, %b", "arith.addf %pp, %b")
    a, b = special((4, 6), 20), special((4, 6), 21)
    (u, *_), count = both_ways(text, [a, b])
    assert count == 1
    with np.errstate(all="ignore"):
        np.testing.assert_array_equal(bits(u), bits(a * a + b))
