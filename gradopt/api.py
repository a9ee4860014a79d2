"""Running a gradopt program from Python: `gradopt.run` and `Program`.

A program goes through the same steps as in `grad-run`: parse with located
errors, verify, expand every differentiation op, then run the entry function on
NumPy inputs that are checked against its signature. Every error a user can
cause is a `GradoptError` whose text is the rendered `FILE:LINE:COL: error:`
report.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
from xdsl.dialects.builtin import MemRefType, ModuleOp, TensorType, i1
from xdsl.dialects.func import FuncOp
from xdsl.utils.exceptions import DiagnosticException

from gradopt.context import make_context
from gradopt.diagnostics import (
    LocatedError,
    Location,
    SourceText,
    locate,
    parse_module,
)
from gradopt.dialect.derivative import DifferentiationOp
from gradopt.dialect.errors import OpError
from gradopt.dialect.hints import MISSING_OPS
from gradopt.dialect.types import dtype_of
from gradopt.dialect.verifier import verify_module
from gradopt.interpreter import Interpreter

if TYPE_CHECKING:
    from gradopt.iree import IreeModule

BACKENDS = ("numpy", "iree")
"""Where `run` runs a program: gradopt's NumPy interpreter, or IREE."""

Inputs = Sequence[np.ndarray] | Mapping[int, np.ndarray]
"""Input arrays in order, or by index; those not given start as zeros."""


class GradoptError(LocatedError):
    """A located error, whose `str` is the rendered report with its source line."""

    def __init__(self, error: LocatedError, source: SourceText):
        super().__init__(error.location, error.message, error.notes)
        self.report = source.render(error)

    def __str__(self) -> str:
        return self.report


@dataclass(frozen=True)
class Signature:
    """The entry function's slots (memref arguments), staged inputs (tensor
    arguments) and results, each numbered in order among its kind."""

    slots: tuple[MemRefType, ...]
    args: tuple[TensorType, ...]
    results: tuple[TensorType, ...]


@dataclass(frozen=True)
class RunResult:
    """The entry function's results, then the final contents of every slot."""

    results: list[np.ndarray]
    slots: list[np.ndarray]


