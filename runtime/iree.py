"""The IREE backend: programs lowered to upstream MLIR, compiled by IREE for the
CPU and run by its runtime (`backend="iree"`, `grad-run --backend iree`).

It needs the optional extra `iree` (the PyPI packages `iree-base-compiler` and
`iree-base-runtime`); without it, asking for the backend is an error that says
how to install it, and nothing else in gradopt imports IREE.

A program is lowered with `convert-grad-to-standard` (every slot becomes a
tensor argument and a final-value result) and compiled once per `Program`.
Compiled modules are also kept on disk, keyed by the lowered text, the
compiler's and the runtime's versions, the flags and the host CPU, so that
running the same program again, from a new process such as another
`grad-run`, skips the compiler (about half a second for a small program, more
for a large one).

The cache holds native code that the runtime executes, so an entry is read
only if it is a regular file (not a symlink, a FIFO or a device) no larger
than the cache's limit, and only used if the SHA-256 digest stored in it
matches its contents: a truncated, emptied or corrupted entry (one flipped
byte in native code crashed the process or gave wrong results) is deleted,
with a one-line `CacheWarning` naming it, and the program compiled again.
The digest guards against corruption, not against someone who may write the
cache directory, which is created private to the user (0700). The cache is
kept under `GRADOPT_CACHE_MAX_BYTES` (default 1 GiB; 0 turns it off) by
deleting the least recently used entries after each write.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import os
import platform
import re
import stat
import threading
import warnings
from collections.abc import Callable, Mapping, Sequence
from functools import cache
from pathlib import Path
from types import ModuleType
from typing import Any, BinaryIO, TypeVar

import numpy as np
from xdsl.dialects.builtin import ModuleOp

from gradopt.dialect.context import make_context
from gradopt.passes.convert_grad_to_standard import ConvertGradToStandardPass
from gradopt.passes.gather_windows import GATHERED, GatherWindowsPass
from gradopt.runtime.buffers import importable
from gradopt.runtime.iree_branches import copy_branch_results
from gradopt.runtime.iree_caller import call_waiting
from gradopt.runtime.iree_casts import truncate_conversions
from gradopt.runtime.iree_dispatch import DispatchRegionOp, dispatch_loops
from gradopt.runtime.iree_driver import driver_for, products_untiled
from gradopt.runtime.iree_elements import linearize_element_accesses
from gradopt.runtime.iree_errors import compile_failure
from gradopt.runtime.iree_given import GivenBack, drop_given_back
from gradopt.runtime.iree_inserts import insert_elements_as_slices
from gradopt.runtime.iree_loops import MAX_UNROLL, UNROLL_BUDGET, unroll_loops
from gradopt.runtime.iree_packing import Packing, pack_entries
from gradopt.runtime.iree_scalars import widen_carried_scalars
from gradopt.runtime.iree_while import lower_while_loops
from gradopt.support import environment, files

T = TypeVar("T")

INSTALL_HINT = (
    "the iree backend needs IREE, which is not installed: install gradopt's "
    "'iree' extra (pip install 'gradopt[iree]', which brings iree-base-compiler "
    "and iree-base-runtime)"
)

REASSOCIATE = "--iree-llvmcpu-reassociate-fp-reductions=true"

TARGET_FLAGS: tuple[str, ...] = (
    "--iree-hal-target-device=local",
    "--iree-hal-local-target-device-backends=llvm-cpu",
    "--iree-llvmcpu-target-cpu=host",
    REASSOCIATE,
)
"""The flags of every program: the CPU of this machine (vector width and FMA
included), and float sums that may add in another order than written, so
that a reduction is vectorized: the CNN step's `sum(out^2)` took 213 us on
one thread in order and 98 us reassociated, the whole step 5.07-5.21 ms and
4.47-4.64 ms (`iree-benchmark-module --device=local-sync`, the driver of
small programs); on two workers the steps of `bench/iree_flags.py` measured
alike either way (bench/RESULTS.md). IREE's sums never had the
interpreter's bits (it tiles them), and a compiled module still gives the
same bits every call."""

COMPILE_FLAGS: tuple[str, ...] = (
    *TARGET_FLAGS,
    "--iree-opt-data-tiling=true",
    "--iree-llvmcpu-enable-ukernels=mmt4d",
)
"""`TARGET_FLAGS` with matrix products in IREE's tiled layouts and its
hand-written kernel for the tiled product; packing and unpacking are
generated code. Chosen by `bench/iree_flags.py` (bench/RESULTS.md): all of
IREE's hand-written kernels (`=all`, the choice before) made the large MLP,
attention and small steps 10-40% slower on an idle AVX-512 machine, in
every run; without tiled layouts the large MLP step in `grad` ops ran 10%
faster on two workers, but the same step in linalg as JAX writes it 1.57x
slower, and every step slower on one thread; on an AVX2 machine the large
and attention steps 1.17x and 1.6x slower. Small programs of batched
products too: on one thread small attention steps took up to 1.71x the
time untiled (`bench/small_tiling.py`)."""

LOOP_COMPILE_FLAGS: tuple[str, ...] = (
    *TARGET_FLAGS,
    "--iree-stream-resource-alias-mutable-bindings=true",
)
"""The flags for a program with a loop: no tiled layouts, since IREE packs a
matrix product's operands again in every iteration (three more dispatches a
product, the weights' too): half the time of the RNN of `bench/lax_rnn.py`
(bench/RESULTS.md); mutable bindings that may alias, which took a sixth off
the RNN's CPU time, same bits. Not
`--iree-dispatch-creation-enable-aggressive-fusion`, which would make one
dispatch of a reverse step's elementwise ops but gives wrong results on
`examples/train_loop.mlir` with IREE 3.13. Also for a
program whose convolution windows `gather-windows` gathered: IREE then reads
the gathered patches in the matrix products instead of packing them twice,
0.68-0.83x the time of the concat with tiled layouts on the CNN step, where
the gather with tiled layouts made no difference (`bench/gather_windows.py`,
bench/RESULTS.md). And for a small program of plain matrix products
(`iree_driver.products_untiled`): small MLP steps took 0.80-0.96x the time
untiled (`bench/small_tiling.py`)."""

_LOOP = re.compile(r"\bscf\.(for|while)\b|\bcf\.cond_br\b")
"""A loop: structured, or in blocks (`iree_while`)."""
_GATHERED = f'doc = "{GATHERED}"'
DISPATCHED = f'"{DispatchRegionOp.name}"'
"""How a dispatch region (`iree_dispatch`) prints."""

_UNROLLING = f"unroll {MAX_UNROLL} {UNROLL_BUDGET}"
"""How loops are unrolled, part of a compiled module's key: the cache is
keyed by the program before its loops are unrolled (`compile_text`)."""

DRIVER = "local-task"
"""IREE's multithreaded CPU runtime; `load` chooses by the program's size
(`gradopt.runtime.iree_driver`)."""


CACHE_LIMIT_VARIABLE = "GRADOPT_CACHE_MAX_BYTES"
"""The environment variable that overrides `DEFAULT_CACHE_LIMIT`."""

DEFAULT_CACHE_LIMIT = 1 << 30
"""The most bytes the cache keeps (1 GiB): a compiled module is tens of KB for
a small program and a few MB for a large one."""

_MAGIC = b"gradopt iree cache 1\n"
"""How a cache entry starts; the SHA-256 digest of the module follows, then
the module (a `.vmfb`)."""

_DIGEST = 32


class BackendError(Exception):
    """IREE is missing, or failed on a lowered program."""


class CacheWarning(UserWarning):
    """A cache entry was unusable: it is deleted and the program compiled again."""


def _import(name: str) -> ModuleType:
    import importlib

    try:
        return importlib.import_module(name)
    except ImportError:
        raise BackendError(INSTALL_HINT) from None


def installed() -> bool:
    """Whether IREE's compiler and runtime can be imported (imports them)."""
    try:
        _import("iree.compiler")
        _import("iree.runtime")
    except BackendError:
        return False
    return True


