// RUN: grad-opt %s -p convert-grad-to-standard --split-input-file | filecheck %s

// reduce is a linalg.reduce over the same axes into an init filled with the
// identity of its kind: -0.0 for an f32 sum (a sum of -0.0 stays -0.0), 1 for
// mul, -inf (f32) or INT_MIN (i32) for max.

func.func @reduce(%a: tensor<2x3x4xf32>, %i: tensor<5xi32>) -> (tensor<3xf32>, tensor<f32>, tensor<2x4xf32>, tensor<i32>) {
  %sum = grad.reduce add %a [0, 2] : tensor<2x3x4xf32> to tensor<3xf32>
  %prod = grad.reduce mul %a [0, 1, 2] : tensor<2x3x4xf32> to tensor<f32>
  %max = grad.reduce max %a [1] : tensor<2x3x4xf32> to tensor<2x4xf32>
  %imax = grad.reduce max %i [0] : tensor<5xi32> to tensor<i32>
  func.return %sum, %prod, %max, %imax : tensor<3xf32>, tensor<f32>, tensor<2x4xf32>, tensor<i32>
}

// CHECK-LABEL: func.func @reduce
// CHECK-NEXT:    %sum = tensor.empty() : tensor<3xf32>
// CHECK-NEXT:    %sum_1 = arith.constant -0.000000e+00 : f32
// CHECK-NEXT:    %sum_2 = linalg.fill ins(%sum_1 : f32) outs(%sum : tensor<3xf32>) -> tensor<3xf32>
// CHECK-NEXT:    %sum_3 = linalg.reduce ins(%a:tensor<2x3x4xf32>) outs(%sum_2:tensor<3xf32>) dimensions = [0, 2]
// CHECK-NEXT:    (%[[IN:.*]]: f32, %[[ACC:.*]]: f32) {
// CHECK-NEXT:      %[[R:.*]] = arith.addf %[[IN]], %[[ACC]] : f32
// CHECK-NEXT:      linalg.yield %[[R]] : f32
// CHECK-NEXT:    }
// CHECK:         %prod_1 = arith.constant 1.000000e+00 : f32
// CHECK:         linalg.reduce ins(%a:tensor<2x3x4xf32>) outs(%prod_2:tensor<f32>) dimensions = [0, 1, 2]
// CHECK:           arith.mulf
// CHECK:         %max_1 = arith.constant 0xff800000 : f32
// CHECK:         linalg.reduce ins(%a:tensor<2x3x4xf32>) outs(%max_2:tensor<2x4xf32>) dimensions = [1]
// CHECK:           arith.maximumf
// CHECK:         %imax_1 = arith.constant -2147483648 : i32
// CHECK:         linalg.reduce ins(%i:tensor<5xi32>) outs(%imax_2:tensor<i32>) dimensions = [0]
// CHECK:           arith.maxsi

// -----

// broadcast is a linalg.broadcast adding the output dims that are not in the
// list; input dims of size 1 that expand are collapsed away first.

func.func @broadcast(%a: tensor<3xf32>, %b: tensor<2x1xf32>, %s: tensor<f32>) -> (tensor<2x3xf32>, tensor<2x4xf32>, tensor<4x2xf32>, tensor<3xf32>) {
  %rows = grad.broadcast %a [1] : tensor<3xf32> to tensor<2x3xf32>
  %wide = grad.broadcast %b [0, 1] : tensor<2x1xf32> to tensor<2x4xf32>
  %splat = grad.broadcast %s [] : tensor<f32> to tensor<4x2xf32>
  %same = grad.broadcast %a [0] : tensor<3xf32> to tensor<3xf32>
  func.return %rows, %wide, %splat, %same : tensor<2x3xf32>, tensor<2x4xf32>, tensor<4x2xf32>, tensor<3xf32>
}

