module @module {
  util.func public @main(%arg0: tensor<5x5xf32>, %arg1: tensor<5xf32>, %arg2: tensor<3x5xf32>) -> tensor<f32> {
    %c3_i64 = arith.constant 3 : i64
    %c0_i64 = arith.constant 0 : i64
    %cst = arith.constant 0.000000e+00 : f32
    %cst_0 = arith.constant 1.41421354 : f32
    %cst_1 = arith.constant 1.000000e+00 : f32
    %cst_2 = arith.constant 5.000000e-01 : f32
    %cst_3 = arith.constant 4.471500e-02 : f32
    %cst_4 = arith.constant 7.977240e-01 : f32
    %cst_5 = arith.constant 0xFF800000 : f32
    %cst_6 = arith.constant 0.0224719085 : f32
    %cst_7 = arith.constant -1.000000e+00 : f32
    %0 = tensor.empty() : tensor<5x5xf32>
    %transposed = linalg.transpose ins(%arg0 : tensor<5x5xf32>) outs(%0 : tensor<5x5xf32>) permutation = [1, 0] 
    %1 = tensor.empty() : tensor<3x5xf32>
    %2 = linalg.fill ins(%cst : f32) outs(%1 : tensor<3x5xf32>) -> tensor<3x5xf32>
    %3 = linalg.matmul ins(%arg2, %transposed : tensor<3x5xf32>, tensor<5x5xf32>) outs(%2 : tensor<3x5xf32>) -> tensor<3x5xf32>
    %4 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%3, %arg1 : tensor<3x5xf32>, tensor<5xf32>) outs(%1 : tensor<3x5xf32>) {
    ^bb0(%in: f32, %in_15: f32, %out: f32):
      %32 = arith.addf %in, %in_15 : f32
      linalg.yield %32 : f32
    } -> tensor<3x5xf32>
    %5 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%4 : tensor<3x5xf32>) outs(%1 : tensor<3x5xf32>) {
    ^bb0(%in: f32, %out: f32):
      %32 = arith.divf %in, %cst_0 : f32
      %33 = math.erf %32 : f32
      %34 = arith.addf %33, %cst_1 : f32
      %35 = arith.mulf %34, %cst_2 : f32
      %36 = arith.mulf %in, %35 : f32
      linalg.yield %36 : f32
    } -> tensor<3x5xf32>
    %6 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%4 : tensor<3x5xf32>) outs(%1 : tensor<3x5xf32>) {
    ^bb0(%in: f32, %out: f32):
      %32 = math.fpowi %in, %c3_i64 : f32, i64
      %33 = arith.mulf %32, %cst_3 : f32
      %34 = arith.addf %in, %33 : f32
      %35 = arith.mulf %34, %cst_4 : f32
      %36 = math.tanh %35 : f32
      %37 = arith.addf %36, %cst_1 : f32
      %38 = arith.mulf %37, %cst_2 : f32
      %39 = arith.mulf %in, %38 : f32
      linalg.yield %39 : f32
    } -> tensor<3x5xf32>
    %7 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%4 : tensor<3x5xf32>) outs(%1 : tensor<3x5xf32>) {
    ^bb0(%in: f32, %out: f32):
      %32 = math.tanh %in : f32
      linalg.yield %32 : f32
    } -> tensor<3x5xf32>
    %8 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%4 : tensor<3x5xf32>) outs(%1 : tensor<3x5xf32>) {
    ^bb0(%in: f32, %out: f32):
      %32 = arith.negf %in : f32
      %33 = math.exp %32 : f32
      %34 = arith.addf %33, %cst_1 : f32
      %35 = arith.divf %cst_1, %34 : f32
      linalg.yield %35 : f32
    } -> tensor<3x5xf32>
    %9 = tensor.empty() : tensor<3xi64>
    %10 = linalg.fill ins(%c0_i64 : i64) outs(%9 : tensor<3xi64>) -> tensor<3xi64>
    %11 = tensor.empty() : tensor<3xf32>
    %12 = linalg.fill ins(%cst_5 : f32) outs(%11 : tensor<3xf32>) -> tensor<3xf32>
    %13:2 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%4 : tensor<3x5xf32>) outs(%12, %10 : tensor<3xf32>, tensor<3xi64>) {
    ^bb0(%in: f32, %out: f32, %out_15: i64):
      %32 = linalg.index 1 : index
      %33 = arith.index_cast %32 : index to i64
      %34 = arith.maximumf %in, %out : f32
      %35 = arith.cmpf ogt, %in, %out : f32
      %36 = arith.select %35, %33, %out_15 : i64
      linalg.yield %34, %36 : f32, i64
    } -> (tensor<3xf32>, tensor<3xi64>)
    %expanded = tensor.expand_shape %13#0 [[0, 1]] output_shape [3, 1] : tensor<3xf32> into tensor<3x1xf32>
    %14 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, 0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%4, %expanded : tensor<3x5xf32>, tensor<3x1xf32>) outs(%1 : tensor<3x5xf32>) {
    ^bb0(%in: f32, %in_15: f32, %out: f32):
      %32 = arith.subf %in, %in_15 : f32
      linalg.yield %32 : f32
    } -> tensor<3x5xf32>
    %15 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%14 : tensor<3x5xf32>) outs(%1 : tensor<3x5xf32>) {
    ^bb0(%in: f32, %out: f32):
      %32 = math.exp %in : f32
      linalg.yield %32 : f32
    } -> tensor<3x5xf32>
    %16 = tensor.empty() : tensor<3x1xf32>
    %17 = linalg.fill ins(%cst : f32) outs(%16 : tensor<3x1xf32>) -> tensor<3x1xf32>
    %18 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, 0)>], iterator_types = ["parallel", "reduction"]} ins(%15 : tensor<3x5xf32>) outs(%17 : tensor<3x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %32 = arith.addf %in, %out : f32
      linalg.yield %32 : f32
    } -> tensor<3x1xf32>
    %19 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, 0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%15, %18 : tensor<3x5xf32>, tensor<3x1xf32>) outs(%1 : tensor<3x5xf32>) {
    ^bb0(%in: f32, %in_15: f32, %out: f32):
      %32 = arith.divf %in, %in_15 : f32
      linalg.yield %32 : f32
    } -> tensor<3x5xf32>
    %20 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%18 : tensor<3x1xf32>) outs(%16 : tensor<3x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %32 = math.log %in : f32
      linalg.yield %32 : f32
    } -> tensor<3x1xf32>
    %21 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, 0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%14, %20 : tensor<3x5xf32>, tensor<3x1xf32>) outs(%1 : tensor<3x5xf32>) {
    ^bb0(%in: f32, %in_15: f32, %out: f32):
      %32 = arith.subf %in, %in_15 : f32
      linalg.yield %32 : f32
    } -> tensor<3x5xf32>
    %expanded_8 = tensor.expand_shape %5 [[0, 1], [2]] output_shape [1, 3, 5] : tensor<3x5xf32> into tensor<1x3x5xf32>
    %expanded_9 = tensor.expand_shape %6 [[0, 1], [2]] output_shape [1, 3, 5] : tensor<3x5xf32> into tensor<1x3x5xf32>
    %expanded_10 = tensor.expand_shape %7 [[0, 1], [2]] output_shape [1, 3, 5] : tensor<3x5xf32> into tensor<1x3x5xf32>
    %expanded_11 = tensor.expand_shape %8 [[0, 1], [2]] output_shape [1, 3, 5] : tensor<3x5xf32> into tensor<1x3x5xf32>
    %expanded_12 = tensor.expand_shape %19 [[0, 1], [2]] output_shape [1, 3, 5] : tensor<3x5xf32> into tensor<1x3x5xf32>
    %expanded_13 = tensor.expand_shape %21 [[0, 1], [2]] output_shape [1, 3, 5] : tensor<3x5xf32> into tensor<1x3x5xf32>
    %concat = tensor.concat dim(0) %expanded_8, %expanded_9, %expanded_10, %expanded_11, %expanded_12, %expanded_13 : (tensor<1x3x5xf32>, tensor<1x3x5xf32>, tensor<1x3x5xf32>, tensor<1x3x5xf32>, tensor<1x3x5xf32>, tensor<1x3x5xf32>) -> tensor<6x3x5xf32>
    %22 = tensor.empty() : tensor<90xi64>
    %23 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} outs(%22 : tensor<90xi64>) {
    ^bb0(%out: i64):
      %32 = linalg.index 0 : index
      %33 = arith.index_cast %32 : index to i64
      linalg.yield %33 : i64
    } -> tensor<90xi64>
    %24 = tensor.empty() : tensor<90xf32>
    %25 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%23 : tensor<90xi64>) outs(%24 : tensor<90xf32>) {
    ^bb0(%in: i64, %out: f32):
      %32 = arith.sitofp %in : i64 to f32
      %33 = arith.mulf %32, %cst_6 : f32
      linalg.yield %33 : f32
    } -> tensor<90xf32>
    %26 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%25 : tensor<90xf32>) outs(%24 : tensor<90xf32>) {
    ^bb0(%in: f32, %out: f32):
      %32 = arith.addf %in, %cst_7 : f32
      linalg.yield %32 : f32
    } -> tensor<90xf32>
    %expanded_14 = tensor.expand_shape %26 [[0, 1, 2]] output_shape [6, 3, 5] : tensor<90xf32> into tensor<6x3x5xf32>
    %27 = tensor.empty() : tensor<6x3x5xf32>
    %28 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%concat, %expanded_14 : tensor<6x3x5xf32>, tensor<6x3x5xf32>) outs(%27 : tensor<6x3x5xf32>) {
    ^bb0(%in: f32, %in_15: f32, %out: f32):
      %32 = arith.mulf %in, %in_15 : f32
      linalg.yield %32 : f32
    } -> tensor<6x3x5xf32>
    %29 = tensor.empty() : tensor<f32>
    %30 = linalg.fill ins(%cst : f32) outs(%29 : tensor<f32>) -> tensor<f32>
    %31 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> ()>], iterator_types = ["reduction", "reduction", "reduction"]} ins(%28 : tensor<6x3x5xf32>) outs(%30 : tensor<f32>) {
    ^bb0(%in: f32, %out: f32):
      %32 = arith.addf %in, %out : f32
      linalg.yield %32 : f32
    } -> tensor<f32>
    util.return %31 : tensor<f32>
  }
}