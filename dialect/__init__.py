"""The `grad` dialect: types, ops, verifiers and gradient rules."""

from gradopt.dialect.ops import Grad

__all__ = ["Grad"]
