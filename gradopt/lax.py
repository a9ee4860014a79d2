"""`import gradopt.lax as lax`: JAX's structured control flow, `fori_loop`,
`scan`, `while_loop`, `cond` and `switch`, emitted as `scf` loops and branches
that gradients go through (SPEC §11); defined in
`gradopt.frontend.control_flow`."""

from gradopt.frontend.control_flow import cond, fori_loop, scan, switch, while_loop

__all__ = ["cond", "fori_loop", "scan", "switch", "while_loop"]
