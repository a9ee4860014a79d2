"""The NumPy interpreter of gradopt programs (SPEC §6)."""

from gradopt.interpreter.executor import Interpreter, Plan, Step

__all__ = ["Interpreter", "Plan", "Step"]
