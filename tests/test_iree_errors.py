"""A program IREE refuses is one readable error: IREE's diagnostic, or that
the compiler crashed, without its backtrace, command line or advice."""

from __future__ import annotations

import pytest

from gradopt.runtime.iree_errors import compile_failure

REFUSED = """
func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = tensor.empty() : tensor<4xf32>
  %1 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0 * 2)>,
      affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      ins(%x : tensor<4xf32>) outs(%0 : tensor<4xf32>) {
  ^bb0(%a: f32, %b: f32):
    linalg.yield %a : f32
  } -> tensor<4xf32>
  return %1 : tensor<4xf32>
}
"""

CRASH = """Error invoking IREE compiler tool iree-compile
Error code: -11
Diagnostics:
Please report issues to https://github.com/iree-org/iree/issues and include \
the crash backtrace.
 #0 0x00007f778175a0ab llvm::sys::PrintStackTrace(llvm::raw_ostream&, int) \
Signals.cpp:0:0
 #1 0x00007f77817571fe llvm::sys::RunSignalHandlers() Signals.cpp:0:0


Invoked with:
 iree-compile /site-packages/iree/compiler/_mlir_libs/iree-compile - \
--iree-input-type=auto --mlir-print-debuginfo

Need more information? Set IREE_SAVE_TEMPS=/some/dir in your environment to \
save all artifacts and reproducers.
"""


def test_a_refused_program_keeps_only_irees_diagnostic() -> None:
    iree = pytest.importorskip("gradopt.runtime.iree")
    pytest.importorskip("iree.compiler")
    with pytest.raises(iree.BackendError) as caught:
        iree._compile(REFUSED)
    message = str(caught.value)
    assert message.startswith(
        "IREE could not compile the lowered program: <stdin>:4:8: error: "
        "'linalg.generic' op inferred input/output operand #0"
    )
    assert "linalg.generic {indexing_maps" in message  # IREE's source line
    for noise in ("Invoked with", "IREE_SAVE_TEMPS", "Error code", "--iree-"):
        assert noise not in message


def test_a_crash_is_said_in_a_few_words() -> None:
    assert compile_failure(CRASH) == (
        "IREE could not compile the lowered program: iree-compile crashed (SIGSEGV)"
    )


def test_a_report_of_another_form_is_kept() -> None:
    assert compile_failure("something else\nbroke") == (
        "IREE could not compile the lowered program: something else\nbroke"
    )
