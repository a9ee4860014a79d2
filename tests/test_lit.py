"""The lit suite in `lit-tests/`, run as one pytest test."""

import subprocess
import sys
from pathlib import Path

LIT_TESTS = Path(__file__).resolve().parent.parent / "lit-tests"

# the lit package has no `__main__` module, so `python -m lit` does not work
RUN_LIT = "import sys; from lit.main import main; sys.exit(main())"


def test_lit_suite() -> None:
    result = subprocess.run(
        [sys.executable, "-c", RUN_LIT, "-v", str(LIT_TESTS)],
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stdout + result.stderr
