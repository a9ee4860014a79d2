"""`import gradopt.nn as gnn`: activations, normalization, convolution and
pooling on traced values (defined in `gradopt.frontend.nn`)."""

from gradopt.frontend.nn import *  # noqa: F403
from gradopt.frontend.nn import __all__ as __all__