def lower(module: ModuleOp) -> str:
    """The text of `module` (with its gradients expanded) lowered to upstream
    dialects, with the windows of a convolution gathered by one op
    (`gather-windows`), the tensors that `scf.if` branches yield copied in the
    branch (`iree_branches`), element accesses outside `linalg` bodies made
    on rank 1 (`iree_elements`), the elements a loop writes written as
    slices (`iree_inserts`), the scalars that control flow carries as
    i64s (`iree_scalars`), scalar float-to-integer conversions
    truncated (`iree_casts`), a program with an `scf.while` in blocks
    (`iree_while`), loops that IREE can compile as one dispatch in a
    dispatch region (`iree_dispatch`), and small loops left on the host
    unrolled (`iree_loops`). The
    module itself is left as it was."""
    lowered = _lowered(module)
    unroll_loops(lowered)
    return _text(lowered)


def _lowered(module: ModuleOp, dispatch: bool = True) -> ModuleOp:
    """`lower` but for the unrolling (and without dispatch regions if not
    `dispatch`)."""
    lowered = module.clone()
    GatherWindowsPass().apply(make_context(), lowered)
    ConvertGradToStandardPass().apply(make_context(), lowered)
    truncate_conversions(lowered)
    copy_branch_results(lowered)
    linearize_element_accesses(lowered)
    insert_elements_as_slices(lowered)
    widen_carried_scalars(lowered)
    lower_while_loops(lowered)
    if dispatch:
        dispatch_loops(lowered)
    return lowered


