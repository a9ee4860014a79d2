"""Running a gradopt program from Python: `gradopt.run` and `Program`.

A program goes through the same steps as in `grad-run`: parse with located
errors, verify, expand every differentiation op, then run the entry function on
inputs converted to its signature. Every error a user can cause is a
`GradoptError` whose text is the rendered `FILE:LINE:COL: error:` report; a
value of the wrong Python type for a parameter is a `TypeError` naming it.

A `Program` may be run from several threads at once: its functions are
planned once, under a lock, and each run has its own values.
"""

from __future__ import annotations

import math
import operator
import threading
from collections.abc import Callable, Mapping, Sequence
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Any, NamedTuple, SupportsIndex, TypeGuard, cast

import numpy as np
from xdsl.dialects.builtin import MemRefType, ModuleOp, TensorType
from xdsl.dialects.func import FuncOp
from xdsl.ir import Attribute
from xdsl.transforms.dead_code_elimination import region_dce
from xdsl.utils.exceptions import DiagnosticException

import gradopt.autodiff  # noqa: F401  (provides the differentiation ops' checks)
from gradopt.dialect.context import make_context
from gradopt.dialect.differentiation import DifferentiationOp
from gradopt.dialect.errors import OpError
from gradopt.dialect.hints import MISSING_OPS
from gradopt.dialect.types import Value, dtype_of, is_i1, is_value_type, layout_of
from gradopt.dialect.verifier import verify_module
from gradopt.interpreter import Interpreter, pool
from gradopt.runtime.background import BackgroundCompile
from gradopt.runtime.threads import (
    blas_threads_for,
    largest_product,
    openblas_splits,
)
from gradopt.support import determinism, environment
from gradopt.support.caches import BoundedCache, module_bytes
from gradopt.support.diagnostics import (
    GradoptError,
    LocatedError,
    Location,
    SourceText,
    locate,
    parse_module,
)

if TYPE_CHECKING:
    from gradopt.runtime.iree import IreeModule

BACKENDS = ("numpy", "iree")
"""Where `run` runs a program: gradopt's NumPy interpreter, or IREE."""

RUN_BACKENDS = (*BACKENDS, "auto")
"""What `Program.run`, `run` and `jit` take: a backend, or `auto` (the
interpreter until IREE has compiled the program in the background, then
IREE), which a one-shot `grad-run` has no use for."""

Inputs = (
    Sequence[object]
    | Mapping[int, object]
    | Mapping[str, object]
    | Mapping[int | str, object]
)
"""Input values in order, or by index or by name (`"w"` for the entry's block
argument `%w`); those not given start as zeros. Each value (an array of any
dtype, a nested list, a Python number) is converted to the declared element
type as `numpy.asarray(value, dtype)` converts it, and must then have
exactly the declared shape."""


def no_such_input(kind: str, count: int) -> str:
    """What an input index past the entry function's `count` inputs of `kind`
    (slot, arg) is told."""
    return f"no such {kind}: the entry function has {count} {kind}{'s' * (count != 1)}"


def _too_large(type: Attribute) -> str:
    return f"{type} is too large to allocate"


def zeros_of(type: MemRefType | Value) -> np.ndarray:
    """Zeros of `type`; a `ValueError` saying so when they cannot be allocated."""
    element, shape = layout_of(type)
    try:
        return np.zeros(shape, dtype_of(element))
    except (MemoryError, ValueError):  # NumPy's "Maximum allowed dimension"
        raise ValueError(_too_large(type)) from None


@dataclass(frozen=True, repr=False)
class Signature:
    """The entry function's slots (memref arguments), staged inputs (tensor
    arguments) and results, each numbered in order among its kind, with the
    names the IR gives them (`w` for `%w`; None where it gives none)."""

    slots: tuple[MemRefType, ...]
    args: tuple[Value, ...]
    results: tuple[Value, ...]
    slot_names: tuple[str | None, ...] = ()
    arg_names: tuple[str | None, ...] = ()
    result_names: tuple[str | None, ...] = ()
    entry: str = "main"

    def __str__(self) -> str:
        """`@main(slot 0 %xs: memref<5xf32>, arg 0 %x: tensor<f32>) ->
        (result 0 %g: tensor<f32>)`: the types as MLIR prints them."""

        def part(
            kind: str, types: Sequence[Attribute], names: Sequence[str | None]
        ) -> list[str]:
            padded = [*names, *[None] * (len(types) - len(names))]
            return [
                f"{kind} {i}{f' %{name}' if name else ''}: {type}"
                for i, (type, name) in enumerate(zip(types, padded, strict=False))
            ]

        inputs = part("slot", self.slots, self.slot_names)
        inputs += part("arg", self.args, self.arg_names)
        results = part("result", self.results, self.result_names)
        return f"@{self.entry}({', '.join(inputs)}) -> ({', '.join(results)})"

    __repr__ = __str__

    @cached_property
    def named_slots(self) -> tuple[tuple[str, int], ...]:
        """The slots that have a name, with their indices."""
        return tuple((name, i) for i, name in enumerate(self.slot_names) if name)

    @cached_property
    def named_results(self) -> tuple[tuple[str, int], ...]:
        """The results that have a name that no slot or earlier result has."""
        taken = {name for name, _ in self.named_slots}
        named = []
        for i, name in enumerate(self.result_names):
            if name and name not in taken:
                taken.add(name)
                named.append((name, i))
        return tuple(named)

    @cached_property
    def named_outputs(self) -> tuple[tuple[str, bool, int], ...]:
        """`named_slots` and `named_results` in one: each name, whether it
        is a slot's, and its index among the slots or the results."""
        slots = tuple((name, True, i) for name, i in self.named_slots)
        return slots + tuple((name, False, i) for name, i in self.named_results)


