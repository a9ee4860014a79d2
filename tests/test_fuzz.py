"""Mutation fuzzing of the front end.

The lit inputs and the examples are mutated (tokens dropped, duplicated,
replaced or swapped, types and shapes changed, huge shapes, truncation, garbage
bytes, very deep nesting, ...) and fed to `grad-opt` and `grad-run` in-process.
Every run must end with exit status 0, or 1 with a located `error:` message:
never an uncaught exception, never a message from a catch-all handler (which
would be a crash in disguise), never a hang, and never an out-of-memory from a
declared shape (the address space is limited while fuzzing, so an allocation
that a declared shape asks for fails fast instead of swapping).

The mutations come from a seeded RNG, so a CI run is deterministic; the default
run mutates 400 inputs for grad-opt. Run more
with `GRADOPT_FUZZ_COUNT=20000` (inputs for grad-opt; a quarter as many go to
grad-run) and other seeds with `GRADOPT_FUZZ_SEED=n`. A failure prints the
mutated input and the command line, and saves them under pytest's tmp_path.
"""

from __future__ import annotations

import contextlib
import io
import os
import random
import re
import resource
import signal
import traceback
import warnings
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from inventory import INVENTORY
from xdsl.utils.exceptions import DiagnosticException, ParseError

from gradopt.support.diagnostics import LocatedParser
from gradopt.tools import grad_opt, grad_run

ROOT = Path(__file__).resolve().parent.parent
CORPUS = sorted(
    path
    for path in [*ROOT.glob("lit-tests/**/*.mlir"), *ROOT.glob("examples/*.mlir")]
    if "Output" not in path.parts
)
COUNT = int(os.environ.get("GRADOPT_FUZZ_COUNT", "400"))
SEED = int(os.environ.get("GRADOPT_FUZZ_SEED", "0"))
TIME_LIMIT = 10
"""Seconds per input; the slowest input of a CI run takes well under one."""
MEMORY_HEADROOM = 2 << 30
"""Bytes of address space an input may add to the process while fuzzing."""

GRAD_OPT_OPTIONS = [
    ["-p", "expand-gradient"],
    ["-p", "expand-gradient,canonicalize,cse,dce"],
    ["-p", "expand-jvp"],
    ["-p", "canonicalize"],
    ["--split-input-file"],
    ["--split-input-file", "-p", "expand-gradient"],
    ["--split-input-file", "--print-op-generic"],
    ["--split-input-file", "--verify-diagnostics"],
    ["--print-op-generic", "-p", "cse,dce"],
]

# --- mutations ----------------------------------------------------------------

TOKEN = re.compile(
    r'%[\w$.-]+(?:#\d+)?|@[\w$.-]+|\^[\w$.-]+|"(?:[^"\\\n]|\\.)*"'
    r"|0x[0-9a-fA-F]+|-?\d+(?:\.\d*)?(?:[eE][+-]?\d+)?|[A-Za-z_][\w$.]*|->|\S"
)
DIM = re.compile(r"(?<=[<x])\d+(?=x)")
ELEMENT = re.compile(r"\b(f32|i32|i1)\b")
INT_LIST = re.compile(r"\[(-?\d+(?:, *-?\d+)*)?\]")
FLOAT = re.compile(r"-?\d+\.\d*(?:[eE][+-]?\d+)?|0x[0-9A-Fa-f]+")
OP_NAME = re.compile(r"\bgrad\.[a-z0-9_]+\b")

GRAD_OPS = [*INVENTORY, "nosuchop"]
"""What `change_op` renames an op to: every op of the dialect, and one that
does not exist."""
TYPES = [
    "f32", "i32", "i1", "f64", "f16", "bf16", "i64", "index", "none",
    "tensor<f32>", "tensor<5xf32>", "tensor<2x3xi32>", "tensor<?xf32>",
    "tensor<0xf32>", "tensor<*xf32>", "memref<5xf32>", "memref<2x3xi1>",
    "tensor<99999999999xf32>", "memref<99999999999xf32>",
    "tensor<99999999999x99999999999xf32>", "tensor<9223372036854775807xf32>",
    "tensor<18446744073709551616xf32>", "tensor<5xcomplex<f32>>",
    "vector<4xf32>", "tensor<5xtensor<5xf32>>", "!grad.nothing",
]  # fmt: skip
HUGE_DIMS = [
    "99999999999", "4294967296", "2147483648", "9223372036854775807",
    "9223372036854775808", "18446744073709551616", "0", "1",
]  # fmt: skip
INTEGERS = [
    "-1", "0", "1", "2", "3", "7", "2147483647", "2147483648",
    "9223372036854775807", "99999999999999999999999", "-9223372036854775809",
]  # fmt: skip
FLOATS = [
    "1e400", "-1e400", "1e-400", "nan", "inf", "-inf", "0x7FC00000",
    "0xFFFFFFFFFFFFFFFF", "0x", "1.0e", ".5", "-0x1", "-0.0", "3.4028236e38",
    "1", "true",
]  # fmt: skip
GARBAGE = [
    "\x00", "\xff", "\ufffd", "\u202e", "é", "😀", "\t", "\r", "\x0b", "\x0c",
    "$", "#", "!", "?", "\\", "`", "'", '"', "%", "@", "^", "~", "&", "*",
    "//", "/*", "-----", "// -----", "}", "{", ")", "(", "]", "[", ">", "<",
    ":", ",", "=", "->", "loc(", "#loc", '"grad.add"', "grad.", "%0", "%%",
]  # fmt: skip


