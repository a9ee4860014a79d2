// RUN: not grad-opt %s -p no-such-pass 2>&1 | filecheck %s
// RUN: not grad-opt %s -p cse,no-such-pass,dce 2>&1 | filecheck %s
// RUN: EXIT_STATUS grad-opt %s -p no-such-pass | filecheck %s --check-prefix=STATUS

// An unknown pass name is an error before anything runs: one line, exit 1.

func.func @f(%a: tensor<5xf32>) -> tensor<5xf32> {
  func.return %a : tensor<5xf32>
}

// CHECK-NOT: Traceback
// CHECK:     grad-opt: error: Unrecognized passes: ['no-such-pass']
// CHECK-NOT: func.func
// CHECK-NOT: Traceback

// STATUS:      grad-opt: error: Unrecognized passes: ['no-such-pass']
// STATUS-NEXT: exit status: 1
