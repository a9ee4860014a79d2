"""`grad-run FILE`: verify a program, expand its gradients, run its entry
function and print the results and slots (SPEC §7).

Every failure, in the program, the command line, the input data or the run,
is one `error:` line on stderr naming where it comes from, with exit status 1,
no traceback and no output file.
"""

from __future__ import annotations

import argparse
import json
import math
import re
import sys
import warnings
from collections.abc import Callable, Mapping, Sequence
from typing import NoReturn, TextIO

import numpy as np
from xdsl.dialects.builtin import MemRefType, TensorType
from xdsl.ir import Attribute

from gradopt.dialect.types import Value, dtype_of, layout_of
from gradopt.runtime.program import (
    BACKENDS,
    GradoptError,
    Program,
    input_mismatch,
    no_such_input,
    zeros_of,
)
from gradopt.support import environment, files
from gradopt.tools import VersionAction

# `[0-9]+(\.[0-9]*)?`, not `[0-9]+\.?[0-9]*`: a long run of digits that does
# not match would be split between the two repetitions in every way (seconds
# for 10 000 digits).
_NUMBER = re.compile(
    r"[+-]?(inf|infinity|nan|([0-9]+(\.[0-9]*)?|\.[0-9]+)([eE][+-]?[0-9]+)?)|true|false",
    re.IGNORECASE,
)


class _Parser(argparse.ArgumentParser):
    """Command-line errors exit with status 1, like every other failure."""

    def error(self, message: str) -> NoReturn:
        self.print_usage(sys.stderr)
        self.exit(1, f"{self.prog}: error: {message}\n")


def _assignment(text: str) -> tuple[int, str]:
    index, equals, spec = text.partition("=")
    if not equals or not index.isdigit():
        raise argparse.ArgumentTypeError(f"expected N=SPEC, got '{text}'")
    return int(index), spec


def _parser() -> _Parser:
    parser = _Parser(
        prog="grad-run",
        description="Run a gradopt program: verify it, expand its gradients and "
        "run its entry function, then print each result and every slot.",
        epilog="SPEC is a .npy file, a JSON list such as [1, 2, 3.5] (reshaped to "
        "the declared shape; NaN and Infinity allowed), a number (for rank 0), or "
        "zeros. Slots and args not given start as zeros.",
    )
    parser.add_argument(
        "file", metavar="FILE", help="the program (.mlir), or - for standard input"
    )
    parser.add_argument("--entry", default="main", help="function to run (main)")
    for name, what in (("slot", "memref"), ("arg", "tensor or scalar")):
        parser.add_argument(
            f"--{name}",
            metavar="N=SPEC",
            type=_assignment,
            action="append",
            default=[],
            help=f"value of {name} N, numbered among the entry's {what} arguments",
        )
    parser.add_argument(
        "--backend",
        choices=BACKENDS,
        default="numpy",
        help="run with gradopt's NumPy interpreter (numpy, the default) or "
        "compiled by IREE (iree: needs the 'iree' extra)",
    )
    parser.add_argument("--out", metavar="FILE.npz", help="also write the values")
    parser.add_argument("-q", "--quiet", action="store_true", help="print no values")
    parser.add_argument("--version", action=VersionAction)
    return parser


def _elements(data: object) -> tuple[tuple[int, ...], list[object]]:
    """The shape and the row-major scalars of a nested JSON list; lists at the
    same depth must have the same length."""
    if not isinstance(data, list):
        return (), [data]
    parts = [_elements(item) for item in data]
    shapes = {shape for shape, _ in parts}
    if len(shapes) > 1:
        raise ValueError("the nested lists have different lengths")
    inner = shapes.pop() if shapes else ()
    return (len(data), *inner), [e for _, elements in parts for e in elements]


class _LongInteger(float):
    """An integer literal too long for Python's `int()` (past 4300 digits, its
    guard against slow conversions): far outside i32, and infinite as f32."""

    digits: int

    def __new__(cls, text: str) -> _LongInteger:
        value = super().__new__(cls, float(text))
        value.digits = len(text.lstrip("+-"))
        return value


_MAX_DIGITS = 1000
"""Longer integer literals are `_LongInteger`s: none fits in i32 anyway."""


