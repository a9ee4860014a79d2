"""`grad-opt`: xDSL's opt driver with the `grad` dialect and gradopt's passes.

It is `xDSLOptMain` with three hooks changed: the parser (gradopt's
`LocatedParser`, which records each op's source location), the verification
between passes (gradopt's `verify_module`, which names the failing op and
checks dominance), and the reporting of errors: every error is
`FILE:LINE:COL: error: MESSAGE` with the source line, exit status 1, no
traceback, and no partial output. Pipelines, input splitting, targets and
`--time-passes` / `--print-between-passes` are xDSL's own.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import sys
import warnings
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from functools import cache
from importlib.metadata import version
from io import BytesIO, StringIO
from typing import IO, TypeVar

from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Dialect, Operation
from xdsl.passes import ModulePass
from xdsl.universe import Universe
from xdsl.utils.diagnostic import Diagnostic
from xdsl.utils.exceptions import DiagnosticException
from xdsl.xdsl_opt_main import xDSLOptMain

from gradopt.dialect.errors import OpError, without_op_name
from gradopt.dialect.hints import MISSING_OPS
from gradopt.dialect.upstream import DIALECTS as UPSTREAM_DIALECTS
from gradopt.dialect.verifier import verify_module
from gradopt.passes.universe import GRADOPT_UNIVERSE
from gradopt.support import environment, files
from gradopt.support.diagnostics import (
    LocatedError,
    Location,
    SourceText,
    locate,
    parse_module,
)
from gradopt.tools.pipeline import check_pipeline

SPLIT_MARKER = "// -----"

EXTENDED_DIALECTS: dict[str, Callable[[], Dialect]] = {
    name: factory
    for name, factory in UPSTREAM_DIALECTS.items()
    if name not in GRADOPT_UNIVERSE.all_dialects
}
"""xDSL's `arith`, `tensor`, `linalg` and `math` with the ops gradopt adds
(SPEC §10.5), which `grad-opt` loads in place of xDSL's; not part of the
entry point, so that plain `xdsl-opt` keeps xDSL's own."""
T = TypeVar("T")


def gradopt_passes() -> str:
    """gradopt's passes, one line each, for the end of `--help`."""
    lines = ["gradopt's passes (with every xDSL pass):"]
    for name, factory in GRADOPT_UNIVERSE.all_passes.items():
        paragraph = (factory().__doc__ or "").strip().split("\n\n", 1)[0]
        sentence = " ".join(paragraph.split()).split(". ", 1)[0].rstrip(".")
        lines.append(f"  {name:26} {sentence}")
    return "\n".join(lines)


@cache
def installed_universes() -> Universe:
    """`Universe.get_multiverse()`, read once a process: it scans the installed
    packages' entry points (about 7 ms), and `xDSLOptMain` would do it three
    times at every start."""
    return Universe.get_multiverse()


def universe() -> Universe:
    """The installed universes' dialects, passes and targets, and gradopt's
    that they lack (as when its entry point is not installed, or a test adds
    a pass to `GRADOPT_UNIVERSE`: read anew each time, unlike the scan);
    the upstream dialects as gradopt extends them (`EXTENDED_DIALECTS`)."""
    installed = installed_universes()

    def added(found: dict[str, T], ours: dict[str, T]) -> dict[str, T]:
        return found | {name: f for name, f in ours.items() if name not in found}

    dialects = added(installed.all_dialects, GRADOPT_UNIVERSE.all_dialects)
    return Universe(
        all_dialects=dialects | EXTENDED_DIALECTS,
        all_passes=added(installed.all_passes, GRADOPT_UNIVERSE.all_passes),
        all_targets=added(installed.all_targets, GRADOPT_UNIVERSE.all_targets),
    )


@cache
def version_line() -> str:
    """xdsl-opt's `--version` line, kept whole for scripts that read it."""
    return (
        f"grad-opt: gradopt {version('gradopt')}, "
        "xdsl-opt built from xdsl version {xdsl_version}"
    )


