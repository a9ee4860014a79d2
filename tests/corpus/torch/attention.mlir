module @module {
  util.func public @main(%arg0: tensor<8x8xf32>, %arg1: tensor<8xf32>, %arg2: tensor<8x8xf32>, %arg3: tensor<8xf32>, %arg4: tensor<8x8xf32>, %arg5: tensor<2x3x8xf32>) -> tensor<f32> {
    %cst = arith.constant 5.000000e-01 : f32
    %c2_i64 = arith.constant 2 : i64
    %cst_0 = arith.constant 0.000000e+00 : f32
    %0 = tensor.empty() : tensor<8x8xf32>
    %transposed = linalg.transpose ins(%arg0 : tensor<8x8xf32>) outs(%0 : tensor<8x8xf32>) permutation = [1, 0] 
    %1 = tensor.empty() : tensor<2x8x8xf32>
    %2 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%transposed : tensor<8x8xf32>) outs(%1 : tensor<2x8x8xf32>) {
    ^bb0(%in: f32, %out: f32):
      linalg.yield %in : f32
    } -> tensor<2x8x8xf32>
    %3 = tensor.empty() : tensor<2x3x8xf32>
    %4 = linalg.fill ins(%cst_0 : f32) outs(%3 : tensor<2x3x8xf32>) -> tensor<2x3x8xf32>
    %5 = linalg.batch_matmul ins(%arg5, %2 : tensor<2x3x8xf32>, tensor<2x8x8xf32>) outs(%4 : tensor<2x3x8xf32>) -> tensor<2x3x8xf32>
    %6 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%5, %arg1 : tensor<2x3x8xf32>, tensor<8xf32>) outs(%3 : tensor<2x3x8xf32>) {
    ^bb0(%in: f32, %in_11: f32, %out: f32):
      %19 = arith.addf %in, %in_11 : f32
      linalg.yield %19 : f32
    } -> tensor<2x3x8xf32>
    %expanded = tensor.expand_shape %6 [[0], [1], [2, 3]] output_shape [2, 3, 2, 4] : tensor<2x3x8xf32> into tensor<2x3x2x4xf32>
    %7 = tensor.empty() : tensor<2x2x3x4xf32>
    %transposed_1 = linalg.transpose ins(%expanded : tensor<2x3x2x4xf32>) outs(%7 : tensor<2x2x3x4xf32>) permutation = [0, 2, 1, 3] 
    %transposed_2 = linalg.transpose ins(%arg4 : tensor<8x8xf32>) outs(%0 : tensor<8x8xf32>) permutation = [1, 0] 
    %8 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%transposed_2 : tensor<8x8xf32>) outs(%1 : tensor<2x8x8xf32>) {
    ^bb0(%in: f32, %out: f32):
      linalg.yield %in : f32
    } -> tensor<2x8x8xf32>
    %9 = linalg.batch_matmul ins(%arg5, %8 : tensor<2x3x8xf32>, tensor<2x8x8xf32>) outs(%4 : tensor<2x3x8xf32>) -> tensor<2x3x8xf32>
    %expanded_3 = tensor.expand_shape %9 [[0], [1], [2, 3]] output_shape [2, 3, 2, 4] : tensor<2x3x8xf32> into tensor<2x3x2x4xf32>
    %transposed_4 = linalg.transpose ins(%expanded_3 : tensor<2x3x2x4xf32>) outs(%7 : tensor<2x2x3x4xf32>) permutation = [0, 2, 1, 3] 
    %transposed_5 = linalg.transpose ins(%arg2 : tensor<8x8xf32>) outs(%0 : tensor<8x8xf32>) permutation = [1, 0] 
    %10 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%transposed_5 : tensor<8x8xf32>) outs(%1 : tensor<2x8x8xf32>) {
    ^bb0(%in: f32, %out: f32):
      linalg.yield %in : f32
    } -> tensor<2x8x8xf32>
    %11 = linalg.batch_matmul ins(%arg5, %10 : tensor<2x3x8xf32>, tensor<2x8x8xf32>) outs(%4 : tensor<2x3x8xf32>) -> tensor<2x3x8xf32>
    %12 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%11, %arg3 : tensor<2x3x8xf32>, tensor<8xf32>) outs(%3 : tensor<2x3x8xf32>) {
    ^bb0(%in: f32, %in_11: f32, %out: f32):
      %19 = arith.addf %in, %in_11 : f32
      linalg.yield %19 : f32
    } -> tensor<2x3x8xf32>
    %expanded_6 = tensor.expand_shape %12 [[0], [1], [2, 3]] output_shape [2, 3, 2, 4] : tensor<2x3x8xf32> into tensor<2x3x2x4xf32>
    %transposed_7 = linalg.transpose ins(%expanded_6 : tensor<2x3x2x4xf32>) outs(%7 : tensor<2x2x3x4xf32>) permutation = [0, 2, 1, 3] 
    %collapsed = tensor.collapse_shape %transposed_1 [[0, 1], [2], [3]] : tensor<2x2x3x4xf32> into tensor<4x3x4xf32>
    %collapsed_8 = tensor.collapse_shape %transposed_4 [[0, 1], [2], [3]] : tensor<2x2x3x4xf32> into tensor<4x3x4xf32>
    %collapsed_9 = tensor.collapse_shape %transposed_7 [[0, 1], [2], [3]] : tensor<2x2x3x4xf32> into tensor<4x3x4xf32>
    %13 = tensor.empty() : tensor<4x3x4xf32>
    %14 = iree_linalg_ext.attention <indexing_maps = [affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d3)>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d4, d3)>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d4, d2)>, affine_map<(d0, d1, d2, d3, d4) -> ()>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2)>]> ins(%collapsed, %collapsed_8, %collapsed_9, %cst : tensor<4x3x4xf32>, tensor<4x3x4xf32>, tensor<4x3x4xf32>, f32) outs(%13 : tensor<4x3x4xf32>) {
    ^bb0(%arg6: f32):
      iree_linalg_ext.yield %arg6 : f32
    } -> tensor<4x3x4xf32>
    %expanded_10 = tensor.expand_shape %14 [[0, 1], [2], [3]] output_shape [2, 2, 3, 4] : tensor<4x3x4xf32> into tensor<2x2x3x4xf32>
    %15 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%expanded_10 : tensor<2x2x3x4xf32>) outs(%7 : tensor<2x2x3x4xf32>) {
    ^bb0(%in: f32, %out: f32):
      %19 = math.fpowi %in, %c2_i64 : f32, i64
      linalg.yield %19 : f32
    } -> tensor<2x2x3x4xf32>
    %16 = tensor.empty() : tensor<f32>
    %17 = linalg.fill ins(%cst_0 : f32) outs(%16 : tensor<f32>) -> tensor<f32>
    %18 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> ()>], iterator_types = ["reduction", "reduction", "reduction", "reduction"]} ins(%15 : tensor<2x2x3x4xf32>) outs(%17 : tensor<f32>) {
    ^bb0(%in: f32, %out: f32):
      %19 = arith.addf %in, %out : f32
      linalg.yield %19 : f32
    } -> tensor<f32>
    util.return %18 : tensor<f32>
  }
}