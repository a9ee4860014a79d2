"""`grad-opt`: xDSL's opt driver with the `grad` dialect and gradopt's passes.

Unlike `xdsl-opt`, every error is reported as `FILE:LINE:COL: error: MESSAGE`
with the source line, exit status 1, no traceback, and no partial output.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Sequence
from io import StringIO

from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass, PassPipeline
from xdsl.printer import Printer
from xdsl.utils.exceptions import DiagnosticException
from xdsl.xdsl_opt_main import xDSLOptMain

from gradopt import files
from gradopt.diagnostics import (
    LocatedError,
    Location,
    SourceText,
    locate,
    parse_module,
)
from gradopt.dialect.errors import OpError
from gradopt.dialect.verifier import verify_module
from gradopt.universe import GRADOPT_UNIVERSE

SPLIT_MARKER = "// -----"


class GradOptMain(xDSLOptMain):
    def register_all_dialects(self) -> None:
        super().register_all_dialects()
        known = set(self.ctx.registered_dialect_names)
        for name, factory in GRADOPT_UNIVERSE.all_dialects.items():
            if name not in known:
                self.ctx.register_dialect(name, factory)

    def register_all_passes(self) -> None:
        super().register_all_passes()
        for name, factory in GRADOPT_UNIVERSE.all_passes.items():
            self.available_passes.setdefault(name, factory)

    def setup_pipeline(self) -> None:
        started = time.perf_counter()

        def between_passes(
            previous: ModulePass | None, module: ModuleOp, following: ModulePass | None
        ) -> None:
            nonlocal started
            if self.args.time_passes and previous is not None:
                took = time.perf_counter() - started
                print(f"Pass {previous.name} took {took} seconds")
            if not self.args.disable_verify:
                verify_module(module)
            if previous and following and self.args.print_between_passes:
                print(f"IR after {previous.name}:")
                Printer(stream=sys.stdout).print_op(module)
                print("\n\n\n")
            started = time.perf_counter()

        self.pipeline = PassPipeline.parse_spec(
            self.available_passes, self.args.passes, between_passes
        )

    def run(self) -> int:  # pyright: ignore[reportIncompatibleMethodOverride]
        name = self.get_input_name()
        try:  # bounded, and never blocking on a FIFO without a writer
            data = files.read_program(self.args.input_file)
        except (OSError, files.FileError) as error:
            print(f"{name}: error: {files.describe(error)}", file=sys.stderr)
            return 1
        text = data.decode("utf-8", errors="replace")
        source = SourceText()
        source.add(name, text)

        output = StringIO()
        for i, (chunk, line_offset) in enumerate(self._chunks(text)):
            if i > 0:
                output.write(SPLIT_MARKER + "\n")
            try:
                output.write(self._process(chunk, name, line_offset))
            except LocatedError as error:
                report = source.render(error)
                if self.args.verify_diagnostics or (
                    self.args.parsing_diagnostics and error.location.line != 0
                ):
                    output.write(report)
                    continue
                sys.stderr.write(report)
                return 1

        if self.args.output_file is None:
            sys.stdout.write(output.getvalue())
            return 0
        try:  # all or nothing; a FIFO or device is written in place
            text = output.getvalue().encode()
            files.write_atomically(self.args.output_file, lambda f: f.write(text))
        except OSError as error:
            print(f"{self.args.output_file}: error: {error.strerror}", file=sys.stderr)
            return 1
        return 0

    def _chunks(self, text: str) -> list[tuple[str, int]]:
        if not self.args.split_input_file:
            return [(text, 0)]
        chunks, line_offset = [], 0
        for chunk in text.split(SPLIT_MARKER):
            chunks.append((chunk, line_offset))
            line_offset += chunk.count("\n")
        return chunks

    def _process(self, chunk: str, name: str, line_offset: int) -> str:
        """Parse, verify and transform one chunk; return its printed result."""
        module = parse_module(
            self.ctx, chunk, name, line_offset, not self.args.no_implicit_module
        )
        try:
            if not self.args.disable_verify:
                verify_module(module)
            self.apply_passes(module)
            return self.output_resulting_program(module)
        except OpError as error:
            raise locate(error.op, error.describe(), error.notes, name) from None
        except DiagnosticException as error:
            raise LocatedError(Location(name, 0, 0), str(error)) from None


def main(args: Sequence[str] | None = None) -> int:
    return files.run_interruptibly("grad-opt", lambda: _main(args))


def _main(args: Sequence[str] | None) -> int:
    try:
        driver = GradOptMain(
            description="gradopt's modular optimizer driver", args=args
        )
        return driver.run()
    except SystemExit as exit:
        return exit.code if isinstance(exit.code, int) else 1
    except Exception as error:  # an unknown pass, or a failure in a pass's code
        print(f"grad-opt: error: {error}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
