"""The `grad` dialect (SPEC §2-§3): types, ops with their NumPy kernels,
verifiers, canonicalization and the context programs are read in. The
derivatives of its ops live in `gradopt.autodiff.rules.grad`."""

from xdsl.ir import Dialect

from gradopt.dialect.differentiation import GradientOp, JvpOp, VjpOp
from gradopt.dialect.ops import GRAD_OPS, GradConstantMaterialization
from gradopt.dialect.ops.custom import CustomOp

Grad = Dialect(
    "grad",
    [*GRAD_OPS, CustomOp, GradientOp, VjpOp, JvpOp],
    [],
    [GradConstantMaterialization()],
)

__all__ = ["Grad"]
