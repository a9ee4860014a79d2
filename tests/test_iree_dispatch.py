# ruff: noqa: E501 (MLIR text: one op a line, as MLIR prints it)
"""Loops that run inside one IREE dispatch (`runtime/iree_dispatch`): which
loops the lowering wraps in a `flow.dispatch.region`, and the gradients of
recurrences through such loops on IREE against the interpreter (one IREE
compile for all of them). The IREE tests skip without the `iree` extra."""

from __future__ import annotations

import functools
import importlib.util
from pathlib import Path

import numpy as np
import pytest
from xdsl.dialects import func, scf, tensor
from xdsl.dialects.builtin import ModuleOp, TensorType

import gradopt
from gradopt.runtime import iree_dispatch
from gradopt.runtime.iree import _lowered
from gradopt.runtime.iree_dispatch import DispatchRegionOp, dispatched
from gradopt.runtime.iree_loops import unroll_loops

HAVE_IREE = importlib.util.find_spec("iree") is not None and all(
    importlib.util.find_spec(m) for m in ("iree.compiler", "iree.runtime")
)

# h <- sin(h w + x_i) over the rows of xs, 6 steps, 4 wide; its gradient.
STEP = """
    %x = tensor.extract_slice %xs[%i, 0] [1, 4] [1, 1] : tensor<6x4xf32> to tensor<4xf32>
    %r = grad.reshape %c : tensor<4xf32> to tensor<1x4xf32>
    %d = grad.dot %r, %w : tensor<1x4xf32>, tensor<4x4xf32> to tensor<1x4xf32>
    %v = grad.reshape %d : tensor<1x4xf32> to tensor<4xf32>
    %a = grad.add %v, %x : tensor<4xf32>
    %s = grad.sin %a : tensor<4xf32>
"""
LOSS = """
  %sq = grad.mul %h, %h : tensor<4xf32>
  %l = grad.reduce add %sq [0] : tensor<4xf32> to tensor<f32>
  %g0, %g1, %g2 = grad.gradient %l wrt %h0, %xs, %w control_flow : tensor<f32>, tensor<4xf32>, tensor<6x4xf32>, tensor<4x4xf32>
  func.return %g0, %g1, %g2 : tensor<4xf32>, tensor<6x4xf32>, tensor<4x4xf32>
}
"""
SIGNATURE = "(%h0: tensor<4xf32>, %xs: tensor<6x4xf32>, %w: tensor<4x4xf32>{extra}) -> (tensor<4xf32>, tensor<6x4xf32>, tensor<4x4xf32>) {{"
CONSTANTS = """
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c6 = arith.constant 6 : index
"""


def _rnn(name: str, attributes: str = "") -> str:
    return (
        f"func.func @{name}{SIGNATURE.format(extra='')}{CONSTANTS}"
        f"  %h = scf.for %i = %c0 to %c6 step %c1 iter_args(%c = %h0) -> (tensor<4xf32>) {{{STEP}"
        f"    scf.yield %s : tensor<4xf32>\n  }} {attributes}{LOSS}"
    )


# the trip count an argument, the bounds i32
RUN_TIME = (
    f"func.func @run_time{SIGNATURE.format(extra=', %n: tensor<i32>')}{CONSTANTS}"
    """
  %z = arith.constant 0 : i32
  %o = arith.constant 1 : i32
  %ni = tensor.extract %n[] : tensor<i32>
  %h = scf.for %j = %z to %ni step %o iter_args(%c = %h0) -> (tensor<4xf32>) : i32 {
    %i = arith.index_cast %j : i32 to index"""
    f"{STEP}    scf.yield %s : tensor<4xf32>\n  }}{LOSS}"
)

# three passes over the rows (the inner loop's start the outer's carry)
NESTED = (
    f"func.func @nested{SIGNATURE.format(extra='')}{CONSTANTS}"
    """
  %h = scf.for %k = %c0 to %c3 step %c1 iter_args(%e = %h0) -> (tensor<4xf32>) {
    %inner = scf.for %i = %c0 to %c6 step %c1 iter_args(%c = %e) -> (tensor<4xf32>) {"""
    f"{STEP}      scf.yield %s : tensor<4xf32>\n    }}\n"
    f"    scf.yield %inner : tensor<4xf32>\n  }}{LOSS}"
)

