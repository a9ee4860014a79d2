"""`import gradopt.tree_util`: `tree_map`, `tree_leaves`, `tree_structure` and
friends over nested tuples, lists and dicts (defined in
`gradopt.frontend.tree_util`)."""

from gradopt.frontend.tree_util import *  # noqa: F403
from gradopt.frontend.tree_util import __all__ as __all__