def _text(lowered: ModuleOp) -> str:
    try:
        return str(lowered)
    except MemoryError:
        raise BackendError(
            "the lowered program is too large to print: out of memory"
        ) from None


def cache_dir() -> Path:
    """Where compiled modules are kept: `$GRADOPT_CACHE_DIR`, else gradopt's
    folder in the user's cache directory."""
    try:
        explicit = environment.directory("GRADOPT_CACHE_DIR")
    except environment.SettingError as error:
        raise BackendError(str(error)) from None
    if explicit is not None:
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


def cache_limit() -> int:
    """The cache's size limit in bytes (`GRADOPT_CACHE_MAX_BYTES`; 0: off)."""
    try:
        return files.limit_from_environment(
            CACHE_LIMIT_VARIABLE, DEFAULT_CACHE_LIMIT, minimum=0
        )
    except files.FileError as error:
        raise BackendError(str(error)) from None


def _key(text: str, untiled: bool = False) -> str:
    """What a compiled module depends on: the program, the compiler and the
    runtime that will load it (a module from another runtime version may
    not load, or load and misbehave), the flags, the CPU."""
    compiler = _import("iree.compiler.version").VERSION
    runtime = _import("iree.runtime.version").VERSION
    flags = compile_flags(text, untiled)
    parts = [text, compiler, runtime, *flags, _host(), _UNROLLING]
    return hashlib.sha256("\0".join(parts).encode()).hexdigest()


def entry_path(text: str, untiled: bool = False) -> Path:
    """The cache entry of the lowered program `text` (`untiled`: see
    `compile_flags`)."""
    return cache_dir() / f"{_key(text, untiled)}.vmfb"


def _discard(path: Path, reason: str) -> None:
    """Delete an unusable entry (the link itself, for a symlink), saying so."""
    try:
        path.unlink()
        done = "deleted it"
    except FileNotFoundError:
        done = "it is gone"
    except OSError as error:
        done = f"could not delete it: {error.strerror}"
    warnings.warn(
        CacheWarning(
            f"IREE cache entry {path} is unusable ({reason}); {done} and "
            f"compiled the program again"
        ),
        stacklevel=4,
    )


def read_entry(path: Path, limit: int) -> bytes | None:
    """The module cached at `path` if it is there and intact (a regular file
    of at most `limit` bytes whose digest matches), else None; an entry that
    is there but unusable is discarded. A hit counts as a use for the
    least-recently-used eviction."""
    try:
        data = files.read_bounded(path, limit, regular_only=True, follow_symlinks=False)
    except FileNotFoundError:
        return None
    except files.FileError as error:
        _discard(path, str(error))
        return None
    except OSError as error:
        reason = error.strerror or str(error)
        if error.errno == errno.ELOOP:  # O_NOFOLLOW met a symlink
            reason = "a symbolic link"
        _discard(path, reason)
        return None
    header = len(_MAGIC) + _DIGEST
    if not data.startswith(_MAGIC) or len(data) < header:
        _discard(path, "not a gradopt cache entry, or truncated")
        return None
    module = data[header:]
    if hashlib.sha256(module).digest() != data[len(_MAGIC) : header]:
        _discard(path, "its contents do not match their digest")
        return None
    with contextlib.suppress(OSError):
        os.utime(path)
    return module


