"""Run xDSL's own lit suite with `grad-opt` in place of `xdsl-opt`.

`grad-opt` promises to be `xdsl-opt` with gradopt added. This script measures
that promise on the suite xDSL itself ships: it downloads the xDSL source
release that gradopt is built against (`pip download --no-binary :all:`), runs
its `tests/filecheck` with lit twice, once as it is and once with a PATH shim
that makes every `xdsl-opt` in a RUN line start `grad-opt`, and reports the
tests that pass with `xdsl-opt` and fail with `grad-opt`.

Those are split in three. A test that checks xDSL's diagnostic text (it runs
`--verify-diagnostics` or `--parsing-diagnostics`, or expects a failure with
`not`, and grad-opt does report an error) fails by design: grad-opt reports
errors as `FILE:LINE:COL: error: MESSAGE` (SPEC §7). Any other failure is a
defect of grad-opt, except the few listed in `INVALID_IR_ACCEPTED`, whose
IR is invalid (in MLIR too) and passes only because xDSL checks no
dominance, and those in `WRONG_CHECKS`, whose CHECK lines spell a result of
xDSL's that MLIR's differs from. For the diagnostic tests, the script also checks that
grad-opt fails on exactly the `// -----` chunks that xdsl-opt fails on, so
that a valid chunk grad-opt rejects is not hidden among them.

    python bench/xdsl_suite.py                  # the whole suite, about 15 min
    python bench/xdsl_suite.py --filter dominance -v

It is a script, not a test: the suite takes minutes and needs the network
(PyPI) once, for the download, which is cached in `--workdir`. Exit status 1
when a defect is found.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from importlib.metadata import version
from pathlib import Path

RUN_LIT = "import sys; from lit.main import main; sys.exit(main())"
DIAGNOSTIC_FLAGS = re.compile(r"--verify-diagnostics|--parsing-diagnostics")
EXPECTS_FAILURE = re.compile(r"\bnot\s+xdsl-opt\b|xdsl-opt[^|]*\|\|")
SPLIT = re.compile(rb"^// -----", re.MULTILINE)

INVALID_IR_ACCEPTED = {
    "transforms/lower-csl-stencil.mlir": "xDSL's lower-csl-stencil leaves uses "
    "of values defined in other functions (%29, %31 of chunk 1 in "
    "receive_chunk_cb0), which MLIR's verifier and gradopt's refuse; xDSL's "
    "checks no dominance",
}
"""Tests that pass with xdsl-opt only because xDSL's verifier checks no
dominance, where the IR they check is invalid in MLIR too: grad-opt's error
is right. Each is named with what is wrong; the script checks that grad-opt
does report a dominance error for it."""

WRONG_CHECKS = {
    "transforms/linalg_generalize_named_ops.mlir": (
        "arith.maximumf %44, %45",
        "arith.maximumf %46, %44",
        "xDSL's linalg.pooling_nchw_max body is the max of the input and the "
        "window operand; MLIR's (and gradopt's) the max of the accumulator and "
        "the input",
    ),
}
"""Tests whose CHECK lines spell a wrong result of xDSL's, each with that
text, what MLIR gives there, and why: the script checks that the test passes
with grad-opt once that one text is replaced, so it still checks the rest."""


@dataclass
class Outcome:
    """The results of one lit run: test name to lit's result code."""

    codes: dict[str, str] = field(default_factory=dict[str, str])
    outputs: dict[str, str] = field(default_factory=dict[str, str])
    seconds: float = 0.0


def fetch_suite(workdir: Path, xdsl_version: str) -> Path:
    """The `tests/filecheck` folder of xDSL's source release, downloaded with
    pip once and kept in `workdir`."""
    root = workdir / f"xdsl-{xdsl_version}"
    suite = root / "tests" / "filecheck"
    if suite.is_dir():
        return suite
    workdir.mkdir(parents=True, exist_ok=True)
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "download",
            "--quiet",
            "--no-deps",
            "--no-binary",
            ":all:",
            f"xdsl=={xdsl_version}",
            "-d",
            str(workdir),
        ],
        check=True,
    )
    archive = workdir / f"xdsl-{xdsl_version}.tar.gz"
    with tarfile.open(archive) as tar:
        tar.extractall(workdir, filter="data")
    return suite