# odd steps apply the step, even ones pass h on
BRANCHY = (
    f"func.func @branchy{SIGNATURE.format(extra='')}{CONSTANTS}"
    """
  %h = scf.for %i = %c0 to %c6 step %c1 iter_args(%c = %h0) -> (tensor<4xf32>) {
    %odd = arith.remui %i, %c2 : index
    %cond = arith.cmpi eq, %odd, %c1 : index
    %next = scf.if %cond -> (tensor<4xf32>) {"""
    f"{STEP}      scf.yield %s : tensor<4xf32>\n    }} else {{\n"
    "      scf.yield %c : tensor<4xf32>\n    }\n"
    f"    scf.yield %next : tensor<4xf32>\n  }}{LOSS}"
)

# a sum of the state before the product: the product stays the last
# reduction, IREE's root
REDUCING = (
    f"func.func @reducing{SIGNATURE.format(extra='')}{CONSTANTS}"
    """
  %h = scf.for %i = %c0 to %c6 step %c1 iter_args(%c = %h0) -> (tensor<4xf32>) {
    %x0 = tensor.extract_slice %xs[%i, 0] [1, 4] [1, 1] : tensor<6x4xf32> to tensor<4xf32>
    %n = grad.reduce add %c [0] : tensor<4xf32> to tensor<f32>
    %nb = grad.broadcast %n [] : tensor<f32> to tensor<4xf32>
    %y = grad.mul %x0, %nb : tensor<4xf32>
    %r = grad.reshape %c : tensor<4xf32> to tensor<1x4xf32>
    %d = grad.dot %r, %w : tensor<1x4xf32>, tensor<4x4xf32> to tensor<1x4xf32>
    %v = grad.reshape %d : tensor<1x4xf32> to tensor<4xf32>
    %a = grad.add %v, %y : tensor<4xf32>
    %s = grad.sin %a : tensor<4xf32>
    scf.yield %s : tensor<4xf32>
  }"""
    f"{LOSS}"
)

# a 64x64 matrix power: operands too large to vectorize whole, two products
# of 16 KB too much for the stack
BIG = """
func.func @big(%m0: tensor<64x64xf32>, %a: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %m = scf.for %i = %c0 to %c3 step %c1 iter_args(%c = %m0) -> (tensor<64x64xf32>) {
    %d = grad.dot %c, %a : tensor<64x64xf32>, tensor<64x64xf32> to tensor<64x64xf32>
    %e = grad.dot %d, %a : tensor<64x64xf32>, tensor<64x64xf32> to tensor<64x64xf32>
    %s = grad.sin %e : tensor<64x64xf32>
    scf.yield %s : tensor<64x64xf32>
  }
  func.return %m : tensor<64x64xf32>
}
"""

# a loop with no contraction: IREE would pick the root itself
ELEMENTWISE = """
func.func @elementwise(%x: tensor<4xf32>) -> tensor<4xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %h = scf.for %i = %c0 to %c3 step %c1 iter_args(%c = %x) -> (tensor<4xf32>) {
    %s = grad.sin %c : tensor<4xf32>
    scf.yield %s : tensor<4xf32>
  }
  func.return %h : tensor<4xf32>
}
"""

SOURCE = "\n".join(
    [
        _rnn("rnn"),
        _rnn("periodic", '{"grad.checkpoint" = "periodic", "grad.period" = 2 : i64}'),
        RUN_TIME,
        NESTED,
        BRANCHY,
        REDUCING,
        BIG,
        ELEMENTWISE,
    ]
)

MATERIALIZE = "bufferization.materialize_in_destination"

WRAPPED = {"rnn", "periodic", "run_time", "nested", "branchy", "reducing"}
"""The functions whose innermost loops all run in a dispatch."""


@functools.cache
def program() -> gradopt.Program:
    return gradopt.Program(SOURCE)


def lowered() -> ModuleOp:
    return _lowered(program().module)


def _functions(module: ModuleOp) -> dict[str, func.FuncOp]:
    return {f.sym_name.data: f for f in module.ops if isinstance(f, func.FuncOp)}


def _host_loops(function: func.FuncOp) -> list[scf.ForOp]:
    """The innermost loops of `function` outside dispatch regions."""
    return [
        op
        for op in function.walk()
        if isinstance(op, scf.ForOp)
        and not dispatched(op)
        and not any(isinstance(inner, scf.ForOp) for inner in op.body.walk())
    ]


