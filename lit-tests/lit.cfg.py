# ruff: noqa: F821  (lit injects `config`)
import importlib.util
import os
import sys

import lit.formats

config.name = "gradopt"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".mlir"]
config.test_source_root = os.path.dirname(__file__)
config.excludes = ["lit.cfg.py", "inputs"]

# the drivers live beside the Python that runs the tests
tools = os.path.dirname(sys.executable)
config.environment["PATH"] = tools + os.pathsep + os.environ.get("PATH", "")

# round-trip macros first: lit substitutes in list order
config.substitutions.append(
    (
        "GRAD_ROUNDTRIP",
        "grad-opt %s --split-input-file | grad-opt --split-input-file",
    )
)
config.substitutions.append(
    (
        "GRAD_GENERIC_ROUNDTRIP",
        "grad-opt %s --split-input-file --print-op-generic"
        " | grad-opt --split-input-file",
    )
)
config.substitutions.append(
    (
        "XDSL_ROUNDTRIP",
        "xdsl-opt %s --split-input-file | xdsl-opt --split-input-file",
    )
)
# `EXIT_STATUS cmd ...` prints cmd's output, then `exit status: N`
exit_status = os.path.join(config.test_source_root, "inputs", "exit_status.py")
config.substitutions.append(("EXIT_STATUS", f"{sys.executable} {exit_status}"))

# tests that run programs on IREE (the `iree` extra) say `REQUIRES: iree`
if importlib.util.find_spec("iree") and all(
    importlib.util.find_spec(m) for m in ("iree.compiler", "iree.runtime")
):
    config.available_features.add("iree")