def make_shim(folder: Path, grad_opt: str) -> None:
    """A folder whose `xdsl-opt` starts `grad_opt` with the same arguments."""
    folder.mkdir(parents=True, exist_ok=True)
    shim = folder / "xdsl-opt"
    shim.write_text(f'#!/bin/sh\nexec "{grad_opt}" "$@"\n')
    shim.chmod(0o755)


def run_lit(
    suite: Path, shim: Path | None, args: argparse.Namespace, report: Path
) -> Outcome:
    """Run lit on `suite`, with `shim` first on PATH if given; lit's JSON
    report is kept in `report`, and read from there if it exists already (the
    reference run with xdsl-opt is the same each time)."""
    if not report.exists():
        env = dict(os.environ)
        if shim is not None:
            env["PATH"] = f"{shim}{os.pathsep}{env.get('PATH', '')}"
        partial = report.with_suffix(".partial")
        command = [
            sys.executable,
            "-c",
            RUN_LIT,
            "-q",
            f"-j{args.jobs}",
            "-o",
            str(partial),
            str(suite),
        ]
        if args.filter:
            command[4:4] = ["--filter", args.filter]
        subprocess.run(command, env=env, capture_output=True, text=True)
        if not partial.exists():  # lit writes no report when no test ran
            raise SystemExit(f"xdsl_suite: no test of {suite} ran")
        partial.replace(report)
    data = json.loads(report.read_text() or "{}")
    outcome = Outcome(seconds=float(data.get("elapsed", 0.0)))
    for test in data.get("tests", []):
        name = test["name"].split(" :: ", 1)[-1]
        outcome.codes[name] = test["code"]
        outcome.outputs[name] = test.get("output", "")
    return outcome


def run_lines(path: Path) -> list[str]:
    """The RUN lines of a test, continuations joined."""
    lines, pending = [], ""
    for line in path.read_text(errors="replace").splitlines():
        found = re.search(r"RUN:(.*)$", line)
        if not found:
            continue
        part = found.group(1).strip()
        if part.endswith("\\"):
            pending += part[:-1] + " "
            continue
        lines.append(pending + part)
        pending = ""
    return lines


def failing_chunks(tool: str, path: Path, flags: list[str]) -> list[int] | None:
    """The `// -----` chunks of `path` that `tool` reports an error for, each
    run alone; None when the file is not split."""
    data = path.read_bytes()
    chunks = SPLIT.split(data)
    if len(chunks) < 2:
        return None

    def fails(chunk: bytes) -> bool:
        done = subprocess.run(
            [tool, *flags], input=chunk, capture_output=True, timeout=60
        )
        return done.returncode != 0

    with ThreadPoolExecutor(os.cpu_count() or 1) as pool:
        results = list(pool.map(fails, chunks))
    return [i for i, failed in enumerate(results) if failed]


def pipeline_flags(lines: list[str]) -> list[str]:
    """The options of the first xdsl-opt command of a test that change what is
    valid: its pass pipeline and `--allow-unregistered-dialect`."""
    for line in lines:
        found = re.search(r"xdsl-opt([^|]*)", line)
        if not found:
            continue
        words = found.group(1).split()
        flags = []
        for i, word in enumerate(words):
            if word in ("-p", "--passes") and i + 1 < len(words):
                flags += [word, words[i + 1].strip("'\"")]
            elif word.startswith(("-p=", "--passes=")) or word in (
                "--allow-unregistered-dialect",
                "--no-implicit-module",
            ):
                flags.append(word.replace("'", "").replace('"', ""))
        return flags
    return []


def passes_corrected(grad_opt: str, path: Path, wrong: str, right: str) -> bool:
    """Whether `grad_opt` passes the test of `path`, of one `xdsl-opt ... |
    filecheck` RUN line, once the text `wrong` of its CHECK lines is `right`."""
    text = path.read_text()
    if wrong not in text:
        return False
    done = subprocess.run(
        [grad_opt, *pipeline_flags(run_lines(path)), str(path)],
        capture_output=True,
        text=True,
    )
    with tempfile.NamedTemporaryFile("w", suffix=".mlir") as checks:
        checks.write(text.replace(wrong, right))
        checks.flush()
        found = subprocess.run(
            ["filecheck", checks.name],
            input=done.stdout,
            capture_output=True,
            text=True,
        )
    return done.returncode == 0 and found.returncode == 0