def _integer(text: str) -> int | float:
    """A JSON or command-line integer, without Python's int() digit limit."""
    if len(text) > _MAX_DIGITS:
        return _LongInteger(text)
    return int(text)


def _float(value: object) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ValueError(f"expected a number, got {json.dumps(value)}")
    return float(value)


def _int(value: object) -> int:
    if isinstance(value, _LongInteger):
        raise ValueError(f"an integer of {value.digits} digits does not fit in i32")
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"expected an integer, got {json.dumps(value)}")
    if not -(2**31) <= value < 2**31:
        raise ValueError(f"{value} does not fit in i32")
    return value


def _bool(value: object) -> bool:
    if value not in (True, False):  # true, false, 1 or 0
        raise ValueError(f"expected true or false, got {json.dumps(value)}")
    return bool(value)


_CONVERT: Mapping[type[np.generic], Callable[[object], object]] = {
    np.float32: _float,
    np.int32: _int,
    np.bool_: _bool,
}


def _scalar(text: str) -> object:
    """A number spec as the JSON value it would be inside a list."""
    if text.lower() in ("true", "false"):
        return text.lower() == "true"
    if re.fullmatch(r"[+-]?[0-9]+", text):
        return _integer(text)
    return float(text)


def _array(spec: str, type: MemRefType | Value) -> np.ndarray:
    """The value that `spec` gives for `type`; raises `ValueError` or `OSError`.
    A `.npy` file's data is returned as it is (`_inputs` checks its type)."""
    element, shape = layout_of(type)
    dtype = dtype_of(element)
    convert = _CONVERT[dtype]
    if spec == "zeros":
        return zeros_of(type)
    if spec.startswith("["):
        try:
            data = json.loads(spec, parse_int=_integer)
            _, elements = _elements(data)
        except json.JSONDecodeError as error:
            raise ValueError(f"'{spec}' is not a JSON list: {error}") from None
        except RecursionError:
            raise ValueError("the list is nested too deeply") from None
        count = math.prod(shape)
        if len(elements) != count:
            raise ValueError(f"expected {count} values for {type}, got {len(elements)}")
        with np.errstate(over="ignore"):  # beyond float32's range is an infinity
            return np.array([convert(e) for e in elements], dtype).reshape(shape)
    if _NUMBER.fullmatch(spec):
        if shape:
            raise ValueError(
                f"a single number is a rank-0 value, but this is {type}: give a "
                f"list, a .npy file or zeros"
            )
        with np.errstate(over="ignore"):
            return np.array(convert(_scalar(spec)), dtype)
    try:
        return files.load_npy(spec)
    except files.FileError as error:
        raise ValueError(f"cannot read {spec}: {error}") from None
    except ValueError as error:
        raise ValueError(f"cannot read {spec}: {error}") from None


def _inputs(
    program: Program,
    kind: str,
    given: Sequence[tuple[int, str]],
    types: Sequence[MemRefType | Value],
) -> dict[int, np.ndarray]:
    """The arrays of the `--slot` or `--arg` options, by index; their shapes
    and dtypes are checked by `Program.run`."""
    values: dict[int, np.ndarray] = {}
    for index, spec in given:
        what = f"--{kind} {index}"
        if index in values:
            raise program.error(what, f"{kind} {index} is given twice")
        if index >= len(types):
            raise program.error(what, no_such_input(kind, len(types)))
        try:
            value = _array(spec, types[index])
        except OSError as error:
            raise program.error(what, f"cannot read {spec}: {error.strerror}") from None
        except ValueError as error:
            raise program.error(what, str(error)) from None
        # the API converts other dtypes as NumPy's asarray does; grad-run
        # promises an error for data of another type (SPEC §7)
        if (mismatch := input_mismatch(types[index], value)) is not None:
            raise program.error(f"{kind} {index}", mismatch)
        values[index] = value
    return values


def _boolean(value: object) -> str:
    return "true" if value else "false"


