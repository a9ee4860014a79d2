"""`backend="auto"`: the interpreter answers while IREE compiles in the
background, IREE from the switch on (`gradopt.runtime.background`).

The compile is held back by an `Event` in a wrapped `iree.load`, so that
each test decides when it ends; no test sleeps."""

from __future__ import annotations

import sys
import threading
import warnings
from collections.abc import Callable, Iterator, Sequence

import numpy as np
import pytest
from test_iree import needs_iree

import gradopt
import gradopt.numpy as gnp
from gradopt import GradoptError, Program
from gradopt.runtime import iree
from gradopt.runtime.background import CompileWarning

PROGRAM = """
func.func @main(%w: memref<4x3xf32>, %x: tensor<5x4xf32>) -> tensor<f32> {
  %wv = grad.load %w : memref<4x3xf32>
  %p = grad.dot %x, %wv : tensor<5x4xf32>, tensor<4x3xf32> to tensor<5x3xf32>
  %q = grad.mul %p, %p : tensor<5x3xf32>
  %l = grad.reduce add %q [0, 1] : tensor<5x3xf32> to tensor<f32>
  %g = grad.gradient %l wrt %wv : tensor<f32>, tensor<4x3xf32>
  %rate = grad.const -0.01 : tensor<4x3xf32>
  %d = grad.mul %g, %rate : tensor<4x3xf32>
  %w2 = grad.add %wv, %d : tensor<4x3xf32>
  grad.store %w2, %w : memref<4x3xf32>
  func.return %l : tensor<f32>
}
"""

RNG = np.random.default_rng(25)
W = RNG.standard_normal((4, 3), np.float32)
X = RNG.standard_normal((5, 4), np.float32)


