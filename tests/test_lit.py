"""The lit suite in `lit-tests/`, run as one pytest test."""

import subprocess
import sys
from pathlib import Path

LIT_TESTS = Path(__file__).resolve().parent.parent / "lit-tests"


def test_lit_suite() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "lit", "-v", str(LIT_TESTS)],
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stdout + result.stderr
