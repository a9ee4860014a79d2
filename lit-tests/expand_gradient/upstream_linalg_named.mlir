// RUN: grad-opt %s -p expand-gradient,expand-jvp --split-input-file | filecheck %s

// SPEC §10.2: rules of the named linalg ops of MLIR that xDSL lacks, one or
// more per family, as their generic forms give them: the expansion holds no
// `grad.` op, only linalg, tensor and arith.

// A depthwise convolution (stride 3, dilation 2): the input's share is the
// transposed convolution, one generic per window position added at its
// strided place; the filter's the correlation of the input with g.
func.func @depthwise(%x: tensor<1x6x2xf32>, %k: tensor<2x2xf32>, %o: tensor<1x2x2xf32>, %ct: tensor<1x2x2xf32>) -> (tensor<1x6x2xf32>, tensor<2x2xf32>) {
  %y = linalg.depthwise_conv_1d_nwc_wc {dilations = dense<2> : tensor<1xi64>, strides = dense<3> : tensor<1xi64>} ins(%x, %k : tensor<1x6x2xf32>, tensor<2x2xf32>) outs(%o : tensor<1x2x2xf32>) -> tensor<1x2x2xf32>
  %gx, %gk = grad.vjp %y, %ct wrt %x, %k : tensor<1x2x2xf32>, tensor<1x6x2xf32>, tensor<2x2xf32>
  func.return %gx, %gk : tensor<1x6x2xf32>, tensor<2x2xf32>
}

// CHECK-LABEL: func.func @depthwise(
// CHECK-NEXT:    %y = linalg.depthwise_conv_1d_nwc_wc {dilations = dense<2> : tensor<1xi64>, strides = dense<3> : tensor<1xi64>} ins(%x, %k : tensor<1x6x2xf32>, tensor<2x2xf32>) outs(%o : tensor<1x2x2xf32>) -> tensor<1x2x2xf32>
// CHECK-NEXT:    %0 = arith.constant dense<0.000000e+00> : tensor<1x6x2xf32>
// CHECK-NEXT:    %1 = arith.constant dense<0.000000e+00> : tensor<1x2x2xf32>
// CHECK-NEXT:    %2 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (0, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%k, %ct : tensor<2x2xf32>, tensor<1x2x2xf32>) outs(%1 : tensor<1x2x2xf32>) {
// CHECK-NEXT:    ^bb0(%3: f32, %4: f32, %5: f32):
// CHECK-NEXT:      %6 = arith.mulf %4, %3 : f32
// CHECK-NEXT:      linalg.yield %6 : f32
// CHECK-NEXT:    } -> tensor<1x2x2xf32>
// CHECK-NEXT:    %7 = tensor.extract_slice %0[0, 0, 0] [1, 2, 2] [1, 3, 1] : tensor<1x6x2xf32> to tensor<1x2x2xf32>
// CHECK-NEXT:    %8 = arith.addf %7, %2 : tensor<1x2x2xf32>
// CHECK-NEXT:    %9 = tensor.insert_slice %8 into %0[0, 0, 0] [1, 2, 2] [1, 3, 1] : tensor<1x2x2xf32> into tensor<1x6x2xf32>
// CHECK-NEXT:    %10 = tensor.extract_slice %k[1, 0] [1, 2] [1, 1] : tensor<2x2xf32> to tensor<1x2xf32>
// CHECK-NEXT:    %11 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (0, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%10, %ct : tensor<1x2xf32>, tensor<1x2x2xf32>) outs(%1 : tensor<1x2x2xf32>) {
// CHECK-NEXT:    ^bb0(%12: f32, %13: f32, %14: f32):
// CHECK-NEXT:      %15 = arith.mulf %13, %12 : f32
// CHECK-NEXT:      linalg.yield %15 : f32
// CHECK-NEXT:    } -> tensor<1x2x2xf32>
// CHECK-NEXT:    %16 = tensor.extract_slice %9[0, 2, 0] [1, 2, 2] [1, 3, 1] : tensor<1x6x2xf32> to tensor<1x2x2xf32>
// CHECK-NEXT:    %17 = arith.addf %16, %11 : tensor<1x2x2xf32>
// CHECK-NEXT:    %gx = tensor.insert_slice %17 into %9[0, 2, 0] [1, 2, 2] [1, 3, 1] : tensor<1x2x2xf32> into tensor<1x6x2xf32>
// CHECK-NEXT:    %18 = arith.constant dense<0.000000e+00> : tensor<2x2xf32>
// CHECK-NEXT:    %gk = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, ((d1 * 3) + (d3 * 2)), d2)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>, affine_map<(d0, d1, d2, d3) -> (d3, d2)>], iterator_types = ["reduction", "reduction", "parallel", "parallel"]} ins(%x, %ct : tensor<1x6x2xf32>, tensor<1x2x2xf32>) outs(%18 : tensor<2x2xf32>) {
// CHECK-NEXT:    ^bb0(%19: f32, %20: f32, %21: f32):
// CHECK-NEXT:      %22 = arith.mulf %20, %19 : f32
// CHECK-NEXT:      %23 = arith.addf %21, %22 : f32
// CHECK-NEXT:      linalg.yield %23 : f32
// CHECK-NEXT:    } -> tensor<2x2xf32>
// CHECK-NEXT:    func.return %gx, %gk : tensor<1x6x2xf32>, tensor<2x2xf32>

