"""`examples/train_mlp.py` runs, prints a line per epoch, and learns."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path
from types import ModuleType

import pytest

EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "train_mlp.py"


def example() -> ModuleType:
    spec = importlib.util.spec_from_file_location("train_mlp", EXAMPLE)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_train_mlp_on_synthetic_data(capsys: pytest.CaptureFixture[str]) -> None:
    accuracy = example().main(["--data", "synthetic", "--epochs", "3"])
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "synthetic clusters: 1440 training and 360 test examples"
    epochs = [
        re.match(r"epoch +(\d+)  loss (\S+)  test accuracy (\S+)", s) for s in lines
    ]
    losses = [float(m.group(2)) for m in epochs if m]
    assert [int(m.group(1)) for m in epochs if m] == [1, 2, 3]
    assert losses[0] > losses[1] > losses[2]
    assert lines[-1] == f"final test accuracy: {accuracy:.3f}" and accuracy > 0.9


def test_train_mlp_on_the_digits_of_scikit_learn(
    capsys: pytest.CaptureFixture[str],
) -> None:
    pytest.importorskip("sklearn")
    accuracy = example().main(["--data", "digits", "--epochs", "3"])
    assert capsys.readouterr().out.startswith("scikit-learn digits: 1437 training")
    assert accuracy > 0.85


def test_the_readme_python_example_runs(capsys: pytest.CaptureFixture[str]) -> None:
    readme = (EXAMPLE.parent.parent / "README.md").read_text()
    block = re.search(r"## Python\n.*?```python\n(.*?)```", readme, re.S)
    assert block is not None
    namespace: dict[str, object] = {}
    exec(compile(block.group(1), "README.md", "exec"), namespace)
    assert "grad.gradient" in capsys.readouterr().out
    assert namespace["gw"].shape == (4, 3)  # type: ignore[attr-defined]