@dataclass
class RunResult:
    """The entry function's results, then the final contents of every slot.

    `named` holds the same arrays by the names the IR gives them: each slot
    by its block argument's name (`result["w"]` for `%w`), each result by the
    name of the value `func.return` returns (`%g`), where it has one that no
    slot and no earlier result has. Staged inputs are not outputs and have
    no entry."""

    results: list[np.ndarray]
    slots: list[np.ndarray]
    backend: str = "numpy"
    """The backend that ran the program ("numpy" or "iree"): with
    `backend="auto"`, which one answered this call."""
    names: tuple[tuple[str, bool, int], ...] = field(default=(), repr=False)
    """Each name of `named`, whether it is a slot's, and its index among the
    slots or the results (`Signature.named_outputs`)."""

    @cached_property
    def named(self) -> Mapping[str, np.ndarray]:
        """Made when first read: a run that is not asked for its names (a
        training loop's) does not pay for them (1.4 us of the small MLP
        step's 54 on IREE, with a frozen dataclass's `__init__`)."""
        return {
            name: (self.slots if slot else self.results)[i]
            for name, slot, i in self.names
        }

    def __getitem__(self, name: str) -> np.ndarray:
        """The slot or result the IR names `name` (without its `%`)."""
        try:
            return self.named[name]
        except KeyError:
            known = ", ".join(f"'{n}'" for n in self.named) or "none"
            raise KeyError(
                f"no slot or result is named '{name}' (named: {known})"
            ) from None


