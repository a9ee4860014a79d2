"""gradopt's passes: `expand-gradient` and `expand-jvp`."""

from gradopt.passes.expand_gradient import ExpandGradientPass
from gradopt.passes.expand_jvp import ExpandJvpPass

__all__ = ["ExpandGradientPass", "ExpandJvpPass"]
