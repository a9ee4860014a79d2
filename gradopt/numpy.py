"""`import gradopt.numpy as gnp`: NumPy's array functions on traced values
(defined in `gradopt.frontend.numpy`)."""

from gradopt.frontend.numpy import *  # noqa: F403
from gradopt.frontend.numpy import __all__ as __all__
