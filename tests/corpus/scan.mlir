module @jit_scan {
  util.func public @main(%arg0: tensor<3xf32>, %arg1: tensor<5x3xf32>) -> tensor<f32> {
    %cst = arith.constant 0.000000e+00 : f32
    %c4 = arith.constant 4 : index
    %c0 = arith.constant 0 : index
    %cst_0 = arith.constant dense<0.000000e+00> : tensor<3xf32>
    %cst_1 = arith.constant dense<0.000000e+00> : tensor<5x3xf32>
    %c0_i32 = arith.constant 0 : i32
    %c5_i32 = arith.constant 5 : i32
    %c1_i32 = arith.constant 1 : i32
    %0:2 = scf.for %arg2 = %c0_i32 to %c5_i32 step %c1_i32 iter_args(%arg3 = %cst_0, %arg4 = %cst_1) -> (tensor<3xf32>, tensor<5x3xf32>)  : i32 {
      %15 = arith.index_cast %arg2 : i32 to index
      %16 = arith.maxsi %15, %c0 : index
      %17 = arith.minsi %16, %c4 : index
      %extracted_slice_4 = tensor.extract_slice %arg1[%17, 0] [1, 3] [1, 1] : tensor<5x3xf32> to tensor<1x3xf32>
      %collapsed_5 = tensor.collapse_shape %extracted_slice_4 [[0, 1]] : tensor<1x3xf32> into tensor<3xf32>
      %18 = tensor.empty() : tensor<3xf32>
      %19 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%arg3, %arg0 : tensor<3xf32>, tensor<3xf32>) outs(%18 : tensor<3xf32>) {
      ^bb0(%in: f32, %in_6: f32, %out: f32):
        %29 = arith.mulf %in, %in_6 : f32
        linalg.yield %29 : f32
      } -> tensor<3xf32>
      %20 = tensor.empty() : tensor<3xf32>
      %21 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%19, %collapsed_5 : tensor<3xf32>, tensor<3xf32>) outs(%20 : tensor<3xf32>) {
      ^bb0(%in: f32, %in_6: f32, %out: f32):
        %29 = arith.addf %in, %in_6 : f32
        linalg.yield %29 : f32
      } -> tensor<3xf32>
      %22 = tensor.empty() : tensor<3xf32>
      %23 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%21 : tensor<3xf32>) outs(%22 : tensor<3xf32>) {
      ^bb0(%in: f32, %out: f32):
        %29 = math.tanh %in : f32
        linalg.yield %29 : f32
      } -> tensor<3xf32>
      %24 = tensor.empty() : tensor<1x3xf32>
      %25 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%23 : tensor<3xf32>) outs(%24 : tensor<1x3xf32>) {
      ^bb0(%in: f32, %out: f32):
        linalg.yield %in : f32
      } -> tensor<1x3xf32>
      %26 = arith.index_cast %arg2 : i32 to index
      %27 = arith.maxsi %26, %c0 : index
      %28 = arith.minsi %27, %c4 : index
      %inserted_slice = tensor.insert_slice %25 into %arg4[%28, 0] [1, 3] [1, 1] : tensor<1x3xf32> into tensor<5x3xf32>
      scf.yield %23, %inserted_slice : tensor<3xf32>, tensor<5x3xf32>
    }
    %1 = tensor.empty() : tensor<f32>
    %2 = linalg.fill ins(%cst : f32) outs(%1 : tensor<f32>) -> tensor<f32>
    %3 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> ()>], iterator_types = ["reduction", "reduction"]} ins(%0#1 : tensor<5x3xf32>) outs(%2 : tensor<f32>) {
    ^bb0(%in: f32, %out: f32):
      %15 = arith.addf %out, %in : f32
      linalg.yield %15 : f32
    } -> tensor<f32>
    %extracted_slice = tensor.extract_slice %0#0[1] [1] [1] : tensor<3xf32> to tensor<1xf32>
    %collapsed = tensor.collapse_shape %extracted_slice [] : tensor<1xf32> into tensor<f32>
    %4 = tensor.empty() : tensor<f32>
    %5 = linalg.generic {indexing_maps = [affine_map<() -> ()>, affine_map<() -> ()>, affine_map<() -> ()>], iterator_types = []} ins(%3, %collapsed : tensor<f32>, tensor<f32>) outs(%4 : tensor<f32>) {
    ^bb0(%in: f32, %in_4: f32, %out: f32):
      %15 = arith.addf %in, %in_4 : f32
      linalg.yield %15 : f32
    } -> tensor<f32>
    %6 = tensor.empty() : tensor<5x3xf32>
    %7 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} outs(%6 : tensor<5x3xf32>) {
    ^bb0(%out: f32):
      %15 = linalg.index 0 : index
      %16 = arith.subi %c4, %15 : index
      %17 = linalg.index 1 : index
      %extracted = tensor.extract %arg1[%16, %17] : tensor<5x3xf32>
      linalg.yield %extracted : f32
    } -> tensor<5x3xf32>
    %8 = tensor.empty() : tensor<f32>
    %9 = linalg.fill ins(%cst : f32) outs(%8 : tensor<f32>) -> tensor<f32>
    %10 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> ()>], iterator_types = ["reduction", "reduction"]} ins(%7 : tensor<5x3xf32>) outs(%9 : tensor<f32>) {
    ^bb0(%in: f32, %out: f32):
      %15 = arith.addf %out, %in : f32
      linalg.yield %15 : f32
    } -> tensor<f32>
    %extracted_slice_2 = tensor.extract_slice %arg1[2, 1] [1, 1] [1, 1] : tensor<5x3xf32> to tensor<1x1xf32>
    %collapsed_3 = tensor.collapse_shape %extracted_slice_2 [] : tensor<1x1xf32> into tensor<f32>
    %11 = tensor.empty() : tensor<f32>
    %12 = linalg.generic {indexing_maps = [affine_map<() -> ()>, affine_map<() -> ()>, affine_map<() -> ()>], iterator_types = []} ins(%10, %collapsed_3 : tensor<f32>, tensor<f32>) outs(%11 : tensor<f32>) {
    ^bb0(%in: f32, %in_4: f32, %out: f32):
      %15 = arith.mulf %in, %in_4 : f32
      linalg.yield %15 : f32
    } -> tensor<f32>
    %13 = tensor.empty() : tensor<f32>
    %14 = linalg.generic {indexing_maps = [affine_map<() -> ()>, affine_map<() -> ()>, affine_map<() -> ()>], iterator_types = []} ins(%5, %12 : tensor<f32>, tensor<f32>) outs(%13 : tensor<f32>) {
    ^bb0(%in: f32, %in_4: f32, %out: f32):
      %15 = arith.addf %in, %in_4 : f32
      linalg.yield %15 : f32
    } -> tensor<f32>
    util.return %14 : tensor<f32>
  }
}