def format_value(array: np.ndarray) -> str:
    """`dense<...>` with every element: floats as the shortest text that reads
    back as the same float32 (`str` of a NumPy float32), i1 as true/false,
    nested like MLIR."""
    element = _boolean if array.dtype == np.bool_ else str

    def nested(value: np.ndarray) -> str:
        if value.ndim == 1:
            return "[" + ", ".join(map(element, value)) + "]"
        return "[" + ", ".join(map(nested, value)) + "]"

    return f"dense<{element(array[()]) if array.ndim == 0 else nested(array)}>"


def _formatted(value: np.ndarray, type: Attribute) -> str:
    """`dense<...>` for a tensor, the bare number for a scalar (`f32`)."""
    text = format_value(value)
    return text if isinstance(type, TensorType) else text[len("dense<") : -1]


def _write(path: str, arrays: Mapping[str, np.ndarray]) -> None:
    """Write an .npz atomically (`files.write_atomically`: a failure leaves no
    file, or the old one; a device or FIFO is written in place), every array
    in C order, so that the bytes do not depend on the inputs' layout."""
    contiguous = {name: np.asarray(a, order="C") for name, a in arrays.items()}
    files.write_atomically(
        path,
        lambda file: np.savez(file, **contiguous),  # pyright: ignore[reportArgumentType]
    )


def _run(text: str, options: argparse.Namespace) -> str:
    """Everything after reading the file; returns what to print, so that a
    failure prints nothing but the error."""
    program = Program(text, options.file)
    signature = program.signature(options.entry)
    slots = _inputs(program, "slot", options.slot, signature.slots)
    args = _inputs(program, "arg", options.arg, signature.args)
    result = program.run(slots, args, options.entry, options.backend)
    if options.out is not None:
        arrays = {f"result{i}": v for i, v in enumerate(result.results)}
        arrays |= {f"slot{i}": v for i, v in enumerate(result.slots)}
        try:
            _write(options.out, arrays)
        except OSError as error:
            raise program.error(options.out, error.strerror or str(error)) from None
    if options.quiet:
        return ""
    lines = [
        f"result {i} = {_formatted(value, type)} : {type}"
        for i, (value, type) in enumerate(
            zip(result.results, signature.results, strict=True)
        )
    ]
    lines += [
        f"slot {i} = {format_value(value)} : {type}"
        for i, (value, type) in enumerate(
            zip(result.slots, signature.slots, strict=True)
        )
    ]
    return "".join(line + "\n" for line in lines)


def _one_line_warning(
    message: Warning | str,
    category: type[Warning],
    filename: str,
    lineno: int,
    file: TextIO | None = None,
    line: str | None = None,
) -> None:
    """A warning (such as a corrupt IREE cache entry) as one line on stderr,
    not Python's two lines naming gradopt's source."""
    print(f"grad-run: warning: {message}", file=sys.stderr)


def _read(name: str) -> str:
    """The program text of FILE, or of standard input for `-`."""
    return files.read_program(name).decode("utf-8", errors="replace")


def _main(argv: Sequence[str] | None) -> int:
    try:
        options = _parser().parse_args(argv)
    except SystemExit as exit:  # --help, or a malformed command line
        return exit.code if isinstance(exit.code, int) else 1
    try:
        environment.check_all()
    except environment.SettingError as error:
        print(f"grad-run: error: {error}", file=sys.stderr)
        return 1
    name = "<stdin>" if options.file == "-" else options.file
    try:
        text = _read(options.file)
    except (OSError, files.FileError) as error:
        print(f"{name}: error: {files.describe(error)}", file=sys.stderr)
        return 1
    options.file = name
    try:
        with warnings.catch_warnings():
            warnings.showwarning = _one_line_warning
            output = _run(text, options)
    except GradoptError as error:
        sys.stderr.write(str(error))
        return 1
    except Exception as error:  # a bug in gradopt: one line, as grad-opt gives
        kind = type(error).__name__
        print(f"grad-run: error: internal error: {kind}: {error}", file=sys.stderr)
        return 1
    sys.stdout.write(output)
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """grad-run's entry point: `_main`, with Ctrl-C and SIGTERM reported as
    one line (exit status 130 or 143) after removing temporary files."""
    return files.run_interruptibly("grad-run", lambda: _main(argv))


if __name__ == "__main__":
    sys.exit(main())