def _tokens(text: str) -> list[tuple[int, int]]:
    return [m.span() for m in TOKEN.finditer(text)]


def _replace(text: str, span: tuple[int, int], new: str) -> str:
    return text[: span[0]] + new + text[span[1] :]


def _sub_one(rng: random.Random, pattern: re.Pattern[str], text: str, new) -> str:
    """Replace one random match of `pattern` by `new(match)`."""
    matches = list(pattern.finditer(text))
    if not matches:
        return text
    match = rng.choice(matches)
    return _replace(text, match.span(), new(match))


def drop_token(rng: random.Random, text: str) -> str:
    spans = _tokens(text)
    return _replace(text, rng.choice(spans), "") if spans else text


def duplicate_token(rng: random.Random, text: str) -> str:
    spans = _tokens(text)
    if not spans:
        return text
    start, end = rng.choice(spans)
    return _replace(text, (start, end), text[start:end] * 2 + " " + text[start:end])


def replace_token(rng: random.Random, text: str) -> str:
    spans = _tokens(text)
    if not spans:
        return text
    donor = rng.choice(spans)
    return _replace(text, rng.choice(spans), text[donor[0] : donor[1]])


def swap_tokens(rng: random.Random, text: str) -> str:
    """Swap two tokens of the same kind: operands, types, numbers, ..."""
    spans = _tokens(text)
    if len(spans) < 2:
        return text
    first = rng.choice(spans)
    kind = text[first[0]]
    same = [s for s in spans if text[s[0]] == kind and s != first] or spans
    second = rng.choice(same)
    (a, b), (c, d) = sorted([first, second])
    if b > c:
        return text
    return text[:a] + text[c:d] + text[b:c] + text[a:b] + text[d:]


def truncate(rng: random.Random, text: str) -> str:
    return text[: rng.randrange(len(text) + 1)]


def insert_garbage(rng: random.Random, text: str) -> str:
    position = rng.randrange(len(text) + 1)
    junk = "".join(rng.choice(GARBAGE) for _ in range(rng.randint(1, 4)))
    if rng.random() < 0.3:
        junk = "".join(chr(rng.randrange(0x110000)) for _ in range(rng.randint(1, 4)))
    return text[:position] + junk + text[position:]


def deep_nesting(rng: random.Random, text: str) -> str:
    n = rng.choice([20, 200, 2000, 20000])
    position = rng.choice([s for s, _ in _tokens(text)] or [0])
    nest = rng.choice(
        [
            "(" * n,
            "[" * n,
            "{" * n,
            "<" * n,
            "tensor<" * n,
            "(" * n + ")" * n,
            "tensor<" * n + "f32" + ">" * n,
            "dense<" + "[" * n + "1.0" + "]" * n + ">",
            "array<i64: " * n,
            '"test.op"() ({\n' * n + "}) : () -> ()\n" * n,
            "%x = grad.neg %x : tensor<f32>\n" * n,
            "!" * n,
        ]
    )
    return text[:position] + nest + text[position:]


def huge_shape(rng: random.Random, text: str) -> str:
    if rng.random() < 0.7:
        return _sub_one(rng, DIM, text, lambda _: rng.choice(HUGE_DIMS))
    whole_type = re.compile(r"tensor<[^>]*>|memref<[^>]*>")
    return _sub_one(rng, whole_type, text, lambda _: rng.choice(TYPES))


