// RUN: grad-opt %s --split-input-file --verify-expected-diagnostics | filecheck %s
// RUN: sed -e 's/{{as many elements as the input}}/{{nothing like it}}/' %s > %t.wrong.mlir
// RUN: EXIT_STATUS grad-opt %t.wrong.mlir --split-input-file --verify-expected-diagnostics 2>&1 | filecheck %s --check-prefix=WRONG
// RUN: sed -e 's/.*expected-note.*//' %s > %t.nonote.mlir
// RUN: EXIT_STATUS grad-opt %t.nonote.mlir --split-input-file --verify-expected-diagnostics 2>&1 | filecheck %s --check-prefix=NONOTE

// `--verify-expected-diagnostics` checks MLIR's `expected-error` comments,
// as mlir-opt's `-verify-diagnostics` does (xdsl-opt's
// `--verify-diagnostics` keeps its meaning: print the error as output). Every
// error and note must be announced on its line (`@+N`, `@-N`, `@above` and
// `@below` move the line), every annotation must be met; then the exit
// status is 0 and the chunks without errors are printed.

func.func @good(%a: tensor<5xf32>) -> tensor<5xf32> {
  func.return %a : tensor<5xf32>
}

// -----

func.func @reshape(%a: tensor<5xf32>) -> tensor<6xf32> {
  // expected-error @+1 {{as many elements as the input}}
  %r = grad.reshape %a : tensor<5xf32> to tensor<6xf32>
  func.return %r : tensor<6xf32>
}

// -----

func.func @target_literal() -> tensor<f32> {
  // expected-note @below {{the literal is here}}
  %c = grad.const 2.0 : tensor<f32>
  %l = grad.mul %c, %c : tensor<f32>
  %g = grad.gradient %l wrt %c : tensor<f32>, tensor<f32>
  // expected-error @above {{with respect to a literal}}
  func.return %g : tensor<f32>
}

// CHECK:     func.func @good
// CHECK-NOT: func.func @reshape
// CHECK-NOT: func.func @target_literal

// WRONG:      wrong.mlir:22:3: error: unexpected error: 'grad.reshape' op result must have as many elements as the input (5), got 6
// WRONG:      wrong.mlir:21:3: error: expected error "nothing like it" was not produced
// WRONG-NOT:  error:
// WRONG:      exit status: 1

// NONOTE:      nonote.mlir:30:3: error: unexpected note: the literal is here
// NONOTE-NOT:  error:
// NONOTE:      exit status: 1