def write_entry(path: Path, module: bytes, limit: int) -> None:
    """Keep `module` at `path` (atomically), then evict the least recently
    used entries beyond `limit`; a module larger than the limit is not kept.
    Raises `OSError` (an unwritable cache only costs the caching)."""
    size = len(_MAGIC) + _DIGEST + len(module)
    if size > limit:
        return
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    with contextlib.suppress(FileNotFoundError):
        # never write through a symlink or into a FIFO that stands there
        if not stat.S_ISREG(path.lstat().st_mode):
            return
    digest = hashlib.sha256(module).digest()

    def write(file: BinaryIO) -> None:
        file.write(_MAGIC)
        file.write(digest)
        file.write(module)

    files.write_atomically(path, write)
    evict(path.parent, limit, keep=path)


def evict(directory: Path, limit: int, keep: Path | None = None) -> list[Path]:
    """Delete the least recently used entries of `directory` until the
    entries add up to at most `limit` bytes (never `keep`, just written);
    returns what was deleted."""
    entries: list[tuple[int, int, Path]] = []
    with contextlib.suppress(OSError):
        for entry in os.scandir(directory):
            if not _ENTRY_NAME.fullmatch(entry.name):
                continue
            with contextlib.suppress(OSError):
                status = entry.stat(follow_symlinks=False)
                if stat.S_ISREG(status.st_mode) and _is_entry(Path(entry)):
                    entries.append((status.st_mtime_ns, status.st_size, Path(entry)))
    total = sum(size for _, size, _ in entries)
    deleted = []
    for _, size, path in sorted(entries):
        if total <= limit:
            break
        if keep is not None and path == keep:
            continue
        with contextlib.suppress(OSError):
            path.unlink()
            total -= size
            deleted.append(path)
    return deleted


_ENTRY_NAME = re.compile(r"[0-9a-f]{64}\.vmfb")
"""The name of a cache entry: its key (`_key`), then `.vmfb`."""


def _is_entry(path: Path) -> bool:
    """Whether `path` starts as gradopt's entries start: eviction deletes only
    what gradopt wrote, not another tool's `.vmfb` kept in the same folder."""
    with open(path, "rb") as file:
        return file.read(len(_MAGIC)) == _MAGIC


def compile_text(
    text: str,
    unrolled: Callable[[], str] | None = None,
    fallback: Callable[[], str] | None = None,
    untiled: bool = False,
) -> bytes:
    """The IREE VM module (a `.vmfb`) for lowered MLIR `text`, from the disk
    cache when it is there and intact. An unwritable cache only costs the
    caching. `unrolled`, if given, makes the text that IREE compiles in the
    place of `text`: the same program with its loops unrolled, which is
    kept under `text`'s key, since printing it takes longer than a cache
    hit (0.6 s for the RNN of `bench/lax_rnn.py`). `fallback`, if given,
    makes the text compiled (and kept under `text`'s key) if IREE fails on
    that one: the program without dispatch regions (`iree_dispatch`).
    `untiled`: see `compile_flags`."""
    limit = cache_limit()
    path = entry_path(text, untiled)
    if limit and (cached := read_entry(path, limit)) is not None:
        return cached
    try:
        vmfb = _compile(text if unrolled is None else unrolled(), untiled)
    except BackendError:
        if fallback is None:
            raise
        vmfb = _compile(fallback(), untiled)
    if limit:
        with contextlib.suppress(OSError):
            write_entry(path, vmfb, limit)
    return vmfb