def change_type(rng: random.Random, text: str) -> str:
    choice = rng.randrange(4)
    if choice == 0:
        return _sub_one(rng, ELEMENT, text, lambda _: rng.choice(TYPES[:9]))
    if choice == 1:
        return _sub_one(rng, DIM, text, lambda _: str(rng.randint(0, 7)))
    if choice == 2:
        pattern = re.compile(r"\btensor<|\bmemref<")
        return _sub_one(
            rng, pattern, text, lambda m: "memref<" if "tensor" in m[0] else "tensor<"
        )
    return _sub_one(rng, re.compile(r"<(\d+x)+"), text, lambda m: "<" + m[0][3:])


def change_integers(rng: random.Random, text: str) -> str:
    def new(_: re.Match[str]) -> str:
        count = rng.randint(0, 3)
        return "[" + ", ".join(rng.choice(INTEGERS) for _ in range(count)) + "]"

    if rng.random() < 0.5:
        return _sub_one(rng, INT_LIST, text, new)
    return _sub_one(rng, re.compile(r"\b\d+\b"), text, lambda _: rng.choice(INTEGERS))


def change_float(rng: random.Random, text: str) -> str:
    return _sub_one(rng, FLOAT, text, lambda _: rng.choice(FLOATS))


def change_op(rng: random.Random, text: str) -> str:
    return _sub_one(rng, OP_NAME, text, lambda _: "grad." + rng.choice(GRAD_OPS))


def change_lines(rng: random.Random, text: str) -> str:
    lines = text.split("\n")
    i, j = rng.randrange(len(lines)), rng.randrange(len(lines))
    choice = rng.randrange(3)
    if choice == 0:
        del lines[i]
    elif choice == 1:
        lines.insert(j, lines[i])
    else:
        lines[i], lines[j] = lines[j], lines[i]
    return "\n".join(lines)


MUTATIONS: list[Callable[[random.Random, str], str]] = [
    drop_token,
    duplicate_token,
    replace_token,
    swap_tokens,
    swap_tokens,
    truncate,
    insert_garbage,
    deep_nesting,
    huge_shape,
    huge_shape,
    change_type,
    change_type,
    change_integers,
    change_float,
    change_op,
    change_op,
    change_lines,
]


def without_comments(text: str) -> str:
    return "\n".join(
        line for line in text.split("\n") if not line.lstrip().startswith("//")
    )


def mutated(rng: random.Random, texts: list[str]) -> str:
    text = rng.choice(texts)
    if rng.random() < 0.5:
        text = without_comments(text)
    if rng.random() < 0.5:  # one chunk of a split file
        text = rng.choice(text.split("// -----"))
    for _ in range(rng.choice([1, 1, 1, 2, 3])):
        text = rng.choice(MUTATIONS)(rng, text)
    return text


# --- running one input --------------------------------------------------------


class Crash(BaseException):
    """Raised from inside the driver, past its `except Exception` handlers."""


class Timeout(BaseException):
    pass


@contextlib.contextmanager
def crashes_escape() -> Iterator[None]:
    """Let an internal error of gradopt's parsing code escape as a `Crash`.

    `parse_module` turns whatever xDSL's parser raises into a located error,
    since xDSL raises more than `ParseError` on malformed input. That is right
    for errors that describe the input, and the best that can be done for a
    bug of xDSL's parser (an `assert` failing, say); but an `AttributeError`,
    `IndexError`, ... raised by gradopt's own code is a gradopt bug reported
    with a meaningless message."""
    original = LocatedParser.parse_module
    internal = (
        AssertionError,
        AttributeError,
        IndexError,
        KeyError,
        NameError,
        TypeError,
        ZeroDivisionError,
        MemoryError,
    )

    def parse_module(self: LocatedParser, *args: bool) -> object:
        try:
            return original(self, *args)
        except (ParseError, DiagnosticException, RecursionError):
            raise
        except internal as error:
            where = traceback.extract_tb(error.__traceback__)[-1]
            if not Path(where.filename).is_relative_to(ROOT):
                raise  # a bug of xDSL's parser: the message must still say where
            raise Crash(f"{type(error).__name__}: {error}") from error

    LocatedParser.parse_module = parse_module  # type: ignore[method-assign]
    try:
        yield
    finally:
        LocatedParser.parse_module = original  # type: ignore[method-assign]


@contextlib.contextmanager
def limits() -> Iterator[None]:
    """A time limit per input (SIGALRM) and a cap on the address space."""

    def alarm(signum: int, frame: object) -> None:
        raise Timeout

    previous = signal.signal(signal.SIGALRM, alarm)
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    with open("/proc/self/statm") as statm:
        used = int(statm.read().split()[0]) * resource.getpagesize()
    cap = used + MEMORY_HEADROOM
    if hard != resource.RLIM_INFINITY:
        cap = min(cap, hard)
    resource.setrlimit(resource.RLIMIT_AS, (cap, hard))
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_AS, (soft, hard))
        signal.signal(signal.SIGALRM, previous)


