"""The `xdsl.universe` entry point: gradopt's dialect and passes for plain
`xdsl-opt` (and any tool that reads the installed universes). Importing it
loads no dialect or pass: each is made by a factory when first asked for."""

from gradopt.passes.universe import GRADOPT_UNIVERSE

__all__ = ["GRADOPT_UNIVERSE"]
