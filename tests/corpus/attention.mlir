module @jit_attention {
  util.func public @main(%arg0: tensor<2x2x4x8xf32>, %arg1: tensor<2x2x6x8xf32>, %arg2: tensor<2x2x6x8xf32>) -> tensor<2x2x4x8xf32> {
    %cst = arith.constant 0xFF800000 : f32
    %cst_0 = arith.constant 2.000000e+00 : f32
    %cst_1 = arith.constant 0.000000e+00 : f32
    %0 = tensor.empty() : tensor<2x2x8x6xf32>
    %1 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d3, d2)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%arg1 : tensor<2x2x6x8xf32>) outs(%0 : tensor<2x2x8x6xf32>) {
    ^bb0(%in: f32, %out: f32):
      linalg.yield %in : f32
    } -> tensor<2x2x8x6xf32>
    %collapsed = tensor.collapse_shape %arg0 [[0, 1], [2], [3]] : tensor<2x2x4x8xf32> into tensor<4x4x8xf32>
    %collapsed_2 = tensor.collapse_shape %1 [[0, 1], [2], [3]] : tensor<2x2x8x6xf32> into tensor<4x8x6xf32>
    %2 = tensor.empty() : tensor<4x4x6xf32>
    %3 = linalg.fill ins(%cst_1 : f32) outs(%2 : tensor<4x4x6xf32>) -> tensor<4x4x6xf32>
    %4 = linalg.batch_matmul ins(%collapsed, %collapsed_2 : tensor<4x4x8xf32>, tensor<4x8x6xf32>) outs(%3 : tensor<4x4x6xf32>) -> tensor<4x4x6xf32>
    %expanded = tensor.expand_shape %4 [[0, 1], [2], [3]] output_shape [2, 2, 4, 6] : tensor<4x4x6xf32> into tensor<2x2x4x6xf32>
    %5 = tensor.empty() : tensor<2x2x4x6xf32>
    %6 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%expanded : tensor<2x2x4x6xf32>) outs(%5 : tensor<2x2x4x6xf32>) {
    ^bb0(%in: f32, %out: f32):
      %26 = arith.divf %in, %cst_0 : f32
      linalg.yield %26 : f32
    } -> tensor<2x2x4x6xf32>
    %7 = tensor.empty() : tensor<2x2x4xf32>
    %8 = linalg.fill ins(%cst : f32) outs(%7 : tensor<2x2x4xf32>) -> tensor<2x2x4xf32>
    %9 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%6 : tensor<2x2x4x6xf32>) outs(%8 : tensor<2x2x4xf32>) {
    ^bb0(%in: f32, %out: f32):
      %26 = arith.maximumf %out, %in : f32
      linalg.yield %26 : f32
    } -> tensor<2x2x4xf32>
    %10 = tensor.empty() : tensor<2x2x4x6xf32>
    %11 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%9 : tensor<2x2x4xf32>) outs(%10 : tensor<2x2x4x6xf32>) {
    ^bb0(%in: f32, %out: f32):
      linalg.yield %in : f32
    } -> tensor<2x2x4x6xf32>
    %12 = tensor.empty() : tensor<2x2x4x6xf32>
    %13 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%6, %11 : tensor<2x2x4x6xf32>, tensor<2x2x4x6xf32>) outs(%12 : tensor<2x2x4x6xf32>) {
    ^bb0(%in: f32, %in_6: f32, %out: f32):
      %26 = arith.subf %in, %in_6 : f32
      linalg.yield %26 : f32
    } -> tensor<2x2x4x6xf32>
    %14 = tensor.empty() : tensor<2x2x4x6xf32>
    %15 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%13 : tensor<2x2x4x6xf32>) outs(%14 : tensor<2x2x4x6xf32>) {
    ^bb0(%in: f32, %out: f32):
      %26 = math.exp %in : f32
      linalg.yield %26 : f32
    } -> tensor<2x2x4x6xf32>
    %16 = tensor.empty() : tensor<2x2x4xf32>
    %17 = linalg.fill ins(%cst_1 : f32) outs(%16 : tensor<2x2x4xf32>) -> tensor<2x2x4xf32>
    %18 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%15 : tensor<2x2x4x6xf32>) outs(%17 : tensor<2x2x4xf32>) {
    ^bb0(%in: f32, %out: f32):
      %26 = arith.addf %out, %in : f32
      linalg.yield %26 : f32
    } -> tensor<2x2x4xf32>
    %19 = tensor.empty() : tensor<2x2x4x6xf32>
    %20 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%18 : tensor<2x2x4xf32>) outs(%19 : tensor<2x2x4x6xf32>) {
    ^bb0(%in: f32, %out: f32):
      linalg.yield %in : f32
    } -> tensor<2x2x4x6xf32>
    %21 = tensor.empty() : tensor<2x2x4x6xf32>
    %22 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%15, %20 : tensor<2x2x4x6xf32>, tensor<2x2x4x6xf32>) outs(%21 : tensor<2x2x4x6xf32>) {
    ^bb0(%in: f32, %in_6: f32, %out: f32):
      %26 = arith.divf %in, %in_6 : f32
      linalg.yield %26 : f32
    } -> tensor<2x2x4x6xf32>
    %collapsed_3 = tensor.collapse_shape %22 [[0, 1], [2], [3]] : tensor<2x2x4x6xf32> into tensor<4x4x6xf32>
    %collapsed_4 = tensor.collapse_shape %arg2 [[0, 1], [2], [3]] : tensor<2x2x6x8xf32> into tensor<4x6x8xf32>
    %23 = tensor.empty() : tensor<4x4x8xf32>
    %24 = linalg.fill ins(%cst_1 : f32) outs(%23 : tensor<4x4x8xf32>) -> tensor<4x4x8xf32>
    %25 = linalg.batch_matmul ins(%collapsed_3, %collapsed_4 : tensor<4x4x6xf32>, tensor<4x6x8xf32>) outs(%24 : tensor<4x4x8xf32>) -> tensor<4x4x8xf32>
    %expanded_5 = tensor.expand_shape %25 [[0, 1], [2], [3]] output_shape [2, 2, 4, 8] : tensor<4x4x8xf32> into tensor<2x2x4x8xf32>
    util.return %expanded_5 : tensor<2x2x4x8xf32>
  }
}