LOCATED = re.compile(r"(?P<file>[^\n]+?)(?::(?P<line>\d+):(?P<column>\d+))?: error: \S")


@dataclass
class Outcome:
    status: int | None
    stdout: str
    stderr: str
    problem: str | None


def run_driver(main: Callable[[list[str]], int], args: list[str]) -> Outcome:
    """Run a driver's `main`, and say what is wrong with how it ended, if
    anything."""
    out, err = io.StringIO(), io.StringIO()
    status: int | None = None
    problem = None
    signal.alarm(TIME_LIMIT)
    try:
        with (
            contextlib.redirect_stdout(out),
            contextlib.redirect_stderr(err),
            warnings.catch_warnings(record=True) as caught,
        ):
            warnings.simplefilter("always")
            warnings.simplefilter("ignore", DeprecationWarning)
            status = main(args)
        if caught:  # a user would see it on stderr
            problem = (
                f"a Python warning: {caught[0].category.__name__}: {caught[0].message}"
            )
    except Timeout:
        problem = f"no result within {TIME_LIMIT} s"
    except Crash as crash:
        problem = f"internal error in the parser: {crash}"
    except BaseException as error:  # anything a user would see as a traceback
        problem = f"uncaught {type(error).__name__}: {error}"
    finally:
        signal.alarm(0)
    stderr = err.getvalue()
    if problem is None:
        problem = _check_status(status, stderr)
    return Outcome(status, out.getvalue(), stderr, problem)


def _check_status(status: int | None, stderr: str) -> str | None:
    if status == 0:
        return None
    if status != 1:
        return f"exit status {status}"
    first = stderr.split("\n", 1)[0]
    match = LOCATED.match(first)
    if match is None:
        return f"exit status 1 without a located error: {first!r}"
    if match["file"] in ("grad-opt", "grad-run"):
        return f"error from a catch-all handler: {first!r}"
    if "Traceback (most recent call last)" in stderr:
        return "traceback on stderr"
    return None


@dataclass
class Failure:
    index: int
    args: list[str]
    text: str
    problem: str


def report(failures: list[Failure], directory: Path) -> str:
    lines = [f"{len(failures)} failing inputs; the first ones:"]
    for failure in failures[:10]:
        path = directory / f"failure-{failure.index}.mlir"
        path.write_text(failure.text, errors="surrogatepass")
        lines += [
            f"--- input {failure.index}: {failure.problem}",
            f"    saved as {path}, run with {failure.args[1:]}",
            failure.text[:800],
        ]
    return "\n".join(lines)


def corpus_texts() -> list[str]:
    return [path.read_text() for path in CORPUS]


def fuzz_grad_opt(count: int, seed: int, directory: Path) -> list[Failure]:
    rng = random.Random(seed)
    texts = corpus_texts()
    failures = []
    path = directory / "input.mlir"
    with crashes_escape(), limits():
        for index in range(count):
            text = mutated(rng, texts)
            path.write_text(text, errors="surrogatepass")
            args = [str(path), *rng.choice(GRAD_OPT_OPTIONS)]
            outcome = run_driver(grad_opt.main, args)
            if outcome.problem is not None:
                failures.append(Failure(index, args, text, outcome.problem))
    return failures


ENTRY = re.compile(r"func\.func @([\w$.-]+)")


def fuzz_grad_run(count: int, seed: int, directory: Path) -> list[Failure]:
    rng = random.Random(seed)
    texts = corpus_texts()
    failures = []
    path = directory / "input.mlir"
    out = directory / "out.npz"
    with crashes_escape(), limits():
        for index in range(count):
            text = mutated(rng, texts)
            path.write_text(text, errors="surrogatepass")
            args = [str(path)]
            if (entries := ENTRY.findall(text)) and rng.random() < 0.7:
                args += ["--entry", rng.choice(entries)]
            if rng.random() < 0.3:
                args += ["--out", str(out)]
            outcome = run_driver(grad_run.main, args)
            problem = outcome.problem
            if problem and problem.startswith("no result") and "scf.for" in text:
                problem = None  # a mutated loop bound can make a long loop
            if problem is None and outcome.status == 1 and out.exists():
                problem = "a failed run left an --out file"
            if problem is None and list(directory.glob("*.tmp")):
                problem = "a run left a temporary file"
            out.unlink(missing_ok=True)
            if problem is not None:
                failures.append(Failure(index, args, text, problem))
    return failures


