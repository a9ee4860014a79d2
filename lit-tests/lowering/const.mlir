// RUN: grad-opt %s -p convert-grad-to-standard | filecheck %s

// A literal is an arith.constant of a dense tensor: a splat stays one value,
// dense data is kept as written, infinities and NaN as their bit patterns.

func.func @main() -> (tensor<3xf32>, tensor<2x2xi32>, tensor<i1>, tensor<3xf32>, tensor<2xf32>, tensor<f32>) {
  %f = grad.const 2.5 : tensor<3xf32>
  %i = grad.const -7 : tensor<2x2xi32>
  %b = grad.const true : tensor<i1>
  %d = grad.const dense<[1.0, -0.0, 0.1]> : tensor<3xf32>
  %n = grad.const 0xFF800000 : tensor<2xf32>
  %third = grad.const 0.333333343 : tensor<f32>
  func.return %f, %i, %b, %d, %n, %third : tensor<3xf32>, tensor<2x2xi32>, tensor<i1>, tensor<3xf32>, tensor<2xf32>, tensor<f32>
}

// CHECK:      %f = arith.constant dense<2.500000e+00> : tensor<3xf32>
// CHECK-NEXT: %i = arith.constant dense<-7> : tensor<2x2xi32>
// CHECK-NEXT: %b = arith.constant dense<true> : tensor<i1>
// CHECK-NEXT: %d = arith.constant dense<[1.000000e+00, -0.000000e+00, 1.000000e-01]> : tensor<3xf32>
// CHECK-NEXT: %n = arith.constant dense<0xff800000> : tensor<2xf32>
// CHECK-NEXT: %third = arith.constant dense<0.333333343> : tensor<f32>
