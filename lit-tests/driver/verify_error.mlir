// RUN: not grad-opt %s > %t.out 2> %t.err
// RUN: filecheck %s --input-file=%t.err --strict-whitespace
// RUN: filecheck %s --input-file=%t.err --check-prefix=ONCE
// RUN: wc -c < %t.out | filecheck %s --check-prefix=STDOUT
// RUN: EXIT_STATUS grad-opt %s | filecheck %s --check-prefix=STATUS

// An ill-typed op in a file that parses: the verifier's error is located at
// the op (its first result), not a dump of the module.

func.func @f(%a: tensor<2x3xf32>) -> tensor<2x2xf32> {
  %n = grad.neg %a : tensor<2x3xf32>
    %r = grad.dot %a, %n : tensor<2x3xf32>, tensor<2x3xf32> to tensor<2x2xf32>
  func.return %r : tensor<2x2xf32>
}

// CHECK:      {{^.*}}/driver/verify_error.mlir:12:5: error: 'grad.dot' op inner sizes must agree: lhs has 3 columns, rhs has 2 rows{{$}}
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