def test_the_corpus_is_found() -> None:
    assert len(CORPUS) > 40
    assert any(path.parent.name == "examples" for path in CORPUS)


def test_grad_opt_survives_mutated_inputs(tmp_path: Path) -> None:
    failures = fuzz_grad_opt(COUNT, SEED, tmp_path)
    assert not failures, report(failures, tmp_path)


def test_grad_run_survives_mutated_programs(tmp_path: Path) -> None:
    failures = fuzz_grad_run(COUNT // 4, SEED + 1, tmp_path)
    assert not failures, report(failures, tmp_path)


FOUND = {
    "an unterminated string (exponential backtracking in xDSL's lexer)": (
        'func.func @f() {\n  %r = grad.cmpeq"(%a, %a) : (tensor<5xi32>, tensor<5x'
        "i32>) -> tensor<5xi1>\n  func.return\n}\n"
    ),
    "an error in the first token (lexed before parsing starts)": "$main\n",
    "a loop bound that is the loop's own induction variable": (
        "func.func @main() {\n  %c0 = arith.constant 0 : index\n"
        "  scf.for %i = %c0 to %i step %c0 {\n  }\n  func.return\n}\n"
    ),
    "an empty function body (no func.return)": (
        "func.func @main(%a: tensor<5xf32>) -> tensor<5xf32> {\n}\n"
    ),
    "a dense literal that xDSL's parser asserts on": (
        "func.func @main() {\n"
        "  %b = grad.const dense<[1, 0]> : tensor<5xcomplex<f32>>\n"
        "  func.return\n}\n"
    ),
    "a literal beyond float32's range (NumPy warned on stderr)": (
        "func.func @main() -> tensor<f32> {\n  %c = grad.const 1e39 : tensor<f32>\n"
        "  func.return %c : tensor<f32>\n}\n"
    ),
    "a dense literal beyond float32's range": (
        "func.func @main() -> tensor<2xf32> {\n"
        "  %c = grad.const dense<[1.0e39, 1.0]> : tensor<2xf32>\n"
        "  func.return %c : tensor<2xf32>\n}\n"
    ),
    "a huge declared slot": (
        "func.func @main(%s: memref<99999999999xf32>) {\n  func.return\n}\n"
    ),
    "a huge literal": (
        "func.func @main() -> tensor<99999999999xf32> {\n"
        "  %c = grad.const 1.0 : tensor<99999999999xf32>\n"
        "  func.return %c : tensor<99999999999xf32>\n}\n"
    ),
    "a literal with more elements than NumPy can index": (
        "func.func @main() -> tensor<9999999999999999999xf32> {\n"
        "  %c = grad.const 1.0 : tensor<9999999999999999999xf32>\n"
        "  func.return %c : tensor<9999999999999999999xf32>\n}\n"
    ),
}


@pytest.mark.parametrize("case", list(FOUND))
@pytest.mark.parametrize("driver", ["grad-opt", "grad-run"])
def test_inputs_that_crashed_a_driver(tmp_path: Path, case: str, driver: str) -> None:
    """The reduced inputs of the crashes the fuzzer found, each now an exit
    status of 0 or a located error (see also lit-tests/driver)."""
    path = tmp_path / "found.mlir"
    path.write_text(FOUND[case])
    main, args = grad_run.main, [str(path)]
    if driver == "grad-opt":
        main, args = grad_opt.main, [str(path), "-p", "expand-gradient,canonicalize"]
    with crashes_escape(), limits():
        outcome = run_driver(main, args)
    assert outcome.problem is None


@pytest.mark.parametrize(
    "text",
    [
        "%x = grad.const 1.0 : tensor<99999999999xf32>\n",
        "%x = grad.const 1.0 : tensor<99999999999x99999999999xf32>\n",
        "func.func @main(%s: memref<99999999999xf32>) {\n  func.return\n}\n",
    ],
)
@pytest.mark.parametrize("pipeline", ["expand-gradient", "canonicalize,cse,dce"])
def test_a_huge_declared_shape_allocates_nothing_in_grad_opt(
    tmp_path: Path, text: str, pipeline: str
) -> None:
    path = tmp_path / "huge.mlir"
    path.write_text(text)
    with limits():
        outcome = run_driver(grad_opt.main, [str(path), "-p", pipeline])
    assert outcome.problem is None
    assert outcome.status == 0
