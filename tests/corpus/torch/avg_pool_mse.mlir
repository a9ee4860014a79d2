module @module {
  util.func public @main(%arg0: tensor<2x2x1x1xf32>, %arg1: tensor<2xf32>, %arg2: tensor<1x2x5x5xf32>, %arg3: tensor<1x2x3x3xf32>) -> tensor<f32> {
    %cst = arith.constant 0.000000e+00 : f32
    %cst_0 = arith.constant 4.000000e+00 : f32
    %cst_1 = arith.constant 1.800000e+01 : f32
    %0 = tensor.empty() : tensor<1x2x5x5xf32>
    %broadcasted = linalg.broadcast ins(%arg1 : tensor<2xf32>) outs(%0 : tensor<1x2x5x5xf32>) dimensions = [0, 2, 3] 
    %1 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>} ins(%arg2, %arg0 : tensor<1x2x5x5xf32>, tensor<2x2x1x1xf32>) outs(%broadcasted : tensor<1x2x5x5xf32>) -> tensor<1x2x5x5xf32>
    %padded = tensor.pad %1 low[0, 0, 1, 1] high[0, 0, 1, 1] {
    ^bb0(%arg4: index, %arg5: index, %arg6: index, %arg7: index):
      tensor.yield %cst : f32
    } : tensor<1x2x5x5xf32> to tensor<1x2x7x7xf32>
    %2 = tensor.empty() : tensor<1x2x3x3xf32>
    %3 = linalg.fill ins(%cst : f32) outs(%2 : tensor<1x2x3x3xf32>) -> tensor<1x2x3x3xf32>
    %4 = tensor.empty() : tensor<2x2xf32>
    %5 = linalg.pooling_nchw_sum {dilations = dense<1> : vector<2xi64>, strides = dense<2> : vector<2xi64>} ins(%padded, %4 : tensor<1x2x7x7xf32>, tensor<2x2xf32>) outs(%3 : tensor<1x2x3x3xf32>) -> tensor<1x2x3x3xf32>
    %6 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%5 : tensor<1x2x3x3xf32>) outs(%2 : tensor<1x2x3x3xf32>) {
    ^bb0(%in: f32, %out: f32):
      %13 = arith.divf %in, %cst_0 : f32
      linalg.yield %13 : f32
    } -> tensor<1x2x3x3xf32>
    %7 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%6, %arg3 : tensor<1x2x3x3xf32>, tensor<1x2x3x3xf32>) outs(%2 : tensor<1x2x3x3xf32>) {
    ^bb0(%in: f32, %in_2: f32, %out: f32):
      %13 = arith.subf %in, %in_2 : f32
      linalg.yield %13 : f32
    } -> tensor<1x2x3x3xf32>
    %8 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%7, %7 : tensor<1x2x3x3xf32>, tensor<1x2x3x3xf32>) outs(%2 : tensor<1x2x3x3xf32>) {
    ^bb0(%in: f32, %in_2: f32, %out: f32):
      %13 = arith.mulf %in, %in_2 : f32
      linalg.yield %13 : f32
    } -> tensor<1x2x3x3xf32>
    %9 = tensor.empty() : tensor<f32>
    %10 = linalg.fill ins(%cst : f32) outs(%9 : tensor<f32>) -> tensor<f32>
    %11 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> ()>], iterator_types = ["reduction", "reduction", "reduction", "reduction"]} ins(%8 : tensor<1x2x3x3xf32>) outs(%10 : tensor<f32>) {
    ^bb0(%in: f32, %out: f32):
      %13 = arith.addf %in, %out : f32
      linalg.yield %13 : f32
    } -> tensor<f32>
    %12 = linalg.generic {indexing_maps = [affine_map<() -> ()>, affine_map<() -> ()>], iterator_types = []} ins(%11 : tensor<f32>) outs(%9 : tensor<f32>) {
    ^bb0(%in: f32, %out: f32):
      %13 = arith.divf %in, %cst_1 : f32
      linalg.yield %13 : f32
    } -> tensor<f32>
    util.return %12 : tensor<f32>
  }
}