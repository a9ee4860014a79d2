module @jit_mlp {
  util.func public @main(%arg0: tensor<4x8xf32>, %arg1: tensor<8xf32>, %arg2: tensor<8x3xf32>, %arg3: tensor<3xf32>, %arg4: tensor<5x4xf32>, %arg5: tensor<5x3xf32>) -> tensor<f32> {
    %cst = arith.constant 5.000000e+00 : f32
    %cst_0 = arith.constant 0xFF800000 : f32
    %cst_1 = arith.constant 0.000000e+00 : f32
    %0 = tensor.empty() : tensor<5x8xf32>
    %1 = linalg.fill ins(%cst_1 : f32) outs(%0 : tensor<5x8xf32>) -> tensor<5x8xf32>
    %2 = linalg.matmul ins(%arg4, %arg0 : tensor<5x4xf32>, tensor<4x8xf32>) outs(%1 : tensor<5x8xf32>) -> tensor<5x8xf32>
    %3 = tensor.empty() : tensor<5x8xf32>
    %4 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%arg1 : tensor<8xf32>) outs(%3 : tensor<5x8xf32>) {
    ^bb0(%in: f32, %out: f32):
      linalg.yield %in : f32
    } -> tensor<5x8xf32>
    %5 = tensor.empty() : tensor<5x8xf32>
    %6 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%2, %4 : tensor<5x8xf32>, tensor<5x8xf32>) outs(%5 : tensor<5x8xf32>) {
    ^bb0(%in: f32, %in_2: f32, %out: f32):
      %46 = arith.addf %in, %in_2 : f32
      linalg.yield %46 : f32
    } -> tensor<5x8xf32>
    %7 = tensor.empty() : tensor<5x8xf32>
    %8 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%6 : tensor<5x8xf32>) outs(%7 : tensor<5x8xf32>) {
    ^bb0(%in: f32, %out: f32):
      %46 = math.tanh %in : f32
      linalg.yield %46 : f32
    } -> tensor<5x8xf32>
    %9 = tensor.empty() : tensor<5x3xf32>
    %10 = linalg.fill ins(%cst_1 : f32) outs(%9 : tensor<5x3xf32>) -> tensor<5x3xf32>
    %11 = linalg.matmul ins(%8, %arg2 : tensor<5x8xf32>, tensor<8x3xf32>) outs(%10 : tensor<5x3xf32>) -> tensor<5x3xf32>
    %12 = tensor.empty() : tensor<5x3xf32>
    %13 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%arg3 : tensor<3xf32>) outs(%12 : tensor<5x3xf32>) {
    ^bb0(%in: f32, %out: f32):
      linalg.yield %in : f32
    } -> tensor<5x3xf32>
    %14 = tensor.empty() : tensor<5x3xf32>
    %15 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%11, %13 : tensor<5x3xf32>, tensor<5x3xf32>) outs(%14 : tensor<5x3xf32>) {
    ^bb0(%in: f32, %in_2: f32, %out: f32):
      %46 = arith.addf %in, %in_2 : f32
      linalg.yield %46 : f32
    } -> tensor<5x3xf32>
    %16 = tensor.empty() : tensor<5xf32>
    %17 = linalg.fill ins(%cst_0 : f32) outs(%16 : tensor<5xf32>) -> tensor<5xf32>
    %18 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%15 : tensor<5x3xf32>) outs(%17 : tensor<5xf32>) {
    ^bb0(%in: f32, %out: f32):
      %46 = arith.maximumf %out, %in : f32
      linalg.yield %46 : f32
    } -> tensor<5xf32>
    %19 = tensor.empty() : tensor<5x3xf32>
    %20 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%18 : tensor<5xf32>) outs(%19 : tensor<5x3xf32>) {
    ^bb0(%in: f32, %out: f32):
      linalg.yield %in : f32
    } -> tensor<5x3xf32>
    %21 = tensor.empty() : tensor<5x3xf32>
    %22 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%15, %20 : tensor<5x3xf32>, tensor<5x3xf32>) outs(%21 : tensor<5x3xf32>) {
    ^bb0(%in: f32, %in_2: f32, %out: f32):
      %46 = arith.subf %in, %in_2 : f32
      linalg.yield %46 : f32
    } -> tensor<5x3xf32>
    %23 = tensor.empty() : tensor<5x3xf32>
    %24 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%22 : tensor<5x3xf32>) outs(%23 : tensor<5x3xf32>) {
    ^bb0(%in: f32, %out: f32):
      %46 = math.exp %in : f32
      linalg.yield %46 : f32
    } -> tensor<5x3xf32>
    %25 = tensor.empty() : tensor<5xf32>
    %26 = linalg.fill ins(%cst_1 : f32) outs(%25 : tensor<5xf32>) -> tensor<5xf32>
    %27 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%24 : tensor<5x3xf32>) outs(%26 : tensor<5xf32>) {
    ^bb0(%in: f32, %out: f32):
      %46 = arith.addf %out, %in : f32
      linalg.yield %46 : f32
    } -> tensor<5xf32>
    %28 = tensor.empty() : tensor<5xf32>
    %29 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%27 : tensor<5xf32>) outs(%28 : tensor<5xf32>) {
    ^bb0(%in: f32, %out: f32):
      %46 = math.log %in : f32
      linalg.yield %46 : f32
    } -> tensor<5xf32>
    %expanded = tensor.expand_shape %29 [[0, 1]] output_shape [5, 1] : tensor<5xf32> into tensor<5x1xf32>
    %30 = tensor.empty() : tensor<5x3xf32>
    %31 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, 0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%expanded : tensor<5x1xf32>) outs(%30 : tensor<5x3xf32>) {
    ^bb0(%in: f32, %out: f32):
      linalg.yield %in : f32
    } -> tensor<5x3xf32>
    %32 = tensor.empty() : tensor<5x3xf32>
    %33 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%22, %31 : tensor<5x3xf32>, tensor<5x3xf32>) outs(%32 : tensor<5x3xf32>) {
    ^bb0(%in: f32, %in_2: f32, %out: f32):
      %46 = arith.subf %in, %in_2 : f32
      linalg.yield %46 : f32
    } -> tensor<5x3xf32>
    %34 = tensor.empty() : tensor<5x3xf32>
    %35 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%33, %arg5 : tensor<5x3xf32>, tensor<5x3xf32>) outs(%34 : tensor<5x3xf32>) {
    ^bb0(%in: f32, %in_2: f32, %out: f32):
      %46 = arith.mulf %in, %in_2 : f32
      linalg.yield %46 : f32
    } -> tensor<5x3xf32>
    %36 = tensor.empty() : tensor<5xf32>
    %37 = linalg.fill ins(%cst_1 : f32) outs(%36 : tensor<5xf32>) -> tensor<5xf32>
    %38 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%35 : tensor<5x3xf32>) outs(%37 : tensor<5xf32>) {
    ^bb0(%in: f32, %out: f32):
      %46 = arith.addf %out, %in : f32
      linalg.yield %46 : f32
    } -> tensor<5xf32>
    %39 = tensor.empty() : tensor<f32>
    %40 = linalg.fill ins(%cst_1 : f32) outs(%39 : tensor<f32>) -> tensor<f32>
    %41 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> ()>], iterator_types = ["reduction"]} ins(%38 : tensor<5xf32>) outs(%40 : tensor<f32>) {
    ^bb0(%in: f32, %out: f32):
      %46 = arith.addf %out, %in : f32
      linalg.yield %46 : f32
    } -> tensor<f32>
    %42 = tensor.empty() : tensor<f32>
    %43 = linalg.generic {indexing_maps = [affine_map<() -> ()>, affine_map<() -> ()>], iterator_types = []} ins(%41 : tensor<f32>) outs(%42 : tensor<f32>) {
    ^bb0(%in: f32, %out: f32):
      %46 = arith.divf %in, %cst : f32
      linalg.yield %46 : f32
    } -> tensor<f32>
    %44 = tensor.empty() : tensor<f32>
    %45 = linalg.generic {indexing_maps = [affine_map<() -> ()>, affine_map<() -> ()>], iterator_types = []} ins(%43 : tensor<f32>) outs(%44 : tensor<f32>) {
    ^bb0(%in: f32, %out: f32):
      %46 = arith.negf %in : f32
      linalg.yield %46 : f32
    } -> tensor<f32>
    util.return %45 : tensor<f32>
  }
}