// -----

// A min pool (stride 2): 1 / count of the positions equal to the minimum (the
// init among them), then per window position g to those positions.
func.func @pool_min(%x: tensor<1x4x2xf32>, %w: tensor<2xf32>, %o: tensor<1x2x2xf32>, %ct: tensor<1x2x2xf32>) -> tensor<1x4x2xf32> {
  %y = linalg.pooling_nwc_min {dilations = dense<1> : tensor<1xi64>, strides = dense<2> : tensor<1xi64>} ins(%x, %w : tensor<1x4x2xf32>, tensor<2xf32>) outs(%o : tensor<1x2x2xf32>) -> tensor<1x2x2xf32>
  %g = grad.vjp %y, %ct wrt %x : tensor<1x2x2xf32>, tensor<1x4x2xf32>
  func.return %g : tensor<1x4x2xf32>
}

// CHECK-LABEL: func.func @pool_min(
// CHECK-NEXT:    %y = linalg.pooling_nwc_min {dilations = dense<1> : tensor<1xi64>, strides = dense<2> : tensor<1xi64>} ins(%x, %w : tensor<1x4x2xf32>, tensor<2xf32>) outs(%o : tensor<1x2x2xf32>) -> tensor<1x2x2xf32>
// CHECK-NEXT:    %0 = tensor.empty() : tensor<1x2x2xi1>
// CHECK-NEXT:    %1 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%o, %y : tensor<1x2x2xf32>, tensor<1x2x2xf32>) outs(%0 : tensor<1x2x2xi1>) {
// CHECK-NEXT:    ^bb0(%2: f32, %3: f32, %4: i1):
// CHECK-NEXT:      %5 = arith.cmpf oeq, %2, %3 : f32
// CHECK-NEXT:      linalg.yield %5 : i1
// CHECK-NEXT:    } -> tensor<1x2x2xi1>
// CHECK-NEXT:    %6 = arith.constant dense<1.000000e+00> : tensor<1x2x2xf32>
// CHECK-NEXT:    %7 = arith.constant dense<0.000000e+00> : tensor<1x2x2xf32>
// CHECK-NEXT:    %8 = tensor.empty() : tensor<1x2x2xf32>
// CHECK-NEXT:    %9 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%1, %6, %7 : tensor<1x2x2xi1>, tensor<1x2x2xf32>, tensor<1x2x2xf32>) outs(%8 : tensor<1x2x2xf32>) {
// CHECK-NEXT:    ^bb0(%10: i1, %11: f32, %12: f32, %13: f32):
// CHECK-NEXT:      %14 = arith.select %10, %11, %12 : f32
// CHECK-NEXT:      linalg.yield %14 : f32
// CHECK-NEXT:    } -> tensor<1x2x2xf32>
// CHECK-NEXT:    %15 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, ((d1 * 2) + d3), d2)>, affine_map<(d0, d1, d2, d3) -> (d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%x, %w, %y : tensor<1x4x2xf32>, tensor<2xf32>, tensor<1x2x2xf32>) outs(%9 : tensor<1x2x2xf32>) {
// CHECK-NEXT:    ^bb0(%16: f32, %17: f32, %18: f32, %19: f32):
// CHECK-NEXT:      %20 = arith.cmpf oeq, %16, %18 : f32
// CHECK-NEXT:      %21 = arith.constant 1.000000e+00 : f32
// CHECK-NEXT:      %22 = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:      %23 = arith.select %20, %21, %22 : f32
// CHECK-NEXT:      %24 = arith.addf %19, %23 : f32
// CHECK-NEXT:      linalg.yield %24 : f32
// CHECK-NEXT:    } -> tensor<1x2x2xf32>
// CHECK-NEXT:    %25 = arith.divf %6, %15 : tensor<1x2x2xf32>
// CHECK-NEXT:    %26 = arith.constant dense<0.000000e+00> : tensor<1x4x2xf32>
// CHECK-NEXT:    %27 = tensor.extract_slice %x[0, 0, 0] [1, 2, 2] [1, 2, 1] : tensor<1x4x2xf32> to tensor<1x2x2xf32>
// CHECK-NEXT:    %28 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%27, %ct, %25, %y : tensor<1x2x2xf32>, tensor<1x2x2xf32>, tensor<1x2x2xf32>, tensor<1x2x2xf32>) outs(%7 : tensor<1x2x2xf32>) {
// CHECK-NEXT:    ^bb0(%29: f32, %30: f32, %31: f32, %32: f32, %33: f32):
// CHECK-NEXT:      %34 = arith.cmpf oeq, %29, %32 : f32
// CHECK-NEXT:      %35 = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:      %36 = arith.select %34, %30, %35 : f32
// CHECK-NEXT:      %37 = arith.mulf %36, %31 : f32
// CHECK-NEXT:      linalg.yield %37 : f32
// CHECK-NEXT:    } -> tensor<1x2x2xf32>
// CHECK-NEXT:    %38 = tensor.extract_slice %26[0, 0, 0] [1, 2, 2] [1, 2, 1] : tensor<1x4x2xf32> to tensor<1x2x2xf32>
// CHECK-NEXT:    %39 = arith.addf %38, %28 : tensor<1x2x2xf32>
// CHECK-NEXT:    %40 = tensor.insert_slice %39 into %26[0, 0, 0] [1, 2, 2] [1, 2, 1] : tensor<1x2x2xf32> into tensor<1x4x2xf32>
// CHECK-NEXT:    %41 = tensor.extract_slice %x[0, 1, 0] [1, 2, 2] [1, 2, 1] : tensor<1x4x2xf32> to tensor<1x2x2xf32>
// CHECK-NEXT:    %42 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%41, %ct, %25, %y : tensor<1x2x2xf32>, tensor<1x2x2xf32>, tensor<1x2x2xf32>, tensor<1x2x2xf32>) outs(%7 : tensor<1x2x2xf32>) {
// CHECK-NEXT:    ^bb0(%43: f32, %44: f32, %45: f32, %46: f32, %47: f32):
// CHECK-NEXT:      %48 = arith.cmpf oeq, %43, %46 : f32
// CHECK-NEXT:      %49 = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:      %50 = arith.select %48, %44, %49 : f32
// CHECK-NEXT:      %51 = arith.mulf %50, %45 : f32
// CHECK-NEXT:      linalg.yield %51 : f32
// CHECK-NEXT:    } -> tensor<1x2x2xf32>
// CHECK-NEXT:    %52 = tensor.extract_slice %40[0, 1, 0] [1, 2, 2] [1, 2, 1] : tensor<1x4x2xf32> to tensor<1x2x2xf32>
// CHECK-NEXT:    %53 = arith.addf %52, %42 : tensor<1x2x2xf32>
// CHECK-NEXT:    %g = tensor.insert_slice %53 into %40[0, 1, 0] [1, 2, 2] [1, 2, 1] : tensor<1x2x2xf32> into tensor<1x4x2xf32>
// CHECK-NEXT:    func.return %g : tensor<1x4x2xf32>

