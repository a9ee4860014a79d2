"""The IREE backend against the NumPy interpreter.

Programs are lowered by `convert-grad-to-standard`, compiled by IREE for the
CPU and run by its runtime; every result and final slot must equal the
interpreter's bit for bit (any NaN equals any NaN), unless the program (with
its gradients expanded) has an op whose IREE code is not exact:

- `exp2`, `log2` and `sin` use IREE's own polynomial approximations (measured
  on 2^20 inputs: exp2 within 68 ulp, log2 within 3 ulp, sin within 2.2e-7
  absolute for |x| <= pi and about 2.5e-8 * |x| beyond);
- a `reduce add` or `reduce mul` of more than two terms, or a `dot` (batched
  or not) of more than one, may combine them in another order or with fused
  multiply-adds (measured: within 2.5e-7 of the sum of the terms' magnitudes).

`slice`, `pad`, `reverse` and `concat` move data and are always exact (the
inventory's `iree_exact` says so of each op). Those programs are compared
within `APPROXIMATE`, relative to the largest magnitude of each value. Inputs
are normal floats: IREE flushes subnormal operands and results to zero, which
the interpreter does not.

Skipped, with the reason shown, only when IREE is not installed.
"""

from __future__ import annotations

import functools
import importlib.util
import re
import sys
from collections import Counter
from collections.abc import Callable, Iterator
from itertools import product
from pathlib import Path
from typing import NamedTuple

import numpy as np
import pytest
from conftest import lit_runs
from inventory import (
    BY_OP_NAME,
    ELEMENTS,
    F32,
    I32,
    INVENTORY,
    Derivative,
    Domain,
    Entry,
    Form,
    by_domain,
    entries,
    names,
)
from xdsl.dialects.builtin import MemRefType, ModuleOp, TensorType
from xdsl.ir import Attribute
from xdsl.parser import Parser
from xdsl.pattern_rewriter import PatternRewriteWalker

from gradopt import GradoptError, Program, run
from gradopt.dialect import Grad
from gradopt.dialect.context import make_context
from gradopt.dialect.differentiation import DifferentiationOp
from gradopt.dialect.ops import LoadOp, StoreOp
from gradopt.passes.convert_grad_to_standard import PATTERNS
from gradopt.passes.lower_indexing import INDEXING_PATTERNS
from gradopt.tools import grad_run

ROOT = Path(__file__).resolve().parent.parent
HAVE_IREE = importlib.util.find_spec("iree") is not None and all(
    importlib.util.find_spec(m) for m in ("iree.compiler", "iree.runtime")
)
needs_iree = pytest.mark.skipif(
    not HAVE_IREE,
    reason="IREE is not installed: pip install 'gradopt[iree]' to test the iree "
    "backend",
)

APPROXIMATE = 1e-5
"""Relative tolerance for programs that are not exact on IREE."""


ZERO_SIGN_FREE = {"arith.maxnumf", "arith.minnumf"}
"""Ops whose result for +0.0 and -0.0 may be either zero (IEEE 754's maxNum
and minNum): the interpreter (NumPy's `fmax`) and IREE's AVX-512 code pick
different ones."""


def is_exact(program: Program) -> bool:
    """Whether IREE must give the interpreter's bits for `program` (see above)."""
    for op in program.module.walk():
        if op.dialect_name() == "math":  # IREE's approximations (README)
            return False
        if op.name in ZERO_SIGN_FREE:
            return False
        entry = BY_OP_NAME.get(op.name)
        if entry is None:  # func, scf, arith, tensor, linalg moving data
            continue
        exact = entry.iree_exact
        if not (exact(op) if callable(exact) else exact):
            return False
    return True


