module @jit_argsort {
  util.func public @main(%arg0: tensor<3x4xf32>, %arg1: tensor<3x4xf32>) -> tensor<f32> {
    %c3 = arith.constant 3 : index
    %c0 = arith.constant 0 : index
    %true = arith.constant true
    %c3_i32 = arith.constant 3 : i32
    %c4_i32 = arith.constant 4 : i32
    %c2147483647_i32 = arith.constant 2147483647 : i32
    %c0_i32 = arith.constant 0 : i32
    %cst = arith.constant 0.000000e+00 : f32
    %cst_0 = arith.constant 0x7FC00000 : f32
    %0 = tensor.empty() : tensor<3x4xi32>
    %1 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} outs(%0 : tensor<3x4xi32>) {
    ^bb0(%out: i32):
      %27 = linalg.index 1 : index
      %28 = arith.index_cast %27 : index to i32
      linalg.yield %28 : i32
    } -> tensor<3x4xi32>
    %2:2 = iree_linalg_ext.sort dimension(1) outs(%arg0, %1 : tensor<3x4xf32>, tensor<3x4xi32>) {
    ^bb0(%arg2: f32, %arg3: f32, %arg4: i32, %arg5: i32):
      %27 = arith.cmpf oeq, %arg2, %cst : f32
      %28 = arith.select %27, %cst, %arg2 : f32
      %29 = arith.cmpf une, %arg2, %arg2 : f32
      %30 = arith.select %29, %cst_0, %28 : f32
      %31 = arith.cmpf oeq, %arg3, %cst : f32
      %32 = arith.select %31, %cst, %arg3 : f32
      %33 = arith.cmpf une, %arg3, %arg3 : f32
      %34 = arith.select %33, %cst_0, %32 : f32
      %35 = arith.bitcast %30 : f32 to i32
      %36 = arith.cmpi slt, %35, %c0_i32 : i32
      %37 = arith.subi %c2147483647_i32, %35 : i32
      %38 = arith.select %36, %37, %35 : i32
      %39 = arith.bitcast %34 : f32 to i32
      %40 = arith.cmpi slt, %39, %c0_i32 : i32
      %41 = arith.subi %c2147483647_i32, %39 : i32
      %42 = arith.select %40, %41, %39 : i32
      %43 = arith.cmpi slt, %38, %42 : i32
      iree_linalg_ext.yield %43 : i1
    } -> tensor<3x4xf32>, tensor<3x4xi32>
    %3 = tensor.empty() : tensor<3x4xi1>
    %4 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%2#1 : tensor<3x4xi32>) outs(%3 : tensor<3x4xi1>) {
    ^bb0(%in: i32, %out: i1):
      %27 = arith.cmpi slt, %in, %c0_i32 : i32
      linalg.yield %27 : i1
    } -> tensor<3x4xi1>
    %5 = tensor.empty() : tensor<3x4xi32>
    %6 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%2#1 : tensor<3x4xi32>) outs(%5 : tensor<3x4xi32>) {
    ^bb0(%in: i32, %out: i32):
      %27 = arith.addi %in, %c4_i32 : i32
      linalg.yield %27 : i32
    } -> tensor<3x4xi32>
    %7 = tensor.empty() : tensor<3x4xi32>
    %8 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%4, %6, %2#1 : tensor<3x4xi1>, tensor<3x4xi32>, tensor<3x4xi32>) outs(%7 : tensor<3x4xi32>) {
    ^bb0(%in: i1, %in_1: i32, %in_2: i32, %out: i32):
      %27 = arith.select %in, %in_1, %in_2 : i32
      linalg.yield %27 : i32
    } -> tensor<3x4xi32>
    %expanded = tensor.expand_shape %8 [[0], [1, 2]] output_shape [3, 4, 1] : tensor<3x4xi32> into tensor<3x4x1xi32>
    %9 = tensor.empty() : tensor<3x4x1xi1>
    %10 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%expanded : tensor<3x4x1xi32>) outs(%9 : tensor<3x4x1xi1>) {
    ^bb0(%in: i32, %out: i1):
      %27 = arith.cmpi sge, %in, %c0_i32 : i32
      linalg.yield %27 : i1
    } -> tensor<3x4x1xi1>
    %11 = tensor.empty() : tensor<3x4x1xi1>
    %12 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%expanded : tensor<3x4x1xi32>) outs(%11 : tensor<3x4x1xi1>) {
    ^bb0(%in: i32, %out: i1):
      %27 = arith.cmpi sle, %in, %c3_i32 : i32
      linalg.yield %27 : i1
    } -> tensor<3x4x1xi1>
    %13 = tensor.empty() : tensor<3x4x1xi1>
    %14 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%10, %12 : tensor<3x4x1xi1>, tensor<3x4x1xi1>) outs(%13 : tensor<3x4x1xi1>) {
    ^bb0(%in: i1, %in_1: i1, %out: i1):
      %27 = arith.andi %in, %in_1 : i1
      linalg.yield %27 : i1
    } -> tensor<3x4x1xi1>
    %15 = tensor.empty() : tensor<3x4xi1>
    %16 = linalg.fill ins(%true : i1) outs(%15 : tensor<3x4xi1>) -> tensor<3x4xi1>
    %17 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%14 : tensor<3x4x1xi1>) outs(%16 : tensor<3x4xi1>) {
    ^bb0(%in: i1, %out: i1):
      %27 = arith.andi %out, %in : i1
      linalg.yield %27 : i1
    } -> tensor<3x4xi1>
    %18 = tensor.empty() : tensor<3x4xf32>
    %19 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} outs(%18 : tensor<3x4xf32>) {
    ^bb0(%out: f32):
      %27 = linalg.index 0 : index
      %28 = linalg.index 1 : index
      %extracted = tensor.extract %expanded[%27, %28, %c0] : tensor<3x4x1xi32>
      %29 = arith.index_cast %extracted : i32 to index
      %30 = arith.maxsi %29, %c0 : index
      %31 = arith.minsi %30, %c3 : index
      %extracted_1 = tensor.extract %arg0[%27, %31] : tensor<3x4xf32>
      linalg.yield %extracted_1 : f32
    } -> tensor<3x4xf32>
    %20 = tensor.empty() : tensor<3x4xf32>
    %21 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%17, %19 : tensor<3x4xi1>, tensor<3x4xf32>) outs(%20 : tensor<3x4xf32>) {
    ^bb0(%in: i1, %in_1: f32, %out: f32):
      %27 = arith.select %in, %in_1, %cst_0 : f32
      linalg.yield %27 : f32
    } -> tensor<3x4xf32>
    %22 = tensor.empty() : tensor<3x4xf32>
    %23 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%21, %arg1 : tensor<3x4xf32>, tensor<3x4xf32>) outs(%22 : tensor<3x4xf32>) {
    ^bb0(%in: f32, %in_1: f32, %out: f32):
      %27 = arith.mulf %in, %in_1 : f32
      linalg.yield %27 : f32
    } -> tensor<3x4xf32>
    %24 = tensor.empty() : tensor<f32>
    %25 = linalg.fill ins(%cst : f32) outs(%24 : tensor<f32>) -> tensor<f32>
    %26 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> ()>], iterator_types = ["reduction", "reduction"]} ins(%23 : tensor<3x4xf32>) outs(%25 : tensor<f32>) {
    ^bb0(%in: f32, %out: f32):
      %27 = arith.addf %out, %in : f32
      linalg.yield %27 : f32
    } -> tensor<f32>
    util.return %26 : tensor<f32>
  }
}