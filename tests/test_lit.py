"""The lit suite in `lit-tests/`, run as one pytest test (started in the
background when collected: see `conftest.py`)."""

from conftest import LitRun


def test_lit_suite(lit_run: LitRun) -> None:
    status, output = lit_run.wait()
    assert status == 0, output