def test_the_loops_that_qualify_run_in_dispatch_regions() -> None:
    """Every innermost loop of the recurrences is in a region with one
    annotated root (@nested's outer loops stay on the host); the big and
    the elementwise loops stay on the host, and only they are unrolled."""
    module = lowered()
    for name, function in _functions(module).items():
        regions = [op for op in function.walk() if isinstance(op, DispatchRegionOp)]
        if name in WRAPPED:
            assert regions and not _host_loops(function), name
            for region in regions:
                text = str(region)
                assert text.count("#iree_codegen.compilation_info") == 1, name
                assert "tensor.expand_shape" not in text, name
                assert "tensor.collapse_shape" not in text, name
        else:
            assert _host_loops(function) and not regions, name
    counts = {
        name: sum(isinstance(op, DispatchRegionOp) for op in function.walk())
        for name, function in _functions(module).items()
    }
    assert counts["rnn"] == 2  # the recording and the reverse loop
    assert counts["nested"] == 3  # and the reverse pass's recording loop
    assert unroll_loops(module) == 2  # the loops of @big and @elementwise


def test_a_program_with_a_while_keeps_its_loops_on_the_host() -> None:
    """Binomial checkpointing's schedule is an `scf.while`: `iree_while`
    turns the whole program's control flow into blocks, which no region
    can hold, so nothing is wrapped (the host-side path as before)."""
    binomial = _rnn(
        "binomial", '{"grad.checkpoint" = "binomial", "grad.snapshots" = 2 : i64}'
    )
    module = _lowered(gradopt.Program(binomial + _rnn("rnn")).module)
    assert not any(isinstance(op, DispatchRegionOp) for op in module.walk())


UNIT = """
func.func @unit(%h0: tensor<1x4xf32>, %w: tensor<4x4xf32>) -> tensor<1x4xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %h = scf.for %i = %c0 to %c3 step %c1 iter_args(%c = %h0) -> (tensor<1x4xf32>) {
    %d = grad.dot %c, %w : tensor<1x4xf32>, tensor<4x4xf32> to tensor<1x4xf32>
    scf.yield %d : tensor<1x4xf32>
  }
  func.return %h : tensor<1x4xf32>
}
"""

CALLING = """
func.func @calling(%h0: tensor<4xf32>, %w: tensor<4x4xf32>) -> tensor<4xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %h = scf.for %i = %c0 to %c3 step %c1 iter_args(%c = %h0) -> (tensor<4xf32>) {
    %r = grad.reshape %c : tensor<4xf32> to tensor<1x4xf32>
    %d = grad.dot %r, %w : tensor<1x4xf32>, tensor<4x4xf32> to tensor<1x4xf32>
    %v = grad.reshape %d : tensor<1x4xf32> to tensor<4xf32>
    %s = func.call @step(%v) : (tensor<4xf32>) -> tensor<4xf32>
    scf.yield %s : tensor<4xf32>
  }
  func.return %h : tensor<4xf32>
}
func.func @step(%v: tensor<4xf32>) -> tensor<4xf32> {
  %s = grad.sin %v : tensor<4xf32>
  func.return %s : tensor<4xf32>
}
"""


# a sum after the product: IREE would take it as the root
SUM_LAST = """
func.func @sum_last(%h0: tensor<4xf32>, %w: tensor<4x4xf32>) -> tensor<4xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %h = scf.for %i = %c0 to %c3 step %c1 iter_args(%c = %h0) -> (tensor<4xf32>) {
    %r = grad.reshape %c : tensor<4xf32> to tensor<1x4xf32>
    %d = grad.dot %r, %w : tensor<1x4xf32>, tensor<4x4xf32> to tensor<1x4xf32>
    %v = grad.reshape %d : tensor<1x4xf32> to tensor<4xf32>
    %n = grad.reduce add %v [0] : tensor<4xf32> to tensor<f32>
    %nb = grad.broadcast %n [] : tensor<f32> to tensor<4xf32>
    %s = grad.mul %v, %nb : tensor<4xf32>
    scf.yield %s : tensor<4xf32>
  }
  func.return %h : tensor<4xf32>
}
"""


@pytest.mark.parametrize(
    "source", [UNIT, CALLING, SUM_LAST], ids=["unit dim", "call", "sum last"]
)
def test_loops_iree_would_not_compile_in_a_region_stay_on_the_host(
    source: str,
) -> None:
    """A carried tensor with a unit dim (IREE reshapes it, and hoists the
    reshape of a block argument out of the region), a call in the body, a
    reduction after the last product (IREE's root, which could not keep a
    `compilation_info`)."""
    module = _lowered(gradopt.Program(source).module)
    assert not any(isinstance(op, DispatchRegionOp) for op in module.walk())
    assert any(isinstance(op, scf.ForOp) for op in module.walk())


def test_carried_values_start_in_the_region_and_yield_in_place() -> None:
    """A carried tensor starts inside the region (an empty one, or its start
    written into one) and every loop of the nest yields in place."""
    regions = [op for op in lowered().walk() if isinstance(op, DispatchRegionOp)]
    assert regions
    for region in regions:
        (loop,) = [op for op in region.body.block.ops if isinstance(op, scf.ForOp)]
        for start in loop.iter_args:
            if isinstance(start.type, TensorType):
                assert start.owner.parent_op() is region
                assert start.owner.name in {"tensor.empty", MATERIALIZE}
        for nested in loop.walk():
            if isinstance(nested, scf.ForOp):
                body = nested.body.block
                yielded = body.last_op
                assert yielded is not None
                for value, argument in zip(
                    yielded.operands, body.args[1:], strict=True
                ):
                    if isinstance(value.type, TensorType):
                        assert value.owner.name == MATERIALIZE
                        assert value.owner.operands[1] is argument


