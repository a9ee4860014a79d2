// RUN: not grad-opt %s 2>&1 | filecheck %s
// RUN: not grad-run %s 2>&1 | filecheck %s

// xDSL's parser reads the first token when it is created, before parsing
// starts; an error in that token is located like any other (it escaped to the
// driver's catch-all handler as `grad-opt: error: ...`, and grad-run showed a
// traceback).

$main

// CHECK:      {{^.*}}/driver/first_token.mlir:9:1: error: Unexpected character: $
// CHECK-NEXT: {{^}}$main
// CHECK-NEXT: {{^}}^
// CHECK-NOT:  error:
