// RUN: grad-run %s --arg '0=[[1, 2, 3], [4, 5, 6]]' --arg 1=7.5 | filecheck %s

// `tensor` ops move data exactly: slices with static and SSA offsets, rank
// reduction, strides; pad, concat, reshapes (the rank-0 `expand_shape` with
// an empty reassociation that IREE prints included), extract (insert and
// splat, which IREE 3.13 miscompiles or refuses, are tested in
// tests/test_upstream_run.py).

func.func @main(%t: tensor<2x3xf32>, %s: f32) -> (tensor<3xf32>, tensor<2x2xf32>, tensor<2x3xf32>, tensor<4x5xf32>, tensor<4x3xf32>, tensor<1xf32>, tensor<3x2xf32>, f32, tensor<2xf32>) {
  %c1 = arith.constant 1 : index
  %row = tensor.extract_slice %t[%c1, 0] [1, 3] [1, 1] : tensor<2x3xf32> to tensor<3xf32>
  %odd = tensor.extract_slice %t[0, 0] [2, 2] [1, 2] : tensor<2x3xf32> to tensor<2x2xf32>
  %zero = arith.constant dense<0.0> : tensor<2x3xf32>
  %r = tensor.expand_shape %row [[0, 1]] output_shape [1, 3] : tensor<3xf32> into tensor<1x3xf32>
  %into = tensor.insert_slice %r into %zero[%c1, 0] [1, 3] [1, 1] : tensor<1x3xf32> into tensor<2x3xf32>
  %pad = tensor.pad %t low[1, 1] high[1, 1] {
  ^bb0(%i: index, %j: index):
    tensor.yield %s : f32
  } : tensor<2x3xf32> to tensor<4x5xf32>
  %cat = tensor.concat dim(0) %t, %t : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<4x3xf32>
  %scalar = tensor.from_elements %s : tensor<f32>
  %one = tensor.expand_shape %scalar [] output_shape [1] : tensor<f32> into tensor<1xf32>
  %flat = tensor.collapse_shape %t [[0, 1]] : tensor<2x3xf32> into tensor<6xf32>
  %re = tensor.expand_shape %flat [[0, 1]] output_shape [3, 2] : tensor<6xf32> into tensor<3x2xf32>
  %c2 = arith.constant 2 : index
  %x = tensor.extract %t[%c1, %c2] : tensor<2x3xf32>
  %pair = tensor.from_elements %x, %s : tensor<2xf32>
  func.return %row, %odd, %into, %pad, %cat, %one, %re, %x, %pair : tensor<3xf32>, tensor<2x2xf32>, tensor<2x3xf32>, tensor<4x5xf32>, tensor<4x3xf32>, tensor<1xf32>, tensor<3x2xf32>, f32, tensor<2xf32>
}

// CHECK:      result 0 = dense<[4.0, 5.0, 6.0]> : tensor<3xf32>
// CHECK-NEXT: result 1 = dense<[[1.0, 3.0], [4.0, 6.0]]> : tensor<2x2xf32>
// CHECK-NEXT: result 2 = dense<[[0.0, 0.0, 0.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32>
// CHECK-NEXT: result 3 = dense<[[7.5, 7.5, 7.5, 7.5, 7.5], [7.5, 1.0, 2.0, 3.0, 7.5], [7.5, 4.0, 5.0, 6.0, 7.5], [7.5, 7.5, 7.5, 7.5, 7.5]]> : tensor<4x5xf32>
// CHECK-NEXT: result 4 = dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<4x3xf32>
// CHECK-NEXT: result 5 = dense<[7.5]> : tensor<1xf32>
// CHECK-NEXT: result 6 = dense<[[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]> : tensor<3x2xf32>
// CHECK-NEXT: result 7 = 6.0 : f32
// CHECK-NEXT: result 8 = dense<[6.0, 7.5]> : tensor<2xf32>


