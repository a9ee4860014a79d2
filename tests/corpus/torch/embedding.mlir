module @module {
  util.func public @main(%arg0: tensor<10x4xf32>, %arg1: tensor<2x4xf32>, %arg2: tensor<2xf32>, %arg3: tensor<2x3xi64>) -> tensor<f32> {
    %c2_i64 = arith.constant 2 : i64
    %c10 = arith.constant 10 : index
    %c0_i64 = arith.constant 0 : i64
    %cst = arith.constant 0.000000e+00 : f32
    %0 = tensor.empty() : tensor<2x3x4xf32>
    %1 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%arg3 : tensor<2x3xi64>) outs(%0 : tensor<2x3x4xf32>) {
    ^bb0(%in: i64, %out: f32):
      %13 = arith.index_cast %in : i64 to index
      %14 = linalg.index 2 : index
      %15 = arith.cmpi slt, %13, %c10 : index
      cf.assert %15, "index must be smaller than dim size"
      %16 = arith.cmpi sge, %in, %c0_i64 : i64
      cf.assert %16, "index must be larger or equal to 0"
      %extracted = tensor.extract %arg0[%13, %14] : tensor<10x4xf32>
      linalg.yield %extracted : f32
    } -> tensor<2x3x4xf32>
    %2 = tensor.empty() : tensor<4x2xf32>
    %transposed = linalg.transpose ins(%arg1 : tensor<2x4xf32>) outs(%2 : tensor<4x2xf32>) permutation = [1, 0] 
    %3 = tensor.empty() : tensor<2x4x2xf32>
    %4 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%transposed : tensor<4x2xf32>) outs(%3 : tensor<2x4x2xf32>) {
    ^bb0(%in: f32, %out: f32):
      linalg.yield %in : f32
    } -> tensor<2x4x2xf32>
    %5 = tensor.empty() : tensor<2x3x2xf32>
    %6 = linalg.fill ins(%cst : f32) outs(%5 : tensor<2x3x2xf32>) -> tensor<2x3x2xf32>
    %7 = linalg.batch_matmul ins(%1, %4 : tensor<2x3x4xf32>, tensor<2x4x2xf32>) outs(%6 : tensor<2x3x2xf32>) -> tensor<2x3x2xf32>
    %8 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%7, %arg2 : tensor<2x3x2xf32>, tensor<2xf32>) outs(%5 : tensor<2x3x2xf32>) {
    ^bb0(%in: f32, %in_0: f32, %out: f32):
      %13 = arith.addf %in, %in_0 : f32
      linalg.yield %13 : f32
    } -> tensor<2x3x2xf32>
    %9 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%8 : tensor<2x3x2xf32>) outs(%5 : tensor<2x3x2xf32>) {
    ^bb0(%in: f32, %out: f32):
      %13 = math.fpowi %in, %c2_i64 : f32, i64
      linalg.yield %13 : f32
    } -> tensor<2x3x2xf32>
    %10 = tensor.empty() : tensor<f32>
    %11 = linalg.fill ins(%cst : f32) outs(%10 : tensor<f32>) -> tensor<f32>
    %12 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> ()>], iterator_types = ["reduction", "reduction", "reduction"]} ins(%9 : tensor<2x3x2xf32>) outs(%11 : tensor<f32>) {
    ^bb0(%in: f32, %out: f32):
      %13 = arith.addf %in, %out : f32
      linalg.yield %13 : f32
    } -> tensor<f32>
    util.return %12 : tensor<f32>
  }
}