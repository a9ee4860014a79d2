module @module {
  util.func public @main(%arg0: tensor<8x8xf32>, %arg1: tensor<8xf32>, %arg2: tensor<8x8xf32>, %arg3: tensor<8xf32>, %arg4: tensor<8x8xf32>, %arg5: tensor<2x3x8xf32>) -> tensor<f32> {
    %c2_i64 = arith.constant 2 : i64
    %c0_i64 = arith.constant 0 : i64
    %cst = arith.constant 0.000000e+00 : f32
    %cst_0 = arith.constant 0xFF800000 : f32
    %false = arith.constant false
    %cst_1 = arith.constant dense<0.000000e+00> : tensor<2x2x3x3xf32>
    %cst_2 = arith.constant 0xFF800000 : f32
    %cst_3 = arith.constant 0.707106769 : f32
    %collapsed = tensor.collapse_shape %arg5 [[0, 1], [2]] : tensor<2x3x8xf32> into tensor<6x8xf32>
    %0 = tensor.empty() : tensor<8x8xf32>
    %transposed = linalg.transpose ins(%arg0 : tensor<8x8xf32>) outs(%0 : tensor<8x8xf32>) permutation = [1, 0] 
    %1 = tensor.empty() : tensor<6x8xf32>
    %2 = linalg.fill ins(%cst : f32) outs(%1 : tensor<6x8xf32>) -> tensor<6x8xf32>
    %3 = linalg.matmul ins(%collapsed, %transposed : tensor<6x8xf32>, tensor<8x8xf32>) outs(%2 : tensor<6x8xf32>) -> tensor<6x8xf32>
    %4 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%arg1, %3 : tensor<8xf32>, tensor<6x8xf32>) outs(%1 : tensor<6x8xf32>) {
    ^bb0(%in: f32, %in_18: f32, %out: f32):
      %42 = arith.addf %in, %in_18 : f32
      linalg.yield %42 : f32
    } -> tensor<6x8xf32>
    %expanded = tensor.expand_shape %4 [[0, 1], [2, 3]] output_shape [2, 3, 2, 4] : tensor<6x8xf32> into tensor<2x3x2x4xf32>
    %5 = tensor.empty() : tensor<2x2x3x4xf32>
    %transposed_4 = linalg.transpose ins(%expanded : tensor<2x3x2x4xf32>) outs(%5 : tensor<2x2x3x4xf32>) permutation = [0, 2, 1, 3] 
    %transposed_5 = linalg.transpose ins(%arg4 : tensor<8x8xf32>) outs(%0 : tensor<8x8xf32>) permutation = [1, 0] 
    %6 = linalg.matmul ins(%collapsed, %transposed_5 : tensor<6x8xf32>, tensor<8x8xf32>) outs(%2 : tensor<6x8xf32>) -> tensor<6x8xf32>
    %expanded_6 = tensor.expand_shape %6 [[0, 1], [2, 3]] output_shape [2, 3, 2, 4] : tensor<6x8xf32> into tensor<2x3x2x4xf32>
    %transposed_7 = linalg.transpose ins(%arg2 : tensor<8x8xf32>) outs(%0 : tensor<8x8xf32>) permutation = [1, 0] 
    %7 = linalg.matmul ins(%collapsed, %transposed_7 : tensor<6x8xf32>, tensor<8x8xf32>) outs(%2 : tensor<6x8xf32>) -> tensor<6x8xf32>
    %8 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%arg3, %7 : tensor<8xf32>, tensor<6x8xf32>) outs(%1 : tensor<6x8xf32>) {
    ^bb0(%in: f32, %in_18: f32, %out: f32):
      %42 = arith.addf %in, %in_18 : f32
      linalg.yield %42 : f32
    } -> tensor<6x8xf32>
    %expanded_8 = tensor.expand_shape %8 [[0, 1], [2, 3]] output_shape [2, 3, 2, 4] : tensor<6x8xf32> into tensor<2x3x2x4xf32>
    %transposed_9 = linalg.transpose ins(%expanded_8 : tensor<2x3x2x4xf32>) outs(%5 : tensor<2x2x3x4xf32>) permutation = [0, 2, 1, 3] 
    %9 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%transposed_4 : tensor<2x2x3x4xf32>) outs(%5 : tensor<2x2x3x4xf32>) {
    ^bb0(%in: f32, %out: f32):
      %42 = arith.mulf %in, %cst_3 : f32
      linalg.yield %42 : f32
    } -> tensor<2x2x3x4xf32>
    %10 = tensor.empty() : tensor<2x2x4x3xf32>
    %transposed_10 = linalg.transpose ins(%expanded_6 : tensor<2x3x2x4xf32>) outs(%10 : tensor<2x2x4x3xf32>) permutation = [0, 2, 3, 1] 
    %11 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%transposed_10 : tensor<2x2x4x3xf32>) outs(%10 : tensor<2x2x4x3xf32>) {
    ^bb0(%in: f32, %out: f32):
      %42 = arith.mulf %in, %cst_3 : f32
      linalg.yield %42 : f32
    } -> tensor<2x2x4x3xf32>
    %collapsed_11 = tensor.collapse_shape %9 [[0, 1], [2], [3]] : tensor<2x2x3x4xf32> into tensor<4x3x4xf32>
    %collapsed_12 = tensor.collapse_shape %11 [[0, 1], [2], [3]] : tensor<2x2x4x3xf32> into tensor<4x4x3xf32>
    %12 = tensor.empty() : tensor<4x3x3xf32>
    %13 = linalg.fill ins(%cst : f32) outs(%12 : tensor<4x3x3xf32>) -> tensor<4x3x3xf32>
    %14 = linalg.batch_matmul ins(%collapsed_11, %collapsed_12 : tensor<4x3x4xf32>, tensor<4x4x3xf32>) outs(%13 : tensor<4x3x3xf32>) -> tensor<4x3x3xf32>
    %expanded_13 = tensor.expand_shape %14 [[0, 1], [2], [3]] output_shape [2, 2, 3, 3] : tensor<4x3x3xf32> into tensor<2x2x3x3xf32>
    %15 = tensor.empty() : tensor<2x2x3xi64>
    %16 = linalg.fill ins(%c0_i64 : i64) outs(%15 : tensor<2x2x3xi64>) -> tensor<2x2x3xi64>
    %17 = tensor.empty() : tensor<2x2x3xf32>
    %18 = linalg.fill ins(%cst_0 : f32) outs(%17 : tensor<2x2x3xf32>) -> tensor<2x2x3xf32>
    %19:2 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%expanded_13 : tensor<2x2x3x3xf32>) outs(%18, %16 : tensor<2x2x3xf32>, tensor<2x2x3xi64>) {
    ^bb0(%in: f32, %out: f32, %out_18: i64):
      %42 = linalg.index 3 : index
      %43 = arith.index_cast %42 : index to i64
      %44 = arith.maximumf %in, %out : f32
      %45 = arith.cmpf ogt, %in, %out : f32
      %46 = arith.select %45, %43, %out_18 : i64
      linalg.yield %44, %46 : f32, i64
    } -> (tensor<2x2x3xf32>, tensor<2x2x3xi64>)
    %expanded_14 = tensor.expand_shape %19#0 [[0], [1], [2, 3]] output_shape [2, 2, 3, 1] : tensor<2x2x3xf32> into tensor<2x2x3x1xf32>
    %20 = tensor.empty() : tensor<2x2x3x3xf32>
    %21 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, 0)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%expanded_13, %expanded_14 : tensor<2x2x3x3xf32>, tensor<2x2x3x1xf32>) outs(%20 : tensor<2x2x3x3xf32>) {
    ^bb0(%in: f32, %in_18: f32, %out: f32):
      %42 = arith.subf %in, %in_18 : f32
      linalg.yield %42 : f32
    } -> tensor<2x2x3x3xf32>
    %22 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%21 : tensor<2x2x3x3xf32>) outs(%20 : tensor<2x2x3x3xf32>) {
    ^bb0(%in: f32, %out: f32):
      %42 = math.exp %in : f32
      linalg.yield %42 : f32
    } -> tensor<2x2x3x3xf32>
    %23 = tensor.empty() : tensor<2x2x3x1xf32>
    %24 = linalg.fill ins(%cst : f32) outs(%23 : tensor<2x2x3x1xf32>) -> tensor<2x2x3x1xf32>
    %25 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, 0)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%22 : tensor<2x2x3x3xf32>) outs(%24 : tensor<2x2x3x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %42 = arith.addf %in, %out : f32
      linalg.yield %42 : f32
    } -> tensor<2x2x3x1xf32>
    %26 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, 0)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%22, %25 : tensor<2x2x3x3xf32>, tensor<2x2x3x1xf32>) outs(%20 : tensor<2x2x3x3xf32>) {
    ^bb0(%in: f32, %in_18: f32, %out: f32):
      %42 = arith.divf %in, %in_18 : f32
      linalg.yield %42 : f32
    } -> tensor<2x2x3x3xf32>
    %27 = tensor.empty() : tensor<2x2x3x3xi1>
    %28 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%expanded_13 : tensor<2x2x3x3xf32>) outs(%27 : tensor<2x2x3x3xi1>) {
    ^bb0(%in: f32, %out: i1):
      %42 = arith.cmpf oeq, %in, %cst_2 : f32
      linalg.yield %42 : i1
    } -> tensor<2x2x3x3xi1>
    %29 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%28 : tensor<2x2x3x3xi1>) outs(%27 : tensor<2x2x3x3xi1>) {
    ^bb0(%in: i1, %out: i1):
      %42 = arith.cmpi eq, %in, %false : i1
      linalg.yield %42 : i1
    } -> tensor<2x2x3x3xi1>
    %30 = tensor.empty() : tensor<2x2x3x1xi1>
    %31 = linalg.fill ins(%false : i1) outs(%30 : tensor<2x2x3x1xi1>) -> tensor<2x2x3x1xi1>
    %32 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, 0)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%29 : tensor<2x2x3x3xi1>) outs(%31 : tensor<2x2x3x1xi1>) {
    ^bb0(%in: i1, %out: i1):
      %42 = arith.ori %in, %out : i1
      linalg.yield %42 : i1
    } -> tensor<2x2x3x1xi1>
    %33 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%32 : tensor<2x2x3x1xi1>) outs(%30 : tensor<2x2x3x1xi1>) {
    ^bb0(%in: i1, %out: i1):
      %42 = arith.cmpi eq, %in, %false : i1
      linalg.yield %42 : i1
    } -> tensor<2x2x3x1xi1>
    %34 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, 0)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%33, %cst_1, %26 : tensor<2x2x3x1xi1>, tensor<2x2x3x3xf32>, tensor<2x2x3x3xf32>) outs(%20 : tensor<2x2x3x3xf32>) {
    ^bb0(%in: i1, %in_18: f32, %in_19: f32, %out: f32):
      %42 = arith.select %in, %in_18, %in_19 : f32
      linalg.yield %42 : f32
    } -> tensor<2x2x3x3xf32>
    %collapsed_15 = tensor.collapse_shape %34 [[0, 1], [2], [3]] : tensor<2x2x3x3xf32> into tensor<4x3x3xf32>
    %collapsed_16 = tensor.collapse_shape %transposed_9 [[0, 1], [2], [3]] : tensor<2x2x3x4xf32> into tensor<4x3x4xf32>
    %35 = tensor.empty() : tensor<4x3x4xf32>
    %36 = linalg.fill ins(%cst : f32) outs(%35 : tensor<4x3x4xf32>) -> tensor<4x3x4xf32>
    %37 = linalg.batch_matmul ins(%collapsed_15, %collapsed_16 : tensor<4x3x3xf32>, tensor<4x3x4xf32>) outs(%36 : tensor<4x3x4xf32>) -> tensor<4x3x4xf32>
    %expanded_17 = tensor.expand_shape %37 [[0, 1], [2], [3]] output_shape [2, 2, 3, 4] : tensor<4x3x4xf32> into tensor<2x2x3x4xf32>
    %38 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%expanded_17 : tensor<2x2x3x4xf32>) outs(%5 : tensor<2x2x3x4xf32>) {
    ^bb0(%in: f32, %out: f32):
      %42 = math.fpowi %in, %c2_i64 : f32, i64
      linalg.yield %42 : f32
    } -> tensor<2x2x3x4xf32>
    %39 = tensor.empty() : tensor<f32>
    %40 = linalg.fill ins(%cst : f32) outs(%39 : tensor<f32>) -> tensor<f32>
    %41 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> ()>], iterator_types = ["reduction", "reduction", "reduction", "reduction"]} ins(%38 : tensor<2x2x3x4xf32>) outs(%40 : tensor<f32>) {
    ^bb0(%in: f32, %out: f32):
      %42 = arith.addf %in, %out : f32
      linalg.yield %42 : f32
    } -> tensor<f32>
    util.return %41 : tensor<f32>
  }
}