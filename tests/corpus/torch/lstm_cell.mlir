module @module {
  util.func public @main(%arg0: tensor<20x4xf32>, %arg1: tensor<20x5xf32>, %arg2: tensor<20xf32>, %arg3: tensor<20xf32>, %arg4: tensor<2x4xf32>, %arg5: tensor<2x5xf32>, %arg6: tensor<2x5xf32>) -> tensor<f32> {
    %c2_i64 = arith.constant 2 : i64
    %cst = arith.constant 0.000000e+00 : f32
    %cst_0 = arith.constant 1.000000e+00 : f32
    %0 = tensor.empty() : tensor<5x20xf32>
    %transposed = linalg.transpose ins(%arg1 : tensor<20x5xf32>) outs(%0 : tensor<5x20xf32>) permutation = [1, 0] 
    %1 = tensor.empty() : tensor<2x20xf32>
    %2 = linalg.fill ins(%cst : f32) outs(%1 : tensor<2x20xf32>) -> tensor<2x20xf32>
    %3 = linalg.matmul ins(%arg5, %transposed : tensor<2x5xf32>, tensor<5x20xf32>) outs(%2 : tensor<2x20xf32>) -> tensor<2x20xf32>
    %4 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%arg3, %3 : tensor<20xf32>, tensor<2x20xf32>) outs(%1 : tensor<2x20xf32>) {
    ^bb0(%in: f32, %in_5: f32, %out: f32):
      %25 = arith.addf %in, %in_5 : f32
      linalg.yield %25 : f32
    } -> tensor<2x20xf32>
    %5 = tensor.empty() : tensor<4x20xf32>
    %transposed_1 = linalg.transpose ins(%arg0 : tensor<20x4xf32>) outs(%5 : tensor<4x20xf32>) permutation = [1, 0] 
    %6 = linalg.matmul ins(%arg4, %transposed_1 : tensor<2x4xf32>, tensor<4x20xf32>) outs(%2 : tensor<2x20xf32>) -> tensor<2x20xf32>
    %7 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%arg2, %6 : tensor<20xf32>, tensor<2x20xf32>) outs(%1 : tensor<2x20xf32>) {
    ^bb0(%in: f32, %in_5: f32, %out: f32):
      %25 = arith.addf %in, %in_5 : f32
      linalg.yield %25 : f32
    } -> tensor<2x20xf32>
    %8 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%4, %7 : tensor<2x20xf32>, tensor<2x20xf32>) outs(%1 : tensor<2x20xf32>) {
    ^bb0(%in: f32, %in_5: f32, %out: f32):
      %25 = arith.addf %in, %in_5 : f32
      linalg.yield %25 : f32
    } -> tensor<2x20xf32>
    %extracted_slice = tensor.extract_slice %8[0, 0] [2, 5] [1, 1] : tensor<2x20xf32> to tensor<2x5xf32>
    %extracted_slice_2 = tensor.extract_slice %8[0, 5] [2, 5] [1, 1] : tensor<2x20xf32> to tensor<2x5xf32>
    %extracted_slice_3 = tensor.extract_slice %8[0, 10] [2, 5] [1, 1] : tensor<2x20xf32> to tensor<2x5xf32>
    %extracted_slice_4 = tensor.extract_slice %8[0, 15] [2, 5] [1, 1] : tensor<2x20xf32> to tensor<2x5xf32>
    %9 = tensor.empty() : tensor<2x5xf32>
    %10 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%extracted_slice : tensor<2x5xf32>) outs(%9 : tensor<2x5xf32>) {
    ^bb0(%in: f32, %out: f32):
      %25 = arith.negf %in : f32
      %26 = math.exp %25 : f32
      %27 = arith.addf %26, %cst_0 : f32
      %28 = arith.divf %cst_0, %27 : f32
      linalg.yield %28 : f32
    } -> tensor<2x5xf32>
    %11 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%extracted_slice_2 : tensor<2x5xf32>) outs(%9 : tensor<2x5xf32>) {
    ^bb0(%in: f32, %out: f32):
      %25 = arith.negf %in : f32
      %26 = math.exp %25 : f32
      %27 = arith.addf %26, %cst_0 : f32
      %28 = arith.divf %cst_0, %27 : f32
      linalg.yield %28 : f32
    } -> tensor<2x5xf32>
    %12 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%extracted_slice_3 : tensor<2x5xf32>) outs(%9 : tensor<2x5xf32>) {
    ^bb0(%in: f32, %out: f32):
      %25 = math.tanh %in : f32
      linalg.yield %25 : f32
    } -> tensor<2x5xf32>
    %13 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%extracted_slice_4 : tensor<2x5xf32>) outs(%9 : tensor<2x5xf32>) {
    ^bb0(%in: f32, %out: f32):
      %25 = arith.negf %in : f32
      %26 = math.exp %25 : f32
      %27 = arith.addf %26, %cst_0 : f32
      %28 = arith.divf %cst_0, %27 : f32
      linalg.yield %28 : f32
    } -> tensor<2x5xf32>
    %14 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%11, %arg6 : tensor<2x5xf32>, tensor<2x5xf32>) outs(%9 : tensor<2x5xf32>) {
    ^bb0(%in: f32, %in_5: f32, %out: f32):
      %25 = arith.mulf %in, %in_5 : f32
      linalg.yield %25 : f32
    } -> tensor<2x5xf32>
    %15 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%10, %12 : tensor<2x5xf32>, tensor<2x5xf32>) outs(%9 : tensor<2x5xf32>) {
    ^bb0(%in: f32, %in_5: f32, %out: f32):
      %25 = arith.mulf %in, %in_5 : f32
      linalg.yield %25 : f32
    } -> tensor<2x5xf32>
    %16 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%14, %15 : tensor<2x5xf32>, tensor<2x5xf32>) outs(%9 : tensor<2x5xf32>) {
    ^bb0(%in: f32, %in_5: f32, %out: f32):
      %25 = arith.addf %in, %in_5 : f32
      linalg.yield %25 : f32
    } -> tensor<2x5xf32>
    %17 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%16 : tensor<2x5xf32>) outs(%9 : tensor<2x5xf32>) {
    ^bb0(%in: f32, %out: f32):
      %25 = math.tanh %in : f32
      linalg.yield %25 : f32
    } -> tensor<2x5xf32>
    %18 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%13, %17 : tensor<2x5xf32>, tensor<2x5xf32>) outs(%9 : tensor<2x5xf32>) {
    ^bb0(%in: f32, %in_5: f32, %out: f32):
      %25 = arith.mulf %in, %in_5 : f32
      linalg.yield %25 : f32
    } -> tensor<2x5xf32>
    %19 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%18 : tensor<2x5xf32>) outs(%9 : tensor<2x5xf32>) {
    ^bb0(%in: f32, %out: f32):
      %25 = math.fpowi %in, %c2_i64 : f32, i64
      linalg.yield %25 : f32
    } -> tensor<2x5xf32>
    %20 = tensor.empty() : tensor<f32>
    %21 = linalg.fill ins(%cst : f32) outs(%20 : tensor<f32>) -> tensor<f32>
    %22 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> ()>], iterator_types = ["reduction", "reduction"]} ins(%19 : tensor<2x5xf32>) outs(%21 : tensor<f32>) {
    ^bb0(%in: f32, %out: f32):
      %25 = arith.addf %in, %out : f32
      linalg.yield %25 : f32
    } -> tensor<f32>
    %23 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> ()>], iterator_types = ["reduction", "reduction"]} ins(%16 : tensor<2x5xf32>) outs(%21 : tensor<f32>) {
    ^bb0(%in: f32, %out: f32):
      %25 = arith.addf %in, %out : f32
      linalg.yield %25 : f32
    } -> tensor<f32>
    %24 = linalg.generic {indexing_maps = [affine_map<() -> ()>, affine_map<() -> ()>, affine_map<() -> ()>], iterator_types = []} ins(%22, %23 : tensor<f32>, tensor<f32>) outs(%20 : tensor<f32>) {
    ^bb0(%in: f32, %in_5: f32, %out: f32):
      %25 = arith.addf %in, %in_5 : f32
      linalg.yield %25 : f32
    } -> tensor<f32>
    util.return %24 : tensor<f32>
  }
}