def compile_flags(text: str, untiled: bool = False) -> tuple[str, ...]:
    """IREE's flags for the lowered program `text`: `LOOP_COMPILE_FLAGS` if
    its products are to be `untiled` (`iree_driver.products_untiled`), or it has a
    loop or gathered windows, else `COMPILE_FLAGS`."""
    untiled = untiled or bool(_LOOP.search(text)) or _GATHERED in text
    return LOOP_COMPILE_FLAGS if untiled else COMPILE_FLAGS


_PACKED_I1 = "'linalg.pack' op expected padding_value has 'i8' but got: 'i1'"
"""IREE 3.13's data tiling packing an i1 operand (a broadcast mask, as in
torch's decomposed attention and its gradient) fails with this; such a
program is compiled without tiled layouts (`LOOP_COMPILE_FLAGS`)."""


def _compile(text: str, untiled: bool = False) -> bytes:
    compiler = _import("iree.compiler")
    flags = compile_flags(text, untiled)
    try:
        try:
            return compiler.compile_str(text, extra_args=list(flags))
        except compiler.CompilerToolError as error:
            if _PACKED_I1 not in str(error) or flags is not COMPILE_FLAGS:
                raise
        return compiler.compile_str(text, extra_args=list(LOOP_COMPILE_FLAGS))
    except compiler.CompilerToolError as error:
        raise BackendError(compile_failure(str(error))) from None


@cache
def _config(driver: str) -> object:
    """One runtime instance and CPU device per driver for the whole process."""
    return _import("iree.runtime").Config(driver)


