// RUN: not grad-opt %s 2>&1 | filecheck %s --strict-whitespace

func.func @g(%a: tensor<5xf32>) {
  %r = grad.frobnicate %a : tensor<5xf32>
  func.return
}

// CHECK:      {{^.*}}/driver/unknown_op.mlir:4:3: error: unknown operation 'grad.frobnicate'{{$}}
// CHECK-NEXT: {{^}}  %r = grad.frobnicate %a : tensor<5xf32>{{$}}
// CHECK-NEXT: {{^}}  ^{{$}}
// CHECK-NOT:  error:
