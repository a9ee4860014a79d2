// RUN: not grad-opt %s -p no-such-pass 2>&1 | filecheck %s
// RUN: not grad-opt %s -p cse,no-such-pass,dce 2>&1 | filecheck %s --check-prefix=SECOND
// RUN: EXIT_STATUS grad-opt %s -p no-such-pass | filecheck %s --check-prefix=STATUS
// RUN: not grad-opt %s -p expand-gradiant 2>&1 | filecheck %s --check-prefix=NEAR

// An unknown pass name is an error before anything runs: one line with the
// column in the pipeline, exit 1; a name close to a known one is suggested.

func.func @f(%a: tensor<5xf32>) -> tensor<5xf32> {
  func.return %a : tensor<5xf32>
}

// CHECK-NOT: Traceback
// CHECK:     grad-opt: error: in pass pipeline at column 1: unknown pass 'no-such-pass'{{$}}
// CHECK-NOT: func.func
// CHECK-NOT: Traceback

// SECOND: grad-opt: error: in pass pipeline at column 5: unknown pass 'no-such-pass'

// STATUS:      grad-opt: error: in pass pipeline at column 1: unknown pass 'no-such-pass'
// STATUS-NEXT: exit status: 1

// NEAR: grad-opt: error: in pass pipeline at column 1: unknown pass 'expand-gradiant'; did you mean 'expand-gradient'?