class Program:
    """A module parsed, verified, with its gradients expanded and its functions
    planned: ready to run any number of times."""

    def __init__(self, program: ModuleOp | str, filename: str = "<input>"):
        if not isinstance(program, ModuleOp | str):
            hint = " (decode it first)" if isinstance(program, bytes) else ""
            raise TypeError(
                f"program must be a ModuleOp or its text (a str), not "
                f"{type(program).__name__}{hint}"
            )
        if not isinstance(filename, str):
            raise TypeError(f"filename must be a str, not {type(filename).__name__}")
        self.filename = filename
        self.source = SourceText()
        self.iree_module: IreeModule | None = None
        self._iree_lock = threading.Lock()
        self._background = BackgroundCompile(self._compile_if_installed)
        self._entries: dict[str, _Entry] = {}
        try:
            if isinstance(program, str):
                self.source.add(filename, program)
                parsed = parse_module(
                    make_context(), program, filename, hints=MISSING_OPS
                )
                # ours alone: expanded in place, not copied (half the memory
                # of a large program)
                self.module = _prepared(parsed, copy=False)
            else:
                self.module = _prepared(program, copy=True)
            _check_sizes(self.module)
            self.interpreter = Interpreter(self.module)
        except LocatedError as error:
            raise GradoptError(error, self.source) from None
        except OpError as error:
            raise self.located(error) from None
        except DiagnosticException as error:  # a pass failing on the whole module
            raise self.error(filename, str(error)) from None

    def located(self, error: OpError) -> GradoptError:
        """`error` at the source locations of the ops it names."""
        located = locate(error.op, error.describe(), error.notes, self.filename)
        return GradoptError(located, self.source)

    def error(self, what: str, message: str) -> GradoptError:
        """An error about `what` (a file or an input) rather than a source line."""
        return GradoptError(LocatedError(Location(what, 0, 0), message), self.source)

    def function(self, entry: str) -> FuncOp:
        for op in self.module.ops:
            if isinstance(op, FuncOp) and op.sym_name.data == entry:
                if op.is_declaration:
                    raise self.error(self.filename, f"@{entry} has no body to run")
                return op
        raise self.error(self.filename, f"no function @{entry} to run")

    def signature(self, entry: str = "main") -> Signature:
        """The kinds of value that `run` takes and gives for `entry`, with
        their names; `print` it to see them as MLIR types. Read once per
        entry: the module does not change once prepared."""
        return self.entry(entry).signature

    def entry(self, entry: str) -> _Entry:
        """What `run` needs to know of `entry`, read from its types once."""
        if (known := self._entries.get(entry)) is None:
            try:
                signature = self._signature(entry)
            except OpError as error:  # a dynamic shape
                raise self.located(error) from None
            order = tuple(
                isinstance(type, MemRefType)
                for type in self.function(entry).function_type.inputs
            )
            known = self._entries[entry] = _Entry(
                signature,
                tuple(map(_Layout.of, signature.slots)),
                tuple(map(_Layout.of, signature.args)),
                order,
                tuple(map(_Layout.of, signature.results)),
                tuple(not isinstance(type, TensorType) for type in signature.args),
                order == tuple(sorted(order, reverse=True)),
            )
        return known

    def _signature(self, entry: str) -> Signature:
        function = self.function(entry)
        slots: list[MemRefType] = []
        args: list[Value] = []
        slot_names: list[str | None] = []
        arg_names: list[str | None] = []
        for i, (type, value) in enumerate(
            zip(function.function_type.inputs, function.body.block.args, strict=True)
        ):
            if isinstance(type, MemRefType):
                slots.append(type)
                slot_names.append(value.name_hint)
            elif is_value_type(type):
                args.append(type)
                arg_names.append(value.name_hint)
            else:
                raise self.error(
                    self.filename,
                    f"argument {i} of @{entry} is {type}: only tensors, memrefs and "
                    f"f32, i32 or i1 scalars can be passed to an entry function",
                )
        for i, type in enumerate(function.function_type.inputs):
            _check_static(f"argument {i}", type, function)
        results: list[Value] = []
        for i, type in enumerate(function.function_type.outputs):
            _check_static(f"result {i}", type, function)
            if not is_value_type(type):
                raise self.error(
                    self.filename,
                    f"result {i} of @{entry} is {type}: an entry function can "
                    f"only return tensors and f32, i32 or i1 scalars",
                )
            results.append(type)
        terminator = function.body.block.last_op
        returned = terminator.operands if terminator is not None else ()
        result_names = tuple(value.name_hint for value in returned)
        if len(result_names) != len(results):
            result_names = (None,) * len(results)
        return Signature(
            tuple(slots),
            tuple(args),
            tuple(results),
            tuple(slot_names),
            tuple(arg_names),
            result_names,
            entry,
        )

    def run(
        self,
        slots: Inputs | None = None,
        args: Inputs | None = None,
        entry: str = "main",
        backend: str = "numpy",
        *,
        deterministic: bool | None = None,
        in_place: bool = False,
    ) -> RunResult:
        """Run `entry` on copies of the slots (updated there; the result holds
        them); staged inputs are only read (an aligned C-ordered array of
        the right dtype where it is), and no result shares memory with any
        input. `backend` is `numpy` (the interpreter)
        or `iree` (compiled by IREE on the first run, needs the `iree` extra;
        IREE only reads its inputs, so it reads aligned arrays in place, and
        its results are new arrays that alias no input).

        `in_place=True` asks for no copies of the slots: each given slot must
        be a writable, C-ordered NumPy array of exactly the declared dtype and
        shape, the run updates it in place, and the result's slots are those
        arrays (a training loop keeps its weights in them between calls).

        On the interpreter, runs keep buffers for the program's large
        intermediates from one to the next (`gradopt.interpreter.pool`).

        `backend="auto"` runs on the interpreter while IREE compiles the
        program on a background thread (started once the first such run has
        answered), and on IREE from the first run after the compiled module
        is there (see `ready`); without IREE, or if IREE fails to compile
        the program (a `CompileWarning`, once), it stays on the interpreter.
        The bits can change at the switch (IREE's sums may add in another
        order); the result's `backend` says which one answered.

        `deterministic` (default: the `GRADOPT_DETERMINISTIC` environment
        variable) runs NumPy's BLAS on one thread during the run, so that
        the bits of `dot` do not depend on the machine's thread count (see
        `gradopt.support.determinism`); it changes nothing on IREE, and
        keeps "auto" on the interpreter, compiling nothing. Without it, the
        threads depend on the program's largest product
        (`gradopt.runtime.threads`)."""
        if backend not in RUN_BACKENDS:
            raise self.error(backend, "unknown backend: expected numpy, iree or auto")
        _check_flag("deterministic", deterministic, "True, False or None")
        _check_flag("in_place", in_place, "True or False")
        known = self.entry(entry)
        signature = known.signature
        compile_after = False
        if backend == "auto":
            if deterministic is None:
                deterministic = self._deterministic_from_environment()
            # started once the interpreter has answered, so that the first
            # call does not share the GIL with the lowering
            compile_after = not deterministic
            iree = compile_after and self._background.compiled()
        else:
            iree = backend == "iree"
        if in_place:
            slot_values = self.in_place_slots(known, slots)
        else:
            slot_values = self.inputs(
                "slot", known.slots, slots, signature.slot_names, iree
            )
        # read in place by either backend: neither writes a staged input
        arg_values = self.inputs("arg", known.args, args, signature.arg_names, True)
        arguments = known.arguments(slot_values, arg_values, iree)
        if iree:
            count = len(signature.results)
            in_place_slots = known.slot_arguments() if in_place else ()
            values = self.run_compiled(entry, arguments, in_place_slots)
            results = [
                np.asarray(value, layout.dtype)  # IREE gives a scalar as a float
                for value, layout in zip(values[:count], known.results, strict=True)
            ]
            if not in_place:
                return _result(signature, results, values[count:], "iree")
            # IREE returns new arrays: written through to the caller's, but
            # for the slots given back as they came
            for slot, final in zip(slot_values, values[count:], strict=True):
                if final is not slot:
                    np.copyto(slot, final)
            return _result(signature, results, slot_values, "iree")
        results = self.interpret(entry, arguments, deterministic)
        if compile_after:
            self._background.start()
        return _result(signature, results, slot_values)

    def interpret(
        self,
        entry: str,
        arguments: list[object],
        deterministic: bool | None,
    ) -> list[np.ndarray]:
        """The results of `entry` run by the interpreter on `arguments` (the
        entry's inputs in order, of its types), each an array of its own:
        none is an argument or shares its memory. The plans' kept buffers
        hold the large intermediates (`gradopt.interpreter.pool`)."""
        try:
            if deterministic is None:
                deterministic = determinism.from_environment()
            threads = (
                determinism.single_threaded_blas()
                if deterministic
                else self.blas_threads
            )
            with threads, pool.keeping():
                values = self.interpreter.call(entry, arguments)
        except OpError as error:
            raise self.located(error) from None
        except determinism.DeterminismError as error:
            raise self.error("deterministic", str(error)) from None
        try:
            return _owned(values, arguments)
        except MemoryError:  # a broadcast value, say, copied in full
            raise self.error(
                self.filename, f"the results of @{entry} do not fit in memory"
            ) from None

    def run_staged(self, values: Sequence[object], backend: str) -> list[np.ndarray]:
        """The results of `@main`, whose inputs are all staged, on `values`:
        for the front end, whose trace is keyed by its inputs' dtypes and
        shapes, so that each value converts to its input's type as it is
        (no signature check, no `RunResult`). Each is converted as `run`
        converts it; the interpreter reads an aligned C-ordered array of the
        right dtype in place, and so does IREE (or copies it). `auto`, and
        an entry with slots, go through `run`."""
        known = self.entry("main")
        if backend not in BACKENDS or known.slots:
            return self.run(args=values, backend=backend).results
        iree = backend == "iree"
        if _exact(values, known.args):  # as a training loop passes them
            arrays = list(cast(Sequence[np.ndarray], values))
        else:
            arrays = []
            for value, layout in zip(values, known.args, strict=True):
                array = np.asarray(value, layout.dtype, order="C")
                arrays.append(array if array.flags.aligned else array.copy())
        arguments = known.arguments((), arrays, iree)
        if not iree:
            return self.interpret("main", arguments, None)
        return [
            np.asarray(value, layout.dtype)  # IREE gives a scalar as a float
            for value, layout in zip(
                self.run_compiled("main", arguments), known.results, strict=True
            )
        ]

    @cached_property
    def largest_product(self) -> int:
        """The multiply-adds of the program's largest `dot`, by which a run
        chooses BLAS's threads (`gradopt.runtime.threads`)."""
        return largest_product(self.module)

    @cached_property
    def blas_threads(self) -> AbstractContextManager[object]:
        """How a run that is not deterministic sets BLAS's threads, chosen once
        by the largest product (entered again by each run). With OpenBLAS,
        whose own choice is one thread for every product of a program such
        as the small MLP step, no limit: setting it and lifting it again
        took 5-6 us a run, which changed nothing (`openblas_splits`)."""
        if determinism.blas_threads() is not None and not openblas_splits(self.module):
            return nullcontext()
        return blas_threads_for(self.largest_product)

    def run_compiled(
        self, entry: str, arguments: list[np.ndarray], in_place: Sequence[int] = ()
    ) -> list[np.ndarray]:
        """The results and final slots of `entry` run by IREE (that of a slot
        updated in place, whose arguments `in_place` lists, that the entry
        leaves as it was is the slot itself: `IreeModule.call`); the program
        is compiled on the first call (imported lazily: IREE is optional)."""
        module = self.iree_module or self.compile_iree()
        try:
            return module.call(entry, arguments, in_place)
        except _backend_error() as error:  # evaluated only on an exception
            raise self.error(self.filename, str(error)) from None

    def compile_iree(self) -> IreeModule:
        """The program compiled by IREE: once, whichever threads ask (a
        compile under way in the background is waited for)."""
        from gradopt.runtime.iree import BackendError, load

        try:
            with self._iree_lock:
                if self.iree_module is None:
                    self.iree_module = load(self.module)
                return self.iree_module
        except OpError as error:
            raise self.located(error) from None
        except BackendError as error:
            raise self.error(self.filename, str(error)) from None

    def _compile_if_installed(self) -> bool:
        """`compile_iree` for the background compile: False without IREE."""
        from gradopt.runtime.iree import installed

        if not installed():
            return False
        self.compile_iree()
        return True

    def ready(self, timeout: float | None = None) -> bool:
        """Whether `backend="auto"` now runs on IREE (unless deterministic,
        which keeps it on the interpreter): waits up to `timeout` seconds
        (None: as long as it takes) for IREE's compile, starting it in the
        background if no run has (`ready(0)` only starts it). False without
        IREE, when the compile failed (a `CompileWarning`, once), or when
        the time ran out."""
        self._background.start()
        return self._background.compiled(timeout)

    def _deterministic_from_environment(self) -> bool:
        try:
            return determinism.from_environment()
        except determinism.DeterminismError as error:
            raise self.error("deterministic", str(error)) from None

    def inputs(
        self,
        kind: str,
        layouts: Sequence[_Layout],
        given: Inputs | None,
        names: Sequence[str | None] = (),
        read_only: bool = False,
    ) -> list[np.ndarray]:
        """Fresh arrays for `layouts`: the given values converted and checked,
        or zeros (`given_values`). `read_only`: for a run that only reads its
        inputs (IREE's), an input of the right dtype and order is not copied
        (`checked`)."""
        if read_only and _exact(given, layouts):
            return [] if given is None else list(cast(Sequence[np.ndarray], given))
        values = self.given_values(kind, layouts, given, names)
        return [
            self.checked(kind, i, layout, value, read_only)
            for i, (layout, value) in enumerate(zip(layouts, values, strict=True))
        ]

    def given_values(
        self,
        kind: str,
        layouts: Sequence[_Layout],
        given: Inputs | None,
        names: Sequence[str | None],
    ) -> list[object]:
        """The value given for each of `layouts`, None for those not given:
        `given` is a sequence, or a mapping by index or by name."""
        count = len(layouts)
        if given is None:
            return [None] * count
        sequence = type(given) is list or type(given) is tuple  # as most pass them
        if sequence or (
            isinstance(given, Sequence | np.ndarray)
            and not isinstance(given, str | bytes)
        ):
            values = list(given)
            if len(values) > count:
                raise self.error(f"{kind} {count}", no_such_input(kind, count))
            return values + [None] * (count - len(values))
        if not isinstance(given, Mapping):
            raise TypeError(
                f"{kind}s must be a sequence of values or a mapping from "
                f"indices or names to values, not {type(given).__name__}"
            )
        by_index: dict[int, object] = {}
        for key, value in given.items():
            index = self.index_of(kind, key, count, names)
            if index in by_index:
                raise self.error(f"{kind} {key}", f"{kind} {index} is given twice")
            by_index[index] = value
        return [by_index.get(i) for i in range(count)]

    def in_place_slots(self, entry: _Entry, given: Inputs | None) -> list[np.ndarray]:
        """The caller's slot arrays themselves, each checked to be exactly of
        its slot's type, writable and C-ordered; slots not given are zeros."""
        layouts = entry.slots
        values = self.given_values("slot", layouts, given, entry.signature.slot_names)
        owners: set[int] = set()  # the arrays that own their memory, as made by NumPy
        for i, (value, layout) in enumerate(zip(values, layouts, strict=True)):
            # an array as a training loop passes it (else `in_place_slot`)
            flags = _flags_if_exact(value, layout)
            if flags is not None and flags.writeable and flags.c_contiguous:
                if flags.owndata and cast(np.ndarray, value).base is None:
                    owners.add(id(value))
            else:
                values[i] = self.in_place_slot(i, layout, value)
        arrays = cast(list[np.ndarray], values)
        if len(owners) < len(arrays):  # else none can share memory with another
            _check_disjoint(arrays, self.error)
        return arrays

    def in_place_slot(self, index: int, layout: _Layout, value: object) -> np.ndarray:
        """Slot `index` for `in_place_slots` where it is not an array of exactly
        its slot's type, writable and C-ordered: zeros for None, an array
        (of a subclass) that is, or else the error that says why not."""
        if value is None:
            return self.checked("slot", index, layout, None)
        if not isinstance(value, np.ndarray):
            mismatch = f"expected a NumPy array, got {_described(value)}"
        elif (mismatch := layout.mismatch(value)) is None:
            flags = value.flags
            if flags.writeable and flags.c_contiguous:
                return value
            mismatch = "in_place needs a writable, C-ordered array"
        raise self.error(f"slot {index}", mismatch)

    def index_of(
        self, kind: str, key: object, count: int, names: Sequence[str | None]
    ) -> int:
        """The index that the key `key` of a `slots` or `args` mapping names."""
        if isinstance(key, str):
            name = key.removeprefix("%")
            if name in names:
                return names.index(name)
            known = ", ".join(f"%{n}" for n in names if n) or "none has a name"
            raise self.error(f"{kind} '{key}'", f"no {kind} is named %{name} ({known})")
        index = None
        if isinstance(key, SupportsIndex) and not isinstance(key, bool):
            index = operator.index(key)  # an int, or a NumPy integer
        if index is None:
            raise TypeError(
                f"{kind}s: a key must be an index (int) or a name (str), not "
                f"{type(key).__name__} {key!r}"
            )
        if not 0 <= index < count:
            raise self.error(f"{kind} {index}", no_such_input(kind, count))
        return index

    def checked(
        self,
        kind: str,
        index: int,
        layout: _Layout,
        value: object | None,
        read_only: bool = False,
    ) -> np.ndarray:
        """A fresh C-ordered array of `layout` holding `value` (`kind`
        `index`: slot 0, say) converted as `numpy.asarray(value, dtype)`
        converts it, or zeros for None. With `read_only`, `value` itself if
        it is such an array and aligned (the interpreter reads it in place;
        so does IREE if it can, else it copies it: `gradopt.runtime.buffers`)."""
        if read_only and _as_is(value, layout):
            return value  # as the conversion below would, at a fraction of its cost
        dtype, shape, declared = layout.dtype, layout.shape, layout.type
        if value is None:
            try:
                return zeros_of(declared)
            except ValueError as error:
                raise self.error(f"{kind} {index}", str(error)) from None
        try:
            convert = np.asarray if read_only else np.array
            array = convert(value, dtype, order="C")
        except (TypeError, ValueError, OverflowError) as error:
            raise self.error(
                f"{kind} {index}",
                f"cannot convert {_described(value)} to {dtype} for {declared}: "
                f"{error}",
            ) from None
        except MemoryError:
            raise self.error(f"{kind} {index}", _too_large(declared)) from None
        if array.shape != shape:
            raise self.error(
                f"{kind} {index}",
                f"expected {dtype} data of shape {shape} for {declared}, got "
                f"{_described(value)} of shape {array.shape}",
            )
        return array if array.flags.aligned else array.copy()


