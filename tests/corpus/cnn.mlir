module @jit_cnn {
  util.func public @main(%arg0: tensor<4x3x3x3xf32>, %arg1: tensor<2x3x11x11xf32>) -> tensor<f32> {
    %cst = arith.constant 1.280000e+02 : f32
    %cst_0 = arith.constant 0.000000e+00 : f32
    %cst_1 = arith.constant dense<0.000000e+00> : tensor<f32>
    %cst_2 = arith.constant dense<0xFF800000> : tensor<f32>
    %0 = tensor.empty() : tensor<2x11x11x3xf32>
    %1 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d3, d1, d2)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%arg1 : tensor<2x3x11x11xf32>) outs(%0 : tensor<2x11x11x3xf32>) {
    ^bb0(%in: f32, %out: f32):
      linalg.yield %in : f32
    } -> tensor<2x11x11x3xf32>
    %2 = tensor.empty() : tensor<3x3x3x4xf32>
    %3 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d3, d2, d0, d1)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%arg0 : tensor<4x3x3x3xf32>) outs(%2 : tensor<3x3x3x4xf32>) {
    ^bb0(%in: f32, %out: f32):
      linalg.yield %in : f32
    } -> tensor<3x3x3x4xf32>
    %4 = tensor.empty() : tensor<2x5x5x4xf32>
    %5 = linalg.fill ins(%cst_0 : f32) outs(%4 : tensor<2x5x5x4xf32>) -> tensor<2x5x5x4xf32>
    %6 = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%1, %3 : tensor<2x11x11x3xf32>, tensor<3x3x3x4xf32>) outs(%5 : tensor<2x5x5x4xf32>) -> tensor<2x5x5x4xf32>
    %7 = tensor.empty() : tensor<2x4x5x5xf32>
    %8 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d2, d3, d1)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%6 : tensor<2x5x5x4xf32>) outs(%7 : tensor<2x4x5x5xf32>) {
    ^bb0(%in: f32, %out: f32):
      linalg.yield %in : f32
    } -> tensor<2x4x5x5xf32>
    %9 = tensor.empty() : tensor<2x4x5x5xf32>
    %10 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%8 : tensor<2x4x5x5xf32>) outs(%9 : tensor<2x4x5x5xf32>) {
    ^bb0(%in: f32, %out: f32):
      %29 = arith.maximumf %in, %cst_0 : f32
      linalg.yield %29 : f32
    } -> tensor<2x4x5x5xf32>
    %11 = tensor.empty() : tensor<2x4x2x2xf32>
    %12 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> ()>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%cst_2 : tensor<f32>) outs(%11 : tensor<2x4x2x2xf32>) {
    ^bb0(%in: f32, %out: f32):
      linalg.yield %in : f32
    } -> tensor<2x4x2x2xf32>
    %13 = tensor.empty() : tensor<2x2xf32>
    %14 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2 * 2 + d4, d3 * 2 + d5)>, affine_map<(d0, d1, d2, d3, d4, d5) -> (d4, d5)>, affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]} ins(%10, %13 : tensor<2x4x5x5xf32>, tensor<2x2xf32>) outs(%12 : tensor<2x4x2x2xf32>) {
    ^bb0(%in: f32, %in_3: f32, %out: f32):
      %29 = arith.maximumf %out, %in : f32
      linalg.yield %29 : f32
    } -> tensor<2x4x2x2xf32>
    %15 = tensor.empty() : tensor<2x4x4x4xf32>
    %16 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> ()>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%cst_1 : tensor<f32>) outs(%15 : tensor<2x4x4x4xf32>) {
    ^bb0(%in: f32, %out: f32):
      linalg.yield %in : f32
    } -> tensor<2x4x4x4xf32>
    %17 = tensor.empty() : tensor<2x2xf32>
    %18 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2 + d4, d3 + d5)>, affine_map<(d0, d1, d2, d3, d4, d5) -> (d4, d5)>, affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]} ins(%10, %17 : tensor<2x4x5x5xf32>, tensor<2x2xf32>) outs(%16 : tensor<2x4x4x4xf32>) {
    ^bb0(%in: f32, %in_3: f32, %out: f32):
      %29 = arith.addf %out, %in : f32
      linalg.yield %29 : f32
    } -> tensor<2x4x4x4xf32>
    %19 = tensor.empty() : tensor<f32>
    %20 = linalg.fill ins(%cst_0 : f32) outs(%19 : tensor<f32>) -> tensor<f32>
    %21 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> ()>], iterator_types = ["reduction", "reduction", "reduction", "reduction"]} ins(%14 : tensor<2x4x2x2xf32>) outs(%20 : tensor<f32>) {
    ^bb0(%in: f32, %out: f32):
      %29 = arith.addf %out, %in : f32
      linalg.yield %29 : f32
    } -> tensor<f32>
    %22 = tensor.empty() : tensor<f32>
    %23 = linalg.fill ins(%cst_0 : f32) outs(%22 : tensor<f32>) -> tensor<f32>
    %24 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> ()>], iterator_types = ["reduction", "reduction", "reduction", "reduction"]} ins(%18 : tensor<2x4x4x4xf32>) outs(%23 : tensor<f32>) {
    ^bb0(%in: f32, %out: f32):
      %29 = arith.addf %out, %in : f32
      linalg.yield %29 : f32
    } -> tensor<f32>
    %25 = tensor.empty() : tensor<f32>
    %26 = linalg.generic {indexing_maps = [affine_map<() -> ()>, affine_map<() -> ()>], iterator_types = []} ins(%24 : tensor<f32>) outs(%25 : tensor<f32>) {
    ^bb0(%in: f32, %out: f32):
      %29 = arith.divf %in, %cst : f32
      linalg.yield %29 : f32
    } -> tensor<f32>
    %27 = tensor.empty() : tensor<f32>
    %28 = linalg.generic {indexing_maps = [affine_map<() -> ()>, affine_map<() -> ()>, affine_map<() -> ()>], iterator_types = []} ins(%21, %26 : tensor<f32>, tensor<f32>) outs(%27 : tensor<f32>) {
    ^bb0(%in: f32, %in_3: f32, %out: f32):
      %29 = arith.addf %in, %in_3 : f32
      linalg.yield %29 : f32
    } -> tensor<f32>
    util.return %28 : tensor<f32>
  }
}