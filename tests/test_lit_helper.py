"""`gradopt.tools.lit.configure`: another repository's lit suite, two files."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

from gradopt.tools.lit import configure

RUN_LIT = "import sys; from lit.main import main; sys.exit(main())"

LIT_CFG = """\
import os
from gradopt.tools.lit import configure

config.name = "elsewhere"
config.test_source_root = os.path.dirname(__file__)
configure(config)
"""

TEST = """\
// RUN: grad-opt %s -p expand-gradient | filecheck %s
// RUN: GRAD_ROUNDTRIP | filecheck %s --check-prefix=SAME
// RUN: EXIT_STATUS grad-opt %s -p no-such-pass | filecheck %s --check-prefix=STATUS
func.func @main(%x: tensor<f32>) -> tensor<f32> {
  %y = grad.mul %x, %x : tensor<f32>
  %g = grad.gradient %y wrt %x : tensor<f32>, tensor<f32>
  func.return %g : tensor<f32>
}
// CHECK-NOT: grad.gradient
// CHECK:     func.return
// SAME:      grad.gradient %y wrt %x
// STATUS:    exit status: 1
"""


def test_a_two_file_suite_elsewhere_runs_with_gradopts_tools(tmp_path: Path) -> None:
    """The README's example: a lit.cfg.py that calls `configure` and one test
    using the tools, a round-trip macro and EXIT_STATUS."""
    (tmp_path / "lit.cfg.py").write_text(LIT_CFG)
    (tmp_path / "step.mlir").write_text(TEST)
    result = subprocess.run(
        [sys.executable, "-c", RUN_LIT, "-v", str(tmp_path)],
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "PASS: elsewhere :: step.mlir" in result.stdout


def test_configure_puts_the_tools_first_on_path_and_defines_the_macros() -> None:
    config = SimpleNamespace(
        environment={"PATH": "/somewhere"}, substitutions=[], suffixes=[]
    )
    configure(config)
    tools = str(Path(sys.executable).parent)
    assert config.environment["PATH"].split(":")[0] == tools
    assert config.environment["PATH"].endswith("/somewhere")
    names = [name for name, _ in config.substitutions]
    assert names == [
        "GRAD_ROUNDTRIP",
        "GRAD_GENERIC_ROUNDTRIP",
        "XDSL_ROUNDTRIP",
        "EXIT_STATUS",
    ]
    assert config.suffixes == [".mlir"]