def _exact(given: Inputs | None, layouts: Sequence[_Layout]) -> bool:
    """Whether `given` is a list or tuple of one array `_as_is` for each
    layout (none, if there is no layout and no value), which a run that only
    reads its inputs takes as they are, as `Program.checked` would, in less
    time."""
    if given is None:
        return not layouts
    if not (type(given) is list or type(given) is tuple) or len(given) != len(layouts):
        return False
    return all(map(_as_is, given, layouts))


def _as_is(value: object, layout: _Layout) -> TypeGuard[np.ndarray]:
    """Whether `value` is a C-ordered aligned array of exactly `layout`'s
    dtype and shape."""
    flags = _flags_if_exact(value, layout)
    return flags is not None and flags.c_contiguous and flags.aligned


def _flags_if_exact(value: object, layout: _Layout) -> Any:
    """The flags of `value` if it is a NumPy array (not of a subclass) of
    exactly `layout`'s dtype and shape, else None."""
    if (
        type(value) is np.ndarray
        and value.dtype == layout.dtype
        and value.shape == layout.shape
    ):
        return value.flags
    return None


def _backend_error() -> type[Exception]:
    """IREE's `BackendError`, imported when a call fails: importing it at each
    call took 1.7 us of the small MLP step's 0.09 ms on IREE."""
    from gradopt.runtime.iree import BackendError

    return BackendError