class Program:
    """A module parsed, verified, with its gradients expanded and its functions
    planned: ready to run any number of times."""

    def __init__(self, program: ModuleOp | str, filename: str = "<input>"):
        self.filename = filename
        self.source = SourceText()
        try:
            if isinstance(program, str):
                self.source.add(filename, program)
                program = parse_module(
                    make_context(), program, filename, hints=MISSING_OPS
                )
            self.module = _prepared(program)
            _check_sizes(self.module)
            self.interpreter = Interpreter(self.module)
            self.iree_module: IreeModule | None = None
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
        """The kinds of value that `run` takes and gives for `entry`."""
        function = self.function(entry)
        slots: list[MemRefType] = []
        args: list[TensorType] = []
        for i, type in enumerate(function.function_type.inputs):
            if isinstance(type, MemRefType):
                slots.append(type)
            elif isinstance(type, TensorType):
                args.append(type)
            else:
                raise self.error(
                    self.filename,
                    f"argument {i} of @{entry} is {type}: only tensors and memrefs "
                    f"can be passed to an entry function",
                )
        results: list[TensorType] = []
        for i, type in enumerate(function.function_type.outputs):
            if not isinstance(type, TensorType):
                raise self.error(
                    self.filename,
                    f"result {i} of @{entry} is {type}: an entry function can "
                    f"only return tensors",
                )
            results.append(type)
        return Signature(tuple(slots), tuple(args), tuple(results))

    def run(
        self,
        slots: Inputs | None = None,
        args: Inputs | None = None,
        entry: str = "main",
        backend: str = "numpy",
    ) -> RunResult:
        """Run `entry` on copies of the inputs; the slots are updated in the
        copies, which the result holds. `backend` is `numpy` (the interpreter)
        or `iree` (compiled by IREE on the first run, needs the `iree` extra)."""
        if backend not in BACKENDS:
            raise self.error(
                backend, f"unknown backend: expected {' or '.join(BACKENDS)}"
            )
        signature = self.signature(entry)
        slot_values = self.inputs("slot", signature.slots, slots)
        arg_values = self.inputs("arg", signature.args, args)
        slot_order, arg_order = iter(slot_values), iter(arg_values)
        arguments = [
            next(slot_order) if isinstance(type, MemRefType) else next(arg_order)
            for type in self.function(entry).function_type.inputs
        ]
        if backend == "iree":
            values = self.run_compiled(entry, arguments)
            count = len(signature.results)
            return RunResult(values[:count], values[count:])
        try:
            values = self.interpreter.call(entry, arguments)
        except OpError as error:
            raise self.located(error) from None
        try:
            results = [np.array(value) for value in values]
        except MemoryError:  # a broadcast value, say, copied in full
            raise self.error(
                self.filename, f"the results of @{entry} do not fit in memory"
            ) from None
        return RunResult(results, slot_values)

    def run_compiled(self, entry: str, arguments: list[np.ndarray]) -> list[np.ndarray]:
        """The results and final slots of `entry` run by IREE; the program is
        compiled on the first call (imported lazily: IREE is optional)."""
        from gradopt.iree import BackendError, load

        try:
            if self.iree_module is None:
                self.iree_module = load(self.module)
            return self.iree_module.call(entry, arguments)
        except OpError as error:
            raise self.located(error) from None
        except BackendError as error:
            raise self.error(self.filename, str(error)) from None

    def inputs(
        self,
        kind: str,
        types: Sequence[MemRefType | TensorType],
        given: Inputs | None,
    ) -> list[np.ndarray]:
        """Fresh arrays for `types`: copies of the given ones, checked, or zeros."""
        if given is None:
            given = {}
        elif not isinstance(given, Mapping):
            given = dict(enumerate(given))
        for index in given:
            if not 0 <= index < len(types):
                raise self.error(
                    f"{kind} {index}",
                    f"no such {kind}: the entry function has {len(types)} "
                    f"{kind}{'s' * (len(types) != 1)}",
                )
        return [
            self.checked(f"{kind} {i}", type, given.get(i))
            for i, type in enumerate(types)
        ]

    def checked(
        self, what: str, type: MemRefType | TensorType, value: np.ndarray | None
    ) -> np.ndarray:
        dtype = np.dtype(dtype_of(type.get_element_type()))
        shape = tuple(type.get_shape())
        if value is None:
            try:
                return np.zeros(shape, dtype)
            except (MemoryError, ValueError):  # NumPy's "Maximum allowed dimension"
                raise self.error(what, f"{type} is too large to allocate") from None
        array = np.asarray(value)
        if array.dtype.type is not dtype.type or array.shape != shape:
            raise self.error(
                what,
                f"expected {dtype} data of shape {shape} for {type}, got "
                f"{array.dtype} data of shape {array.shape}",
            )
        return np.array(array, dtype)


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
            size = math.prod(shape) * (1 if type.get_element_type() == i1 else 4)
            if size >= MAX_BYTES or any(d >= MAX_BYTES for d in shape):
                raise OpError(op, f"result {i} of type {type} is too large to run")


def _prepared(module: ModuleOp) -> ModuleOp:
    """`module` verified and with its differentiation ops expanded (in a copy,
    so that a module passed in by the caller is left as it was)."""
    verify_module(module)
    if not any(isinstance(op, DifferentiationOp) for op in module.walk()):
        return module
    from gradopt.passes.expand_gradient import ExpandGradientPass

    expanded = module.clone()
    ExpandGradientPass().apply(make_context(), expanded)
    verify_module(expanded)
    return expanded


def run(
    program: ModuleOp | str,
    slots: Inputs | None = None,
    args: Inputs | None = None,
    entry: str = "main",
    filename: str = "<input>",
    backend: str = "numpy",
) -> RunResult:
    """Run `entry` of `program` (a module or its text) on NumPy inputs.

    `slots` and `args` are arrays for the entry's memref and tensor arguments,
    numbered in order among each kind, as a sequence or by index; each must have
    exactly the declared shape and dtype (float32, int32 or bool), and any not
    given starts as zeros. The inputs are copied, never changed. `backend` is
    `numpy` (the interpreter) or `iree` (needs the `iree` extra). Raises
    `GradoptError` for any error in the program, the inputs, or the run.
    """
    return Program(program, filename).run(slots, args, entry, backend)