class GradOptMain(xDSLOptMain):
    def register_all_dialects(self) -> None:
        for name, factory in universe().all_dialects.items():
            self.ctx.register_dialect(name, factory)

    def register_all_passes(self) -> None:
        for name, factory in universe().all_passes.items():
            self.register_pass(name, factory)

    def register_all_targets(self) -> None:
        for name, factory in universe().all_targets.items():
            self.available_targets.setdefault(name, factory)

    def register_all_arguments(self, arg_parser: argparse.ArgumentParser) -> None:
        type(self).version_format = version_line()
        super().register_all_arguments(arg_parser)
        # the list of gradopt's passes imports them: only when help is asked for
        arg_parser.formatter_class = argparse.RawDescriptionHelpFormatter
        format_help = arg_parser.format_help

        def with_passes() -> str:
            arg_parser.epilog = gradopt_passes()
            return format_help()

        arg_parser.format_help = with_passes

    def setup_pipeline(self) -> None:
        """xDSL's pipeline, once `check_pipeline` has accepted it (it raises a
        one-line `PipelineError` for a malformed one, and unwraps MLIR's
        `builtin.module(...)`), with gradopt's verification between passes.

        xDSL's callback between passes prints the time of each pass, verifies
        with `module.verify()` and prints the IR; it is kept as it is, with
        the module's `verify` standing for `verify_module` while it runs, so
        that the order of those steps, and what each prints, is xDSL's."""
        self.args.passes = check_pipeline(self.args.passes, self.available_passes)
        super().setup_pipeline()
        xdsl_callback = self.pipeline.callback
        assert xdsl_callback is not None

        def callback(
            previous: ModulePass | None, module: ModuleOp, following: ModulePass | None
        ) -> None:
            module.verify = lambda *_, **__: verify_module(module)  # type: ignore
            try:
                xdsl_callback(previous, module, following)
            finally:
                del module.verify  # type: ignore

        self.pipeline = dataclasses.replace(self.pipeline, callback=callback)

    def apply_passes(self, prog: ModuleOp) -> None:
        with _failing_op_recorded():
            super().apply_passes(prog)

    def get_input_stream(self) -> tuple[IO[bytes], str]:
        """xDSL's input, read within the size limit and never blocking on a
        FIFO without a writer (`gradopt.support.files.read_program`)."""
        path = self.args.input_file
        extension = "mlir" if path is None else os.path.splitext(path)[1][1:]
        return BytesIO(files.read_program(path)), extension

    def run(self) -> int:  # pyright: ignore[reportIncompatibleMethodOverride]
        """Every chunk is processed (with `--split-input-file`, as mlir-opt
        does): each result is printed, each error reported, and the exit
        status is 1 if any chunk failed."""
        name = self.get_input_name()
        try:
            chunks, extension = self.prepare_input()
        except (OSError, files.FileError) as error:
            print(f"{name}: error: {files.describe(error)}", file=sys.stderr)
            return 1
        except ValueError as error:  # an unknown file extension
            print(f"{name}: error: {error} (use -f mlir)", file=sys.stderr)
            return 1
        datas = [(chunk.read(), offset) for chunk, offset in chunks]
        for chunk, _ in chunks:
            chunk.close()
        source = SourceText()
        whole = SPLIT_MARKER.encode().join(d for d, _ in datas)
        hidden = SPLIT_MARKER if self.args.split_input_file else None
        source.add(name, whole.decode("utf-8", errors="replace"), hidden)

        output = StringIO()
        failed = False
        for i, (data, line_offset) in enumerate(datas):
            if i > 0:
                output.write(SPLIT_MARKER + "\n")
            try:
                output.write(self._process(data, extension, name, line_offset))
            except LocatedError as error:
                report = source.render(error)
                if self.args.verify_diagnostics or (
                    self.args.parsing_diagnostics and error.location.line != 0
                ):
                    output.write(report)
                    continue
                sys.stderr.write(report)
                failed = True
        if failed and (self.args.output_file is not None or len(datas) == 1):
            return 1  # nothing half-written

        if self.args.output_file is None:
            sys.stdout.write(output.getvalue())
            return 1 if failed else 0
        try:  # all or nothing; a FIFO or device is written in place
            text = output.getvalue().encode()
            files.write_atomically(self.args.output_file, lambda f: f.write(text))
        except OSError as error:
            print(f"{self.args.output_file}: error: {error.strerror}", file=sys.stderr)
            return 1
        return 0

    def _process(self, data: bytes, extension: str, name: str, offset: int) -> str:
        """Parse, verify and transform one chunk; return its printed result."""
        try:
            if extension == "mlir":
                module = parse_module(
                    self.ctx,
                    data.decode("utf-8", errors="replace"),
                    name,
                    offset,
                    not self.args.no_implicit_module,
                    MISSING_OPS,
                )
            else:
                parsed = self.parse_chunk(BytesIO(data), extension, offset)
                module = parsed if parsed is not None else ModuleOp([])
            self.apply_passes(module)
            return self.output_resulting_program(module)
        except OpError as error:
            raise locate(error.op, error.describe(), error.notes, name) from None
        except Exception as error:
            op = getattr(error, _FAILING_OP, None)
            if isinstance(op, Operation):
                message = f"'{op.name}' op {without_op_name(str(error), op)}"
                raise locate(op, message, (), name) from None
            if isinstance(error, DiagnosticException):
                raise LocatedError(Location(name, 0, 0), str(error)) from None
            raise


_FAILING_OP = "_gradopt_failing_op"


@contextmanager
def _failing_op_recorded() -> Iterator[None]:
    """While passes run, an error that xDSL reports about an op (through
    `Operation.emit_error`, as the pattern rewriter does for an exception in
    a pattern) keeps that op, so that grad-opt can point at its line. xDSL
    names the op only in the module it prints with the error."""
    original = Diagnostic.raise_exception

    def raise_exception(self: Diagnostic, ir: object, underlying_error: Exception):
        if isinstance(ir, Operation) and not hasattr(underlying_error, _FAILING_OP):
            setattr(underlying_error, _FAILING_OP, ir)
        original(self, ir, underlying_error)  # type: ignore[arg-type]

    Diagnostic.raise_exception = raise_exception  # type: ignore[method-assign]
    try:
        yield
    finally:
        Diagnostic.raise_exception = original  # type: ignore[method-assign]


def _main(args: Sequence[str] | None) -> int:
    try:
        environment.check_all()
        driver = GradOptMain(
            description="gradopt's modular optimizer driver", args=args
        )
        return driver.run()
    except SystemExit as exit:
        return exit.code if isinstance(exit.code, int) else 1
    except Exception as error:  # an unknown pass, or a failure in a pass's code
        print(f"grad-opt: error: {error}", file=sys.stderr)
        return 1


def main(args: Sequence[str] | None = None) -> int:
    """Show `DeprecationWarning`s, which Python hides by default, as
    `xdsl-opt` does (the filter is restored when grad-opt returns)."""
    with warnings.catch_warnings():
        warnings.filterwarnings("default", category=DeprecationWarning)
        return files.run_interruptibly("grad-opt", lambda: _main(args))


if __name__ == "__main__":
    sys.exit(main())
