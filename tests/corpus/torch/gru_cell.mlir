module @module {
  util.func public @main(%arg0: tensor<15x4xf32>, %arg1: tensor<15x5xf32>, %arg2: tensor<15xf32>, %arg3: tensor<15xf32>, %arg4: tensor<2x4xf32>, %arg5: tensor<2x5xf32>) -> tensor<f32> {
    %c2_i64 = arith.constant 2 : i64
    %cst = arith.constant 0.000000e+00 : f32
    %cst_0 = arith.constant 1.000000e+00 : f32
    %0 = tensor.empty() : tensor<4x15xf32>
    %transposed = linalg.transpose ins(%arg0 : tensor<15x4xf32>) outs(%0 : tensor<4x15xf32>) permutation = [1, 0] 
    %1 = tensor.empty() : tensor<2x15xf32>
    %2 = linalg.fill ins(%cst : f32) outs(%1 : tensor<2x15xf32>) -> tensor<2x15xf32>
    %3 = linalg.matmul ins(%arg4, %transposed : tensor<2x4xf32>, tensor<4x15xf32>) outs(%2 : tensor<2x15xf32>) -> tensor<2x15xf32>
    %4 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%arg2, %3 : tensor<15xf32>, tensor<2x15xf32>) outs(%1 : tensor<2x15xf32>) {
    ^bb0(%in: f32, %in_7: f32, %out: f32):
      %23 = arith.addf %in, %in_7 : f32
      linalg.yield %23 : f32
    } -> tensor<2x15xf32>
    %extracted_slice = tensor.extract_slice %4[0, 0] [2, 5] [1, 1] : tensor<2x15xf32> to tensor<2x5xf32>
    %extracted_slice_1 = tensor.extract_slice %4[0, 5] [2, 5] [1, 1] : tensor<2x15xf32> to tensor<2x5xf32>
    %extracted_slice_2 = tensor.extract_slice %4[0, 10] [2, 5] [1, 1] : tensor<2x15xf32> to tensor<2x5xf32>
    %5 = tensor.empty() : tensor<5x15xf32>
    %transposed_3 = linalg.transpose ins(%arg1 : tensor<15x5xf32>) outs(%5 : tensor<5x15xf32>) permutation = [1, 0] 
    %6 = linalg.matmul ins(%arg5, %transposed_3 : tensor<2x5xf32>, tensor<5x15xf32>) outs(%2 : tensor<2x15xf32>) -> tensor<2x15xf32>
    %7 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%arg3, %6 : tensor<15xf32>, tensor<2x15xf32>) outs(%1 : tensor<2x15xf32>) {
    ^bb0(%in: f32, %in_7: f32, %out: f32):
      %23 = arith.addf %in, %in_7 : f32
      linalg.yield %23 : f32
    } -> tensor<2x15xf32>
    %extracted_slice_4 = tensor.extract_slice %7[0, 0] [2, 5] [1, 1] : tensor<2x15xf32> to tensor<2x5xf32>
    %extracted_slice_5 = tensor.extract_slice %7[0, 5] [2, 5] [1, 1] : tensor<2x15xf32> to tensor<2x5xf32>
    %extracted_slice_6 = tensor.extract_slice %7[0, 10] [2, 5] [1, 1] : tensor<2x15xf32> to tensor<2x5xf32>
    %8 = tensor.empty() : tensor<2x5xf32>
    %9 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%extracted_slice_4, %extracted_slice : tensor<2x5xf32>, tensor<2x5xf32>) outs(%8 : tensor<2x5xf32>) {
    ^bb0(%in: f32, %in_7: f32, %out: f32):
      %23 = arith.addf %in, %in_7 : f32
      linalg.yield %23 : f32
    } -> tensor<2x5xf32>
    %10 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%9 : tensor<2x5xf32>) outs(%8 : tensor<2x5xf32>) {
    ^bb0(%in: f32, %out: f32):
      %23 = arith.negf %in : f32
      %24 = math.exp %23 : f32
      %25 = arith.addf %24, %cst_0 : f32
      %26 = arith.divf %cst_0, %25 : f32
      linalg.yield %26 : f32
    } -> tensor<2x5xf32>
    %11 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%extracted_slice_5, %extracted_slice_1 : tensor<2x5xf32>, tensor<2x5xf32>) outs(%8 : tensor<2x5xf32>) {
    ^bb0(%in: f32, %in_7: f32, %out: f32):
      %23 = arith.addf %in, %in_7 : f32
      linalg.yield %23 : f32
    } -> tensor<2x5xf32>
    %12 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%11 : tensor<2x5xf32>) outs(%8 : tensor<2x5xf32>) {
    ^bb0(%in: f32, %out: f32):
      %23 = arith.negf %in : f32
      %24 = math.exp %23 : f32
      %25 = arith.addf %24, %cst_0 : f32
      %26 = arith.divf %cst_0, %25 : f32
      linalg.yield %26 : f32
    } -> tensor<2x5xf32>
    %13 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%extracted_slice_6, %10 : tensor<2x5xf32>, tensor<2x5xf32>) outs(%8 : tensor<2x5xf32>) {
    ^bb0(%in: f32, %in_7: f32, %out: f32):
      %23 = arith.mulf %in, %in_7 : f32
      linalg.yield %23 : f32
    } -> tensor<2x5xf32>
    %14 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%extracted_slice_2, %13 : tensor<2x5xf32>, tensor<2x5xf32>) outs(%8 : tensor<2x5xf32>) {
    ^bb0(%in: f32, %in_7: f32, %out: f32):
      %23 = arith.addf %in, %in_7 : f32
      linalg.yield %23 : f32
    } -> tensor<2x5xf32>
    %15 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%14 : tensor<2x5xf32>) outs(%8 : tensor<2x5xf32>) {
    ^bb0(%in: f32, %out: f32):
      %23 = math.tanh %in : f32
      linalg.yield %23 : f32
    } -> tensor<2x5xf32>
    %16 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%arg5, %15 : tensor<2x5xf32>, tensor<2x5xf32>) outs(%8 : tensor<2x5xf32>) {
    ^bb0(%in: f32, %in_7: f32, %out: f32):
      %23 = arith.subf %in, %in_7 : f32
      linalg.yield %23 : f32
    } -> tensor<2x5xf32>
    %17 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%16, %12 : tensor<2x5xf32>, tensor<2x5xf32>) outs(%8 : tensor<2x5xf32>) {
    ^bb0(%in: f32, %in_7: f32, %out: f32):
      %23 = arith.mulf %in, %in_7 : f32
      linalg.yield %23 : f32
    } -> tensor<2x5xf32>
    %18 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%17, %15 : tensor<2x5xf32>, tensor<2x5xf32>) outs(%8 : tensor<2x5xf32>) {
    ^bb0(%in: f32, %in_7: f32, %out: f32):
      %23 = arith.addf %in, %in_7 : f32
      linalg.yield %23 : f32
    } -> tensor<2x5xf32>
    %19 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%18 : tensor<2x5xf32>) outs(%8 : tensor<2x5xf32>) {
    ^bb0(%in: f32, %out: f32):
      %23 = math.fpowi %in, %c2_i64 : f32, i64
      linalg.yield %23 : f32
    } -> tensor<2x5xf32>
    %20 = tensor.empty() : tensor<f32>
    %21 = linalg.fill ins(%cst : f32) outs(%20 : tensor<f32>) -> tensor<f32>
    %22 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> ()>], iterator_types = ["reduction", "reduction"]} ins(%19 : tensor<2x5xf32>) outs(%21 : tensor<f32>) {
    ^bb0(%in: f32, %out: f32):
      %23 = arith.addf %in, %out : f32
      linalg.yield %23 : f32
    } -> tensor<f32>
    util.return %22 : tensor<f32>
  }
}