// -----

// batch_reduce_matmul as its generic form: the batch dim is a reduction of
// the result, so the share to `a` is parallel over it.
func.func @batch_reduce(%a: tensor<2x3x4xf32>, %b: tensor<2x4x5xf32>, %c: tensor<3x5xf32>, %ct: tensor<3x5xf32>) -> tensor<2x3x4xf32> {
  %y = linalg.batch_reduce_matmul ins(%a, %b : tensor<2x3x4xf32>, tensor<2x4x5xf32>) outs(%c : tensor<3x5xf32>) -> tensor<3x5xf32>
  %g = grad.vjp %y, %ct wrt %a : tensor<3x5xf32>, tensor<2x3x4xf32>
  func.return %g : tensor<2x3x4xf32>
}

// CHECK-LABEL: func.func @batch_reduce(
// CHECK-NEXT:    %y = linalg.batch_reduce_matmul ins(%a, %b : tensor<2x3x4xf32>, tensor<2x4x5xf32>) outs(%c : tensor<3x5xf32>) -> tensor<3x5xf32>
// CHECK-NEXT:    %0 = arith.constant dense<0.000000e+00> : tensor<2x3x4xf32>
// CHECK-NEXT:    %g = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d3, d2)>, affine_map<(d0, d1, d2, d3) -> (d1, d2)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>], iterator_types = ["parallel", "parallel", "reduction", "parallel"]} ins(%b, %ct : tensor<2x4x5xf32>, tensor<3x5xf32>) outs(%0 : tensor<2x3x4xf32>) {
// CHECK-NEXT:    ^bb0(%1: f32, %2: f32, %3: f32):
// CHECK-NEXT:      %4 = arith.mulf %2, %1 : f32
// CHECK-NEXT:      %5 = arith.addf %3, %4 : f32
// CHECK-NEXT:      linalg.yield %5 : f32
// CHECK-NEXT:    } -> tensor<2x3x4xf32>
// CHECK-NEXT:    func.return %g : tensor<2x3x4xf32>

