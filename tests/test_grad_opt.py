"""`GradOptMain`'s hooks into xDSL's driver:
gradopt's verification runs in xDSL's pass callback, errors raised inside a
pass are located at the op xDSL names, and every chunk is processed."""

from __future__ import annotations

import contextlib
import io
import warnings
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
    op_type_rewrite_pattern,
)

from gradopt.dialect.ops import NegOp
from gradopt.tools import grad_opt
from gradopt.universe import GRADOPT_UNIVERSE

PROGRAM = """\
func.func @f(%x: tensor<f32>) -> tensor<f32> {
  %n = grad.neg %x : tensor<f32>
  %a = grad.add %n, %x : tensor<f32>
  func.return %a : tensor<f32>
}
"""


@dataclass(frozen=True)
class MoveNegLastPass(ModulePass):
    """Moves each `grad.neg` to the end of its block: its user then reads it
    before it is defined, which only gradopt's verifier sees."""

    name = "test-move-neg-last"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for neg in [o for o in op.walk() if isinstance(o, NegOp)]:
            block = neg.parent_block()
            assert block is not None and block.last_op is not None
            neg.detach()
            block.insert_op_before(neg, block.last_op)


class _Boom(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: NegOp, rewriter: PatternRewriter) -> None:
        raise ValueError("cannot rewrite this neg")


@dataclass(frozen=True)
class BoomPass(ModulePass):
    """A pass whose pattern fails on `grad.neg`."""

    name = "test-boom"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        PatternRewriteWalker(_Boom()).rewrite_module(op)


@contextlib.contextmanager
def extra_passes() -> Iterator[None]:
    added = {
        MoveNegLastPass.name: lambda: MoveNegLastPass,
        BoomPass.name: lambda: BoomPass,
    }
    GRADOPT_UNIVERSE.all_passes.update(added)
    try:
        yield
    finally:
        for name in added:
            del GRADOPT_UNIVERSE.all_passes[name]


def run(*args: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with (
        extra_passes(),
        contextlib.redirect_stdout(out),
        contextlib.redirect_stderr(err),
    ):
        status = grad_opt.main(list(args))
    return status, out.getvalue(), err.getvalue()


@pytest.fixture
def program(tmp_path: Path) -> Path:
    path = tmp_path / "f.mlir"
    path.write_text(PROGRAM)
    return path


def test_gradopts_verifier_runs_between_passes(program: Path) -> None:
    status, out, err = run(str(program), "-p", "test-move-neg-last,cse")
    assert status == 1 and out == ""
    assert err.startswith(
        f"{program}:3:3: error: 'grad.add' op operand #0 does not dominate this use\n"
    )


def test_disable_verify_skips_it(program: Path) -> None:
    status, out, _ = run(str(program), "-p", "test-move-neg-last", "--disable-verify")
    assert status == 0 and "grad.neg" in out


def test_time_and_print_between_passes_are_xdsls(program: Path) -> None:
    status, out, _ = run(
        str(program), "-p", "cse,dce", "--time-passes", "--print-between-passes"
    )
    assert status == 0
    lines = out.splitlines()
    assert lines[0].startswith("Pass cse took ") and lines[0].endswith(" seconds")
    assert lines[1] == "IR after cse:"
    assert any(line.startswith("Pass dce took ") for line in lines)
    assert out.count("IR after") == 1  # not after the last pass


def test_an_error_inside_a_pass_is_located_at_the_op_xdsl_names(
    program: Path,
) -> None:
    status, out, err = run(str(program), "-p", "test-boom")
    assert status == 1 and out == ""
    first = err.splitlines()[0]
    assert first == (f"{program}:2:3: error: 'grad.neg' op cannot rewrite this neg"), (
        err
    )
    assert "Traceback" not in err


def test_the_verifier_is_restored_after_the_callback(program: Path) -> None:
    """The module's `verify` stands for gradopt's only while xDSL's callback
    runs; the instance keeps no attribute of its own afterwards."""
    seen: list[ModuleOp] = []

    @dataclass(frozen=True)
    class Keep(ModulePass):
        name = "test-keep"

        def apply(self, ctx: Context, op: ModuleOp) -> None:
            seen.append(op)

    GRADOPT_UNIVERSE.all_passes["test-keep"] = lambda: Keep
    try:
        assert run(str(program), "-p", "test-keep")[0] == 0
    finally:
        del GRADOPT_UNIVERSE.all_passes["test-keep"]
    assert "verify" not in vars(seen[0])


def test_deprecation_warnings_are_shown_as_xdsl_opt_shows_them(
    program: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    shown: list[str] = []

    @dataclass(frozen=True)
    class Deprecated(ModulePass):
        name = "test-deprecated"

        def apply(self, ctx: Context, op: ModuleOp) -> None:
            warnings.warn("old API", DeprecationWarning, stacklevel=1)

    def record(
        message: object, category: type, *args: object, **kwargs: object
    ) -> None:
        shown.append(f"{category.__name__}: {message}")

    monkeypatch.setattr(warnings, "showwarning", record)
    GRADOPT_UNIVERSE.all_passes["test-deprecated"] = lambda: Deprecated
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # Python's default hides them
            assert run(str(program), "-p", "test-deprecated")[0] == 0
    finally:
        del GRADOPT_UNIVERSE.all_passes["test-deprecated"]
    assert shown == ["DeprecationWarning: old API"]


def test_an_unknown_file_extension_is_one_error_line(tmp_path: Path) -> None:
    path = tmp_path / "f.txt"
    path.write_text(PROGRAM)
    status, _, err = run(str(path))
    assert status == 1
    assert err == f"{path}: error: Unrecognized file extension 'txt' (use -f mlir)\n"
    assert run(str(path), "-f", "mlir")[0] == 0
