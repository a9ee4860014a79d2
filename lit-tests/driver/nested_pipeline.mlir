// RUN: grad-opt %s -p 'expand-gradient, cse' | filecheck %s
// RUN: grad-opt %s -p ' builtin.module( func.func( expand-gradient , cse ) ) ' | filecheck %s
// RUN: grad-opt %s -p 'expand-gradient,func.func(cse),canonicalize' | filecheck %s
// RUN: EXIT_STATUS grad-opt %s -p 'func.func(cse, nope)' | filecheck %s --check-prefix=INNER
// RUN: EXIT_STATUS grad-opt %s -p 'func.func(cse' | filecheck %s --check-prefix=UNCLOSED
// RUN: EXIT_STATUS grad-opt %s -p 'func.func(cse)dce' | filecheck %s --check-prefix=AFTER
// RUN: EXIT_STATUS grad-opt %s -p 'expand-gradient  cse' | filecheck %s --check-prefix=SPACE

// Spaces around commas and parentheses lay a pipeline out and are dropped (a
// space between two names is still an error, at its column as typed); MLIR's
// nested `func.func(...)` runs its passes on each function in turn, each in a
// module of its own.

func.func @f(%x: tensor<f32>) -> tensor<f32> {
  %a = grad.mul %x, %x : tensor<f32>
  %b = grad.mul %x, %x : tensor<f32>
  %s = grad.add %a, %b : tensor<f32>
  %g = grad.gradient %s wrt %x : tensor<f32>, tensor<f32>
  func.return %g : tensor<f32>
}

func.func @h(%y: tensor<2xf32>) -> tensor<2xf32> {
  %a = grad.neg %y : tensor<2xf32>
  %b = grad.neg %y : tensor<2xf32>
  %s = grad.add %a, %b : tensor<2xf32>
  func.return %s : tensor<2xf32>
}

// CHECK-LABEL: func.func @f
// CHECK-NOT:     grad.gradient
// CHECK:         func.return
// CHECK-LABEL: func.func @h
// CHECK-NEXT:    %[[N:.*]] = grad.neg %y
// CHECK-NEXT:    %[[S:.*]] = grad.add %[[N]], %[[N]]
// CHECK-NEXT:    func.return %[[S]]

// INNER:       grad-opt: error: in pass pipeline at column 16: unknown pass 'nope'
// INNER-NEXT:  exit status: 1
// UNCLOSED:    grad-opt: error: in pass pipeline at column 14: expected ')' to close 'func.func('
// UNCLOSED-NEXT: exit status: 1
// AFTER:       grad-opt: error: in pass pipeline at column 15: expected ',' after a nested pipeline
// AFTER-NEXT:  exit status: 1
// SPACE:       grad-opt: error: in pass pipeline at column 16: expected a comma or pass arguments, found ' '
// SPACE-NEXT:  exit status: 1
