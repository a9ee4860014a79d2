module @module {
  util.func public @main(%arg0: tensor<8x6xf32>, %arg1: tensor<8xf32>, %arg2: tensor<4x8xf32>, %arg3: tensor<4xf32>, %arg4: tensor<5x6xf32>, %arg5: tensor<5xi64>) -> tensor<f32> {
    %cst = arith.constant 0.000000e+00 : f32
    %c4 = arith.constant 4 : index
    %c0_i64 = arith.constant 0 : i64
    %cst_0 = arith.constant 0xFF800000 : f32
    %cst_1 = arith.constant 5.000000e+00 : f32
    %0 = tensor.empty() : tensor<6x8xf32>
    %transposed = linalg.transpose ins(%arg0 : tensor<8x6xf32>) outs(%0 : tensor<6x8xf32>) permutation = [1, 0] 
    %1 = tensor.empty() : tensor<5x8xf32>
    %2 = linalg.fill ins(%cst : f32) outs(%1 : tensor<5x8xf32>) -> tensor<5x8xf32>
    %3 = linalg.matmul ins(%arg4, %transposed : tensor<5x6xf32>, tensor<6x8xf32>) outs(%2 : tensor<5x8xf32>) -> tensor<5x8xf32>
    %4 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%3, %arg1 : tensor<5x8xf32>, tensor<8xf32>) outs(%1 : tensor<5x8xf32>) {
    ^bb0(%in: f32, %in_4: f32, %out: f32):
      %29 = arith.addf %in, %in_4 : f32
      linalg.yield %29 : f32
    } -> tensor<5x8xf32>
    %5 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%4 : tensor<5x8xf32>) outs(%1 : tensor<5x8xf32>) {
    ^bb0(%in: f32, %out: f32):
      %29 = arith.cmpf ugt, %in, %cst : f32
      %30 = arith.select %29, %in, %cst : f32
      linalg.yield %30 : f32
    } -> tensor<5x8xf32>
    %6 = tensor.empty() : tensor<8x4xf32>
    %transposed_2 = linalg.transpose ins(%arg2 : tensor<4x8xf32>) outs(%6 : tensor<8x4xf32>) permutation = [1, 0] 
    %7 = tensor.empty() : tensor<5x4xf32>
    %8 = linalg.fill ins(%cst : f32) outs(%7 : tensor<5x4xf32>) -> tensor<5x4xf32>
    %9 = linalg.matmul ins(%5, %transposed_2 : tensor<5x8xf32>, tensor<8x4xf32>) outs(%8 : tensor<5x4xf32>) -> tensor<5x4xf32>
    %10 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%9, %arg3 : tensor<5x4xf32>, tensor<4xf32>) outs(%7 : tensor<5x4xf32>) {
    ^bb0(%in: f32, %in_4: f32, %out: f32):
      %29 = arith.addf %in, %in_4 : f32
      linalg.yield %29 : f32
    } -> tensor<5x4xf32>
    %11 = tensor.empty() : tensor<5xi64>
    %12 = linalg.fill ins(%c0_i64 : i64) outs(%11 : tensor<5xi64>) -> tensor<5xi64>
    %13 = tensor.empty() : tensor<5xf32>
    %14 = linalg.fill ins(%cst_0 : f32) outs(%13 : tensor<5xf32>) -> tensor<5xf32>
    %15:2 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%10 : tensor<5x4xf32>) outs(%14, %12 : tensor<5xf32>, tensor<5xi64>) {
    ^bb0(%in: f32, %out: f32, %out_4: i64):
      %29 = linalg.index 1 : index
      %30 = arith.index_cast %29 : index to i64
      %31 = arith.maximumf %in, %out : f32
      %32 = arith.cmpf ogt, %in, %out : f32
      %33 = arith.select %32, %30, %out_4 : i64
      linalg.yield %31, %33 : f32, i64
    } -> (tensor<5xf32>, tensor<5xi64>)
    %expanded = tensor.expand_shape %15#0 [[0, 1]] output_shape [5, 1] : tensor<5xf32> into tensor<5x1xf32>
    %16 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, 0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%10, %expanded : tensor<5x4xf32>, tensor<5x1xf32>) outs(%7 : tensor<5x4xf32>) {
    ^bb0(%in: f32, %in_4: f32, %out: f32):
      %29 = arith.subf %in, %in_4 : f32
      linalg.yield %29 : f32
    } -> tensor<5x4xf32>
    %17 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%16 : tensor<5x4xf32>) outs(%7 : tensor<5x4xf32>) {
    ^bb0(%in: f32, %out: f32):
      %29 = math.exp %in : f32
      linalg.yield %29 : f32
    } -> tensor<5x4xf32>
    %18 = tensor.empty() : tensor<5x1xf32>
    %19 = linalg.fill ins(%cst : f32) outs(%18 : tensor<5x1xf32>) -> tensor<5x1xf32>
    %20 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, 0)>], iterator_types = ["parallel", "reduction"]} ins(%17 : tensor<5x4xf32>) outs(%19 : tensor<5x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %29 = arith.addf %in, %out : f32
      linalg.yield %29 : f32
    } -> tensor<5x1xf32>
    %21 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%20 : tensor<5x1xf32>) outs(%18 : tensor<5x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %29 = math.log %in : f32
      linalg.yield %29 : f32
    } -> tensor<5x1xf32>
    %22 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, 0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%16, %21 : tensor<5x4xf32>, tensor<5x1xf32>) outs(%7 : tensor<5x4xf32>) {
    ^bb0(%in: f32, %in_4: f32, %out: f32):
      %29 = arith.subf %in, %in_4 : f32
      linalg.yield %29 : f32
    } -> tensor<5x4xf32>
    %expanded_3 = tensor.expand_shape %arg5 [[0, 1]] output_shape [5, 1] : tensor<5xi64> into tensor<5x1xi64>
    %23 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%expanded_3 : tensor<5x1xi64>) outs(%19 : tensor<5x1xf32>) {
    ^bb0(%in: i64, %out: f32):
      %29 = linalg.index 0 : index
      %30 = arith.index_cast %in : i64 to index
      %31 = arith.cmpi slt, %30, %c4 : index
      cf.assert %31, "index must be smaller than dim size"
      %32 = arith.cmpi sge, %in, %c0_i64 : i64
      cf.assert %32, "index must be larger or equal to 0"
      %extracted = tensor.extract %22[%29, %30] : tensor<5x4xf32>
      linalg.yield %extracted : f32
    } -> tensor<5x1xf32>
    %24 = tensor.empty() : tensor<f32>
    %25 = linalg.fill ins(%cst : f32) outs(%24 : tensor<f32>) -> tensor<f32>
    %26 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> ()>], iterator_types = ["reduction", "reduction"]} ins(%23 : tensor<5x1xf32>) outs(%25 : tensor<f32>) {
    ^bb0(%in: f32, %out: f32):
      %29 = arith.addf %in, %out : f32
      linalg.yield %29 : f32
    } -> tensor<f32>
    %27 = linalg.generic {indexing_maps = [affine_map<() -> ()>, affine_map<() -> ()>], iterator_types = []} ins(%26 : tensor<f32>) outs(%24 : tensor<f32>) {
    ^bb0(%in: f32, %out: f32):
      %29 = arith.divf %in, %cst_1 : f32
      linalg.yield %29 : f32
    } -> tensor<f32>
    %28 = linalg.generic {indexing_maps = [affine_map<() -> ()>, affine_map<() -> ()>], iterator_types = []} ins(%27 : tensor<f32>) outs(%24 : tensor<f32>) {
    ^bb0(%in: f32, %out: f32):
      %29 = arith.negf %in : f32
      linalg.yield %29 : f32
    } -> tensor<f32>
    util.return %28 : tensor<f32>
  }
}