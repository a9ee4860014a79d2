// RUN: not grad-opt %s > %t.out 2> %t.err
// RUN: filecheck %s --input-file=%t.err --strict-whitespace
// RUN: filecheck %s --input-file=%t.err --check-prefix=ONCE
// RUN: wc -c < %t.out | filecheck %s --check-prefix=STDOUT
// RUN: EXIT_STATUS grad-opt %s | filecheck %s --check-prefix=STATUS

// A malformed file (a comma is missing) gives one located error with the
// source line and a caret under the offending token, on stderr; nothing on
// stdout; exit status 1; no Python traceback.

func.func @f(%a: tensor<5xf32>) -> tensor<5xf32> {
  %r = grad.add %a %a : tensor<5xf32>
  func.return %r : tensor<5xf32>
}

// CHECK:      {{^.*}}/driver/parse_error.mlir:12:20: error: Expected ':'{{$}}
// CHECK-NEXT: {{^}}  %r = grad.add %a %a : tensor<5xf32>{{$}}
// CHECK-NEXT: {{^}}                   ^{{$}}

// ONCE-NOT: Traceback
// ONCE:     error:
// ONCE-NOT: error:
// ONCE-NOT: Traceback

// STDOUT: {{^ *0$}}

// STATUS:      error: Expected ':'
// STATUS:      exit status: 1