@pytest.fixture(autouse=True, scope="module")
def fresh_cache(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """Compile every program in these tests, rather than reuse a module that
    an earlier run left in the user's cache."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("GRADOPT_CACHE_DIR", str(tmp_path_factory.mktemp("iree")))
        yield


def assert_agree(expected: np.ndarray, actual: np.ndarray, exact: bool) -> None:
    assert actual.dtype == expected.dtype and actual.shape == expected.shape
    if exact:
        same = expected.tobytes() == actual.tobytes()
        if not same and expected.dtype == np.float32:
            same = bool(
                np.all(
                    (expected.view(np.int32) == actual.view(np.int32))
                    | (np.isnan(expected) & np.isnan(actual))
                )
            )
        assert same, f"not bit-exact:\n{expected}\n{actual}"
        return
    scale = float(np.max(np.abs(expected), initial=1.0, where=np.isfinite(expected)))
    np.testing.assert_allclose(
        actual, expected, rtol=APPROXIMATE, atol=APPROXIMATE * scale, equal_nan=True
    )


def random_inputs(
    types: tuple[Attribute, ...], rng: np.random.Generator
) -> list[np.ndarray]:
    """Normal floats, i32 in 1..9 (valid divisors and shifts, trip counts),
    random i1; scalars (an `f32` or `i32` argument) as 0-d arrays."""
    arrays = []
    for type in types:
        shaped = isinstance(type, MemRefType | TensorType)
        shape = tuple(type.get_shape()) if shaped else ()
        element = str(type.get_element_type() if shaped else type)
        if element == "f32":
            arrays.append(rng.standard_normal(shape).astype(np.float32))
        elif element == "i32":
            arrays.append(rng.integers(1, 10, shape).astype(np.int32))
        else:
            arrays.append(rng.integers(0, 2, shape).astype(np.bool_))
    return arrays


def check_program(
    program: Program,
    entry: str = "main",
    seed: int = 0,
    on_iree: tuple[Program, str] | None = None,
) -> None:
    """`entry` on random inputs agrees on both backends; `on_iree`: the
    program and entry that IREE runs instead (see `compiled_together`)."""
    exact = is_exact(program)
    signature = program.signature(entry)
    rng = np.random.default_rng(seed)
    slots = random_inputs(signature.slots, rng)
    args = random_inputs(signature.args, rng)
    expected = program.run(slots, args, entry)
    compiled, compiled_entry = on_iree or (program, entry)
    actual = compiled.run(slots, args, compiled_entry, backend="iree")
    assert len(actual.results) == len(expected.results)
    assert len(actual.slots) == len(expected.slots)
    for want, got in zip(
        expected.results + expected.slots, actual.results + actual.slots, strict=True
    ):
        assert_agree(want, got, exact)


def prefixed(text: str, prefix: str) -> str:
    """`text` with every symbol `@name` renamed `@{prefix}_name`."""
    return re.sub(r"@(\w+)", rf"@{prefix}_\1", text)


def compiled_together(texts: dict[str, str]) -> Program:
    """One program holding the functions of every text, each one's symbols
    prefixed with its key. IREE's compiler costs most of a second per module
    and a fraction of that per function, so a test of many small programs
    runs each case's functions from one module compiled once (the interpreter
    still runs each case's own program)."""
    return Program("\n".join(prefixed(text, key) for key, text in texts.items()))


def together(build: Callable[[], dict[str, str]]) -> Callable[[], Program]:
    """A cached `compiled_together` of the texts that `build` gives: built
    on the first IREE test that needs it, never when IREE is missing."""
    return functools.cache(lambda: compiled_together(build()))


# --- every op's lit example ---------------------------------------------------


@needs_iree
@pytest.mark.parametrize("argv", lit_runs())
def test_lit_run_example(argv: list[str], tmp_path: Path) -> None:
    """Each program of lit-tests/run through grad-run on both backends."""
    values = {}
    for backend in ("numpy", "iree"):
        out = tmp_path / f"{backend}.npz"
        assert (
            grad_run.main([*argv, "-q", "--backend", backend, "--out", str(out)]) == 0
        )
        with np.load(out) as data:
            values[backend] = dict(data)
    exact = is_exact(Program(Path(argv[0]).read_text()))
    assert values["numpy"].keys() == values["iree"].keys()
    for key, expected in values["numpy"].items():
        assert_agree(expected, values["iree"][key], exact)


def lowering_chunks() -> dict[str, str]:
    """The chunks of the lowering lit tests (their inputs, before lowering)
    but those that check for an error, by file and position."""
    chunks = {}
    for path in sorted((ROOT / "lit-tests" / "lowering").glob("*.mlir")):
        if path.stem == "invalid":
            continue
        for i, chunk in enumerate(path.read_text().split("// -----")):
            if not re.search(r"^// CHECK.*: error: ", chunk, re.MULTILINE):
                chunks[f"{path.stem}{i}"] = chunk
    return chunks


LOWERING_CHUNKS = lowering_chunks()
LOWERING = together(lambda: LOWERING_CHUNKS)


def lowering_functions() -> list[pytest.param]:
    """Every function of the lowering chunks that takes no `index` argument,
    which no backend can be given, and no indices of a gather or scatter,
    which random inputs would put out of range (`test_indexing_ops.py` runs
    those on IREE)."""
    return [
        pytest.param(key, name, id=f"{key}-{name}")
        for key, chunk in LOWERING_CHUNKS.items()
        for name, arguments in re.findall(
            r"^func\.func @(\w+)\((.*?)\)", chunk, re.MULTILINE
        )
        if ": index" not in arguments
        and not re.search(r"grad\.(gather|scatter_add) ", chunk)
    ]


@needs_iree
@pytest.mark.parametrize(("chunk", "entry"), lowering_functions())
def test_lowering_example_runs(chunk: str, entry: str) -> None:
    """The lowering lit tests' functions, run on random inputs."""
    program = Program(LOWERING_CHUNKS[chunk])
    check_program(program, entry, on_iree=(LOWERING(), f"{chunk}_{entry}"))


# --- one lowering pattern per op ----------------------------------------------

EVERY_OP_OF_EVERY_TYPE = """
func.func @main(%x: tensor<2x3xf32>, %y: tensor<2x3xf32>, %n: tensor<2x3xi32>,
                %m: tensor<2x3xi32>, %b: tensor<2x3xi1>, %c: tensor<2x3xi1>,
                %p: tensor<2x3x4xf32>, %q: tensor<2x2x4x3xf32>)
    -> (tensor<2x3xf32>, tensor<2x3xi32>, tensor<2x3xi1>, tensor<2x3x3xf32>,
        tensor<2x2x4x4xf32>) {
  %cf = grad.const 2.0 : tensor<2x3xf32>
  %ci = grad.const -3 : tensor<2x3xi32>
  %cb = grad.const true : tensor<2x3xi1>
  %cd = grad.const dense<[[1, 2, 3], [4, 5, 6]]> : tensor<2x3xi32>
  %add = grad.add %x, %cf : tensor<2x3xf32>
  %addi = grad.add %n, %ci : tensor<2x3xi32>
  %mul = grad.mul %add, %y : tensor<2x3xf32>
  %muli = grad.mul %addi, %cd : tensor<2x3xi32>
  %max = grad.max %mul, %x : tensor<2x3xf32>
  %maxi = grad.max %muli, %m : tensor<2x3xi32>
  %neg = grad.neg %max : tensor<2x3xf32>
  %negi = grad.neg %maxi : tensor<2x3xi32>
  %recip = grad.recip %neg : tensor<2x3xf32>
  %exp2 = grad.exp2 %recip : tensor<2x3xf32>
  %log2 = grad.log2 %exp2 : tensor<2x3xf32>
  %sqrt = grad.sqrt %log2 : tensor<2x3xf32>
  %sin = grad.sin %sqrt : tensor<2x3xf32>
  %lt = grad.cmplt %x, %y : tensor<2x3xf32>
  %lti = grad.cmplt %n, %m : tensor<2x3xi32>
  %eq = grad.cmpeq %x, %sin : tensor<2x3xf32>
  %eqi = grad.cmpeq %negi, %m : tensor<2x3xi32>
  %eqb = grad.cmpeq %b, %cb : tensor<2x3xi1>
  %ne = grad.cmpne %x, %y : tensor<2x3xf32>
  %nei = grad.cmpne %n, %m : tensor<2x3xi32>
  %neb = grad.cmpne %b, %c : tensor<2x3xi1>
  %where = grad.where %lt, %sin, %x : tensor<2x3xf32>
  %wherei = grad.where %lti, %n, %negi : tensor<2x3xi32>
  %whereb = grad.where %eq, %eqi, %eqb : tensor<2x3xi1>
  %idiv = grad.idiv %wherei, %m : tensor<2x3xi32>
  %mod = grad.mod %idiv, %m : tensor<2x3xi32>
  %and = grad.and %mod, %n : tensor<2x3xi32>
  %andb = grad.and %whereb, %ne : tensor<2x3xi1>
  %or = grad.or %and, %n : tensor<2x3xi32>
  %orb = grad.or %andb, %nei : tensor<2x3xi1>
  %xor = grad.xor %or, %m : tensor<2x3xi32>
  %xorb = grad.xor %orb, %neb : tensor<2x3xi1>
  %shl = grad.shl %xor, %n : tensor<2x3xi32>
  %shr = grad.shr %shl, %m : tensor<2x3xi32>
  %fi = grad.cast %where : tensor<2x3xf32> to tensor<2x3xi32>
  %fb = grad.cast %where : tensor<2x3xf32> to tensor<2x3xi1>
  %ff = grad.cast %where : tensor<2x3xf32> to tensor<2x3xf32>
  %if = grad.cast %shr : tensor<2x3xi32> to tensor<2x3xf32>
  %ib = grad.cast %shr : tensor<2x3xi32> to tensor<2x3xi1>
  %bf = grad.cast %xorb : tensor<2x3xi1> to tensor<2x3xf32>
  %bi = grad.cast %xorb : tensor<2x3xi1> to tensor<2x3xi32>
  %bits = grad.bitcast %if : tensor<2x3xf32> to tensor<2x3xi32>
  %float = grad.bitcast %bi : tensor<2x3xi32> to tensor<2x3xf32>
  %same = grad.bitcast %bits : tensor<2x3xi32> to tensor<2x3xi32>
  %detach = grad.detach %float : tensor<2x3xf32>
  %detachi = grad.detach %same : tensor<2x3xi32>
  %detachb = grad.detach %ib : tensor<2x3xi1>
  %sum = grad.reduce add %detach [0] : tensor<2x3xf32> to tensor<3xf32>
  %prod = grad.reduce mul %ff [0, 1] : tensor<2x3xf32> to tensor<f32>
  %top = grad.reduce max %bf [1] : tensor<2x3xf32> to tensor<2xf32>
  %sumi = grad.reduce add %detachi [1] : tensor<2x3xi32> to tensor<2xi32>
  %prodi = grad.reduce mul %fi [0] : tensor<2x3xi32> to tensor<3xi32>
  %topi = grad.reduce max %fi [0, 1] : tensor<2x3xi32> to tensor<i32>
  %wide = grad.broadcast %sum [1] : tensor<3xf32> to tensor<2x3xf32>
  %widei = grad.broadcast %topi [] : tensor<i32> to tensor<2x3xi32>
  %flat = grad.reshape %wide : tensor<2x3xf32> to tensor<6xf32>
  %flatb = grad.reshape %fb : tensor<2x3xi1> to tensor<3x2xi1>
  %t = grad.permute %p [0, 2, 1] : tensor<2x3x4xf32> to tensor<2x4x3xf32>
  %tb = grad.permute %flatb [1, 0] : tensor<3x2xi1> to tensor<2x3xi1>
  %wt = grad.permute %wide [1, 0] : tensor<2x3xf32> to tensor<3x2xf32>
  %dot = grad.dot %wt, %x : tensor<3x2xf32>, tensor<2x3xf32> to tensor<3x3xf32>
  %batched = grad.dot %p, %t : tensor<2x3x4xf32>, tensor<2x4x3xf32> to tensor<2x3x3xf32>
  %qt = grad.permute %q [0, 1, 3, 2] : tensor<2x2x4x3xf32> to tensor<2x2x3x4xf32>
  %batched2 = grad.dot %q, %qt
    : tensor<2x2x4x3xf32>, tensor<2x2x3x4xf32> to tensor<2x2x4x4xf32>
  %part = grad.slice %dot [0, 0] [2, 3] [1, 2] : tensor<3x3xf32> to tensor<2x2xf32>
  %parti = grad.slice %widei [1, 0] [2, 3] [1, 1] : tensor<2x3xi32> to tensor<1x3xi32>
  %partb = grad.slice %tb [0, 1] [2, 3] [1, 1] : tensor<2x3xi1> to tensor<2x2xi1>
  %pad = grad.pad %part low [0, 0] high [0, 0] interior [0, 1] value -1.5
    : tensor<2x2xf32> to tensor<2x3xf32>
  %padi = grad.pad %parti low [1, 0] high [0, 0] interior [0, 0] value 7
    : tensor<1x3xi32> to tensor<2x3xi32>
  %padb = grad.pad %partb low [0, 1] high [0, 0] interior [0, 0] value true
    : tensor<2x2xi1> to tensor<2x3xi1>
  %flip = grad.reverse %pad [1] : tensor<2x3xf32>
  %flipi = grad.reverse %padi [0, 1] : tensor<2x3xi32>
  %flipb = grad.reverse %padb [0] : tensor<2x3xi1>
  %half = grad.slice %flip [0, 0] [1, 3] [1, 1] : tensor<2x3xf32> to tensor<1x3xf32>
  %cat = grad.concat %half, %half [0]
    : tensor<1x3xf32>, tensor<1x3xf32> to tensor<2x3xf32>
  %cati = grad.concat %flipi, %flipi [0]
    : tensor<2x3xi32>, tensor<2x3xi32> to tensor<4x3xi32>
  %cati2 = grad.slice %cati [1, 0] [3, 3] [1, 1] : tensor<4x3xi32> to tensor<2x3xi32>
  %bcol = grad.slice %flipb [0, 0] [2, 1] [1, 1] : tensor<2x3xi1> to tensor<2x1xi1>
  %catb = grad.concat %bcol, %bcol, %bcol [1]
    : tensor<2x1xi1>, tensor<2x1xi1>, tensor<2x1xi1> to tensor<2x3xi1>
  %i3 = grad.iota [0] : tensor<3xi32>
  %r3 = grad.reverse %i3 [0] : tensor<3xi32>
  %ones3 = grad.const 1 : tensor<3xi32>
  %iof = grad.iota [0] : tensor<2x3xf32>
  %io = grad.iota [1] : tensor<2x3xi32>
  %o3 = grad.argsort %sum [0] : tensor<3xf32> to tensor<3xi32>
  %order = grad.argsort %x [1] : tensor<2x3xf32> to tensor<2x3xi32>
  %orderi = grad.argsort %n [0] : tensor<2x3xi32> to tensor<2x3xi32>
  %g = grad.gather %x, %r3 [1] : tensor<2x3xf32>, tensor<3xi32> to tensor<2x3xf32>
  %gi = grad.gather %n, %o3 [1] : tensor<2x3xi32>, tensor<3xi32> to tensor<2x3xi32>
  %gb = grad.gather %b, %r3 [1] : tensor<2x3xi1>, tensor<3xi32> to tensor<2x3xi1>
  %sc = grad.scatter_add %x, %ones3, %y [1]
    : tensor<2x3xf32>, tensor<3xi32>, tensor<2x3xf32> to tensor<2x3xf32>
  %sci = grad.scatter_add %n, %o3, %m [1]
    : tensor<2x3xi32>, tensor<3xi32>, tensor<2x3xi32> to tensor<2x3xi32>
  %ix = grad.add %g, %sc : tensor<2x3xf32>
  %ix2 = grad.add %ix, %iof : tensor<2x3xf32>
  %ixi = grad.add %gi, %sci : tensor<2x3xi32>
  %ixi2 = grad.add %ixi, %order : tensor<2x3xi32>
  %ixi3 = grad.add %ixi2, %orderi : tensor<2x3xi32>
  %ixi4 = grad.add %ixi3, %io : tensor<2x3xi32>
  %mulx = grad.add %mul, %ix2 : tensor<2x3xf32>
  %wherex = grad.add %wherei, %ixi4 : tensor<2x3xi32>
  %detachx = grad.and %detachb, %gb : tensor<2x3xi1>
  %sq = grad.custom @square(%cat) jvp @square_jvp : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %out = grad.add %sq, %mulx : tensor<2x3xf32>
  %outi = grad.add %cati2, %wherex : tensor<2x3xi32>
  %outb = grad.and %catb, %detachx : tensor<2x3xi1>
  func.return %out, %outi, %outb, %batched, %batched2
    : tensor<2x3xf32>, tensor<2x3xi32>, tensor<2x3xi1>, tensor<2x3x3xf32>,
      tensor<2x2x4x4xf32>
}
func.func @square(%a: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %r = grad.mul %a, %a : tensor<2x3xf32>
  func.return %r : tensor<2x3xf32>
}
func.func @square_jvp(%a: tensor<2x3xf32>, %t: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %two = grad.const 2.0 : tensor<2x3xf32>
  %d = grad.mul %a, %two : tensor<2x3xf32>
  %r = grad.mul %d, %t : tensor<2x3xf32>
  func.return %r : tensor<2x3xf32>
}
"""
"""Every op that `convert-grad-to-standard` lowers, of every element type it
takes (`load` and `store` are `slots-to-tensors`'s)."""


def grad_op_counts(module: ModuleOp) -> Counter[str]:
    return Counter(op.name for op in module.walk() if op.dialect_name() == "grad")


def test_one_lowering_pattern_per_op() -> None:
    """Each pattern on its own lowers every op of one name, whatever its
    element type, and leaves the others; the patterns together lower every
    op of `Grad` (but load, store and the differentiation ops)."""
    module = Parser(make_context(), EVERY_OP_OF_EVERY_TYPE).parse_module()
    before = grad_op_counts(module)
    unlowered = (LoadOp, StoreOp, DifferentiationOp)
    assert before.keys() == {
        op.name for op in Grad.operations if not issubclass(op, unlowered)
    }
    lowered = []
    for pattern in (*PATTERNS, *INDEXING_PATTERNS):
        alone = module.clone()
        PatternRewriteWalker(pattern, apply_recursively=False).rewrite_module(alone)
        after = grad_op_counts(alone)
        changed = [name for name in before if after[name] != before[name]]
        assert len(changed) == 1, f"{pattern} changes {changed}"
        assert after[changed[0]] == 0, f"{pattern} leaves some {changed[0]}"
        lowered += changed
    assert sorted(lowered) == sorted(before)


@needs_iree
def test_every_op_of_every_type_runs() -> None:
    check_program(Program(EVERY_OP_OF_EVERY_TYPE))


# --- slice, pad, reverse, concat and the batched dot on random shapes ---------

PAD_VALUES = {
    "f32": ["0.0", "-0.0", "1.5", "-2.5e3", "0x7FC00000", "0xFF800000"],
    "i32": ["0", "-7", "2147483647", "-2147483648"],
    "i1": ["true", "false"],
}
"""Pad literals: signed zeros, NaN and -inf as bit patterns, i32 extremes."""


def tensor_text(shape: list[int], element: str) -> str:
    return f"tensor<{''.join(f'{n}x' for n in shape)}{element}>"


def data_movement_function(
    name: str, kind: str, element: str, rng: np.random.Generator
) -> str:
    """A function of one `kind` op (slice, pad, reverse or concat) on random
    shapes of rank 1 to 3, sizes 0 to 4 (0 one time in ten); a slice is
    empty along a dim one time in ten, else starts before the end."""

    def size() -> int:
        return 0 if rng.random() < 0.1 else int(rng.integers(1, 5))

    def bounds(n: int) -> tuple[int, int]:
        if n == 0 or rng.random() < 0.1:
            start = int(rng.integers(0, n + 1))
            return start, start
        start = int(rng.integers(0, n))
        return start, int(rng.integers(start + 1, n + 1))

    rank = int(rng.integers(1, 4))
    shape = [size() for _ in range(rank)]
    inputs = [shape]
    result = list(shape)
    if kind == "slice":
        start, limit = (list(b) for b in zip(*map(bounds, shape), strict=True))
        stride = [int(rng.integers(1, 4)) for _ in shape]
        result = [
            -(-(e - s) // k) for s, e, k in zip(start, limit, stride, strict=True)
        ]
        op = f"grad.slice %a0 {start} {limit} {stride}"
    elif kind == "pad":
        low, high, interior = (
            [int(rng.integers(0, 3)) for _ in shape] for _ in range(3)
        )
        result = [
            lo + n + max(n - 1, 0) * i + hi
            for n, lo, hi, i in zip(shape, low, high, interior, strict=True)
        ]
        value = PAD_VALUES[element][int(rng.integers(len(PAD_VALUES[element])))]
        op = f"grad.pad %a0 low {low} high {high} interior {interior} value {value}"
    elif kind == "reverse":
        dims = [d for d in range(rank) if rng.random() < 0.6] or [rank - 1]
        op = f"grad.reverse %a0 {dims}"
    else:
        axis = int(rng.integers(rank))
        inputs = []
        for _ in range(int(rng.integers(2, 5))):
            operand = list(shape)
            operand[axis] = int(rng.integers(0, 4))
            inputs.append(operand)
        result[axis] = sum(operand[axis] for operand in inputs)
        names = ", ".join(f"%a{i}" for i in range(len(inputs)))
        op = f"grad.concat {names} [{axis}]"
    types = [tensor_text(shape, element) for shape in inputs]
    r = tensor_text(result, element)
    arguments = ", ".join(f"%a{i}: {t}" for i, t in enumerate(types))
    signature = ", ".join(types) + f" to {r}" if kind == "concat" else types[0]
    if kind in ("slice", "pad"):
        signature += f" to {r}"
    return f"""func.func @{name}({arguments}) -> {r} {{
  %r = {op} : {signature}
  func.return %r : {r}
}}"""


@needs_iree
@pytest.mark.parametrize("element", ["f32", "i32", "i1"])
def test_data_movement_on_random_shapes(element: str) -> None:
    """slice (strided), pad (interior, every kind of pad value), reverse and
    concat (2 to 4 operands), size-0 dims included, are bit-exact on IREE."""
    rng = np.random.default_rng({"f32": 0, "i32": 1, "i1": 2}[element])
    kinds = ["slice", "pad", "reverse", "concat"] * 8
    functions = [
        data_movement_function(f"f{i}_{kind}", kind, element, rng)
        for i, kind in enumerate(kinds)
    ]
    program = Program("\n".join(functions))
    assert is_exact(program)
    for i, kind in enumerate(kinds):
        check_program(program, f"f{i}_{kind}", seed=i)


def dot_function(name: str, batch: int, k: int | None, rng: np.random.Generator) -> str:
    """A dot with `batch` batch dims and inner size `k` (random if None, as
    the others: 0 to 3)."""
    sizes = [int(rng.integers(0, 4)) for _ in range(batch + 3)]
    *b, m, n, inner = sizes
    inner = inner if k is None else k
    lhs, rhs = tensor_text([*b, m, inner], "f32"), tensor_text([*b, inner, n], "f32")
    r = tensor_text([*b, m, n], "f32")
    return f"""func.func @{name}(%a: {lhs}, %b: {rhs}) -> {r} {{
  %r = grad.dot %a, %b : {lhs}, {rhs} to {r}
  func.return %r : {r}
}}"""


@needs_iree
@pytest.mark.parametrize("exact", [True, False], ids=["k01", "any-k"])
def test_dot_on_random_shapes(exact: bool) -> None:
    """Plain and batched dots (batch rank 1 and 2), size-0 dims included; with
    inner size 0 or 1 there is nothing to reassociate, so the bits agree."""
    rng = np.random.default_rng(7 if exact else 8)
    entries, functions = [], []
    for i in range(18):
        batch = i % 3
        k = int(rng.integers(0, 2)) if exact else None
        entries.append(f"dot{i}_batch{batch}")
        functions.append(dot_function(entries[-1], batch, k, rng))
    program = Program("\n".join(functions))
    assert is_exact(program) == exact
    for i, entry in enumerate(entries):
        check_program(program, entry, seed=i)


# --- the exact ops on special values ------------------------------------------

SPECIAL_F32 = np.array(
    [
        0.0,
        -0.0,
        1.0,
        -1.0,
        0.5,
        -2.5,
        3.0,
        7.0,
        1e-30,
        -1e30,
        3.4e38,
        -3.4e38,
        np.inf,
        -np.inf,
        np.nan,
        2.1e9,
        -2.2e9,
        16777217.0,
        2147483648.0,
    ],
    np.float32,
)
SPECIAL_I32 = np.array(
    [0, 1, -1, 2, -7, 31, 32, 2147483647, -2147483648, 65535, -65536, 12345],
    np.int32,
)

SPECIAL = {F32: SPECIAL_F32, I32: SPECIAL_I32}


class ExactCase(NamedTuple):
    entry: Entry
    body: str
    """On %a0 [, %a1] of type T (R: the result type), defining %r."""
    operands: str
    """The operands' element types, separated by spaces."""
    result: str
    """The result's element type."""


def _exact_case(entry: Entry, source: str, result: str) -> tuple[str, ExactCase]:
    """The case of `entry` on `source` operands, and its name: the op's own
    for its first element type, `add-i32` for another, `cast-f32-i1` for a
    conversion."""
    if entry.form is Form.CONVERSION:
        body = f"%r = grad.{entry.name} %a0 : T to R"
        return f"{entry.name}-{source}-{result}", ExactCase(entry, body, source, result)
    name = entry.name if source == entry.sources[0] else f"{entry.name}-{source}"
    if entry.form is Form.WHERE:
        body = "%c = grad.cmplt %a1, %a0 : T\n%r = grad.where %c, %a0, %a1 : T"
        return name, ExactCase(entry, body, f"{source} {source}", result)
    operands = ", ".join(f"%a{i}" for i in range(entry.arity))
    body = f"%r = grad.{entry.name} {operands} : T"
    return name, ExactCase(entry, body, " ".join([source] * entry.arity), result)


def exact_cases() -> dict[str, ExactCase]:
    """Every elementwise op that IREE lowers exactly, on each element type
    that has special values, and every conversion between two types."""
    cases = []
    forms = (Form.ELEMENTWISE, Form.COMPARE, Form.WHERE, Form.CONVERSION)
    for entry in entries(forms):
        types = sorted(entry.types, key=lambda t: [ELEMENTS.index(e) for e in t])
        cases += [
            _exact_case(entry, source, result)
            for source, result in types
            if entry.iree_exact is True
            and source in SPECIAL
            and not (entry.form is Form.CONVERSION and source == result)
        ]
    return dict(cases)


EXACT_OPS = exact_cases()


def special_inputs(operands: list[str], domain: Domain) -> list[np.ndarray]:
    """Every special value of the operands' type (every pair for two), less
    the last operands the interpreter rejects (zero divisors, shifts outside
    0..31)."""
    values = SPECIAL[operands[0]]
    if len(operands) == 1:
        return [values]
    a, b = (
        np.array(v, values.dtype) for v in zip(*product(values, values), strict=True)
    )
    keep = ~domain.errors(b)
    return [a[keep], b[keep]]


@functools.cache
def exact_case(name: str) -> tuple[str, list[np.ndarray]]:
    """The program of `name` on every special value, and those values, less
    the subnormal results of arithmetic, which IREE flushes to zero (a
    bitcast's are kept)."""
    entry, body, operands, result = EXACT_OPS[name]
    inputs = special_inputs(operands.split(), entry.domain)

    def text(count: int) -> str:
        t, r = f"tensor<{count}x{operands.split()[0]}>", f"tensor<{count}x{result}>"
        arguments = ", ".join(f"%a{i}: {t}" for i in range(len(inputs)))
        return f"""func.func @main({arguments}) -> {r} {{
  {body.replace("T", t).replace("R", r)}
  func.return %r : {r}
}}"""

    expected = Program(text(len(inputs[0]))).run(args=inputs).results[0]
    normal = ~(
        (expected.dtype == np.float32 and not name.startswith("bitcast"))
        & (np.abs(expected) < np.finfo(np.float32).tiny)
        & (expected != 0)
    )
    inputs = [x[normal] for x in inputs]
    return text(len(inputs[0])), inputs


def _identifier(name: str) -> str:
    return name.replace("-", "_")


EXACT = together(lambda: {_identifier(n): exact_case(n)[0] for n in EXACT_OPS})


@needs_iree
@pytest.mark.parametrize("name", EXACT_OPS)
def test_exact_op_on_special_values(name: str) -> None:
    """Signed zeros, infinities, NaN, overflow, saturation and wrap-around come
    out of IREE as from the interpreter, except subnormal results of
    arithmetic (see `exact_case`)."""
    text, inputs = exact_case(name)
    expected = Program(text).run(args=inputs).results[0]
    entry = f"{_identifier(name)}_main"
    actual = EXACT().run(args=inputs, entry=entry, backend="iree").results[0]
    assert_agree(expected, actual, exact=True)


# --- seed cases, examples, random programs ------------------------------------

SEEDS = {
    "cube": (
        """
        func.func @main(%x: tensor<f32>) -> tensor<f32> {
          %s = grad.mul %x, %x : tensor<f32>
          %c = grad.mul %s, %x : tensor<f32>
          %g = grad.gradient %c wrt %x : tensor<f32>, tensor<f32>
          func.return %g : tensor<f32>
        }""",
        [np.float32(2.0)],
        [np.float32(12.0)],
    ),
    "detach": (
        """
        func.func @main(%x: tensor<f32>) -> tensor<f32> {
          %d = grad.detach %x : tensor<f32>
          %y = grad.mul %x, %d : tensor<f32>
          %g = grad.gradient %y wrt %x : tensor<f32>, tensor<f32>
          func.return %g : tensor<f32>
        }""",
        [np.float32(3.0)],
        [np.float32(3.0)],
    ),
    "max-tie": (
        """
        func.func @main(%a: tensor<f32>, %b: tensor<f32>)
            -> (tensor<f32>, tensor<f32>) {
          %m = grad.max %a, %b : tensor<f32>
          %ga, %gb = grad.gradient %m wrt %a, %b : tensor<f32>, tensor<f32>, tensor<f32>
          func.return %ga, %gb : tensor<f32>, tensor<f32>
        }""",
        [np.float32(1.5), np.float32(1.5)],
        [np.float32(0.5), np.float32(0.5)],
    ),
    "second-order": (
        """
        func.func @main(%x: tensor<f32>) -> tensor<f32> {
          %s = grad.mul %x, %x : tensor<f32>
          %c = grad.mul %s, %x : tensor<f32>
          %g = grad.gradient %c wrt %x : tensor<f32>, tensor<f32>
          %h = grad.gradient %g wrt %x : tensor<f32>, tensor<f32>
          func.return %h : tensor<f32>
        }""",
        [np.float32(2.0)],
        [np.float32(12.0)],
    ),
}


@needs_iree
@pytest.mark.parametrize("name", SEEDS)
def test_seed_case(name: str) -> None:
    text, args, expected = SEEDS[name]
    results = run(text, args=[np.array(a) for a in args], backend="iree").results
    assert [r.item() for r in results] == [e.item() for e in expected]
    assert all(r.dtype == np.float32 for r in results)


@needs_iree
@pytest.mark.parametrize("path", sorted((ROOT / "examples").glob("*.mlir")), ids=str)
def test_example(path: Path) -> None:
    check_program(Program(path.read_text(), str(path)))


MATH = names(
    by_domain(
        e
        for e in entries(Form.ELEMENTWISE, arity=1, accepts=F32)
        if e.derivative is Derivative.RULES and e.iree_exact is False
    )
)
"""The f32 ops of one operand that IREE approximates, least restricted first."""


def random_program(rng: np.random.Generator, kinds: str) -> str:
    """A random f32 program on two 2x3 inputs whose loss is the sum of its last
    value, returning the loss, that value and the gradient for both inputs.
    `kinds` is `exact` (elementwise and shape ops), `slicing` (also slice,
    pad, reverse and concat), `dot` (also matrix products, batched with one
    and two batch dims) or `math` (also sin, exp2 and log2, on bounded
    operands)."""
    lines: list[str] = []
    values = ["%x0", "%x1"]
    t = "tensor<2x3xf32>"

    def new(text: str) -> str:
        name = f"%v{len(lines)}"
        lines.append(f"{name} = {text}")
        return name

    def pick() -> str:
        return values[int(rng.integers(len(values)))]

    choices = ["add", "mul", "neg", "max", "where", "recip", "sum-rows", "transpose"]
    if kinds == "slicing":
        choices += ["slice-pad", "reverse", "concat-slice"] * 2
    if kinds == "dot":
        choices += ["dot", "batched"] * 2
    if kinds == "math":
        choices += MATH * 2
    for _ in range(int(rng.integers(5, 12))):
        op = choices[int(rng.integers(len(choices)))]
        a, b = pick(), pick()
        if op in ("add", "mul", "max"):
            value = new(f"grad.{op} {a}, {b} : {t}")
        elif op == "reverse":  # before the unary ops: it has a list of dims
            dims = [[0], [1], [0, 1]][int(rng.integers(3))]
            value = new(f"grad.reverse {a} {dims} : {t}")
        elif op in INVENTORY and INVENTORY[op].arity == 1:
            domain = INVENTORY[op].domain
            if domain is Domain.MODERATE:
                a = new(f"grad.sin {a} : {t}")
            elif domain is Domain.POSITIVE:
                square = new(f"grad.mul {a}, {a} : {t}")
                one = new(f"grad.const 1.0 : {t}")
                a = new(f"grad.add {square}, {one} : {t}")
            value = new(f"grad.{op} {a} : {t}")
        elif op == "where":
            less = new(f"grad.cmplt {a}, {b} : {t}")
            value = new(f"grad.where {less}, {a}, {b} : {t}")
        elif op == "sum-rows":
            sums = new(f"grad.reduce add {a} [0] : {t} to tensor<3xf32>")
            value = new(f"grad.broadcast {sums} [1] : tensor<3xf32> to {t}")
        elif op == "transpose":
            swapped = new(f"grad.permute {a} [1, 0] : {t} to tensor<3x2xf32>")
            value = new(f"grad.reshape {swapped} : tensor<3x2xf32> to {t}")
        elif op == "slice-pad" and rng.random() < 0.5:
            # columns 0 and 2, and zeros between them
            part = new(f"grad.slice {a} [0, 0] [2, 3] [1, 2] : {t} to tensor<2x2xf32>")
            value = new(
                f"grad.pad {part} low [0, 0] high [0, 0] interior [0, 1] value 0.0"
                f" : tensor<2x2xf32> to {t}"
            )
        elif op == "slice-pad":
            # row 1 below a row of -1.5
            part = new(f"grad.slice {a} [1, 0] [2, 3] [1, 1] : {t} to tensor<1x3xf32>")
            value = new(
                f"grad.pad {part} low [1, 0] high [0, 0] interior [0, 0] value -1.5"
                f" : tensor<1x3xf32> to {t}"
            )
        elif op == "concat-slice" and rng.random() < 0.5:
            rows = new(f"grad.concat {a}, {b} [0] : {t}, {t} to tensor<4x3xf32>")
            value = new(
                f"grad.slice {rows} [1, 0] [4, 3] [2, 1] : tensor<4x3xf32> to {t}"
            )
        elif op == "concat-slice":
            c, w = pick(), "tensor<2x9xf32>"
            columns = new(f"grad.concat {a}, {b}, {c} [1] : {t}, {t}, {t} to {w}")
            value = new(f"grad.slice {columns} [0, 1] [2, 9] [1, 3] : {w} to {t}")
        elif op == "batched" and rng.random() < 0.5:
            # a sum of outer products, one per row: batch rank 1
            column = new(f"grad.reshape {a} : {t} to tensor<2x3x1xf32>")
            row = new(f"grad.reshape {b} : {t} to tensor<2x1x3xf32>")
            outer = new(
                f"grad.dot {column}, {row} : tensor<2x3x1xf32>, tensor<2x1x3xf32>"
                " to tensor<2x3x3xf32>"
            )
            value = new(f"grad.reduce add {outer} [2] : tensor<2x3x3xf32> to {t}")
        elif op == "batched":
            # the elementwise product as 1x1 matrices: batch rank 2
            u = "tensor<2x3x1x1xf32>"
            lhs = new(f"grad.reshape {a} : {t} to {u}")
            rhs = new(f"grad.reshape {b} : {t} to {u}")
            product = new(f"grad.dot {lhs}, {rhs} : {u}, {u} to {u}")
            value = new(f"grad.reshape {product} : {u} to {t}")
        else:
            bt = new(f"grad.permute {b} [1, 0] : {t} to tensor<3x2xf32>")
            square = new(
                f"grad.dot {a}, {bt} : {t}, tensor<3x2xf32> to tensor<2x2xf32>"
            )
            value = new(f"grad.dot {square}, {b} : tensor<2x2xf32>, {t} to {t}")
        values.append(value)
    last = values[-1]
    body = "\n  ".join(lines)
    return f"""func.func @main(%x0: {t}, %x1: {t}) -> (tensor<f32>, {t}, {t}, {t}) {{
  {body}
  %loss = grad.reduce add {last} [0, 1] : {t} to tensor<f32>
  %g0, %g1 = grad.gradient %loss wrt %x0, %x1 : tensor<f32>, {t}, {t}
  func.return %loss, {last}, %g0, %g1 : tensor<f32>, {t}, {t}, {t}
}}"""


RANDOM_CASES = (
    [("exact", s) for s in range(8)]
    + [("slicing", s) for s in range(6)]
    + [("dot", s) for s in range(6)]
    + [("math", s) for s in range(4)]
)


@functools.cache
def random_case(kinds: str, seed: int) -> tuple[str, list[np.ndarray]]:
    """The random program of `kinds` and `seed`, and its two inputs."""
    rng = np.random.default_rng(1000 + seed)
    text = random_program(rng, kinds)
    return text, [rng.standard_normal((2, 3)).astype(np.float32) for _ in range(2)]


RANDOM = together(lambda: {f"{k}{s}": random_case(k, s)[0] for k, s in RANDOM_CASES})


@needs_iree
@pytest.mark.parametrize(("kinds", "seed"), RANDOM_CASES)
def test_random_program(kinds: str, seed: int) -> None:
    """The loss is a sum (compared within tolerance); with elementwise, shape
    and slicing ops only, the last value and the gradients must be bit-exact,
    since the gradient of a sum is a broadcast."""
    text, args = random_case(kinds, seed)
    expected = Program(text).run(args=args).results
    actual = RANDOM().run(args=args, entry=f"{kinds}{seed}_main", backend="iree")
    actual = actual.results
    assert_agree(expected[0], actual[0], exact=False)
    for want, got in zip(expected[1:], actual[1:], strict=True):
        assert_agree(want, got, exact=kinds in ("exact", "slicing"))


# --- the backend's interface --------------------------------------------------

CUBIC = ROOT / "examples" / "cubic.mlir"


@needs_iree
def test_grad_run_backend_iree_prints_what_numpy_prints(
    capsys: pytest.CaptureFixture[str],
) -> None:
    outputs = []
    for backend in ("numpy", "iree"):
        argv = [str(CUBIC), "--slot", "0=[1,2,3,4,5]", "--backend", backend]
        assert grad_run.main(argv) == 0
        outputs.append(capsys.readouterr().out)
    assert outputs[0] == outputs[1]
    assert "slot 1 = dense<[1.0, 10.0, 25.0, 46.0, 73.0]>" in outputs[1]


@needs_iree
def test_compiled_once_and_cached_on_disk(monkeypatch: pytest.MonkeyPatch) -> None:
    import iree.compiler

    compiles = []
    compile_str = iree.compiler.compile_str

    def counting(*args: object, **kwargs: object) -> bytes:
        compiles.append(1)
        return compile_str(*args, **kwargs)

    monkeypatch.setattr(iree.compiler, "compile_str", counting)
    text = """func.func @main(%x: tensor<3xf32>) -> tensor<3xf32> {
  %c = grad.const 0.125 : tensor<3xf32>
  %y = grad.add %x, %c : tensor<3xf32>
  func.return %y : tensor<3xf32>
}"""
    program = Program(text)
    args = [np.array([1.0, 2.0, 3.0], np.float32)]
    first = program.run(args=args, backend="iree")
    second = program.run(args=args, backend="iree")
    assert len(compiles) == 1
    assert (
        first.results[0].tolist() == second.results[0].tolist() == [1.125, 2.125, 3.125]
    )

    def refuse(*args: object, **kwargs: object) -> bytes:
        raise AssertionError("compiled again")

    monkeypatch.setattr(iree.compiler, "compile_str", refuse)
    again = Program(text).run(args=args, backend="iree")
    assert again.results[0].tolist() == first.results[0].tolist()


def test_missing_iree_is_a_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    """Without the extra, asking for the backend says how to get it."""
    for module in ("iree.compiler", "iree.runtime", "iree.compiler.version"):
        monkeypatch.setitem(sys.modules, module, None)
    with pytest.raises(GradoptError) as error:
        run(CUBIC.read_text(), backend="iree", filename="cubic.mlir")
    assert str(error.value) == (
        "cubic.mlir: error: the iree backend needs IREE, which is not installed: "
        "install gradopt's 'iree' extra (pip install 'gradopt[iree]', which "
        "brings iree-base-compiler and iree-base-runtime)\n"
    )


def test_unknown_backend() -> None:
    with pytest.raises(
        GradoptError, match="unknown backend: expected numpy, iree or auto"
    ):
        run(CUBIC.read_text(), backend="tpu")


@needs_iree
def test_lowering_error_is_located() -> None:
    text = """func.func @main(%s: memref<2xf32>) {
  func.call @copy(%s, %s) : (memref<2xf32>, memref<2xf32>) -> ()
  func.return
}
func.func @copy(%a: memref<2xf32>, %b: memref<2xf32>) {
  func.return
}"""
    with pytest.raises(GradoptError) as error:
        run(text, backend="iree", filename="alias.mlir")
    assert str(error.value).startswith(
        "alias.mlir:2:3: error: 'func.call' op passes one slot as two arguments"
    )