class IreeModule:
    """A compiled program loaded into the IREE runtime, ready to be called;
    `driver` may also be `local-sync`, which runs on the calling thread.
    An entry in `packings` was compiled to take and give one flat buffer per
    element type (`gradopt.runtime.iree_packing`), one in `given` not to
    return the arguments it gives back (`gradopt.runtime.iree_given`)."""

    def __init__(
        self,
        vmfb: bytes,
        driver: str = DRIVER,
        packings: Mapping[str, Packing] | None = None,
        given: Mapping[str, GivenBack] | None = None,
    ):
        runtime = _import("iree.runtime")
        self.runtime = runtime
        elements = runtime.HalElementType
        self.element_types = {  # what gradopt's f32, i32 and i64 are to IREE
            np.dtype(np.float32): elements.FLOAT_32,
            np.dtype(np.int32): elements.SINT_32,
            np.dtype(np.int64): elements.SINT_64,
        }
        self.dtypes = {int(e): d for d, e in self.element_types.items()}
        self.mappable = int(runtime.MemoryType.HOST_VISIBLE)
        # read once: each enum lookup of the bindings costs a call's microsecond
        self.device_local = runtime.MemoryType.DEVICE_LOCAL
        self.imported = self.device_local | runtime.MemoryType.HOST_VISIBLE
        self.usage = runtime.BufferUsage.DEFAULT
        self.driver = driver
        self.context = runtime.SystemContext(config=_config(driver))
        self.device = self.context.config.device
        try:
            module = runtime.VmModule.copy_buffer(self.context.instance, vmfb)
        except (RuntimeError, ValueError) as error:
            raise BackendError(
                f"IREE could not load the compiled module: {error}"
            ) from None
        self.context.add_vm_module(module)
        self.vm_context: Any = self.context.vm_context
        self.functions = self.context.modules[module.name]
        self.vm_functions: dict[str, object] = {}
        self.packings = dict(packings or {})
        self.given = dict(given or {})
        self.staging = threading.local()
        self.packed_elements = {  # the element type of each packed group's view
            np.dtype(np.uint8): elements.UINT_8,
            **self.element_types,
        }

    def call(
        self,
        entry: str,
        arguments: Sequence[np.ndarray],
        in_place: Sequence[int] = (),
    ) -> list[np.ndarray]:
        """The results of `entry` (its own, then every slot's final value),
        each an array of its own, but that the final value of a slot updated
        in place (whose arguments `in_place` lists) that the entry leaves as
        it was is its argument itself (`iree_given.left_in_place`)."""
        try:
            if (packing := self.packings.get(entry)) is not None:
                return self._call_packed(packing, arguments, in_place)
            if all(
                isinstance(a, np.ndarray) and a.dtype in self.element_types
                for a in arguments
            ):
                outputs = self._invoke(entry, arguments)
            else:  # scalars and bools as IREE's own call converts them
                function = self.functions[entry]
                scalars = [_vm_scalar(a) for a in arguments]
                outputs = self._waiting(lambda: function(*scalars))
        except (RuntimeError, ValueError, IndexError) as error:
            # IREE raises its statuses as these (OUT_OF_RANGE as IndexError)
            if "RESOURCE_EXHAUSTED" in str(error):
                raise BackendError(f"IREE ran out of memory running @{entry}") from None
            raise BackendError(f"IREE failed running @{entry}: {error}") from None
        except MemoryError:
            raise BackendError(f"IREE ran out of memory running @{entry}") from None
        if outputs is None:
            outputs = ()
        elif not isinstance(outputs, tuple | list):
            outputs = (outputs,)
        inputs = [a for a in arguments if isinstance(a, np.ndarray)]
        try:
            results = [self._host(output, inputs) for output in outputs]
            if (given := self.given.get(entry)) is not None:
                return given.results(results, arguments, in_place)
            return results
        except MemoryError:
            raise BackendError(
                f"the results of @{entry} do not fit in memory"
            ) from None

    def _call_packed(
        self,
        packing: Packing,
        arguments: Sequence[np.ndarray | float],
        in_place: Sequence[int],
    ) -> list[np.ndarray]:
        """The results of a packed entry: its arguments copied into this
        thread's packed inputs, its results views of one mapped array per
        group (or copies of the arguments given back)."""
        places, inputs = self._packed_inputs(packing)
        packing.pack(arguments, places)
        outputs = self.runtime.VmVariantList(len(packing.result_groups))
        self._invoke_vm(packing.function, inputs, outputs)
        view = self.runtime.HalBufferView
        results = [
            outputs.get_variant(i).deref(view).map().asarray(*shape)
            for i, shape in enumerate(packing.result_shapes)
        ]
        return packing.unpack(arguments, results, in_place)

    def _packed_inputs(self, packing: Packing) -> tuple[list[np.ndarray], object]:
        """The calling thread's buffers for `packing`'s inputs, allocated by
        IREE once, zeroed (the pads between the arguments stay so): each
        argument's place in them (`Packing.places`), and a list of their
        buffer views ready to invoke with. A fresh buffer each call made the
        small MLP step's call 11 us slower (67 -> 79 us), more than copying
        out the inputs that come back unchanged costs (`Packing.unpack`).
        Each thread has its own, so that concurrent calls do not share them;
        IREE is done reading them when a call returns (the results are
        ready)."""
        staged = getattr(self.staging, "buffers", None)
        if staged is None:
            staged = self.staging.buffers = {}
        if (known := staged.get(packing.function)) is not None:
            return known
        runtime = self.runtime
        inputs = runtime.VmVariantList(len(packing.input_groups))
        flats = []
        for dtype, size in zip(packing.input_groups, packing.input_sizes, strict=True):
            buffer = self.device.allocator.allocate_buffer(
                memory_type=self.imported,
                allowed_usage=self.usage,
                allocation_size=size * dtype.itemsize,
            )
            flat = buffer.map().asarray((size,), dtype)
            flat[...] = 0
            flats.append(flat)
            inputs.push_ref(
                runtime.HalBufferView(buffer, (size,), self.packed_elements[dtype])
            )
        staged[packing.function] = known = packing.places(flats), inputs
        return known

    def _invoke(self, entry: str, arguments: Sequence[np.ndarray]) -> list[object]:
        """`entry`'s results (buffer views, or scalars) on buffer views of
        `arguments`: what IREE's own call does in its dynamic mode, without
        its conversions, which took 0.12 ms a call (more than the small MLP
        step computes in)."""
        runtime = self.runtime
        inputs = runtime.VmVariantList(len(arguments))
        for argument in arguments:
            inputs.push_ref(self._view(argument))
        outputs = runtime.VmVariantList(len(arguments) + 1)
        self._invoke_vm(entry, inputs, outputs)
        return [outputs.get_variant(i) for i in range(len(outputs))]

    def _invoke_vm(self, entry: str, inputs: object, outputs: object) -> None:
        """The VM function `entry` invoked on the lists `inputs` and `outputs`."""
        function = self._function(entry)
        self._waiting(lambda: self.vm_context.invoke(function, inputs, outputs))

    def _waiting(self, call: Callable[[], T]) -> T:
        """`call()`, which waits for IREE: on `local-task`, from a thread of
        lower priority than the workers (`gradopt.runtime.iree_caller`)."""
        return call_waiting(call) if self.driver == "local-task" else call()

    def _function(self, entry: str) -> object:
        if (function := self.vm_functions.get(entry)) is None:
            function = self.functions.vm_module.lookup_function(entry)
            if function is None:
                raise BackendError(f"the compiled module has no function @{entry}")
            self.vm_functions[entry] = function
        return function

    def _view(self, argument: np.ndarray) -> object:
        """A buffer view of `argument`: of its own memory if IREE can read it
        in place (see `gradopt.runtime.buffers`), else of IREE's copy."""
        element = self.element_types[argument.dtype]
        allocator = self.device.allocator
        if not importable(argument):
            return allocator.allocate_buffer_copy(
                memory_type=self.device_local,
                allowed_usage=self.usage,
                device=self.device,
                buffer=np.asarray(argument, order="C"),  # 0-d stays 0-d
                element_type=element,
            )
        buffer = allocator.import_host_allocation(
            argument, memory_type=self.imported, allowed_usage=self.usage
        )
        return self.runtime.HalBufferView(buffer, argument.shape, element)

    def _host(self, output: Any, inputs: Sequence[np.ndarray]) -> np.ndarray:
        """A result as a NumPy array: IREE's buffer mapped, not copied, unless
        it lies in an input's memory."""
        runtime = self.runtime
        if isinstance(output, runtime.VmRef):
            view = output.deref(runtime.HalBufferView)
            dtype = self.dtypes.get(view.element_type)
            if dtype is not None and view.get_buffer().memory_type() & self.mappable:
                array = view.map().asarray(view.shape, dtype)
            else:
                array = runtime.DeviceArray(self.device, view).to_host()
        elif isinstance(output, runtime.DeviceArray):
            array = output.to_host()
        else:
            return np.array(output)  # a scalar result
        if any(np.may_share_memory(array, a) for a in inputs):
            return array.copy()
        return array


