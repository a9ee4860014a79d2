// RUN: not grad-opt %s 2>&1 | filecheck %s --strict-whitespace
// RUN: not grad-opt %s 2>&1 | filecheck %s --check-prefix=ONCE
// RUN: not grad-opt %s 2>/dev/null | wc -c | filecheck %s --check-prefix=STDOUT
// RUN: EXIT_STATUS grad-opt %s | filecheck %s --check-prefix=STATUS

// An ill-typed op in a file that parses: the verifier's error is located at
// the op (its first result), not a dump of the module.

func.func @f(%a: tensor<2x3xf32>) -> tensor<2x2xf32> {
  %n = grad.neg %a : tensor<2x3xf32>
    %r = grad.dot %a, %n : tensor<2x3xf32>, tensor<2x3xf32> to tensor<2x2xf32>
  func.return %r : tensor<2x2xf32>
}

// CHECK:      {{^.*}}/driver/verify_error.mlir:11:5: error: 'grad.dot' op inner sizes must agree: lhs has 3 columns, rhs has 2 rows{{$}}
// CHECK-NEXT: {{^}}    %r = grad.dot %a, %n : tensor<2x3xf32>, tensor<2x3xf32> to tensor<2x2xf32>{{$}}
// CHECK-NEXT: {{^}}    ^{{$}}

// ONCE-NOT: Traceback
// ONCE:     error:
// ONCE-NOT: error:
// ONCE-NOT: "builtin.module"
// ONCE-NOT: Traceback

// STDOUT: {{^ *0$}}

// STATUS:      error: 'grad.dot' op inner sizes must agree
// STATUS:      exit status: 1
