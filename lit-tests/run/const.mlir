// RUN: grad-run %s | filecheck %s

// Literals: splats of every element type, dense data, bit patterns, exponents;
// detach is the identity. Floats print as the shortest text that reads back as
// the same float32, rank 0 without brackets, rank 2 nested.

func.func @main() -> (tensor<2xf32>, tensor<3xf32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<2xi32>, tensor<3xi1>, tensor<i1>, tensor<2x2xi32>) {
  %splat = grad.const -2.5 : tensor<2xf32>
  %dense = grad.const dense<[1.0e-45, 0.1, 3.4028235e+38]> : tensor<3xf32>
  %inf = grad.const 0x7F800000 : tensor<f32>
  %ninf = grad.const 0xFF800000 : tensor<f32>
  %nan = grad.const 0x7FC00000 : tensor<f32>
  %nzero = grad.const 0x80000000 : tensor<f32>
  %exp = grad.const 1.5e-3 : tensor<f32>
  %int = grad.const -3 : tensor<2xi32>
  %flags = grad.const dense<[true, false, true]> : tensor<3xi1>
  %flag = grad.const false : tensor<i1>
  %matrix = grad.const dense<[[1, 2], [3, 4]]> : tensor<2x2xi32>
  %detached = grad.detach %matrix : tensor<2x2xi32>
  func.return %splat, %dense, %inf, %ninf, %nan, %nzero, %exp, %int, %flags, %flag, %detached : tensor<2xf32>, tensor<3xf32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<2xi32>, tensor<3xi1>, tensor<i1>, tensor<2x2xi32>
}

// CHECK:      result 0 = dense<[-2.5, -2.5]> : tensor<2xf32>
// CHECK-NEXT: result 1 = dense<[1e-45, 0.1, 3.4028235e+38]> : tensor<3xf32>
// CHECK-NEXT: result 2 = dense<inf> : tensor<f32>
// CHECK-NEXT: result 3 = dense<-inf> : tensor<f32>
// CHECK-NEXT: result 4 = dense<nan> : tensor<f32>
// CHECK-NEXT: result 5 = dense<-0.0> : tensor<f32>
// CHECK-NEXT: result 6 = dense<0.0015> : tensor<f32>
// CHECK-NEXT: result 7 = dense<[-3, -3]> : tensor<2xi32>
// CHECK-NEXT: result 8 = dense<[true, false, true]> : tensor<3xi1>
// CHECK-NEXT: result 9 = dense<false> : tensor<i1>
// CHECK-NEXT: result 10 = dense<{{\[\[}}1, 2], [3, 4]]> : tensor<2x2xi32>
