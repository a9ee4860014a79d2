module @jit_linalg_ext {
  util.func public @main(%arg0: tensor<3x7xf32>, %arg1: tensor<8xf32>, %arg2: tensor<4x3xf32>, %arg3: tensor<3x3xf32>, %arg4: tensor<5x2xf32>, %arg5: tensor<3x2xf32>, %arg6: tensor<3x4xf32>) -> tensor<f32> {
    %cst = arith.constant 0xFF800000 : f32
    %c2147483647_i32 = arith.constant 2147483647 : i32
    %c0_i32 = arith.constant 0 : i32
    %cst_0 = arith.constant 0x7FC00000 : f32
    %cst_1 = arith.constant dense<[[1], [3], [1]]> : tensor<3x1xi32>
    %cst_2 = arith.constant dense<[[0], [2], [2]]> : tensor<3x1xi32>
    %cst_3 = arith.constant dense<0.000000e+00> : tensor<f32>
    %cst_4 = arith.constant 0.000000e+00 : f32
    %0 = tensor.empty() : tensor<3x7xf32>
    %1 = tensor.empty() : tensor<3xf32>
    %2 = linalg.generic {indexing_maps = [affine_map<(d0) -> ()>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%cst_3 : tensor<f32>) outs(%1 : tensor<3xf32>) {
    ^bb0(%in: f32, %out: f32):
      linalg.yield %in : f32
    } -> tensor<3xf32>
    %3:2 = iree_linalg_ext.scan dimension(1) inclusive(true) ins(%arg0 : tensor<3x7xf32>) outs(%0, %2 : tensor<3x7xf32>, tensor<3xf32>) {
    ^bb0(%arg7: f32, %arg8: f32):
      %67 = arith.addf %arg7, %arg8 : f32
      iree_linalg_ext.yield %67 : f32
    } -> tensor<3x7xf32>, tensor<3xf32>
    %4 = tensor.empty() : tensor<3x7xf32>
    %5 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%3#0 : tensor<3x7xf32>) outs(%4 : tensor<3x7xf32>) {
    ^bb0(%in: f32, %out: f32):
      %67 = arith.mulf %in, %in : f32
      linalg.yield %67 : f32
    } -> tensor<3x7xf32>
    %6 = tensor.empty() : tensor<f32>
    %7 = linalg.fill ins(%cst_4 : f32) outs(%6 : tensor<f32>) -> tensor<f32>
    %8 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> ()>], iterator_types = ["reduction", "reduction"]} ins(%5 : tensor<3x7xf32>) outs(%7 : tensor<f32>) {
    ^bb0(%in: f32, %out: f32):
      %67 = arith.addf %out, %in : f32
      linalg.yield %67 : f32
    } -> tensor<f32>
    %9 = iree_linalg_ext.sort dimension(0) outs(%arg1 : tensor<8xf32>) {
    ^bb0(%arg7: f32, %arg8: f32):
      %67 = arith.cmpf oeq, %arg7, %cst_4 : f32
      %68 = arith.select %67, %cst_4, %arg7 : f32
      %69 = arith.cmpf une, %arg7, %arg7 : f32
      %70 = arith.select %69, %cst_0, %68 : f32
      %71 = arith.cmpf oeq, %arg8, %cst_4 : f32
      %72 = arith.select %71, %cst_4, %arg8 : f32
      %73 = arith.cmpf une, %arg8, %arg8 : f32
      %74 = arith.select %73, %cst_0, %72 : f32
      %75 = arith.bitcast %70 : f32 to i32
      %76 = arith.cmpi slt, %75, %c0_i32 : i32
      %77 = arith.subi %c2147483647_i32, %75 : i32
      %78 = arith.select %76, %77, %75 : i32
      %79 = arith.bitcast %74 : f32 to i32
      %80 = arith.cmpi slt, %79, %c0_i32 : i32
      %81 = arith.subi %c2147483647_i32, %79 : i32
      %82 = arith.select %80, %81, %79 : i32
      %83 = arith.cmpi slt, %78, %82 : i32
      iree_linalg_ext.yield %83 : i1
    } -> tensor<8xf32>
    %10 = tensor.empty() : tensor<8xf32>
    %11 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} outs(%10 : tensor<8xf32>) {
    ^bb0(%out: f32):
      %67 = linalg.index 0 : index
      %68 = arith.index_cast %67 : index to i32
      %69 = arith.sitofp %68 : i32 to f32
      linalg.yield %69 : f32
    } -> tensor<8xf32>
    %12 = tensor.empty() : tensor<8xf32>
    %13 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%9, %11 : tensor<8xf32>, tensor<8xf32>) outs(%12 : tensor<8xf32>) {
    ^bb0(%in: f32, %in_5: f32, %out: f32):
      %67 = arith.mulf %in, %in_5 : f32
      linalg.yield %67 : f32
    } -> tensor<8xf32>
    %14 = tensor.empty() : tensor<f32>
    %15 = linalg.fill ins(%cst_4 : f32) outs(%14 : tensor<f32>) -> tensor<f32>
    %16 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> ()>], iterator_types = ["reduction"]} ins(%13 : tensor<8xf32>) outs(%15 : tensor<f32>) {
    ^bb0(%in: f32, %out: f32):
      %67 = arith.addf %out, %in : f32
      linalg.yield %67 : f32
    } -> tensor<f32>
    %17 = iree_linalg_ext.sort dimension(0) outs(%arg1 : tensor<8xf32>) {
    ^bb0(%arg7: f32, %arg8: f32):
      %67 = arith.bitcast %arg7 : f32 to i32
      %68 = arith.cmpi slt, %67, %c0_i32 : i32
      %69 = arith.subi %c2147483647_i32, %67 : i32
      %70 = arith.select %68, %69, %67 : i32
      %71 = arith.bitcast %arg8 : f32 to i32
      %72 = arith.cmpi slt, %71, %c0_i32 : i32
      %73 = arith.subi %c2147483647_i32, %71 : i32
      %74 = arith.select %72, %73, %71 : i32
      %75 = arith.cmpi sgt, %70, %74 : i32
      iree_linalg_ext.yield %75 : i1
    } -> tensor<8xf32>
    %extracted_slice = tensor.extract_slice %17[0] [3] [1] : tensor<8xf32> to tensor<3xf32>
    %18 = tensor.empty() : tensor<3xf32>
    %19 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%extracted_slice : tensor<3xf32>) outs(%18 : tensor<3xf32>) {
    ^bb0(%in: f32, %out: f32):
      %67 = arith.mulf %in, %in : f32
      linalg.yield %67 : f32
    } -> tensor<3xf32>
    %20 = tensor.empty() : tensor<f32>
    %21 = linalg.fill ins(%cst_4 : f32) outs(%20 : tensor<f32>) -> tensor<f32>
    %22 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> ()>], iterator_types = ["reduction"]} ins(%19 : tensor<3xf32>) outs(%21 : tensor<f32>) {
    ^bb0(%in: f32, %out: f32):
      %67 = arith.addf %out, %in : f32
      linalg.yield %67 : f32
    } -> tensor<f32>
    %23 = iree_linalg_ext.scatter dimension_map = [0] unique_indices(false) ins(%arg3, %cst_2 : tensor<3x3xf32>, tensor<3x1xi32>) outs(%arg2 : tensor<4x3xf32>) {
    ^bb0(%arg7: f32, %arg8: f32):
      %67 = arith.addf %arg8, %arg7 : f32
      iree_linalg_ext.yield %67 : f32
    } -> tensor<4x3xf32>
    %24 = tensor.empty() : tensor<4x3xf32>
    %25 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%23 : tensor<4x3xf32>) outs(%24 : tensor<4x3xf32>) {
    ^bb0(%in: f32, %out: f32):
      %67 = arith.mulf %in, %in : f32
      linalg.yield %67 : f32
    } -> tensor<4x3xf32>
    %26 = tensor.empty() : tensor<f32>
    %27 = linalg.fill ins(%cst_4 : f32) outs(%26 : tensor<f32>) -> tensor<f32>
    %28 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> ()>], iterator_types = ["reduction", "reduction"]} ins(%25 : tensor<4x3xf32>) outs(%27 : tensor<f32>) {
    ^bb0(%in: f32, %out: f32):
      %67 = arith.addf %out, %in : f32
      linalg.yield %67 : f32
    } -> tensor<f32>
    %29 = iree_linalg_ext.scatter dimension_map = [0] unique_indices(false) ins(%arg5, %cst_1 : tensor<3x2xf32>, tensor<3x1xi32>) outs(%arg4 : tensor<5x2xf32>) {
    ^bb0(%arg7: f32, %arg8: f32):
      iree_linalg_ext.yield %arg7 : f32
    } -> tensor<5x2xf32>
    %30 = tensor.empty() : tensor<5x2xf32>
    %31 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%29 : tensor<5x2xf32>) outs(%30 : tensor<5x2xf32>) {
    ^bb0(%in: f32, %out: f32):
      %67 = arith.mulf %in, %in : f32
      linalg.yield %67 : f32
    } -> tensor<5x2xf32>
    %32 = tensor.empty() : tensor<f32>
    %33 = linalg.fill ins(%cst_4 : f32) outs(%32 : tensor<f32>) -> tensor<f32>
    %34 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> ()>], iterator_types = ["reduction", "reduction"]} ins(%31 : tensor<5x2xf32>) outs(%33 : tensor<f32>) {
    ^bb0(%in: f32, %out: f32):
      %67 = arith.addf %out, %in : f32
      linalg.yield %67 : f32
    } -> tensor<f32>
    %35 = tensor.empty() : tensor<3x4xi32>
    %36 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} outs(%35 : tensor<3x4xi32>) {
    ^bb0(%out: i32):
      %67 = linalg.index 1 : index
      %68 = arith.index_cast %67 : index to i32
      linalg.yield %68 : i32
    } -> tensor<3x4xi32>
    %37 = tensor.empty() : tensor<3xf32>
    %38 = linalg.fill ins(%cst : f32) outs(%37 : tensor<3xf32>) -> tensor<3xf32>
    %39 = tensor.empty() : tensor<3xi32>
    %40 = linalg.fill ins(%c0_i32 : i32) outs(%39 : tensor<3xi32>) -> tensor<3xi32>
    %41:2 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%arg6, %36 : tensor<3x4xf32>, tensor<3x4xi32>) outs(%38, %40 : tensor<3xf32>, tensor<3xi32>) {
    ^bb0(%in: f32, %in_5: i32, %out: f32, %out_6: i32):
      %67 = arith.cmpf ogt, %out, %in : f32
      %68 = arith.cmpf une, %out, %out : f32
      %69 = arith.ori %67, %68 : i1
      %70 = arith.cmpf oeq, %out, %in : f32
      %71 = arith.cmpi slt, %out_6, %in_5 : i32
      %72 = arith.andi %70, %71 : i1
      %73 = arith.ori %69, %72 : i1
      %74 = arith.select %69, %out, %in : f32
      %75 = arith.select %73, %out_6, %in_5 : i32
      linalg.yield %74, %75 : f32, i32
    } -> (tensor<3xf32>, tensor<3xi32>)
    %42 = tensor.empty() : tensor<1x4xi32>
    %43 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} outs(%42 : tensor<1x4xi32>) {
    ^bb0(%out: i32):
      %67 = linalg.index 1 : index
      %68 = arith.index_cast %67 : index to i32
      linalg.yield %68 : i32
    } -> tensor<1x4xi32>
    %44 = tensor.empty() : tensor<3x4xi32>
    %45 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%41#1 : tensor<3xi32>) outs(%44 : tensor<3x4xi32>) {
    ^bb0(%in: i32, %out: i32):
      linalg.yield %in : i32
    } -> tensor<3x4xi32>
    %46 = tensor.empty() : tensor<3x4xi32>
    %47 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%43 : tensor<1x4xi32>) outs(%46 : tensor<3x4xi32>) {
    ^bb0(%in: i32, %out: i32):
      linalg.yield %in : i32
    } -> tensor<3x4xi32>
    %48 = tensor.empty() : tensor<3x4xi1>
    %49 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%45, %47 : tensor<3x4xi32>, tensor<3x4xi32>) outs(%48 : tensor<3x4xi1>) {
    ^bb0(%in: i32, %in_5: i32, %out: i1):
      %67 = arith.cmpi eq, %in, %in_5 : i32
      linalg.yield %67 : i1
    } -> tensor<3x4xi1>
    %50 = tensor.empty() : tensor<3x4xf32>
    %51 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%49 : tensor<3x4xi1>) outs(%50 : tensor<3x4xf32>) {
    ^bb0(%in: i1, %out: f32):
      %67 = arith.uitofp %in : i1 to f32
      linalg.yield %67 : f32
    } -> tensor<3x4xf32>
    %52 = tensor.empty() : tensor<3x4xf32>
    %53 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%51, %arg6 : tensor<3x4xf32>, tensor<3x4xf32>) outs(%52 : tensor<3x4xf32>) {
    ^bb0(%in: f32, %in_5: f32, %out: f32):
      %67 = arith.mulf %in, %in_5 : f32
      linalg.yield %67 : f32
    } -> tensor<3x4xf32>
    %54 = tensor.empty() : tensor<f32>
    %55 = linalg.fill ins(%cst_4 : f32) outs(%54 : tensor<f32>) -> tensor<f32>
    %56 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> ()>], iterator_types = ["reduction", "reduction"]} ins(%53 : tensor<3x4xf32>) outs(%55 : tensor<f32>) {
    ^bb0(%in: f32, %out: f32):
      %67 = arith.addf %out, %in : f32
      linalg.yield %67 : f32
    } -> tensor<f32>
    %57 = tensor.empty() : tensor<f32>
    %58 = linalg.generic {indexing_maps = [affine_map<() -> ()>, affine_map<() -> ()>, affine_map<() -> ()>], iterator_types = []} ins(%8, %16 : tensor<f32>, tensor<f32>) outs(%57 : tensor<f32>) {
    ^bb0(%in: f32, %in_5: f32, %out: f32):
      %67 = arith.addf %in, %in_5 : f32
      linalg.yield %67 : f32
    } -> tensor<f32>
    %59 = tensor.empty() : tensor<f32>
    %60 = linalg.generic {indexing_maps = [affine_map<() -> ()>, affine_map<() -> ()>, affine_map<() -> ()>], iterator_types = []} ins(%58, %22 : tensor<f32>, tensor<f32>) outs(%59 : tensor<f32>) {
    ^bb0(%in: f32, %in_5: f32, %out: f32):
      %67 = arith.addf %in, %in_5 : f32
      linalg.yield %67 : f32
    } -> tensor<f32>
    %61 = tensor.empty() : tensor<f32>
    %62 = linalg.generic {indexing_maps = [affine_map<() -> ()>, affine_map<() -> ()>, affine_map<() -> ()>], iterator_types = []} ins(%60, %28 : tensor<f32>, tensor<f32>) outs(%61 : tensor<f32>) {
    ^bb0(%in: f32, %in_5: f32, %out: f32):
      %67 = arith.addf %in, %in_5 : f32
      linalg.yield %67 : f32
    } -> tensor<f32>
    %63 = tensor.empty() : tensor<f32>
    %64 = linalg.generic {indexing_maps = [affine_map<() -> ()>, affine_map<() -> ()>, affine_map<() -> ()>], iterator_types = []} ins(%62, %34 : tensor<f32>, tensor<f32>) outs(%63 : tensor<f32>) {
    ^bb0(%in: f32, %in_5: f32, %out: f32):
      %67 = arith.addf %in, %in_5 : f32
      linalg.yield %67 : f32
    } -> tensor<f32>
    %65 = tensor.empty() : tensor<f32>
    %66 = linalg.generic {indexing_maps = [affine_map<() -> ()>, affine_map<() -> ()>, affine_map<() -> ()>], iterator_types = []} ins(%64, %56 : tensor<f32>, tensor<f32>) outs(%65 : tensor<f32>) {
    ^bb0(%in: f32, %in_5: f32, %out: f32):
      %67 = arith.addf %in, %in_5 : f32
      linalg.yield %67 : f32
    } -> tensor<f32>
    util.return %66 : tensor<f32>
  }
}