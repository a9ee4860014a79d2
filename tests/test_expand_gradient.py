"""`expand-gradient` as a Python API: its output, its cost, its invariants."""

from __future__ import annotations

import pytest
from xdsl.dialects.builtin import ModuleOp
from xdsl.transforms.common_subexpression_elimination import (
    CommonSubexpressionElimination,
)
from xdsl.transforms.dead_code_elimination import DeadCodeElimination

from gradopt.dialect.context import make_context
from gradopt.dialect.differentiation import DifferentiationOp
from gradopt.dialect.errors import OpError
from gradopt.dialect.verifier import verify_module
from gradopt.passes import ExpandGradientPass, ExpandJvpPass
from gradopt.support.diagnostics import parse_module


def parse(text: str) -> ModuleOp:
    module = parse_module(make_context(), text, "test.mlir")
    verify_module(module)
    return module


def expand(module: ModuleOp) -> ModuleOp:
    ExpandGradientPass().apply(make_context(), module)
    verify_module(module)
    return module


def op_count(module: ModuleOp) -> int:
    """Ops other than differentiation ops (which the pass removes)."""
    return sum(not isinstance(op, DifferentiationOp) for op in module.walk())


def chain(n: int, targets: str = "%x") -> str:
    """A loss built from `n` ops cycling through several rules."""
    lines = [
        "func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {",
        "  %v0 = grad.sin %x : tensor<4xf32>",
    ]
    kinds = [
        "grad.mul %v{p}, %x",
        "grad.add %v{p}, %v{p}",
        "grad.max %v{p}, %x",
        "grad.neg %v{p}",
    ]
    for i in range(1, n):
        op = kinds[i % len(kinds)].format(p=i - 1)
        lines.append(f"  %v{i} = {op} : tensor<4xf32>")
    lines += [
        f"  %l = grad.reduce add %v{n - 1} [0] : tensor<4xf32> to tensor<f32>",
        f"  %g = grad.gradient %l wrt {targets} : tensor<f32>, tensor<4xf32>",
        "  func.return %g : tensor<4xf32>",
        "}",
    ]
    return "\n".join(lines)


def created_by_expansion(text: str) -> int:
    module = parse(text)
    before = op_count(module)
    return op_count(expand(module)) - before


def test_created_ops_grow_linearly_with_the_graph() -> None:
    small, large = created_by_expansion(chain(200)), created_by_expansion(chain(400))
    assert small > 200
    assert large / small <= 2.1


def weights_program(targets: int, separate_ops: bool = False) -> str:
    """A loss over 50 weight tensors; the gradient is taken w.r.t. the first
    `targets` of them, in one op or in one op per target."""
    lines = [
        "func.func @f(%x: tensor<4xf32>, "
        + ", ".join(f"%w{i}: tensor<4xf32>" for i in range(50))
        + ") {",
        "  %h0 = grad.sin %x : tensor<4xf32>",
    ]
    for i in range(50):
        lines.append(f"  %h{i + 1} = grad.mul %h{i}, %w{i} : tensor<4xf32>")
    lines.append("  %l = grad.reduce add %h50 [0] : tensor<4xf32> to tensor<f32>")
    names = [f"%w{i}" for i in range(targets)]
    if separate_ops:
        for i, name in enumerate(names):
            lines.append(
                f"  %g{i} = grad.gradient %l wrt {name} : tensor<f32>, tensor<4xf32>"
            )
    else:
        results = ", ".join(f"%g{i}" for i in range(targets))
        types = ", ".join(["tensor<4xf32>"] * targets)
        wrt = ", ".join(names)
        lines.append(f"  {results} = grad.gradient %l wrt {wrt} : tensor<f32>, {types}")
    lines += ["  func.return", "}"]
    return "\n".join(lines)


def test_fifty_targets_share_one_walk() -> None:
    one = created_by_expansion(weights_program(1))
    fifty = created_by_expansion(weights_program(50))
    # one target: a share per chain link; fifty: two per link, not fifty walks
    assert fifty <= 2.1 * one
    assert created_by_expansion(weights_program(50, separate_ops=True)) == fifty


def test_output_has_no_differentiation_op_and_is_idempotent() -> None:
    module = expand(parse(chain(50)))
    assert not any(isinstance(op, DifferentiationOp) for op in module.walk())
    once = str(module)
    assert str(expand(module)) == once


def test_expansion_survives_cse_and_dce() -> None:
    module = expand(parse(weights_program(3, separate_ops=True)))
    ctx = make_context()
    CommonSubexpressionElimination().apply(ctx, module)
    DeadCodeElimination().apply(ctx, module)
    verify_module(module)