def _owned(values: Sequence[object], inputs: Sequence[object]) -> list[np.ndarray]:
    """The entry's results as arrays of their own: each value itself if it is
    an array that this run made and nothing else holds, else a copy.

    Only a kernel that ran makes writable memory that no one else holds:
    literals and the plan's constants are read-only (and so are their
    views), and no kernel keeps an array it returns. So a writable value
    whose memory (the array at the end of its `base` chain) is writable,
    is all of it, and is no input's memory (a slot, or a staged input read
    in place) nor another result's, is the run's own; it is handed over,
    which saves the copy that a result needs otherwise (0.3 ms for a
    gradient of 1.6 MB)."""
    taken = set()
    if any(isinstance(value, np.ndarray) for value in values):  # not scalars only
        taken = {id(_memory(value)) for value in inputs}
    results = []
    for value in values:
        memory = _memory(value)
        if (
            isinstance(value, np.ndarray)
            and isinstance(memory, np.ndarray)
            and memory.flags.owndata
            and memory.flags.writeable
            and value.flags.writeable
            and value.nbytes == memory.nbytes
            and id(memory) not in taken
        ):
            taken.add(id(memory))
            results.append(value)
        else:
            results.append(np.array(value))
    return results


def _memory(value: object) -> object:
    """The object at the end of `value`'s chain of bases: the array that owns
    the memory of a NumPy array (or the buffer it was made from)."""
    while isinstance(value, np.ndarray) and value.base is not None:
        value = value.base
    return value