// -----

// A matmul with a transposed operand (given maps): the share is written
// through the operand's own map.
func.func @transposed(%a: tensor<4x3xf32>, %b: tensor<4x5xf32>, %c: tensor<3x5xf32>, %ct: tensor<3x5xf32>) -> tensor<4x3xf32> {
  %y = linalg.matmul indexing_maps = [affine_map<(d0, d1, d2) -> (d2, d0)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>] ins(%a, %b : tensor<4x3xf32>, tensor<4x5xf32>) outs(%c : tensor<3x5xf32>) -> tensor<3x5xf32>
  %g = grad.vjp %y, %ct wrt %a : tensor<3x5xf32>, tensor<4x3xf32>
  func.return %g : tensor<4x3xf32>
}

// CHECK-LABEL: func.func @transposed(
// CHECK-NEXT:    %y = linalg.matmul indexing_maps = [affine_map<(d0, d1, d2) -> (d2, d0)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>] ins(%a, %b : tensor<4x3xf32>, tensor<4x5xf32>) outs(%c : tensor<3x5xf32>) -> tensor<3x5xf32>
// CHECK-NEXT:    %0 = arith.constant dense<0.000000e+00> : tensor<4x3xf32>
// CHECK-NEXT:    %g = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>, affine_map<(d0, d1, d2) -> (d2, d0)>], iterator_types = ["parallel", "reduction", "parallel"]} ins(%b, %ct : tensor<4x5xf32>, tensor<3x5xf32>) outs(%0 : tensor<4x3xf32>) {
// CHECK-NEXT:    ^bb0(%1: f32, %2: f32, %3: f32):
// CHECK-NEXT:      %4 = arith.mulf %2, %1 : f32
// CHECK-NEXT:      %5 = arith.addf %3, %4 : f32
// CHECK-NEXT:      linalg.yield %5 : f32
// CHECK-NEXT:    } -> tensor<4x3xf32>
// CHECK-NEXT:    func.return %g : tensor<4x3xf32>

// -----

// linalg.elementwise <powf> with a broadcast input: its share reduces over
// the broadcast dim.
func.func @elementwise(%a: tensor<3xf32>, %b: tensor<2x3xf32>, %o: tensor<2x3xf32>, %ct: tensor<2x3xf32>) -> (tensor<3xf32>, tensor<2x3xf32>) {
  %y = linalg.elementwise <powf> indexing_maps = [affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>] ins(%a, %b : tensor<3xf32>, tensor<2x3xf32>) outs(%o : tensor<2x3xf32>) -> tensor<2x3xf32>
  %ga, %gb = grad.vjp %y, %ct wrt %a, %b : tensor<2x3xf32>, tensor<3xf32>, tensor<2x3xf32>
  func.return %ga, %gb : tensor<3xf32>, tensor<2x3xf32>
}

