"""Lazy factories for gradopt's dialects and passes.

Registered as an `xdsl.universe` entry point, so plain `xdsl-opt` knows them;
`grad-opt` uses the same object, and `EXTENDED_DIALECTS` besides.
"""

from __future__ import annotations

from collections.abc import Callable

from xdsl.ir import Dialect
from xdsl.passes import ModulePass
from xdsl.universe import Universe
from xdsl.utils.target import Target

from gradopt.dialect.upstream import DIALECTS as UPSTREAM_DIALECTS


def get_grad_dialect() -> Dialect:
    from gradopt.dialect import Grad

    return Grad


def get_util_dialect() -> Dialect:
    from gradopt.dialect.upstream import util

    return util()


def get_expand_gradient() -> type[ModulePass]:
    from gradopt.passes import ExpandGradientPass

    return ExpandGradientPass


def get_expand_jvp() -> type[ModulePass]:
    from gradopt.passes import ExpandJvpPass

    return ExpandJvpPass


def get_slots_to_tensors() -> type[ModulePass]:
    from gradopt.passes.slots_to_tensors import SlotsToTensorsPass

    return SlotsToTensorsPass


def get_convert_grad_to_standard() -> type[ModulePass]:
    from gradopt.passes.convert_grad_to_standard import ConvertGradToStandardPass

    return ConvertGradToStandardPass


def get_differentiate_module() -> type[ModulePass]:
    from gradopt.passes.differentiate_module import DifferentiateModulePass

    return DifferentiateModulePass


def get_print_op_graph() -> type[ModulePass]:
    from gradopt.passes.print_op_graph import PrintOpGraphPass

    return PrintOpGraphPass


def get_dot_target() -> type[Target]:
    from gradopt.passes.print_op_graph import DotTarget

    return DotTarget


GRADOPT_UNIVERSE = Universe(
    all_dialects={"grad": get_grad_dialect, "util": get_util_dialect},
    all_passes={
        "expand-gradient": get_expand_gradient,
        "expand-jvp": get_expand_jvp,
        "slots-to-tensors": get_slots_to_tensors,
        "convert-grad-to-standard": get_convert_grad_to_standard,
        "print-op-graph": get_print_op_graph,
        "differentiate-module": get_differentiate_module,
    },
    all_targets={"dot": get_dot_target},
)


EXTENDED_DIALECTS: dict[str, Callable[[], Dialect]] = {
    name: factory
    for name, factory in UPSTREAM_DIALECTS.items()
    if name not in GRADOPT_UNIVERSE.all_dialects
}
"""xDSL's `arith`, `tensor`, `linalg` and `math` with the ops gradopt adds
(SPEC §10.5), which `grad-opt` loads in place of xDSL's; not part of the
entry point, so that plain `xdsl-opt` keeps xDSL's own."""
