"""The floors of SPEC §1: each folder imports only the folders listed above it.

Every import of a `gradopt` module in the package's sources counts, wherever it
stands: at module level, inside a function, or under `TYPE_CHECKING`.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

FLOORS = (
    "support",
    "dialect",
    "autodiff",
    "passes",
    "interpreter",
    "runtime",
    "frontend",
    "tools",
    "gradopt",
)
"""SPEC §1's folders, ground floor first; `gradopt/` is the public face."""


def floor_of_module(module: str) -> str | None:
    """The folder that holds `module` (`gradopt.dialect.ops` is in `dialect/`,
    `gradopt.numpy` in the face), or None for a module outside gradopt."""
    parts = module.split(".")
    if parts[0] != "gradopt":
        return None
    if len(parts) > 1 and parts[1] in FLOORS:
        return parts[1]
    return "gradopt"


def imported_modules(tree: ast.AST) -> list[tuple[int, str]]:
    """(line, module) for every import in `tree`; `from gradopt import x`
    counts as `gradopt.x`, since x may be a subpackage."""
    found: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            if node.module == "gradopt":
                found += [(node.lineno, f"gradopt.{a.name}") for a in node.names]
            else:
                found.append((node.lineno, node.module))
    return found


def upward_imports(root: Path) -> list[str]:
    """`FILE:LINE: folder imports module (folder of it)` for every import from
    a floor above the importing file's own."""
    errors = []
    for floor in FLOORS:
        allowed = set(FLOORS[: FLOORS.index(floor) + 1])
        for path in sorted((root / floor).rglob("*.py")):
            tree = ast.parse(path.read_text(), str(path))
            for line, module in imported_modules(tree):
                target = floor_of_module(module)
                if target is not None and target not in allowed:
                    where = path.relative_to(root)
                    errors.append(
                        f"{where}:{line}: {floor}/ imports {module}, which is in "
                        f"{target}/, a floor above it"
                    )
    return errors


def test_each_folder_imports_only_the_folders_below_it() -> None:
    assert upward_imports(ROOT) == []


def test_an_upward_import_is_reported_with_its_file_and_line(
    tmp_path: Path,
) -> None:
    for floor in FLOORS:
        (tmp_path / floor).mkdir()
    (tmp_path / "dialect" / "ops.py").write_text(
        "import numpy\n\n\ndef f():\n    from gradopt.autodiff import paths\n"
    )
    (tmp_path / "support" / "files.py").write_text(
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n    from gradopt import runtime\n"
    )
    (tmp_path / "tools" / "run.py").write_text("from gradopt.dialect import ops\n")
    assert upward_imports(tmp_path) == [
        "support/files.py:3: support/ imports gradopt.runtime, which is in "
        "runtime/, a floor above it",
        "dialect/ops.py:5: dialect/ imports gradopt.autodiff, which is in "
        "autodiff/, a floor above it",
    ]


@pytest.mark.parametrize(
    ("module", "floor"),
    [
        ("gradopt.dialect.ops.shapes", "dialect"),
        ("gradopt.autodiff", "autodiff"),
        ("gradopt", "gradopt"),
        ("gradopt.numpy", "gradopt"),
        ("gradopt.universe", "gradopt"),
        ("numpy", None),
        ("xdsl.ir", None),
    ],
)
def test_modules_map_to_their_folders(module: str, floor: str | None) -> None:
    assert floor_of_module(module) == floor


def loaded_after(statement: str) -> set[str]:
    """The gradopt modules that `statement` loads in a fresh interpreter."""
    code = f"{statement}; import sys; print(*[m for m in sys.modules])"
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    return {m for m in out.split() if m.startswith("gradopt")}


def test_the_universe_loads_no_dialect_pass_or_runtime() -> None:
    assert loaded_after("import gradopt.universe") == {
        "gradopt",
        "gradopt.passes",
        "gradopt.passes.universe",
        "gradopt.universe",
    }


def test_rules_load_with_the_first_op_of_their_dialect() -> None:
    loaded = loaded_after(
        "import gradopt.autodiff; from gradopt.dialect.context import make_context"
    )
    assert "gradopt.autodiff.rules.grad" not in loaded
    loaded = loaded_after(
        "import gradopt; gradopt.run('func.func @main(%x: tensor<f32>) -> "
        "tensor<f32> { %y = grad.mul %x, %x : tensor<f32>\\n"
        "%g = grad.gradient %y wrt %x : tensor<f32>, tensor<f32>\\n"
        "func.return %g : tensor<f32> }', args=[1.0])"
    )
    assert "gradopt.autodiff.rules.grad" in loaded


def test_linalg_kernels_load_with_the_first_linalg_op() -> None:
    """linalg's op definitions take longer to load than a small program takes
    to plan: a program with `tensor` ops but no `linalg` runs without them."""

    def modules_running(body: str) -> set[str]:
        program = (
            "func.func @main(%x: tensor<2xf32>) -> tensor<2xf32> {\n"
            f"{body}\nfunc.return %r : tensor<2xf32>\n}}"
        )
        return loaded_after(
            "import gradopt, numpy as np; "
            f"gradopt.run({program!r}, args=[np.ones(2, np.float32)])"
        )

    loaded = modules_running(
        "%e = tensor.extract_slice %x[0] [2] [1] : tensor<2xf32> to tensor<2xf32>\n"
        "%r = tensor.insert_slice %e into %x[0] [2] [1] : "
        "tensor<2xf32> into tensor<2xf32>"
    )
    assert "gradopt.interpreter.upstream" in loaded
    assert "gradopt.interpreter.upstream_linalg" not in loaded
    assert "gradopt.dialect.upstream.linalg" not in loaded
    loaded = modules_running(
        "%e = tensor.empty() : tensor<2xf32>\n"
        "%r = linalg.transpose ins(%x : tensor<2xf32>) outs(%e : tensor<2xf32>) "
        "permutation = [0]"
    )
    assert "gradopt.interpreter.upstream_linalg" in loaded


def test_every_package_folder_is_installed() -> None:
    """pyproject.toml lists each package with its folder (setuptools'
    package-dir cannot find subpackages by itself): a folder left out would
    work in an editable install and be missing from a wheel."""
    tomllib = pytest.importorskip("tomllib")  # Python 3.11 and later
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    folders = {
        str(init.parent.relative_to(ROOT))
        for floor in FLOORS
        for init in (ROOT / floor).rglob("__init__.py")
    }
    expected = {
        "gradopt" if f == "gradopt" else "gradopt." + f.replace("/", "."): f
        for f in folders
    }
    assert config["package-dir"] == expected
    assert sorted(config["packages"]) == sorted(expected)