// CHECK-LABEL: func.func @elementwise(
// CHECK-NEXT:    %y = linalg.elementwise <powf> indexing_maps = [affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>] ins(%a, %b : tensor<3xf32>, tensor<2x3xf32>) outs(%o : tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT:    %0 = arith.constant dense<0.000000e+00> : tensor<3xf32>
// CHECK-NEXT:    %ga = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>], iterator_types = ["reduction", "parallel"]} ins(%a, %b, %ct : tensor<3xf32>, tensor<2x3xf32>, tensor<2x3xf32>) outs(%0 : tensor<3xf32>) {
// CHECK-NEXT:    ^bb0(%1: f32, %2: f32, %3: f32, %4: f32):
// CHECK-NEXT:      %5 = arith.constant 1.000000e+00 : f32
// CHECK-NEXT:      %6 = arith.subf %2, %5 : f32
// CHECK-NEXT:      %7 = math.powf %1, %6 : f32
// CHECK-NEXT:      %8 = arith.mulf %2, %7 : f32
// CHECK-NEXT:      %9 = arith.mulf %3, %8 : f32
// CHECK-NEXT:      %10 = arith.addf %4, %9 : f32
// CHECK-NEXT:      linalg.yield %10 : f32
// CHECK-NEXT:    } -> tensor<3xf32>
// CHECK-NEXT:    %11 = arith.constant dense<0.000000e+00> : tensor<2x3xf32>
// CHECK-NEXT:    %gb = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%a, %b, %ct : tensor<3xf32>, tensor<2x3xf32>, tensor<2x3xf32>) outs(%11 : tensor<2x3xf32>) {
// CHECK-NEXT:    ^bb0(%12: f32, %13: f32, %14: f32, %15: f32):
// CHECK-NEXT:      %16 = math.powf %12, %13 : f32
// CHECK-NEXT:      %17 = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:      %18 = arith.cmpf oeq, %12, %17 : f32
// CHECK-NEXT:      %19 = arith.constant 1.000000e+00 : f32
// CHECK-NEXT:      %20 = arith.select %18, %19, %12 : f32
// CHECK-NEXT:      %21 = math.log %20 : f32
// CHECK-NEXT:      %22 = arith.mulf %16, %21 : f32
// CHECK-NEXT:      %23 = arith.mulf %14, %22 : f32
// CHECK-NEXT:      linalg.yield %23 : f32
// CHECK-NEXT:    } -> tensor<2x3xf32>
// CHECK-NEXT:    func.return %ga, %gb : tensor<3xf32>, tensor<2x3xf32>

// -----

// Forward mode: one generic through the convolution's maps, walking the body
// forward from the input's tangent.
func.func @jvp(%x: tensor<1x6x2xf32>, %k: tensor<2x2xf32>, %o: tensor<1x2x2xf32>, %tx: tensor<1x6x2xf32>) -> tensor<1x2x2xf32> {
  %y = linalg.depthwise_conv_1d_nwc_wc {dilations = dense<2> : tensor<1xi64>, strides = dense<3> : tensor<1xi64>} ins(%x, %k : tensor<1x6x2xf32>, tensor<2x2xf32>) outs(%o : tensor<1x2x2xf32>) -> tensor<1x2x2xf32>
  %t = grad.jvp %y wrt %x, %tx : tensor<1x2x2xf32>, tensor<1x6x2xf32>
  func.return %t : tensor<1x2x2xf32>
}

// CHECK-LABEL: func.func @jvp(
// CHECK-NEXT:    %y = linalg.depthwise_conv_1d_nwc_wc {dilations = dense<2> : tensor<1xi64>, strides = dense<3> : tensor<1xi64>} ins(%x, %k : tensor<1x6x2xf32>, tensor<2x2xf32>) outs(%o : tensor<1x2x2xf32>) -> tensor<1x2x2xf32>
// CHECK-NEXT:    %0 = arith.constant dense<0.000000e+00> : tensor<1x2x2xf32>
// CHECK-NEXT:    %t = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d3, d2)>, affine_map<(d0, d1, d2, d3) -> (d0, ((d1 * 3) + (d3 * 2)), d2)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%k, %tx : tensor<2x2xf32>, tensor<1x6x2xf32>) outs(%0 : tensor<1x2x2xf32>) {
// CHECK-NEXT:    ^bb0(%1: f32, %2: f32, %3: f32):
// CHECK-NEXT:      %4 = arith.mulf %2, %1 : f32
// CHECK-NEXT:      %5 = arith.addf %3, %4 : f32
// CHECK-NEXT:      linalg.yield %5 : f32
// CHECK-NEXT:    } -> tensor<1x2x2xf32>
// CHECK-NEXT:    func.return %t : tensor<1x2x2xf32>
