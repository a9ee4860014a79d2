"""lit configuration for repositories that test programs with gradopt.

In the `lit.cfg.py` of your test folder:

    import os
    from gradopt.tools.lit import configure

    config.name = "my-models"
    config.test_source_root = os.path.dirname(__file__)
    configure(config)

and a test beside it, `step.mlir`:

    // RUN: grad-opt %s -p expand-gradient | filecheck %s
    // CHECK-NOT: grad.gradient

`configure` makes `grad-opt`, `grad-run`, `xdsl-opt` and `filecheck` of the
Python that runs lit the ones a RUN line finds (first on PATH), runs the tests
with lit's internal shell, takes `.mlir` files as tests, and defines the
substitutions gradopt's own suite uses:

- `GRAD_ROUNDTRIP`: `grad-opt %s --split-input-file | grad-opt --split-input-file`
- `GRAD_GENERIC_ROUNDTRIP`: the same through the generic form
- `XDSL_ROUNDTRIP`: the same with plain `xdsl-opt`
- `EXIT_STATUS cmd ...`: runs cmd, prints its stdout, its stderr and then
  `exit status: N` (lit's `not` only tells zero from non-zero)

`python -m gradopt.tools.lit cmd ...` is what `EXIT_STATUS` runs.
"""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
from collections.abc import Sequence
from typing import Any

ROUNDTRIPS = (
    ("GRAD_ROUNDTRIP", "grad-opt %s --split-input-file | grad-opt --split-input-file"),
    (
        "GRAD_GENERIC_ROUNDTRIP",
        "grad-opt %s --split-input-file --print-op-generic"
        " | grad-opt --split-input-file",
    ),
    ("XDSL_ROUNDTRIP", "xdsl-opt %s --split-input-file | xdsl-opt --split-input-file"),
)
"""Round-trip macros, defined before anything they contain: lit substitutes
in list order."""


def configure(config: Any, suffixes: Sequence[str] = (".mlir",)) -> None:
    """Set up a lit `config` (the object lit injects into `lit.cfg.py`) for
    tests that run gradopt's tools; see the module's documentation.

    The tools are found beside `sys.executable`, the Python running lit (a
    virtual environment's `bin/`), because lit does not pass the shell's PATH
    of an activated environment on by itself when lit is started by path."""
    import lit.formats

    config.test_format = lit.formats.ShTest(execute_external=False)
    config.suffixes = list(suffixes)
    tools = os.path.dirname(sys.executable)
    path = config.environment.get("PATH", os.environ.get("PATH", ""))
    config.environment["PATH"] = tools + os.pathsep + path
    config.substitutions.extend(ROUNDTRIPS)
    exit_status = f"{shlex.quote(sys.executable)} -m gradopt.tools.lit"
    config.substitutions.append(("EXIT_STATUS", exit_status))


def exit_status(command: Sequence[str]) -> int:
    """Run `command`; print its stdout, its stderr, and `exit status: N`."""
    result = subprocess.run(list(command), capture_output=True, text=True)
    sys.stdout.write(result.stdout)
    sys.stdout.write(result.stderr)
    print(f"exit status: {result.returncode}")
    return 0


if __name__ == "__main__":
    sys.exit(exit_status(sys.argv[1:]))
