"""The `grad` dialect: types, ops, verifiers and derivatives (SPEC §2-§5)."""

from xdsl.ir import Dialect

from gradopt.dialect import rules  # noqa: F401  (registers the ops' derivatives)
from gradopt.dialect.differentiation import GradientOp, JvpOp, VjpOp
from gradopt.dialect.ops import GRAD_OPS, GradConstantMaterialization

Grad = Dialect(
    "grad",
    [*GRAD_OPS, GradientOp, VjpOp, JvpOp],
    [],
    [GradConstantMaterialization()],
)

__all__ = ["Grad"]
