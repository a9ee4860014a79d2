// RUN: not grad-opt %s --split-input-file > %t.stdout 2> %t.stderr
// RUN: filecheck %s --input-file=%t.stderr
// RUN: filecheck %s --input-file=%t.stdout --check-prefix=OUT
// RUN: EXIT_STATUS grad-opt %s --split-input-file | filecheck %s --check-prefix=FAILED
// RUN: grad-opt %s --split-input-file --verify-diagnostics | filecheck %s --check-prefix=DIAG
// RUN: EXIT_STATUS grad-opt %s --split-input-file --verify-diagnostics | filecheck %s --check-prefix=STATUS
// RUN: not grad-opt %s --split-input-file -o %t.out
// RUN: not test -e %t.out

// With --split-input-file, errors in later chunks carry the line numbers of
// the whole file. Every chunk is processed, as by mlir-opt: without
// --verify-diagnostics each good chunk's result is printed to stdout, each
// bad chunk's error to stderr, and the exit status is 1 (with -o, nothing is
// written); with it, each chunk's error is printed to stdout in place of its
// result and the exit status is 0.

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

// CHECK:      {{.*}}/driver/split_input_file.mlir:24:3: error: 'grad.reshape' op result must have as many elements as the input (5), got 6
// CHECK-NEXT:   %r = grad.reshape %a : tensor<5xf32> to tensor<6xf32>
// CHECK:      {{.*}}/driver/split_input_file.mlir:31:19: error: expected 'true' or 'false' for i1, got '2'
// CHECK-NOT:  error:

// OUT:      func.func @first
// OUT-NEXT:   func.return
// OUT:      // -----
// OUT-NEXT: // -----
// OUT-NEXT: // -----
// OUT-NEXT: builtin.module {
// OUT-NEXT:   func.func @fourth
// OUT-NOT:  error

// FAILED: exit status: 1

// DIAG-LABEL: func.func @first
// DIAG:       // -----
// DIAG-NEXT:  {{.*}}/driver/split_input_file.mlir:24:3: error: 'grad.reshape' op result must have as many elements as the input (5), got 6
// DIAG:       // -----
// DIAG-NEXT:  {{.*}}/driver/split_input_file.mlir:31:19: error: expected 'true' or 'false' for i1, got '2'
// DIAG:       // -----
// DIAG-NEXT:  builtin.module {
// DIAG-NEXT:    func.func @fourth

// STATUS: exit status: 0
