# ruff: noqa: F821  (lit injects `config`)
import importlib.util
import os

from gradopt.tools.lit import configure

config.name = "gradopt"
config.test_source_root = os.path.dirname(__file__)
config.excludes = ["lit.cfg.py"]
# the tools on PATH, the internal shell, .mlir tests, the round-trip macros
# and EXIT_STATUS: what any repository testing with gradopt gets
configure(config)

# tests that run programs on IREE (the `iree` extra) say `REQUIRES: iree`
if importlib.util.find_spec("iree") and all(
    importlib.util.find_spec(m) for m in ("iree.compiler", "iree.runtime")
):
    config.available_features.add("iree")