def _vm_scalar(argument: object) -> object:
    """An `i1` scalar as the integer the VM holds it as (IREE's call does not
    convert a bool); any other argument as it is."""
    return int(argument) if isinstance(argument, bool | np.bool_) else argument


def load(module: ModuleOp, driver: str | None = None) -> IreeModule:
    """`module` (with its gradients expanded) lowered, its small entries
    packed (`gradopt.runtime.iree_packing`), compiled and loaded on `driver`
    (by default as `gradopt.runtime.iree_driver` chooses). A cached module
    that the runtime refuses (whatever its digest says) is discarded and
    compiled again. A program that IREE fails to compile with its loops in
    dispatch regions is compiled without them."""
    _import("iree.runtime")  # a missing runtime is reported before compiling
    driver = driver or driver_for(module)
    untiled = products_untiled(module)
    lowered = _lowered(module)
    packings = pack_entries(lowered)
    given = drop_given_back(lowered)
    text = _text(lowered)

    @cache
    def unrolled() -> str:
        unroll_loops(lowered)
        return _text(lowered)

    def undispatched() -> str:
        plain = _lowered(module, dispatch=False)
        pack_entries(plain)  # as `lowered`: a function with a loop is not packed
        same = drop_given_back(plain) == given
        assert same, "the results are read as the lowered program's are"
        unroll_loops(plain)
        return _text(plain)

    fallback = undispatched if DISPATCHED in text else None
    try:
        return IreeModule(
            compile_text(text, unrolled, fallback, untiled), driver, packings, given
        )
    except BackendError as error:
        path = entry_path(text, untiled)
        if not path.exists():
            raise
        _discard(path, str(error))
        return IreeModule(
            compile_text(text, unrolled, fallback, untiled), driver, packings, given
        )
