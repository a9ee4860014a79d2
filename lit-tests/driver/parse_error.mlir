// RUN: not grad-opt %s 2>&1 | filecheck %s --strict-whitespace
// RUN: not grad-opt %s 2>&1 | filecheck %s --check-prefix=ONCE
// RUN: not grad-opt %s 2>/dev/null | wc -c | filecheck %s --check-prefix=STDOUT
// RUN: EXIT_STATUS grad-opt %s | filecheck %s --check-prefix=STATUS

// A malformed file (a comma is missing) gives one located error with the
// source line and a caret under the offending token, on stderr; nothing on
// stdout; exit status 1; no Python traceback.

func.func @f(%a: tensor<5xf32>) -> tensor<5xf32> {
  %r = grad.add %a %a : tensor<5xf32>
  func.return %r : tensor<5xf32>
}

// CHECK:      {{^.*}}/driver/parse_error.mlir:11:20: error: Expected ':'{{$}}
// CHECK-NEXT: {{^}}  %r = grad.add %a %a : tensor<5xf32>{{$}}
// CHECK-NEXT: {{^}}                   ^{{$}}

// ONCE-NOT: Traceback
// ONCE:     error:
// ONCE-NOT: error:
// ONCE-NOT: Traceback

// STDOUT: {{^ *0$}}

// STATUS:      error: Expected ':'
// STATUS:      exit status: 1