def _check_static(what: str, type: Attribute, function: FuncOp) -> None:
    """An error at `function` for an argument or result of dynamic shape."""
    shape = type.get_shape() if isinstance(type, TensorType | MemRefType) else ()
    if min(shape, default=0) < 0:
        raise OpError(function, f"{what} is {type}: dynamic shapes are not supported")


def _check_disjoint(
    arrays: Sequence[np.ndarray], error: Callable[[str, str], GradoptError]
) -> None:
    """Raise `error` for the first array that may share memory with an
    earlier one. Two arrays whose `base` chains end at different arrays that
    own their data (as NumPy allocated it) cannot; only the other pairs are
    compared, by `np.may_share_memory` (0.3 us a pair); when every array has
    an owner of its own, as a training loop's weights do, no pair is looked
    at."""
    owners: list[int | None] = []
    for array in arrays:
        root = _memory(array)
        owned = isinstance(root, np.ndarray) and root.flags.owndata
        owners.append(id(root) if owned else None)
    if None not in owners and len(set(owners)) == len(owners):
        return
    seen: list[tuple[int | None, int]] = []
    for i, (array, owner) in enumerate(zip(arrays, owners, strict=True)):
        for other, j in seen:
            if owner is not None and other is not None and owner != other:
                continue
            if np.may_share_memory(array, arrays[j]):
                raise error(f"slot {i}", "in_place slots must not share memory")
        seen.append((owner, i))


