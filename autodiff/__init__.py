"""Automatic differentiation (SPEC §4, §5): the derivative registry, which
values lie on a path, the backward and forward walks, and the rules of every
dialect it differentiates (`gradopt.autodiff.rules.<dialect>`, loaded with the
first op of that dialect that a walk or a verifier asks about).

Importing it provides the `grad` dialect's differentiation ops with their path
checks (SPEC §4 rules 2-6), which the dialect promises but cannot implement
itself: they need the registry and the path analysis of this floor.
"""

from gradopt.autodiff.paths import check_differentiable
from gradopt.dialect.differentiation import provide_path_check

provide_path_check(check_differentiable)
