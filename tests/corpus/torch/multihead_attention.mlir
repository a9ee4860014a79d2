module @module {
  util.func public @main(%arg0: tensor<24x8xf32>, %arg1: tensor<24xf32>, %arg2: tensor<8x8xf32>, %arg3: tensor<8xf32>, %arg4: tensor<2x3x8xf32>) -> tensor<f32> {
    %cst = arith.constant 5.000000e-01 : f32
    %c2_i64 = arith.constant 2 : i64
    %cst_0 = arith.constant 0.000000e+00 : f32
    %0 = tensor.empty() : tensor<3x2x8xf32>
    %transposed = linalg.transpose ins(%arg4 : tensor<2x3x8xf32>) outs(%0 : tensor<3x2x8xf32>) permutation = [1, 0, 2] 
    %1 = tensor.empty() : tensor<8x24xf32>
    %transposed_1 = linalg.transpose ins(%arg0 : tensor<24x8xf32>) outs(%1 : tensor<8x24xf32>) permutation = [1, 0] 
    %2 = tensor.empty() : tensor<3x8x24xf32>
    %3 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%transposed_1 : tensor<8x24xf32>) outs(%2 : tensor<3x8x24xf32>) {
    ^bb0(%in: f32, %out: f32):
      linalg.yield %in : f32
    } -> tensor<3x8x24xf32>
    %4 = tensor.empty() : tensor<3x2x24xf32>
    %5 = linalg.fill ins(%cst_0 : f32) outs(%4 : tensor<3x2x24xf32>) -> tensor<3x2x24xf32>
    %6 = linalg.batch_matmul ins(%transposed, %3 : tensor<3x2x8xf32>, tensor<3x8x24xf32>) outs(%5 : tensor<3x2x24xf32>) -> tensor<3x2x24xf32>
    %7 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%6, %arg1 : tensor<3x2x24xf32>, tensor<24xf32>) outs(%4 : tensor<3x2x24xf32>) {
    ^bb0(%in: f32, %in_20: f32, %out: f32):
      %22 = arith.addf %in, %in_20 : f32
      linalg.yield %22 : f32
    } -> tensor<3x2x24xf32>
    %expanded = tensor.expand_shape %7 [[0, 1], [2], [3, 4]] output_shape [1, 3, 2, 3, 8] : tensor<3x2x24xf32> into tensor<1x3x2x3x8xf32>
    %8 = tensor.empty() : tensor<3x3x2x1x8xf32>
    %transposed_2 = linalg.transpose ins(%expanded : tensor<1x3x2x3x8xf32>) outs(%8 : tensor<3x3x2x1x8xf32>) permutation = [3, 1, 2, 0, 4] 
    %collapsed = tensor.collapse_shape %transposed_2 [[0], [1], [2, 3], [4]] : tensor<3x3x2x1x8xf32> into tensor<3x3x2x8xf32>
    %extracted_slice = tensor.extract_slice %collapsed[0, 0, 0, 0] [1, 3, 2, 8] [1, 1, 1, 1] : tensor<3x3x2x8xf32> to tensor<1x3x2x8xf32>
    %extracted_slice_3 = tensor.extract_slice %collapsed[1, 0, 0, 0] [1, 3, 2, 8] [1, 1, 1, 1] : tensor<3x3x2x8xf32> to tensor<1x3x2x8xf32>
    %extracted_slice_4 = tensor.extract_slice %collapsed[2, 0, 0, 0] [1, 3, 2, 8] [1, 1, 1, 1] : tensor<3x3x2x8xf32> to tensor<1x3x2x8xf32>
    %collapsed_5 = tensor.collapse_shape %extracted_slice [[0, 1], [2, 3]] : tensor<1x3x2x8xf32> into tensor<3x16xf32>
    %expanded_6 = tensor.expand_shape %collapsed_5 [[0], [1, 2]] output_shape [3, 4, 4] : tensor<3x16xf32> into tensor<3x4x4xf32>
    %9 = tensor.empty() : tensor<4x3x4xf32>
    %transposed_7 = linalg.transpose ins(%expanded_6 : tensor<3x4x4xf32>) outs(%9 : tensor<4x3x4xf32>) permutation = [1, 0, 2] 
    %collapsed_8 = tensor.collapse_shape %extracted_slice_3 [[0, 1], [2, 3]] : tensor<1x3x2x8xf32> into tensor<3x16xf32>
    %expanded_9 = tensor.expand_shape %collapsed_8 [[0], [1, 2]] output_shape [3, 4, 4] : tensor<3x16xf32> into tensor<3x4x4xf32>
    %transposed_10 = linalg.transpose ins(%expanded_9 : tensor<3x4x4xf32>) outs(%9 : tensor<4x3x4xf32>) permutation = [1, 0, 2] 
    %collapsed_11 = tensor.collapse_shape %extracted_slice_4 [[0, 1], [2, 3]] : tensor<1x3x2x8xf32> into tensor<3x16xf32>
    %expanded_12 = tensor.expand_shape %collapsed_11 [[0], [1, 2]] output_shape [3, 4, 4] : tensor<3x16xf32> into tensor<3x4x4xf32>
    %transposed_13 = linalg.transpose ins(%expanded_12 : tensor<3x4x4xf32>) outs(%9 : tensor<4x3x4xf32>) permutation = [1, 0, 2] 
    %10 = iree_linalg_ext.attention <indexing_maps = [affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d3)>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d4, d3)>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d4, d2)>, affine_map<(d0, d1, d2, d3, d4) -> ()>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2)>]> ins(%transposed_7, %transposed_10, %transposed_13, %cst : tensor<4x3x4xf32>, tensor<4x3x4xf32>, tensor<4x3x4xf32>, f32) outs(%9 : tensor<4x3x4xf32>) {
    ^bb0(%arg5: f32):
      iree_linalg_ext.yield %arg5 : f32
    } -> tensor<4x3x4xf32>
    %expanded_14 = tensor.expand_shape %10 [[0, 1], [2], [3]] output_shape [2, 2, 3, 4] : tensor<4x3x4xf32> into tensor<2x2x3x4xf32>
    %11 = tensor.empty() : tensor<3x2x2x4xf32>
    %transposed_15 = linalg.transpose ins(%expanded_14 : tensor<2x2x3x4xf32>) outs(%11 : tensor<3x2x2x4xf32>) permutation = [2, 0, 1, 3] 
    %collapsed_16 = tensor.collapse_shape %transposed_15 [[0, 1], [2, 3]] : tensor<3x2x2x4xf32> into tensor<6x8xf32>
    %12 = tensor.empty() : tensor<8x8xf32>
    %transposed_17 = linalg.transpose ins(%arg2 : tensor<8x8xf32>) outs(%12 : tensor<8x8xf32>) permutation = [1, 0] 
    %13 = tensor.empty() : tensor<6x8xf32>
    %14 = linalg.fill ins(%cst_0 : f32) outs(%13 : tensor<6x8xf32>) -> tensor<6x8xf32>
    %15 = linalg.matmul ins(%collapsed_16, %transposed_17 : tensor<6x8xf32>, tensor<8x8xf32>) outs(%14 : tensor<6x8xf32>) -> tensor<6x8xf32>
    %16 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%15, %arg3 : tensor<6x8xf32>, tensor<8xf32>) outs(%13 : tensor<6x8xf32>) {
    ^bb0(%in: f32, %in_20: f32, %out: f32):
      %22 = arith.addf %in, %in_20 : f32
      linalg.yield %22 : f32
    } -> tensor<6x8xf32>
    %expanded_18 = tensor.expand_shape %16 [[0, 1], [2]] output_shape [3, 2, 8] : tensor<6x8xf32> into tensor<3x2x8xf32>
    %17 = tensor.empty() : tensor<2x3x8xf32>
    %transposed_19 = linalg.transpose ins(%expanded_18 : tensor<3x2x8xf32>) outs(%17 : tensor<2x3x8xf32>) permutation = [1, 0, 2] 
    %18 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%transposed_19 : tensor<2x3x8xf32>) outs(%17 : tensor<2x3x8xf32>) {
    ^bb0(%in: f32, %out: f32):
      %22 = math.fpowi %in, %c2_i64 : f32, i64
      linalg.yield %22 : f32
    } -> tensor<2x3x8xf32>
    %19 = tensor.empty() : tensor<f32>
    %20 = linalg.fill ins(%cst_0 : f32) outs(%19 : tensor<f32>) -> tensor<f32>
    %21 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> ()>], iterator_types = ["reduction", "reduction", "reduction"]} ins(%18 : tensor<2x3x8xf32>) outs(%20 : tensor<f32>) {
    ^bb0(%in: f32, %out: f32):
      %22 = arith.addf %in, %out : f32
      linalg.yield %22 : f32
    } -> tensor<f32>
    util.return %21 : tensor<f32>
  }
}