// CHECK-LABEL: func.func @broadcast
// CHECK-NEXT:    %rows = tensor.empty() : tensor<2x3xf32>
// CHECK-NEXT:    %rows_1 = linalg.broadcast ins(%a:tensor<3xf32>) outs(%rows:tensor<2x3xf32>) dimensions = [0]
// CHECK-NEXT:    %wide = tensor.collapse_shape %b {{\[}}[0 : i64, 1 : i64]] : tensor<2x1xf32> into tensor<2xf32>
// CHECK-NEXT:    %wide_1 = tensor.empty() : tensor<2x4xf32>
// CHECK-NEXT:    %wide_2 = linalg.broadcast ins(%wide:tensor<2xf32>) outs(%wide_1:tensor<2x4xf32>) dimensions = [1]
// CHECK-NEXT:    %splat = tensor.empty() : tensor<4x2xf32>
// CHECK-NEXT:    %splat_1 = linalg.broadcast ins(%s:tensor<f32>) outs(%splat:tensor<4x2xf32>) dimensions = [0, 1]
// CHECK-NEXT:    func.return %rows_1, %wide_2, %splat_1, %a :

// -----

// reshape is a collapse_shape or an expand_shape where the shapes group into
// one another, else a collapse to the flat shape and an expand from it.

func.func @reshape(%a: tensor<2x3x4xf32>, %b: tensor<6xf32>, %c: tensor<2x3xf32>, %d: tensor<1x1xf32>) -> (tensor<6x4xf32>, tensor<2x3x1xf32>, tensor<3x2xf32>, tensor<f32>) {
  %collapse = grad.reshape %a : tensor<2x3x4xf32> to tensor<6x4xf32>
  %expand = grad.reshape %b : tensor<6xf32> to tensor<2x3x1xf32>
  %flat = grad.reshape %c : tensor<2x3xf32> to tensor<3x2xf32>
  %scalar = grad.reshape %d : tensor<1x1xf32> to tensor<f32>
  func.return %collapse, %expand, %flat, %scalar : tensor<6x4xf32>, tensor<2x3x1xf32>, tensor<3x2xf32>, tensor<f32>
}

// CHECK-LABEL: func.func @reshape
// CHECK-NEXT:    %collapse = tensor.collapse_shape %a {{\[}}[0 : i64, 1 : i64], [2 : i64]] : tensor<2x3x4xf32> into tensor<6x4xf32>
// CHECK-NEXT:    %expand = tensor.expand_shape %b {{\[}}[0 : i64, 1 : i64, 2 : i64]] output_shape [2, 3, 1] : tensor<6xf32> into tensor<2x3x1xf32>
// CHECK-NEXT:    %flat = tensor.collapse_shape %c {{\[}}[0 : i64, 1 : i64]] : tensor<2x3xf32> into tensor<6xf32>
// CHECK-NEXT:    %flat_1 = tensor.expand_shape %flat {{\[}}[0 : i64, 1 : i64]] output_shape [3, 2] : tensor<6xf32> into tensor<3x2xf32>
// CHECK-NEXT:    %scalar = tensor.collapse_shape %d [] : tensor<1x1xf32> into tensor<f32>
// CHECK-NEXT:    func.return %collapse, %expand, %flat_1, %scalar :

// -----

// permute is a linalg.transpose with the same permutation; dot a linalg.matmul
// into a zero-filled init.

func.func @permute_dot(%a: tensor<2x3x4xf32>, %m: tensor<2x3xf32>, %n: tensor<3x5xf32>) -> (tensor<4x2x3xf32>, tensor<2x5xf32>) {
  %p = grad.permute %a [2, 0, 1] : tensor<2x3x4xf32> to tensor<4x2x3xf32>
  %d = grad.dot %m, %n : tensor<2x3xf32>, tensor<3x5xf32> to tensor<2x5xf32>
  func.return %p, %d : tensor<4x2x3xf32>, tensor<2x5xf32>
}

// CHECK-LABEL: func.func @permute_dot
// CHECK-NEXT:    %p = tensor.empty() : tensor<4x2x3xf32>
// CHECK-NEXT:    %p_1 = linalg.transpose ins(%a:tensor<2x3x4xf32>) outs(%p:tensor<4x2x3xf32>) permutation = [2, 0, 1]
// CHECK-NEXT:    %d = tensor.empty() : tensor<2x5xf32>
// CHECK-NEXT:    %d_1 = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:    %d_2 = linalg.fill ins(%d_1 : f32) outs(%d : tensor<2x5xf32>) -> tensor<2x5xf32>
// CHECK-NEXT:    %d_3 = linalg.matmul ins(%m, %n : tensor<2x3xf32>, tensor<3x5xf32>) outs(%d_2 : tensor<2x5xf32>) -> tensor<2x5xf32>
// CHECK-NEXT:    func.return %p_1, %d_3 :
