// RUN: grad-run %s --arg '0=[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]' --arg '1=[NaN, 1.0, 7.0]' | filecheck %s

// Reductions remove the reduced axes (all of them gives rank 0); max propagates
// NaN; i32 reductions wrap. broadcast places input dim i at output dim dims[i];
// permute takes output dim i from input dim perm[i]; dot is a matrix product.

func.func @main(%m: tensor<2x3xf32>, %v: tensor<3xf32>) -> (tensor<3xf32>, tensor<2xf32>, tensor<f32>, tensor<f32>, tensor<3xf32>, tensor<i32>, tensor<2x3xf32>, tensor<2x2x3xf32>, tensor<3x2xf32>, tensor<3x2xf32>, tensor<2x2xf32>, tensor<2x3xf32>) {
  %cols = grad.reduce add %m [0] : tensor<2x3xf32> to tensor<3xf32>
  %rows = grad.reduce max %m [1] : tensor<2x3xf32> to tensor<2xf32>
  %all = grad.reduce mul %m [0, 1] : tensor<2x3xf32> to tensor<f32>
  %nan = grad.reduce max %v [0] : tensor<3xf32> to tensor<f32>
  %big = grad.const 1073741824 : tensor<4xi32>
  %wrap = grad.reduce add %big [0] : tensor<4xi32> to tensor<i32>
  %rowwise = grad.broadcast %v [1] : tensor<3xf32> to tensor<2x3xf32>
  %one = grad.reshape %cols : tensor<3xf32> to tensor<1x3xf32>
  %expanded = grad.broadcast %one [1, 2] : tensor<1x3xf32> to tensor<2x2x3xf32>
  %t = grad.permute %m [1, 0] : tensor<2x3xf32> to tensor<3x2xf32>
  %r = grad.reshape %m : tensor<2x3xf32> to tensor<3x2xf32>
  %dot = grad.dot %m, %t : tensor<2x3xf32>, tensor<3x2xf32> to tensor<2x2xf32>
  %sum = grad.reduce add %t [1] : tensor<3x2xf32> to tensor<3xf32>
  %again = grad.broadcast %sum [1] : tensor<3xf32> to tensor<2x3xf32>
  func.return %cols, %rows, %all, %nan, %sum, %wrap, %rowwise, %expanded, %t, %r, %dot, %again : tensor<3xf32>, tensor<2xf32>, tensor<f32>, tensor<f32>, tensor<3xf32>, tensor<i32>, tensor<2x3xf32>, tensor<2x2x3xf32>, tensor<3x2xf32>, tensor<3x2xf32>, tensor<2x2xf32>, tensor<2x3xf32>
}

// CHECK:      result 0 = dense<[5.0, 7.0, 9.0]> : tensor<3xf32>
// CHECK-NEXT: result 1 = dense<[3.0, 6.0]> : tensor<2xf32>
// CHECK-NEXT: result 2 = dense<720.0> : tensor<f32>
// CHECK-NEXT: result 3 = dense<nan> : tensor<f32>
// CHECK-NEXT: result 4 = dense<[5.0, 7.0, 9.0]> : tensor<3xf32>
// CHECK-NEXT: result 5 = dense<0> : tensor<i32>
// CHECK-NEXT: result 6 = dense<{{\[\[}}nan, 1.0, 7.0], [nan, 1.0, 7.0]]> : tensor<2x3xf32>
// CHECK-NEXT: result 7 = dense<{{\[\[\[}}5.0, 7.0, 9.0], [5.0, 7.0, 9.0]], {{\[\[}}5.0, 7.0, 9.0], [5.0, 7.0, 9.0]]]> : tensor<2x2x3xf32>
// CHECK-NEXT: result 8 = dense<{{\[\[}}1.0, 4.0], [2.0, 5.0], [3.0, 6.0]]> : tensor<3x2xf32>
// CHECK-NEXT: result 9 = dense<{{\[\[}}1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]> : tensor<3x2xf32>
// CHECK-NEXT: result 10 = dense<{{\[\[}}14.0, 32.0], [32.0, 77.0]]> : tensor<2x2xf32>
// CHECK-NEXT: result 11 = dense<{{\[\[}}5.0, 7.0, 9.0], [5.0, 7.0, 9.0]]> : tensor<2x3xf32>