def _check_flag(name: str, value: object, expected: str) -> None:
    """A `TypeError` for a flag that is not a bool (or None, where that means
    the default): a string such as "no" would otherwise count as true."""
    if value is False or value is True or (value is None and "None" in expected):
        return
    allowed = bool | np.bool_ | None if "None" in expected else bool | np.bool_
    if not isinstance(value, allowed):
        raise TypeError(f"{name} must be {expected}, not {type(value).__name__}")


def _described(value: object) -> str:
    """`float64 data`, or `a list`: what a caller passed, for messages."""
    if isinstance(value, np.ndarray | np.generic):
        return f"{value.dtype} data"
    return f"a {type(value).__name__}"


class _Layout(NamedTuple):
    """What an input of `type` must be as a NumPy array, read from the type
    once (xDSL's accessors cost microseconds a call)."""

    type: MemRefType | Value
    dtype: np.dtype
    shape: tuple[int, ...]

    @staticmethod
    def of(type: MemRefType | Value) -> _Layout:
        element, shape = layout_of(type)
        return _Layout(type, np.dtype(dtype_of(element)), shape)

    def mismatch(self, array: np.ndarray) -> str | None:
        """Why `array` is not exactly of this layout (its dtype and shape), or
        None."""
        if array.dtype == self.dtype and array.shape == self.shape:
            return None
        return (
            f"expected {self.dtype} data of shape {self.shape} for {self.type}, "
            f"got {array.dtype} data of shape {array.shape}"
        )


class _Entry(NamedTuple):
    """An entry function's signature, the layouts of its slots and staged
    inputs, `order`: for each argument, whether it is a slot, the layouts of
    its results, which staged inputs are scalars, and whether the slots come
    first (so that the arguments are the slots and then the staged inputs)."""

    signature: Signature
    slots: tuple[_Layout, ...]
    args: tuple[_Layout, ...]
    order: tuple[bool, ...]
    results: tuple[_Layout, ...]
    scalars: tuple[bool, ...]
    slots_first: bool

    def slot_arguments(self) -> tuple[int, ...]:
        """The index of each slot among the entry's arguments."""
        return tuple(i for i, is_slot in enumerate(self.order) if is_slot)

    def arguments(
        self, slots: Sequence[np.ndarray], args: Sequence[np.ndarray], iree: bool
    ) -> list[Any]:
        """The entry's arguments in order: a scalar staged input is a NumPy
        scalar, or a Python number for IREE."""
        staged: list[Any] = list(args)
        if any(self.scalars):
            staged = [
                (value.item() if iree else value[()]) if scalar else value
                for value, scalar in zip(args, self.scalars, strict=True)
            ]
        if self.slots_first:
            return [*slots, *staged]
        slot_order, arg_order = iter(slots), iter(staged)
        return [
            next(slot_order) if is_slot else next(arg_order) for is_slot in self.order
        ]


def input_mismatch(type: MemRefType | Value, array: np.ndarray) -> str | None:
    """Why `array` is not exactly of `type` (its dtype and shape), or None;
    for `grad-run`, whose `.npy` inputs must match (SPEC §7) where the API
    converts."""
    return _Layout.of(type).mismatch(array)


def _result(
    signature: Signature,
    results: list[np.ndarray],
    slots: list[np.ndarray],
    backend: str = "numpy",
) -> RunResult:
    """`results` and `slots` with the names of `signature` (see `RunResult`)."""
    return RunResult(results, slots, backend, signature.named_outputs)


MAX_BYTES = 1 << 62
"""The largest value a run can hold: NumPy indexes no more."""


