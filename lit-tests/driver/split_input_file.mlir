// RUN: not grad-opt %s --split-input-file 2>&1 | filecheck %s
// RUN: grad-opt %s --split-input-file --verify-diagnostics | filecheck %s --check-prefix=DIAG
// RUN: EXIT_STATUS grad-opt %s --split-input-file --verify-diagnostics | filecheck %s --check-prefix=STATUS

// With --split-input-file, errors in later chunks carry the line numbers of
// the whole file. Without --verify-diagnostics the first error stops the run;
// with it, each chunk's error is printed to stdout and the run goes on.

func.func @first(%a: tensor<5xf32>) -> tensor<5xf32> {
  func.return %a : tensor<5xf32>
}

// -----

func.func @second(%a: tensor<5xf32>) -> tensor<6xf32> {
  %r = grad.reshape %a : tensor<5xf32> to tensor<6xf32>
  func.return %r : tensor<6xf32>
}

// -----

func.func @third(%a: tensor<5xf32>) {
  %c = grad.const 2 : tensor<5xi1>
  func.return
}

// -----

func.func @fourth(%a: tensor<5xf32>) -> tensor<5xf32> {
  %n = grad.neg %a : tensor<5xf32>
  func.return %n : tensor<5xf32>
}

// CHECK:     {{.*}}/driver/split_input_file.mlir:16:3: error: 'grad.reshape' op result must have as many elements as the input (5), got 6
// CHECK-NOT: error:

// DIAG-LABEL: func.func @first
// DIAG:       // -----
// DIAG-NEXT:  {{.*}}/driver/split_input_file.mlir:16:3: error: 'grad.reshape' op result must have as many elements as the input (5), got 6
// DIAG:       // -----
// DIAG-NEXT:  {{.*}}/driver/split_input_file.mlir:23:19: error: expected 'true' or 'false' for i1, got '2'
// DIAG:       // -----
// DIAG-NEXT:  builtin.module {
// DIAG-NEXT:    func.func @fourth

// STATUS: exit status: 0
