// RUN: not grad-opt %s 2>&1 | filecheck %s

// A region that is never closed: the error is at the end of the input.

// CHECK: {{.*}}/driver/unterminated.mlir:[[# @LINE + 4]]:1: error: unexpected end of input in block definition
// CHECK-NOT: error:
func.func @f(%a: tensor<5xf32>) -> tensor<5xf32> {
  func.return %a : tensor<5xf32>