def _check_sizes(module: ModuleOp) -> None:
    """Raise an `OpError` for a value too large for NumPy to index at all.

    Such a type is valid (a huge dim is just a number), and `grad-opt` handles
    it, but running would fail inside NumPy with a `ValueError` ("Maximum
    allowed dimension exceeded"), not the located error a user should see.
    Values that are merely larger than the memory fail when allocated, with
    the error naming the op."""
    for op in module.walk():
        for i, result in enumerate(op.results):
            type = result.type
            if not isinstance(type, TensorType | MemRefType):
                continue
            shape = type.get_shape()
            size = math.prod(shape) * (1 if is_i1(type.get_element_type()) else 4)
            if size >= MAX_BYTES or any(d >= MAX_BYTES for d in shape):
                raise OpError(op, f"result {i} of type {type} is too large to run")


def _prepared(module: ModuleOp, copy: bool) -> ModuleOp:
    """`module` verified and with its differentiation ops expanded: in a copy
    if `copy` (a module passed in by the caller is left as it was). The
    expansion is not verified again: the pass builds valid IR (the test suite
    checks that it verifies), and verifying costs a fifth of a small
    program's preparation. The expansion's dead code is dropped: a gradient
    computes its function's value, which `grad` throws away, and for a loop
    that is a whole loop run for nothing (a fifth of ADBench's LSTM
    gradient); removing ops whose results no one reads changes no result."""
    verify_module(module)
    if not any(isinstance(op, DifferentiationOp) for op in module.walk()):
        return module
    from gradopt.passes.expand_gradient import ExpandGradientPass

    expanded = module.clone() if copy else module
    ExpandGradientPass().apply(make_context(), expanded)
    for function in expanded.ops:
        if isinstance(function, FuncOp) and not function.is_declaration:
            region_dce(function.body)
    return expanded


def run(
    program: ModuleOp | str,
    slots: Inputs | None = None,
    args: Inputs | None = None,
    entry: str = "main",
    filename: str = "<input>",
    backend: str = "numpy",
    *,
    deterministic: bool | None = None,
    in_place: bool = False,
) -> RunResult:
    """Run `entry` of `program` (a module or its text) on the given inputs.

    `slots` and `args` are values for the entry's memref and tensor arguments,
    numbered in order among each kind, as a sequence, or by index or name
    (`{"w": ...}` for `%w`); each is converted to the declared element type
    as `numpy.asarray(value, dtype)` converts it (float32, int32 or bool) and
    must have exactly the declared shape; any not given starts as zeros. The
    inputs are never changed: the slots are copied (unless `in_place`: see
    `Program.run`), the staged inputs only read.
    `backend` is `numpy` (the interpreter), `iree` (needs the `iree` extra)
    or `auto` (the interpreter until IREE has compiled the program in the
    background); `deterministic` see `Program.run`.

    A program given as text is prepared once: the last `RUN_CACHE_SIZE`
    prepared programs (`GRADOPT_RUN_CACHE`, 32 by default; 0 turns the cache
    off), of at most `RUN_CACHE_BYTES` (`GRADOPT_RUN_CACHE_BYTES`, 256 MiB,
    estimated by `caches.module_bytes`), are kept by text and file name, so
    calling `run` in a loop costs what `Program.run` costs. A module
    (`ModuleOp`) is prepared anew each time, since the caller may change it.

    Raises `GradoptError` for any error in the program, the inputs, or the
    run, and `TypeError` for an argument of the wrong Python type.
    """
    return _program(program, filename).run(
        slots, args, entry, backend, deterministic=deterministic, in_place=in_place
    )


RUN_CACHE_SIZE = 32
"""How many prepared programs `run` keeps (`GRADOPT_RUN_CACHE`)."""

RUN_CACHE_BYTES = 256 << 20
"""How many bytes of prepared programs `run` keeps, as `caches.module_bytes`
estimates them (`GRADOPT_RUN_CACHE_BYTES`)."""

_prepared_programs: BoundedCache[tuple[str, str], Program] = BoundedCache()


def _run_cache_limits() -> tuple[int, int]:
    """The run cache's bounds in programs and bytes, read from the environment
    at each call (not at import, which must not fail on a bad value)."""
    try:
        return (
            environment.integer("GRADOPT_RUN_CACHE", RUN_CACHE_SIZE, unit="programs"),
            environment.integer("GRADOPT_RUN_CACHE_BYTES", RUN_CACHE_BYTES),
        )
    except environment.SettingError as error:
        located = LocatedError(Location("environment", 0, 0), str(error))
        raise GradoptError(located, SourceText()) from None


def _program(program: ModuleOp | str, filename: str) -> Program:
    """`Program(program, filename)`, from the cache for a text seen lately."""
    if not isinstance(program, str):
        return Program(program, filename)
    entries, budget = _run_cache_limits()
    if entries <= 0 or budget <= 0:
        return Program(program, filename)
    key = (program, filename)
    if (known := _prepared_programs.get(key)) is not None:
        return known
    prepared = Program(program, filename)
    size = module_bytes(prepared.module) + len(program)
    _prepared_programs.put(key, prepared, size, entries, budget)
    return prepared