@pytest.fixture(autouse=True, scope="module")
def fresh_cache(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("GRADOPT_CACHE_DIR", str(tmp_path_factory.mktemp("auto")))
        patch.delenv("GRADOPT_DETERMINISTIC", raising=False)
        yield


class Gate:
    """`iree.load` behind an `Event`: counts its calls, and compiles only
    once `open` is called (`fail` makes it raise instead)."""

    def __init__(self, load: Callable[..., object], fail: bool = False) -> None:
        self.load, self.fail = load, fail
        self.event = threading.Event()
        self.entered = threading.Event()
        self.calls = 0

    def __call__(self, module: object) -> object:
        self.calls += 1
        self.entered.set()
        self.event.wait()
        if self.fail:
            raise iree.BackendError("IREE could not compile the lowered program")
        return self.load(module)

    def open(self) -> None:
        self.event.set()


@pytest.fixture
def gate(monkeypatch: pytest.MonkeyPatch) -> Iterator[Gate]:
    gate = Gate(iree.load)
    monkeypatch.setattr(iree, "load", gate)
    yield gate
    gate.open()  # a test that failed early leaves no thread waiting


def step(
    program: Program, w: np.ndarray, deterministic: bool | None = None
) -> gradopt.RunResult:
    return program.run([w], [X], backend="auto", deterministic=deterministic)


@needs_iree
def test_first_calls_answer_while_iree_compiles_then_switch(gate: Gate) -> None:
    program = Program(PROGRAM)
    expected = program.run([W], [X])
    before = [step(program, W) for _ in range(3)]
    interpreted = W.copy()  # in_place updates the caller's array on both sides
    result = program.run([interpreted], [X], backend="auto", in_place=True)
    assert result.backend == "numpy" and result.slots[0] is interpreted
    assert gate.entered.wait(60) and gate.calls == 1
    assert [r.backend for r in before] == ["numpy"] * 3
    for result in before:  # the interpreter's bits, exactly
        assert result.results[0].tobytes() == expected.results[0].tobytes()
        assert result.slots[0].tobytes() == expected.slots[0].tobytes()
    assert not program.ready(timeout=0)
    gate.open()
    assert program.ready(timeout=60)
    after = step(program, W)
    assert after.backend == "iree" and gate.calls == 1
    np.testing.assert_allclose(after.results[0], expected.results[0], rtol=1e-5)
    np.testing.assert_allclose(after["w"], expected["w"], rtol=1e-5, atol=1e-6)
    compiled = W.copy()
    result = program.run([compiled], [X], backend="auto", in_place=True)
    assert result.backend == "iree" and result.slots[0] is compiled
    assert interpreted.tobytes() == expected["w"].tobytes()
    np.testing.assert_allclose(compiled, expected["w"], rtol=1e-5, atol=1e-6)


@needs_iree
def test_one_compile_for_many_threads(gate: Gate) -> None:
    program = Program(PROGRAM)
    expected = program.run([W], [X])
    backends: list[str] = []
    failures: list[BaseException] = []
    start = threading.Barrier(6)

    def work() -> None:
        try:
            start.wait()
            for _ in range(3):
                result = step(program, W)
                np.testing.assert_allclose(result["w"], expected["w"], rtol=1e-5)
                backends.append(result.backend)
        except BaseException as failure:
            failures.append(failure)

    threads = [threading.Thread(target=work) for _ in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not failures and backends == ["numpy"] * 18 and gate.entered.wait(60)
    gate.open()
    assert program.ready(timeout=60)
    threads = [threading.Thread(target=work) for _ in range(6)]
    start.reset()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not failures and backends[18:] == ["iree"] * 18
    assert gate.calls == 1
    # an explicit "iree" run uses the module "auto" compiled
    assert program.run([W], [X], backend="iree").backend == "iree"
    assert gate.calls == 1


def test_a_failed_compile_warns_once_and_stays_on_the_interpreter(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    gate = Gate(iree.load, fail=True)
    monkeypatch.setattr(iree, "load", gate)
    monkeypatch.setattr(iree, "installed", lambda: True)
    program = Program(PROGRAM, "step.mlir")
    expected = program.run([W], [X])
    assert step(program, W).backend == "numpy"
    gate.open()
    with pytest.warns(CompileWarning) as caught:
        assert not program.ready(timeout=60)
        results = [step(program, W) for _ in range(3)]
        assert not program.ready()
    assert len(caught) == 1
    assert str(caught[0].message) == (
        "backend='auto' stays on the interpreter: step.mlir: error: IREE could "
        "not compile the lowered program\n"
    )
    assert {r.backend for r in results} == {"numpy"} and gate.calls == 1
    assert results[0]["w"].tobytes() == expected["w"].tobytes()


@pytest.mark.parametrize("how", ["argument", "environment"])
def test_deterministic_stays_on_the_interpreter_and_compiles_nothing(
    how: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    gate = Gate(iree.load)
    gate.open()
    monkeypatch.setattr(iree, "load", gate)
    monkeypatch.setattr(iree, "installed", lambda: True)
    if how == "environment":
        monkeypatch.setenv("GRADOPT_DETERMINISTIC", "1")
    program = Program(PROGRAM)
    expected = program.run([W], [X], deterministic=True)
    for _ in range(3):
        result = step(program, W, True if how == "argument" else None)
        assert result.backend == "numpy"
        assert result["w"].tobytes() == expected["w"].tobytes()
    assert gate.calls == 0


def test_without_iree_auto_stays_on_the_interpreter_silently(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    for name in ("iree", "iree.compiler", "iree.runtime"):
        monkeypatch.setitem(sys.modules, name, None)
    program = Program(PROGRAM)
    expected = program.run([W], [X])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        result = gradopt.run(PROGRAM, [W], [X], backend="auto")
        assert not program.ready(timeout=60)
        assert step(program, W).backend == "numpy"
    assert result.backend == "numpy"
    assert result["w"].tobytes() == expected["w"].tobytes()
    with pytest.raises(GradoptError, match="unknown backend: expected numpy, iree"):
        program.run([W], [X], backend="automatic")


@needs_iree
def test_jit_auto_switches_to_iree(gate: Gate, monkeypatch: pytest.MonkeyPatch) -> None:
    fast = gradopt.jit(lambda x: gnp.sum(x * x), backend="auto")
    x = np.arange(6, dtype=np.float32)
    program = fast.compile((x,), {}).program
    compiled: list[str] = []
    run_compiled = program.run_compiled

    def spy(
        entry: str, arguments: list[np.ndarray], in_place: Sequence[int] = ()
    ) -> list[np.ndarray]:
        compiled.append(entry)
        return run_compiled(entry, arguments, in_place)

    monkeypatch.setattr(program, "run_compiled", spy)
    assert float(fast(x)) == 55.0 and not compiled
    gate.open()
    assert program.ready(timeout=60)
    assert float(fast(x)) == 55.0 and compiled == ["main"]