def test_constants_are_created_once_per_value_and_type() -> None:
    text = str(expand(parse(chain(40))))
    assert text.count("grad.const 0.5 : tensor<4xf32>") == 1
    assert text.count("grad.const 0.0 : tensor<4xf32>") == 1


def test_walk_fails_on_an_op_without_rule_with_the_gradient_op_named() -> None:
    with pytest.raises(OpError) as error:
        parse(
            """
            func.func @f(%x: tensor<3xf32>) -> tensor<3xf32> {
              %p = grad.reduce mul %x [0] : tensor<3xf32> to tensor<f32>
              %g = grad.gradient %p wrt %x : tensor<f32>, tensor<3xf32>
              func.return %g : tensor<3xf32>
            }
            """
        )
    assert error.value.op.name == "grad.gradient"
    assert "'grad.reduce mul' lies on the path" in error.value.message


def test_expand_jvp_keeps_shared_constants_ahead_of_their_uses() -> None:
    """A gradient expanded for a later jvp reuses constants of an earlier jvp's
    expansion only if they come first (found by a dominance check)."""
    module = parse(
        """
        func.func @f(%x: tensor<f32>, %tx: tensor<f32>) -> (tensor<f32>, tensor<f32>) {
          %y = grad.sin %x : tensor<f32>
          %g = grad.gradient %y wrt %x : tensor<f32>, tensor<f32>
          %s = grad.sin %x : tensor<f32>
          %t1 = grad.jvp %s wrt %x, %tx : tensor<f32>, tensor<f32>
          %t2 = grad.jvp %g wrt %x, %tx : tensor<f32>, tensor<f32>
          func.return %t1, %t2 : tensor<f32>, tensor<f32>
        }
        """
    )
    ExpandJvpPass().apply(make_context(), module)
    verify_module(module)


MANY_OPS_OF_ONE_LOSS = """
func.func @f(%x: tensor<f32>, %w: tensor<f32>) -> (tensor<f32>, tensor<f32>) {
  %c = func.call @id(%w) : (tensor<f32>) -> tensor<f32>
  %y = grad.mul %x, %c : tensor<f32>
  %gx = grad.gradient %y wrt %x : tensor<f32>, tensor<f32>
  %gw = grad.gradient %y wrt %w : tensor<f32>, tensor<f32>
  func.return %gx, %gw : tensor<f32>, tensor<f32>
}
func.func @id(%a: tensor<f32>) -> tensor<f32> {
  func.return %a : tensor<f32>
}
"""


def test_shared_path_check_blames_the_op_whose_path_is_invalid() -> None:
    with pytest.raises(OpError) as error:
        parse(MANY_OPS_OF_ONE_LOSS)
    assert error.value.op.results[0].name_hint == "gw"
    assert "'func.call' lies on the path" in error.value.message


def test_gradient_ops_of_one_loss_are_path_checked_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from gradopt.autodiff import paths

    calls: list[int] = []
    check = paths._find_rule_less_op  # pyright: ignore[reportPrivateUsage]

    def counted(*args: object) -> None:
        calls.append(1)
        check(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(paths, "_find_rule_less_op", counted)
    parse(weights_program(50, separate_ops=True))
    assert len(calls) == 1


@pytest.mark.parametrize("enabled", [True, False])
def test_the_pass_leaves_the_cyclic_gc_as_it_found_it(enabled: bool) -> None:
    import gc

    module = parse(chain(20))
    (gc.enable if enabled else gc.disable)()
    try:
        expand(module)
        assert gc.isenabled() == enabled
    finally:
        gc.enable()


def test_the_pass_restores_the_cyclic_gc_when_it_fails() -> None:
    """A walk that raises (here on an op without a rule, verification skipped)
    still turns the collector back on."""
    import gc

    module = parse_module(
        make_context(),
        """
        func.func @f(%x: tensor<3xf32>) -> tensor<3xf32> {
          %p = grad.reduce mul %x [0] : tensor<3xf32> to tensor<f32>
          %g = grad.gradient %p wrt %x : tensor<f32>, tensor<3xf32>
          func.return %g : tensor<3xf32>
        }
        """,
        "test.mlir",
    )
    assert gc.isenabled()
    with pytest.raises(OpError, match=r"'grad\.reduce mul' lies on the path"):
        ExpandGradientPass().apply(make_context(), module)
    assert gc.isenabled()
