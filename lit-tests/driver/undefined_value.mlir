// RUN: not grad-opt %s 2>&1 | filecheck %s --strict-whitespace

// xDSL finds undefined values only at the end of the input; the error points
// at the first use of one.

func.func @f(%a: tensor<5xf32>) -> tensor<5xf32> {
  %r = grad.add %a, %b : tensor<5xf32>
  %s = grad.add %r, %c : tensor<5xf32>
  func.return %s : tensor<5xf32>
}

// CHECK:      {{^.*}}/driver/undefined_value.mlir:7:21: error: use of undefined value %b{{$}}
// CHECK-NEXT: {{^}}  %r = grad.add %a, %b : tensor<5xf32>{{$}}
// CHECK-NEXT: {{^}}                    ^{{$}}
// CHECK-NOT:  error:
