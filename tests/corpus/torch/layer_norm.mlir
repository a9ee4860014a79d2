module @module {
  util.func public @main(%arg0: tensor<6xf32>, %arg1: tensor<6xf32>, %arg2: tensor<4x6xf32>) -> tensor<f32> {
    %cst = arith.constant 0.000000e+00 : f32
    %cst_0 = arith.constant 0.0869565159 : f32
    %cst_1 = arith.constant 9.99999974E-6 : f32
    %cst_2 = arith.constant 6.000000e+00 : f32
    %cst_3 = arith.constant -1.000000e+00 : f32
    %0 = tensor.empty() : tensor<4x1xf32>
    %1 = linalg.fill ins(%cst : f32) outs(%0 : tensor<4x1xf32>) -> tensor<4x1xf32>
    %2 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, 0)>], iterator_types = ["parallel", "reduction"]} ins(%arg2 : tensor<4x6xf32>) outs(%1 : tensor<4x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %25 = arith.addf %in, %out : f32
      linalg.yield %25 : f32
    } -> tensor<4x1xf32>
    %3 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%2 : tensor<4x1xf32>) outs(%0 : tensor<4x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %25 = arith.divf %in, %cst_2 : f32
      linalg.yield %25 : f32
    } -> tensor<4x1xf32>
    %4 = tensor.empty() : tensor<4x6xf32>
    %collapsed = tensor.collapse_shape %3 [[0, 1]] : tensor<4x1xf32> into tensor<4xf32>
    %5 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%collapsed : tensor<4xf32>) outs(%4 : tensor<4x6xf32>) {
    ^bb0(%in: f32, %out: f32):
      linalg.yield %in : f32
    } -> tensor<4x6xf32>
    %6 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%arg2, %5 : tensor<4x6xf32>, tensor<4x6xf32>) outs(%4 : tensor<4x6xf32>) {
    ^bb0(%in: f32, %in_5: f32, %out: f32):
      %25 = arith.subf %in, %in_5 : f32
      linalg.yield %25 : f32
    } -> tensor<4x6xf32>
    %7 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%6, %6 : tensor<4x6xf32>, tensor<4x6xf32>) outs(%4 : tensor<4x6xf32>) {
    ^bb0(%in: f32, %in_5: f32, %out: f32):
      %25 = arith.mulf %in, %in_5 : f32
      linalg.yield %25 : f32
    } -> tensor<4x6xf32>
    %8 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, 0)>], iterator_types = ["parallel", "reduction"]} ins(%7 : tensor<4x6xf32>) outs(%1 : tensor<4x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %25 = arith.addf %in, %out : f32
      linalg.yield %25 : f32
    } -> tensor<4x1xf32>
    %9 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%8 : tensor<4x1xf32>) outs(%0 : tensor<4x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %25 = arith.divf %in, %cst_2 : f32
      linalg.yield %25 : f32
    } -> tensor<4x1xf32>
    %10 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%9 : tensor<4x1xf32>) outs(%0 : tensor<4x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %25 = arith.addf %in, %cst_1 : f32
      linalg.yield %25 : f32
    } -> tensor<4x1xf32>
    %11 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%10 : tensor<4x1xf32>) outs(%0 : tensor<4x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %25 = math.rsqrt %in : f32
      linalg.yield %25 : f32
    } -> tensor<4x1xf32>
    %collapsed_4 = tensor.collapse_shape %11 [[0, 1]] : tensor<4x1xf32> into tensor<4xf32>
    %12 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%collapsed_4 : tensor<4xf32>) outs(%4 : tensor<4x6xf32>) {
    ^bb0(%in: f32, %out: f32):
      linalg.yield %in : f32
    } -> tensor<4x6xf32>
    %13 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%6, %12 : tensor<4x6xf32>, tensor<4x6xf32>) outs(%4 : tensor<4x6xf32>) {
    ^bb0(%in: f32, %in_5: f32, %out: f32):
      %25 = arith.mulf %in, %in_5 : f32
      linalg.yield %25 : f32
    } -> tensor<4x6xf32>
    %14 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%13, %arg0 : tensor<4x6xf32>, tensor<6xf32>) outs(%4 : tensor<4x6xf32>) {
    ^bb0(%in: f32, %in_5: f32, %out: f32):
      %25 = arith.mulf %in, %in_5 : f32
      linalg.yield %25 : f32
    } -> tensor<4x6xf32>
    %15 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%14, %arg1 : tensor<4x6xf32>, tensor<6xf32>) outs(%4 : tensor<4x6xf32>) {
    ^bb0(%in: f32, %in_5: f32, %out: f32):
      %25 = arith.addf %in, %in_5 : f32
      linalg.yield %25 : f32
    } -> tensor<4x6xf32>
    %16 = tensor.empty() : tensor<24xi64>
    %17 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} outs(%16 : tensor<24xi64>) {
    ^bb0(%out: i64):
      %25 = linalg.index 0 : index
      %26 = arith.index_cast %25 : index to i64
      linalg.yield %26 : i64
    } -> tensor<24xi64>
    %18 = tensor.empty() : tensor<24xf32>
    %19 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%17 : tensor<24xi64>) outs(%18 : tensor<24xf32>) {
    ^bb0(%in: i64, %out: f32):
      %25 = arith.sitofp %in : i64 to f32
      %26 = arith.mulf %25, %cst_0 : f32
      linalg.yield %26 : f32
    } -> tensor<24xf32>
    %20 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%19 : tensor<24xf32>) outs(%18 : tensor<24xf32>) {
    ^bb0(%in: f32, %out: f32):
      %25 = arith.addf %in, %cst_3 : f32
      linalg.yield %25 : f32
    } -> tensor<24xf32>
    %expanded = tensor.expand_shape %20 [[0, 1]] output_shape [4, 6] : tensor<24xf32> into tensor<4x6xf32>
    %21 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%15, %expanded : tensor<4x6xf32>, tensor<4x6xf32>) outs(%4 : tensor<4x6xf32>) {
    ^bb0(%in: f32, %in_5: f32, %out: f32):
      %25 = arith.mulf %in, %in_5 : f32
      linalg.yield %25 : f32
    } -> tensor<4x6xf32>
    %22 = tensor.empty() : tensor<f32>
    %23 = linalg.fill ins(%cst : f32) outs(%22 : tensor<f32>) -> tensor<f32>
    %24 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> ()>], iterator_types = ["reduction", "reduction"]} ins(%21 : tensor<4x6xf32>) outs(%23 : tensor<f32>) {
    ^bb0(%in: f32, %out: f32):
      %25 = arith.addf %in, %out : f32
      linalg.yield %25 : f32
    } -> tensor<f32>
    util.return %24 : tensor<f32>
  }
}