"""The IREE backend: programs lowered to upstream MLIR, compiled by IREE for the
CPU and run by its runtime (`backend="iree"`, `grad-run --backend iree`).

It needs the optional extra `iree` (the PyPI packages `iree-base-compiler` and
`iree-base-runtime`); without it, asking for the backend is an error that says
how to install it, and nothing else in gradopt imports IREE.

A program is lowered with `convert-grad-to-standard` (every slot becomes a
tensor argument and a final-value result) and compiled once per `Program`.
Compiled modules are also kept on disk, keyed by the lowered text, the compiler
version, the flags and the host CPU, so that running the same program again,
from a new process such as another `grad-run`, skips the compiler (about half
a second for a small program, more for a large one).
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import platform
import tempfile
from collections.abc import Sequence
from functools import cache
from pathlib import Path
from types import ModuleType

import numpy as np
from xdsl.dialects.builtin import ModuleOp

from gradopt.context import make_context
from gradopt.passes.convert_grad_to_standard import ConvertGradToStandardPass

INSTALL_HINT = (
    "the iree backend needs IREE, which is not installed: install gradopt's "
    "'iree' extra (pip install 'gradopt[iree]', which brings iree-base-compiler "
    "and iree-base-runtime)"
)

COMPILE_FLAGS: tuple[str, ...] = (
    "--iree-hal-target-device=local",
    "--iree-hal-local-target-device-backends=llvm-cpu",
    "--iree-llvmcpu-target-cpu=host",
)
"""Compile for the CPU of this machine (vector width and FMA included)."""

DRIVER = "local-task"
"""IREE's multithreaded CPU runtime."""


class BackendError(Exception):
    """IREE is missing, or failed on a lowered program."""


def _import(name: str) -> ModuleType:
    import importlib

    try:
        return importlib.import_module(name)
    except ImportError:
        raise BackendError(INSTALL_HINT) from None


def lower(module: ModuleOp) -> str:
    """The text of `module` (with its gradients expanded) lowered to upstream
    dialects. The module itself is left as it was."""
    lowered = module.clone()
    ConvertGradToStandardPass().apply(make_context(), lowered)
    return str(lowered)


def cache_dir() -> Path:
    """Where compiled modules are kept: `$GRADOPT_CACHE_DIR`, else gradopt's
    folder in the user's cache directory."""
    if explicit := os.environ.get("GRADOPT_CACHE_DIR"):
        return Path(explicit)
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join("~", ".cache")
    return Path(base).expanduser() / "gradopt" / "iree"


@cache
def _host() -> str:
    """What a module compiled for `host` depends on: the CPU's model and flags."""
    try:
        with open("/proc/cpuinfo") as file:
            lines = [
                line
                for line in file
                if line.startswith(("model name", "flags", "Features"))
            ]
        return "".join(sorted(set(lines)))
    except OSError:
        return platform.machine() + platform.processor()


def _key(text: str) -> str:
    version = _import("iree.compiler.version").VERSION
    parts = [text, version, *COMPILE_FLAGS, _host()]
    return hashlib.sha256("\0".join(parts).encode()).hexdigest()


def _write_atomically(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(dir=path.parent, suffix=".tmp")
    try:
        with os.fdopen(handle, "wb") as file:
            file.write(data)
        os.replace(temporary, path)
    except BaseException:
        os.unlink(temporary)
        raise


def compile_text(text: str) -> bytes:
    """The IREE VM module (a `.vmfb`) for lowered MLIR `text`, from the disk
    cache when it is there. An unwritable cache only costs the caching."""
    path = cache_dir() / f"{_key(text)}.vmfb"
    try:
        return path.read_bytes()
    except OSError:
        pass
    compiler = _import("iree.compiler")
    try:
        vmfb = compiler.compile_str(text, extra_args=list(COMPILE_FLAGS))
    except compiler.CompilerToolError as error:
        raise BackendError(
            f"IREE could not compile the lowered program:\n{error}"
        ) from None
    with contextlib.suppress(OSError):
        _write_atomically(path, vmfb)
    return vmfb


@cache
def _config(driver: str) -> object:
    """One runtime instance and CPU device per driver for the whole process."""
    return _import("iree.runtime").Config(driver)


class IreeModule:
    """A compiled program loaded into the IREE runtime, ready to be called;
    `driver` may also be `local-sync`, which runs on the calling thread."""

    def __init__(self, vmfb: bytes, driver: str = DRIVER):
        runtime = _import("iree.runtime")
        self.context = runtime.SystemContext(config=_config(driver))
        module = runtime.VmModule.copy_buffer(self.context.instance, vmfb)
        self.context.add_vm_module(module)
        self.functions = self.context.modules[module.name]

    def call(self, entry: str, arguments: Sequence[np.ndarray]) -> list[np.ndarray]:
        """The results of `entry` (its own, then every slot's final value)."""
        try:
            outputs = self.functions[entry](*arguments)
        except (RuntimeError, ValueError) as error:
            raise BackendError(f"IREE failed running @{entry}: {error}") from None
        if outputs is None:
            return []
        if not isinstance(outputs, tuple | list):
            outputs = (outputs,)
        return [np.array(output.to_host()) for output in outputs]


def load(module: ModuleOp) -> IreeModule:
    """`module` (with its gradients expanded) lowered, compiled and loaded."""
    _import("iree.runtime")  # a missing runtime is reported before compiling
    return IreeModule(compile_text(lower(module)))
