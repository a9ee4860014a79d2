module @module {
  util.func public @main(%arg0: tensor<3xf32>, %arg1: tensor<3xf32>, %arg2: tensor<2x3x3x3xf32>) -> tensor<f32> {
    %c2_i64 = arith.constant 2 : i64
    %cst = arith.constant 0.000000e+00 : f32
    %cst_0 = arith.constant 0.000000e+00 : f32
    %cst_1 = arith.constant 0.0377358459 : f32
    %cst_2 = arith.constant 9.99999974E-6 : f32
    %cst_3 = arith.constant 1.800000e+01 : f32
    %cst_4 = arith.constant 1.800000e+01 : f32
    %cst_5 = arith.constant -1.000000e+00 : f32
    %0 = tensor.empty() : tensor<2x3x3x3xf32>
    %1 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%arg2 : tensor<2x3x3x3xf32>) outs(%0 : tensor<2x3x3x3xf32>) {
    ^bb0(%in: f32, %out: f32):
      linalg.yield %in : f32
    } -> tensor<2x3x3x3xf32>
    %2 = tensor.empty() : tensor<1x3x1x1xf32>
    %3 = linalg.fill ins(%cst : f32) outs(%2 : tensor<1x3x1x1xf32>) -> tensor<1x3x1x1xf32>
    %4 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (0, d1, 0, 0)>], iterator_types = ["reduction", "parallel", "reduction", "reduction"]} ins(%1 : tensor<2x3x3x3xf32>) outs(%3 : tensor<1x3x1x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %32 = arith.addf %in, %out : f32
      linalg.yield %32 : f32
    } -> tensor<1x3x1x1xf32>
    %5 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%4 : tensor<1x3x1x1xf32>) outs(%2 : tensor<1x3x1x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %32 = arith.divf %in, %cst_3 : f32
      linalg.yield %32 : f32
    } -> tensor<1x3x1x1xf32>
    %6 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (0, d1, 0, 0)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%1, %5 : tensor<2x3x3x3xf32>, tensor<1x3x1x1xf32>) outs(%0 : tensor<2x3x3x3xf32>) {
    ^bb0(%in: f32, %in_8: f32, %out: f32):
      %32 = arith.subf %in, %in_8 : f32
      linalg.yield %32 : f32
    } -> tensor<2x3x3x3xf32>
    %7 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%6, %6 : tensor<2x3x3x3xf32>, tensor<2x3x3x3xf32>) outs(%0 : tensor<2x3x3x3xf32>) {
    ^bb0(%in: f32, %in_8: f32, %out: f32):
      %32 = arith.mulf %in, %in_8 : f32
      linalg.yield %32 : f32
    } -> tensor<2x3x3x3xf32>
    %8 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (0, d1, 0, 0)>], iterator_types = ["reduction", "parallel", "reduction", "reduction"]} ins(%7 : tensor<2x3x3x3xf32>) outs(%3 : tensor<1x3x1x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %32 = arith.addf %in, %out : f32
      linalg.yield %32 : f32
    } -> tensor<1x3x1x1xf32>
    %9 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%8 : tensor<1x3x1x1xf32>) outs(%2 : tensor<1x3x1x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %32 = arith.divf %in, %cst_3 : f32
      linalg.yield %32 : f32
    } -> tensor<1x3x1x1xf32>
    %10 = tensor.empty() : tensor<1x3x1x1xf32>
    %11 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%9 : tensor<1x3x1x1xf32>) outs(%10 : tensor<1x3x1x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      linalg.yield %in : f32
    } -> tensor<1x3x1x1xf32>
    %12 = linalg.fill ins(%cst_0 : f32) outs(%10 : tensor<1x3x1x1xf32>) -> tensor<1x3x1x1xf32>
    %13 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (0, d1, 0, 0)>], iterator_types = ["reduction", "parallel", "reduction", "reduction"]} ins(%arg2 : tensor<2x3x3x3xf32>) outs(%12 : tensor<1x3x1x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %32 = arith.addf %in, %out : f32
      linalg.yield %32 : f32
    } -> tensor<1x3x1x1xf32>
    %14 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%13 : tensor<1x3x1x1xf32>) outs(%10 : tensor<1x3x1x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %32 = arith.divf %in, %cst_4 : f32
      linalg.yield %32 : f32
    } -> tensor<1x3x1x1xf32>
    %15 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%11 : tensor<1x3x1x1xf32>) outs(%10 : tensor<1x3x1x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %32 = arith.addf %in, %cst_2 : f32
      linalg.yield %32 : f32
    } -> tensor<1x3x1x1xf32>
    %16 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%15 : tensor<1x3x1x1xf32>) outs(%10 : tensor<1x3x1x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %32 = math.rsqrt %in : f32
      linalg.yield %32 : f32
    } -> tensor<1x3x1x1xf32>
    %17 = tensor.empty() : tensor<2x3x3x3xf32>
    %18 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (0, d1, 0, 0)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%arg2, %14 : tensor<2x3x3x3xf32>, tensor<1x3x1x1xf32>) outs(%17 : tensor<2x3x3x3xf32>) {
    ^bb0(%in: f32, %in_8: f32, %out: f32):
      %32 = arith.subf %in, %in_8 : f32
      linalg.yield %32 : f32
    } -> tensor<2x3x3x3xf32>
    %19 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (0, d1, 0, 0)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%18, %16 : tensor<2x3x3x3xf32>, tensor<1x3x1x1xf32>) outs(%17 : tensor<2x3x3x3xf32>) {
    ^bb0(%in: f32, %in_8: f32, %out: f32):
      %32 = arith.mulf %in, %in_8 : f32
      linalg.yield %32 : f32
    } -> tensor<2x3x3x3xf32>
    %expanded = tensor.expand_shape %arg0 [[0, 1, 2]] output_shape [3, 1, 1] : tensor<3xf32> into tensor<3x1x1xf32>
    %20 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d1, 0, 0)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%19, %expanded : tensor<2x3x3x3xf32>, tensor<3x1x1xf32>) outs(%17 : tensor<2x3x3x3xf32>) {
    ^bb0(%in: f32, %in_8: f32, %out: f32):
      %32 = arith.mulf %in, %in_8 : f32
      linalg.yield %32 : f32
    } -> tensor<2x3x3x3xf32>
    %expanded_6 = tensor.expand_shape %arg1 [[0, 1, 2]] output_shape [3, 1, 1] : tensor<3xf32> into tensor<3x1x1xf32>
    %21 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d1, 0, 0)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%20, %expanded_6 : tensor<2x3x3x3xf32>, tensor<3x1x1xf32>) outs(%17 : tensor<2x3x3x3xf32>) {
    ^bb0(%in: f32, %in_8: f32, %out: f32):
      %32 = arith.addf %in, %in_8 : f32
      linalg.yield %32 : f32
    } -> tensor<2x3x3x3xf32>
    %22 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%21 : tensor<2x3x3x3xf32>) outs(%17 : tensor<2x3x3x3xf32>) {
    ^bb0(%in: f32, %out: f32):
      %32 = math.fpowi %in, %c2_i64 : f32, i64
      linalg.yield %32 : f32
    } -> tensor<2x3x3x3xf32>
    %23 = tensor.empty() : tensor<54xi64>
    %24 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} outs(%23 : tensor<54xi64>) {
    ^bb0(%out: i64):
      %32 = linalg.index 0 : index
      %33 = arith.index_cast %32 : index to i64
      linalg.yield %33 : i64
    } -> tensor<54xi64>
    %25 = tensor.empty() : tensor<54xf32>
    %26 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%24 : tensor<54xi64>) outs(%25 : tensor<54xf32>) {
    ^bb0(%in: i64, %out: f32):
      %32 = arith.sitofp %in : i64 to f32
      %33 = arith.mulf %32, %cst_1 : f32
      linalg.yield %33 : f32
    } -> tensor<54xf32>
    %27 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%26 : tensor<54xf32>) outs(%25 : tensor<54xf32>) {
    ^bb0(%in: f32, %out: f32):
      %32 = arith.addf %in, %cst_5 : f32
      linalg.yield %32 : f32
    } -> tensor<54xf32>
    %expanded_7 = tensor.expand_shape %27 [[0, 1, 2, 3]] output_shape [2, 3, 3, 3] : tensor<54xf32> into tensor<2x3x3x3xf32>
    %28 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%22, %expanded_7 : tensor<2x3x3x3xf32>, tensor<2x3x3x3xf32>) outs(%17 : tensor<2x3x3x3xf32>) {
    ^bb0(%in: f32, %in_8: f32, %out: f32):
      %32 = arith.mulf %in, %in_8 : f32
      linalg.yield %32 : f32
    } -> tensor<2x3x3x3xf32>
    %29 = tensor.empty() : tensor<f32>
    %30 = linalg.fill ins(%cst_0 : f32) outs(%29 : tensor<f32>) -> tensor<f32>
    %31 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> ()>], iterator_types = ["reduction", "reduction", "reduction", "reduction"]} ins(%28 : tensor<2x3x3x3xf32>) outs(%30 : tensor<f32>) {
    ^bb0(%in: f32, %out: f32):
      %32 = arith.addf %in, %out : f32
      linalg.yield %32 : f32
    } -> tensor<f32>
    util.return %31 : tensor<f32>
  }
}