@pytest.mark.parametrize("limit", ["STACK_BYTES", "VECTOR_ELEMENTS"])
def test_loops_over_the_limits_are_not_wrapped(
    limit: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Limits below the 4-wide recurrences' tensors keep every loop on the
    host, with its reshapes as they were."""
    monkeypatch.setattr(iree_dispatch, limit, 8)
    module = lowered()
    assert not any(isinstance(op, DispatchRegionOp) for op in module.walk())
    assert any(isinstance(op, tensor.ExpandShapeOp) for op in module.walk())


def _arguments(name: str, n: int) -> list[np.ndarray]:
    rng = np.random.default_rng(1)
    if name == "big":
        return [rng.uniform(-1, 1, (64, 64)).astype(np.float32) / 8 for _ in range(2)]
    if name == "elementwise":
        return [rng.uniform(-1, 1, 4).astype(np.float32)]
    args = [
        rng.uniform(-1, 1, 4).astype(np.float32),
        rng.uniform(-1, 1, (6, 4)).astype(np.float32),
        rng.uniform(-1, 1, (4, 4)).astype(np.float32),
    ]
    return [*args, np.array(n, np.int32)] if name == "run_time" else args


@pytest.mark.skipif(not HAVE_IREE, reason="needs the iree extra")
@pytest.mark.parametrize("driver", ["local-sync", "local-task"])
def test_dispatched_loops_give_the_interpreters_gradients(
    driver: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """All functions in one compiled module, on both of IREE's CPU drivers
    (`local-task` runs workgroups on several threads)."""
    from gradopt.runtime import iree

    monkeypatch.setattr(iree, "driver_for", lambda module: driver)
    source = program()
    fresh = gradopt.Program(SOURCE)  # a new IreeModule per driver
    for name in _functions(source.module):
        for n in (0, 1, 6) if name == "run_time" else (6,):
            args = _arguments(name, n)
            on_iree = fresh.run(args=args, entry=name, backend="iree").results
            expected = source.run(args=args, entry=name).results
            for found, value in zip(on_iree, expected, strict=True):
                np.testing.assert_allclose(found, value, rtol=1e-4, atol=2e-5)


FORWARD = CALLING.replace(
    "%s = func.call @step(%v) : (tensor<4xf32>) -> tensor<4xf32>",
    "%s = grad.sin %v : tensor<4xf32>",
).replace("@calling", "@main")


@pytest.mark.skipif(not HAVE_IREE, reason="needs the iree extra")
def test_a_program_iree_fails_on_with_regions_runs_without_them(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The lowering cannot foresee every failure of IREE's code generator
    on a dispatched loop (one is simulated here by a pipeline IREE does not
    know): the program is then compiled as it was before the regions."""
    from gradopt.runtime import iree

    monkeypatch.setattr(iree_dispatch, "PIPELINE", "Unknown")
    source = gradopt.Program(FORWARD)
    assert iree.DISPATCHED in iree.lower(source.module)
    args = _arguments("rnn", 6)[::2]
    on_iree = source.run(args=args, backend="iree").results
    for found, value in zip(on_iree, source.run(args=args).results, strict=True):
        np.testing.assert_allclose(found, value, rtol=1e-4, atol=2e-5)


def _pair(name: str, yielded: str) -> str:
    """Two carried states `a`, `b`; `t = sin(a w) + b`; `yielded` of a, b, t."""
    return f"""
func.func @{name}(%a0: tensor<4xf32>, %b0: tensor<4xf32>, %w: tensor<4x4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %h:2 = scf.for %i = %c0 to %c3 step %c1 iter_args(%a = %a0, %b = %b0) -> (tensor<4xf32>, tensor<4xf32>) {{
    %r = grad.reshape %a : tensor<4xf32> to tensor<1x4xf32>
    %d = grad.dot %r, %w : tensor<1x4xf32>, tensor<4x4xf32> to tensor<1x4xf32>
    %v = grad.reshape %d : tensor<1x4xf32> to tensor<4xf32>
    %s = grad.sin %v : tensor<4xf32>
    %t = grad.add %s, %b : tensor<4xf32>
    scf.yield {yielded} : tensor<4xf32>, tensor<4xf32>
  }}
  func.return %h#0, %h#1 : tensor<4xf32>, tensor<4xf32>
}}
"""


# a carried f32 beside the state: a region's results must be tensors
SCALAR = """
func.func @scalar(%a0: tensor<4xf32>, %b0: tensor<4xf32>, %w: tensor<4x4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %z = arith.constant 0.0 : f32
  %h:2 = scf.for %i = %c0 to %c3 step %c1 iter_args(%a = %a0, %acc = %z) -> (tensor<4xf32>, f32) {
    %n = grad.reduce add %a [0] : tensor<4xf32> to tensor<f32>
    %ne = tensor.extract %n[] : tensor<f32>
    %acc2 = arith.addf %acc, %ne : f32
    %r = grad.reshape %a : tensor<4xf32> to tensor<1x4xf32>
    %d = grad.dot %r, %w : tensor<1x4xf32>, tensor<4x4xf32> to tensor<1x4xf32>
    %v = grad.reshape %d : tensor<1x4xf32> to tensor<4xf32>
    %s = grad.sin %v : tensor<4xf32>
    scf.yield %s, %acc2 : tensor<4xf32>, f32
  }
  %e = tensor.from_elements %h#1 : tensor<f32>
  %eb = grad.broadcast %e [] : tensor<f32> to tensor<4xf32>
  func.return %h#0, %eb : tensor<4xf32>, tensor<4xf32>
}
"""

YIELDS = {
    "shift": ("%b, %t", True),  # a <- b, b <- t: b read before it is written
    "unchanged": ("%t, %b", True),
    "swap": ("%b, %a", False),
    "back": ("%t, %a", False),  # a overwritten before b <- a reads it
    "twice": ("%t, %t", False),
}
# periodic checkpointing with segments of one step: the forward sweep's
# stack of segment starts is a `tensor<6x4xf32>` from an empty one, the
# type of the gradient of %xs that the reverse loop's region starts from
PERIOD_ONE = _rnn(
    "period_one", '{"grad.checkpoint" = "periodic", "grad.period" = 1 : i64}'
)
CONFLICTS = "\n".join(
    [_pair(name, yielded) for name, (yielded, _) in YIELDS.items()]
    + [SCALAR, PERIOD_ONE]
)


@functools.cache
def conflicts() -> gradopt.Program:
    return gradopt.Program(CONFLICTS)


def test_loops_iree_cannot_bufferize_in_a_region_stay_on_the_host() -> None:
    """A loop is wrapped only if IREE can write its yields in place (a swap,
    a back-reference or a tensor yielded twice are RaW conflicts) and it
    carries tensors only: any of them in a region made IREE fail on the
    whole program, which then lost every region to the fallback."""
    functions = _functions(_lowered(conflicts().module))
    for name, (_, wrapped) in YIELDS.items():
        regions = [
            op for op in functions[name].walk() if isinstance(op, DispatchRegionOp)
        ]
        assert bool(regions) == wrapped, name
    assert not any(
        isinstance(op, DispatchRegionOp) for op in functions["scalar"].walk()
    )


@pytest.mark.skipif(not HAVE_IREE, reason="needs the iree extra")
def test_conflicting_yields_compile_with_the_other_regions(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """IREE compiles the module with its regions at the first try (no
    fallback: the region of @period_one's reverse loop starts in an empty
    tensor that IREE's CSE no longer takes for the forward sweep's), and
    every function gives the interpreter's results."""
    from gradopt.runtime import iree

    compiled: list[bool] = []
    original = iree._compile

    def recording(text: str, untiled: bool = False) -> bytes:
        compiled.append(iree.DISPATCHED in text)
        return original(text, untiled)

    monkeypatch.setenv(iree.CACHE_LIMIT_VARIABLE, "0")
    monkeypatch.setattr(iree, "_compile", recording)
    source = conflicts()
    fresh = gradopt.Program(CONFLICTS)
    rnn = _arguments("rnn", 6)
    for name in [*YIELDS, "scalar", "period_one"]:
        args = rnn if name == "period_one" else [rnn[0], rnn[1][0], rnn[2]]
        on_iree = fresh.run(args=args, entry=name, backend="iree").results
        expected = source.run(args=args, entry=name).results
        for found, value in zip(on_iree, expected, strict=True):
            np.testing.assert_allclose(found, value, rtol=1e-4, atol=2e-5)
    assert compiled == [True]


def _power(rows: int) -> str:
    """`m <- sin(m a)` for a `rows`x32 `m` and a 32x32 `a`, three times."""
    return f"""
func.func @power(%m0: tensor<{rows}x32xf32>, %a: tensor<32x32xf32>) -> tensor<{rows}x32xf32> {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %m = scf.for %i = %c0 to %c3 step %c1 iter_args(%c = %m0) -> (tensor<{rows}x32xf32>) {{
    %d = grad.dot %c, %a : tensor<{rows}x32xf32>, tensor<32x32xf32> to tensor<{rows}x32xf32>
    %s = grad.sin %d : tensor<{rows}x32xf32>
    scf.yield %s : tensor<{rows}x32xf32>
  }}
  func.return %m : tensor<{rows}x32xf32>
}}
"""


@pytest.mark.parametrize("rows", [3, 4])
def test_a_contraction_too_large_for_one_vector_stays_on_the_host(rows: int) -> None:
    """A 4x32 by 32x32 product (4096 multiply-adds) is one vector IREE
    refuses (16 KB), though no operand is over `VECTOR_ELEMENTS`; 3x32 is
    wrapped."""
    module = _lowered(gradopt.Program(_power(rows)).module)
    wrapped = any(isinstance(op, DispatchRegionOp) for op in module.walk())
    assert wrapped == (rows == 3)


@pytest.mark.skipif(not HAVE_IREE, reason="needs the iree extra")
def test_a_cached_module_the_runtime_refuses_is_replaced_through_the_fallback(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """The entry under the program's key, refused when loaded, is compiled
    again as the first time: without its regions when IREE fails on them
    (the retry compiled the regions only, and the program no longer ran)."""
    from gradopt.runtime import iree

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.setenv(iree.CACHE_LIMIT_VARIABLE, str(1 << 30))
    monkeypatch.setattr(iree_dispatch, "PIPELINE", "Unknown")
    source = gradopt.Program(FORWARD)
    args = _arguments("rnn", 6)[::2]
    source.run(args=args, backend="iree")
    (path,) = iree.cache_dir().glob("*.vmfb")
    iree.write_entry(path, b"not a module", 1 << 30)
    with pytest.warns(iree.CacheWarning, match="unusable"):
        on_iree = gradopt.Program(FORWARD).run(args=args, backend="iree").results
    for found, value in zip(on_iree, source.run(args=args).results, strict=True):
        np.testing.assert_allclose(found, value, rtol=1e-4, atol=2e-5)
    assert iree.read_entry(path, 1 << 30) is not None
