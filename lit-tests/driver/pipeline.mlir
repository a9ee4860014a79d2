// RUN: grad-opt %s -p 'builtin.module(expand-gradient,cse)' | filecheck %s
// RUN: grad-opt %s -p ' builtin.module( expand-gradient )' | filecheck %s
// RUN: grad-opt %s -p 'builtin.module()' | filecheck %s --check-prefix=NONE
// RUN: EXIT_STATUS grad-opt %s -p 'expand-gradient cse' | filecheck %s --check-prefix=SPACE
// RUN: EXIT_STATUS grad-opt %s -p ',,' | filecheck %s --check-prefix=COMMAS
// RUN: EXIT_STATUS grad-opt %s -p 'canonicalize{' | filecheck %s --check-prefix=BRACE
// RUN: EXIT_STATUS grad-opt %s -p 'cse{depth=3}' | filecheck %s --check-prefix=OPTION
// RUN: EXIT_STATUS grad-opt %s -p 'builtin.module(cse' | filecheck %s --check-prefix=UNCLOSED
// RUN: EXIT_STATUS grad-opt %s -p 'builtin.module(func.foo(cse))' | filecheck %s --check-prefix=NESTED
// RUN: EXIT_STATUS grad-opt %s -p 'builtin.module(expand-gradient,nope)' | filecheck %s --check-prefix=INNER

// MLIR's `builtin.module(...)` wrapper is accepted around a pipeline; every
// malformed pipeline is one line naming the column as typed, exit status 1,
// no traceback and nothing on stdout.

func.func @f(%x: tensor<f32>) -> tensor<f32> {
  %y = grad.mul %x, %x : tensor<f32>
  %g = grad.gradient %y wrt %x : tensor<f32>, tensor<f32>
  func.return %g : tensor<f32>
}

// CHECK-LABEL: func.func @f
// CHECK-NOT:     grad.gradient
// CHECK:         func.return

// NONE: grad.gradient

// SPACE:      grad-opt: error: in pass pipeline at column 16: expected a comma or pass arguments, found ' '
// SPACE-NEXT: exit status: 1
// COMMAS:      grad-opt: error: in pass pipeline at column 1: expected pass name, found ','
// COMMAS-NEXT: exit status: 1
// BRACE:      grad-opt: error: in pass pipeline at column 14: expected argument name, found end of pipeline
// BRACE-NEXT: exit status: 1
// OPTION:      grad-opt: error: in pass pipeline at column 1: pass 'cse': Provided arguments ["depth"] not found in expected arguments []
// OPTION-NEXT: exit status: 1
// UNCLOSED:      grad-opt: error: in pass pipeline at column 19: expected ')' to close 'builtin.module('
// UNCLOSED-NEXT: exit status: 1
// NESTED:      grad-opt: error: in pass pipeline at column 16: a nested pipeline on 'func.foo' is not supported: only 'func.func(...)', which runs its passes on each function
// NESTED-NEXT: exit status: 1
// INNER:      grad-opt: error: in pass pipeline at column 32: unknown pass 'nope'
// INNER-NEXT: exit status: 1
