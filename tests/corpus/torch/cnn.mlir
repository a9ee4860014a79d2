module @module {
  util.func public @main(%arg0: tensor<3x2x3x3xf32>, %arg1: tensor<3xf32>, %arg2: tensor<3x12xf32>, %arg3: tensor<3xf32>, %arg4: tensor<2x2x8x8xf32>) -> tensor<f32> {
    %c2_i64 = arith.constant 2 : i64
    %cst = arith.constant 0.000000e+00 : f32
    %cst_0 = arith.constant 0xFF800000 : f32
    %cst_1 = arith.constant 6.000000e+00 : f32
    %padded = tensor.pad %arg4 low[0, 0, 1, 1] high[0, 0, 1, 1] {
    ^bb0(%arg5: index, %arg6: index, %arg7: index, %arg8: index):
      tensor.yield %cst : f32
    } : tensor<2x2x8x8xf32> to tensor<2x2x10x10xf32>
    %0 = tensor.empty() : tensor<2x3x4x4xf32>
    %broadcasted = linalg.broadcast ins(%arg1 : tensor<3xf32>) outs(%0 : tensor<2x3x4x4xf32>) dimensions = [0, 2, 3] 
    %1 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : vector<2xi64>, strides = dense<2> : vector<2xi64>} ins(%padded, %arg0 : tensor<2x2x10x10xf32>, tensor<3x2x3x3xf32>) outs(%broadcasted : tensor<2x3x4x4xf32>) -> tensor<2x3x4x4xf32>
    %2 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%1 : tensor<2x3x4x4xf32>) outs(%0 : tensor<2x3x4x4xf32>) {
    ^bb0(%in: f32, %out: f32):
      %17 = arith.cmpf ugt, %in, %cst : f32
      %18 = arith.select %17, %in, %cst : f32
      linalg.yield %18 : f32
    } -> tensor<2x3x4x4xf32>
    %3 = tensor.empty() : tensor<2x3x2x2xf32>
    %4 = linalg.fill ins(%cst_0 : f32) outs(%3 : tensor<2x3x2x2xf32>) -> tensor<2x3x2x2xf32>
    %5 = tensor.empty() : tensor<2x2xf32>
    %6 = linalg.pooling_nchw_max {dilations = dense<1> : vector<2xi64>, strides = dense<2> : vector<2xi64>} ins(%2, %5 : tensor<2x3x4x4xf32>, tensor<2x2xf32>) outs(%4 : tensor<2x3x2x2xf32>) -> tensor<2x3x2x2xf32>
    %collapsed = tensor.collapse_shape %6 [[0], [1, 2, 3]] : tensor<2x3x2x2xf32> into tensor<2x12xf32>
    %7 = tensor.empty() : tensor<12x3xf32>
    %transposed = linalg.transpose ins(%arg2 : tensor<3x12xf32>) outs(%7 : tensor<12x3xf32>) permutation = [1, 0] 
    %8 = tensor.empty() : tensor<2x3xf32>
    %9 = linalg.fill ins(%cst : f32) outs(%8 : tensor<2x3xf32>) -> tensor<2x3xf32>
    %10 = linalg.matmul ins(%collapsed, %transposed : tensor<2x12xf32>, tensor<12x3xf32>) outs(%9 : tensor<2x3xf32>) -> tensor<2x3xf32>
    %11 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%10, %arg3 : tensor<2x3xf32>, tensor<3xf32>) outs(%8 : tensor<2x3xf32>) {
    ^bb0(%in: f32, %in_2: f32, %out: f32):
      %17 = arith.addf %in, %in_2 : f32
      linalg.yield %17 : f32
    } -> tensor<2x3xf32>
    %12 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%11 : tensor<2x3xf32>) outs(%8 : tensor<2x3xf32>) {
    ^bb0(%in: f32, %out: f32):
      %17 = math.fpowi %in, %c2_i64 : f32, i64
      linalg.yield %17 : f32
    } -> tensor<2x3xf32>
    %13 = tensor.empty() : tensor<f32>
    %14 = linalg.fill ins(%cst : f32) outs(%13 : tensor<f32>) -> tensor<f32>
    %15 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> ()>], iterator_types = ["reduction", "reduction"]} ins(%12 : tensor<2x3xf32>) outs(%14 : tensor<f32>) {
    ^bb0(%in: f32, %out: f32):
      %17 = arith.addf %in, %out : f32
      linalg.yield %17 : f32
    } -> tensor<f32>
    %16 = linalg.generic {indexing_maps = [affine_map<() -> ()>, affine_map<() -> ()>], iterator_types = []} ins(%15 : tensor<f32>) outs(%13 : tensor<f32>) {
    ^bb0(%in: f32, %out: f32):
      %17 = arith.divf %in, %cst_1 : f32
      linalg.yield %17 : f32
    } -> tensor<f32>
    util.return %16 : tensor<f32>
  }
}