def classify(
    suite: Path, name: str, output: str, grad_opt: str | None
) -> tuple[str, str]:
    """`diagnostic`, `invalid IR`, `wrong check` or `defect`, with the
    reason."""
    path = suite / name
    if name in WRONG_CHECKS:
        wrong, right, reason = WRONG_CHECKS[name]
        if grad_opt is None or not passes_corrected(grad_opt, path, wrong, right):
            return "defect", f"fails with '{right}' in place of '{wrong}' too"
        return "wrong check", reason
    if name in INVALID_IR_ACCEPTED:
        if "does not dominate this use" not in output:
            return "defect", "expected a dominance error"
        return "invalid IR", INVALID_IR_ACCEPTED[name]
    lines = run_lines(path)
    expects_error = any(
        DIAGNOSTIC_FLAGS.search(line) or EXPECTS_FAILURE.search(line) for line in lines
    )
    if not expects_error:
        return "defect", "checks no diagnostic"
    if ": error: " not in output:
        return "defect", "grad-opt reported no error"
    if grad_opt is not None:
        flags = pipeline_flags(lines)
        expected = failing_chunks("xdsl-opt", path, flags)
        found = failing_chunks(grad_opt, path, flags)
        if expected != found:
            return "defect", f"failing chunks: xdsl-opt {expected}, grad-opt {found}"
    return "diagnostic", "checks xDSL's diagnostic text"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--workdir",
        type=Path,
        default=Path(tempfile.gettempdir()) / "gradopt-xdsl-suite",
        help="where the xDSL source release is downloaded and kept",
    )
    parser.add_argument("-j", "--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--filter", help="run only the tests matching this regex")
    parser.add_argument(
        "--no-chunk-check",
        action="store_true",
        help="do not compare the failing chunks of split diagnostic tests",
    )
    parser.add_argument(
        "--grad-opt",
        default=shutil.which("grad-opt"),
        help="the grad-opt to measure (default: the one on PATH)",
    )
    parser.add_argument("-v", "--verbose", action="store_true", help="show outputs")
    args = parser.parse_args()
    if args.grad_opt is None:
        raise SystemExit("xdsl_suite: grad-opt is not on PATH (pip install -e .)")

    xdsl_version = version("xdsl")
    suite = fetch_suite(args.workdir, xdsl_version)
    shim = Path(tempfile.mkdtemp(prefix="shim-", dir=args.workdir))
    make_shim(shim, args.grad_opt)
    tag = re.sub(r"\W+", "-", args.filter or "all")
    reference = run_lit(suite, None, args, args.workdir / f"xdsl-opt-{tag}.json")
    with tempfile.TemporaryDirectory(dir=args.workdir) as scratch:
        grad = run_lit(suite, shim, args, Path(scratch) / "grad-opt.json")
    shutil.rmtree(shim)

    passed = sorted(n for n, c in reference.codes.items() if c == "PASS")
    broken = [n for n in passed if grad.codes.get(n) != "PASS"]
    kinds: dict[str, list[tuple[str, str]]] = {
        "diagnostic": [],
        "invalid IR": [],
        "wrong check": [],
        "defect": [],
    }
    for name in broken:
        kind, reason = classify(
            suite,
            name,
            grad.outputs.get(name, ""),
            None if args.no_chunk_check else args.grad_opt,
        )
        kinds[kind].append((name, reason))

    print(f"xDSL {xdsl_version} tests/filecheck: {len(reference.codes)} tests")
    print(
        f"pass with xdsl-opt: {len(passed)} ({reference.seconds:.0f} s); "
        f"of those fail with grad-opt: {len(broken)} ({grad.seconds:.0f} s)"
    )
    print(f"  check xDSL's diagnostic text: {len(kinds['diagnostic'])}")
    print(f"  check invalid IR that xDSL accepts: {len(kinds['invalid IR'])}")
    print(f"  check a wrong result of xDSL's: {len(kinds['wrong check'])}")
    print(f"  other failures (defects): {len(kinds['defect'])}")
    for kind in ("defect", "invalid IR", "wrong check", "diagnostic"):
        for name, reason in kinds[kind]:
            print(f"{kind}: {name} ({reason})")
            if args.verbose and kind == "defect":
                print(grad.outputs.get(name, ""))
    return 1 if kinds["defect"] else 0


if __name__ == "__main__":
    sys.exit(main())
