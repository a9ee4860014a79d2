"""Lazy factories for gradopt's dialect and passes.

Exposed as the `xdsl.universe` entry point (`gradopt.universe`), so that plain
`xdsl-opt` knows them; `grad-opt` uses the same object.
"""

from __future__ import annotations

from xdsl.ir import Dialect
from xdsl.passes import ModulePass
from xdsl.universe import Universe
from xdsl.utils.target import Target


def get_grad_dialect() -> Dialect:
    import gradopt.autodiff  # noqa: F401  (provides the differentiation ops' checks)
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


def get_gather_windows() -> type[ModulePass]:
    from gradopt.passes.gather_windows import GatherWindowsPass

    return GatherWindowsPass


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
        "gather-windows": get_gather_windows,
    },
    all_targets={"dot": get_dot_target},
)
