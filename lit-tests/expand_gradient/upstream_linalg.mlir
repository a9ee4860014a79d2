// RUN: grad-opt %s -p expand-gradient --split-input-file > %t
// RUN: filecheck %s --input-file=%t
// RUN: filecheck %s --input-file=%t --check-prefix=NOGRAD

// SPEC §10.2, linalg: the share to each operand of a structured op is ONE new
// linalg.generic over the same iteration space that rebuilds the body, walks
// it backward from the element of g and writes through the operand's map
// (its dims parallel, the others reductions adding onto +0.0). It takes only
// the operands its body reads (no tensor.empty init, no operand the
// derivative does not need).
// NOGRAD-NOT: = grad.

#id = affine_map<(d0, d1) -> (d0, d1)>
#col = affine_map<(d0, d1) -> (d1)>

// A parallel body of several ops; %b is read through a broadcast map, so its
// share reduces over d0.
func.func @parallel(%a: tensor<2x3xf32>, %b: tensor<3xf32>, %ct: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<3xf32>) {
  %e = tensor.empty() : tensor<2x3xf32>
  %y = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]} ins(%a, %b : tensor<2x3xf32>, tensor<3xf32>) outs(%e : tensor<2x3xf32>) {
  ^bb0(%x: f32, %c: f32, %o: f32):
    %m = arith.mulf %x, %c : f32
    %s = math.sin %m : f32
    linalg.yield %s : f32
  } -> tensor<2x3xf32>
  %ga, %gb = grad.vjp %y, %ct wrt %a, %b : tensor<2x3xf32>, tensor<2x3xf32>, tensor<3xf32>
  func.return %ga, %gb : tensor<2x3xf32>, tensor<3xf32>
}

// CHECK-LABEL: func.func @parallel(
// CHECK-NEXT:    %e = tensor.empty() : tensor<2x3xf32>
// CHECK-NEXT:    %y = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%a, %b : tensor<2x3xf32>, tensor<3xf32>) outs(%e : tensor<2x3xf32>) {
// CHECK-NEXT:    ^bb0(%x: f32, %c: f32, %o: f32):
// CHECK-NEXT:      %m = arith.mulf %x, %c : f32
// CHECK-NEXT:      %s = math.sin %m : f32
// CHECK-NEXT:      linalg.yield %s : f32
// CHECK-NEXT:    } -> tensor<2x3xf32>
// CHECK-NEXT:    %0 = arith.constant dense<0.000000e+00> : tensor<2x3xf32>
// CHECK-NEXT:    %ga = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%a, %b, %ct : tensor<2x3xf32>, tensor<3xf32>, tensor<2x3xf32>) outs(%0 : tensor<2x3xf32>) {
// CHECK-NEXT:    ^bb0(%1: f32, %2: f32, %3: f32, %4: f32):
// CHECK-NEXT:      %m_1 = arith.mulf %1, %2 : f32
// CHECK-NEXT:      %5 = math.cos %m_1 : f32
// CHECK-NEXT:      %6 = arith.mulf %3, %5 : f32
// CHECK-NEXT:      %7 = arith.mulf %6, %2 : f32
// CHECK-NEXT:      linalg.yield %7 : f32
// CHECK-NEXT:    } -> tensor<2x3xf32>
// CHECK-NEXT:    %8 = arith.constant dense<0.000000e+00> : tensor<3xf32>
// CHECK-NEXT:    %gb = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>], iterator_types = ["reduction", "parallel"]} ins(%a, %b, %ct : tensor<2x3xf32>, tensor<3xf32>, tensor<2x3xf32>) outs(%8 : tensor<3xf32>) {
// CHECK-NEXT:    ^bb0(%9: f32, %10: f32, %11: f32, %12: f32):
// CHECK-NEXT:      %m_2 = arith.mulf %9, %10 : f32
// CHECK-NEXT:      %13 = math.cos %m_2 : f32
// CHECK-NEXT:      %14 = arith.mulf %11, %13 : f32
// CHECK-NEXT:      %15 = arith.mulf %14, %9 : f32
// CHECK-NEXT:      %16 = arith.addf %12, %15 : f32
// CHECK-NEXT:      linalg.yield %16 : f32
// CHECK-NEXT:    } -> tensor<3xf32>
// CHECK-NEXT:    func.return %ga, %gb : tensor<2x3xf32>, tensor<3xf32>

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>

// An addf reduction: the init receives g itself, e the broadcast g.
func.func @sum_rows(%a: tensor<2x3xf32>, %init: tensor<2xf32>, %ct: tensor<2xf32>) -> (tensor<2x3xf32>, tensor<2xf32>) {
  %y = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]} ins(%a : tensor<2x3xf32>) outs(%init : tensor<2xf32>) {
  ^bb0(%x: f32, %o: f32):
    %q = arith.mulf %x, %x : f32
    %r = arith.addf %o, %q : f32
    linalg.yield %r : f32
  } -> tensor<2xf32>
  %ga, %gi = grad.vjp %y, %ct wrt %a, %init : tensor<2xf32>, tensor<2x3xf32>, tensor<2xf32>
  func.return %ga, %gi : tensor<2x3xf32>, tensor<2xf32>
}

// CHECK-LABEL: func.func @sum_rows(
// CHECK-NEXT:    %y = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%a : tensor<2x3xf32>) outs(%init : tensor<2xf32>) {
// CHECK-NEXT:    ^bb0(%x: f32, %o: f32):
// CHECK-NEXT:      %q = arith.mulf %x, %x : f32
// CHECK-NEXT:      %r = arith.addf %o, %q : f32
// CHECK-NEXT:      linalg.yield %r : f32
// CHECK-NEXT:    } -> tensor<2xf32>
// CHECK-NEXT:    %0 = arith.constant dense<0.000000e+00> : tensor<2x3xf32>
// CHECK-NEXT:    %ga = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%a, %ct : tensor<2x3xf32>, tensor<2xf32>) outs(%0 : tensor<2x3xf32>) {
// CHECK-NEXT:    ^bb0(%1: f32, %2: f32, %3: f32):
// CHECK-NEXT:      %4 = arith.mulf %2, %1 : f32
// CHECK-NEXT:      %5 = arith.mulf %2, %1 : f32
// CHECK-NEXT:      %6 = arith.addf %4, %5 : f32
// CHECK-NEXT:      linalg.yield %6 : f32
// CHECK-NEXT:    } -> tensor<2x3xf32>
// CHECK-NEXT:    func.return %ga, %ct : tensor<2x3xf32>, tensor<2xf32>

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>

// A max reduction: 1 / count of the positions equal to the result (the init
// among them), then g to those positions times that, ties split evenly.
func.func @max_rows(%a: tensor<2x3xf32>, %init: tensor<2xf32>, %ct: tensor<2xf32>) -> tensor<2x3xf32> {
  %y = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]} ins(%a : tensor<2x3xf32>) outs(%init : tensor<2xf32>) {
  ^bb0(%x: f32, %o: f32):
    %r = arith.maximumf %o, %x : f32
    linalg.yield %r : f32
  } -> tensor<2xf32>
  %ga = grad.vjp %y, %ct wrt %a : tensor<2xf32>, tensor<2x3xf32>
  func.return %ga : tensor<2x3xf32>
}

// CHECK-LABEL: func.func @max_rows(
// CHECK-NEXT:    %y = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%a : tensor<2x3xf32>) outs(%init : tensor<2xf32>) {
// CHECK-NEXT:    ^bb0(%x: f32, %o: f32):
// CHECK-NEXT:      %r = arith.maximumf %o, %x : f32
// CHECK-NEXT:      linalg.yield %r : f32
// CHECK-NEXT:    } -> tensor<2xf32>
// CHECK-NEXT:    %0 = tensor.empty() : tensor<2xi1>
// CHECK-NEXT:    %1 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%init, %y : tensor<2xf32>, tensor<2xf32>) outs(%0 : tensor<2xi1>) {
// CHECK-NEXT:    ^bb0(%2: f32, %3: f32, %4: i1):
// CHECK-NEXT:      %5 = arith.cmpf oeq, %2, %3 : f32
// CHECK-NEXT:      linalg.yield %5 : i1
// CHECK-NEXT:    } -> tensor<2xi1>
// CHECK-NEXT:    %6 = arith.constant dense<1.000000e+00> : tensor<2xf32>
// CHECK-NEXT:    %7 = arith.constant dense<0.000000e+00> : tensor<2xf32>
// CHECK-NEXT:    %8 = tensor.empty() : tensor<2xf32>
// CHECK-NEXT:    %9 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%1, %6, %7 : tensor<2xi1>, tensor<2xf32>, tensor<2xf32>) outs(%8 : tensor<2xf32>) {
// CHECK-NEXT:    ^bb0(%10: i1, %11: f32, %12: f32, %13: f32):
// CHECK-NEXT:      %14 = arith.select %10, %11, %12 : f32
// CHECK-NEXT:      linalg.yield %14 : f32
// CHECK-NEXT:    } -> tensor<2xf32>
// CHECK-NEXT:    %15 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%a, %y : tensor<2x3xf32>, tensor<2xf32>) outs(%9 : tensor<2xf32>) {
// CHECK-NEXT:    ^bb0(%16: f32, %17: f32, %18: f32):
// CHECK-NEXT:      %19 = arith.cmpf oeq, %16, %17 : f32
// CHECK-NEXT:      %20 = arith.constant 1.000000e+00 : f32
// CHECK-NEXT:      %21 = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:      %22 = arith.select %19, %20, %21 : f32
// CHECK-NEXT:      %23 = arith.addf %18, %22 : f32
// CHECK-NEXT:      linalg.yield %23 : f32
// CHECK-NEXT:    } -> tensor<2xf32>
// CHECK-NEXT:    %24 = arith.divf %6, %15 : tensor<2xf32>
// CHECK-NEXT:    %25 = arith.constant dense<0.000000e+00> : tensor<2x3xf32>
// CHECK-NEXT:    %ga = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%a, %ct, %24, %y : tensor<2x3xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) outs(%25 : tensor<2x3xf32>) {
// CHECK-NEXT:    ^bb0(%26: f32, %27: f32, %28: f32, %29: f32, %30: f32):
// CHECK-NEXT:      %31 = arith.cmpf oeq, %26, %29 : f32
// CHECK-NEXT:      %32 = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:      %33 = arith.select %31, %27, %32 : f32
// CHECK-NEXT:      %34 = arith.mulf %33, %28 : f32
// CHECK-NEXT:      linalg.yield %34 : f32
// CHECK-NEXT:    } -> tensor<2x3xf32>
// CHECK-NEXT:    func.return %ga : tensor<2x3xf32>

// -----

// linalg.matmul as its generic form; linalg.fill's value receives the sum of
// g's elements.
func.func @matmul(%a: tensor<2x3xf32>, %b: tensor<3x4xf32>, %z: f32, %ct: tensor<2x4xf32>) -> (tensor<2x3xf32>, tensor<3x4xf32>, f32) {
  %e = tensor.empty() : tensor<2x4xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<2x4xf32>) -> tensor<2x4xf32>
  %y = linalg.matmul ins(%a, %b : tensor<2x3xf32>, tensor<3x4xf32>) outs(%f : tensor<2x4xf32>) -> tensor<2x4xf32>
  %ga, %gb, %gz = grad.vjp %y, %ct wrt %a, %b, %z : tensor<2x4xf32>, tensor<2x3xf32>, tensor<3x4xf32>, f32
  func.return %ga, %gb, %gz : tensor<2x3xf32>, tensor<3x4xf32>, f32
}

// CHECK-LABEL: func.func @matmul(
// CHECK-NEXT:    %e = tensor.empty() : tensor<2x4xf32>
// CHECK-NEXT:    %f = linalg.fill ins(%z : f32) outs(%e : tensor<2x4xf32>) -> tensor<2x4xf32>
// CHECK-NEXT:    %y = linalg.matmul ins(%a, %b : tensor<2x3xf32>, tensor<3x4xf32>) outs(%f : tensor<2x4xf32>) -> tensor<2x4xf32>
// CHECK-NEXT:    %0 = arith.constant dense<0.000000e+00> : tensor<2x3xf32>
// CHECK-NEXT:    %ga = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>, affine_map<(d0, d1, d2) -> (d0, d2)>], iterator_types = ["parallel", "reduction", "parallel"]} ins(%b, %ct : tensor<3x4xf32>, tensor<2x4xf32>) outs(%0 : tensor<2x3xf32>) {
// CHECK-NEXT:    ^bb0(%1: f32, %2: f32, %3: f32):
// CHECK-NEXT:      %4 = arith.mulf %2, %1 : f32
// CHECK-NEXT:      %5 = arith.addf %3, %4 : f32
// CHECK-NEXT:      linalg.yield %5 : f32
// CHECK-NEXT:    } -> tensor<2x3xf32>
// CHECK-NEXT:    %6 = arith.constant dense<0.000000e+00> : tensor<3x4xf32>
// CHECK-NEXT:    %gb = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>, affine_map<(d0, d1, d2) -> (d2, d1)>], iterator_types = ["reduction", "parallel", "parallel"]} ins(%a, %ct : tensor<2x3xf32>, tensor<2x4xf32>) outs(%6 : tensor<3x4xf32>) {
// CHECK-NEXT:    ^bb0(%7: f32, %8: f32, %9: f32):
// CHECK-NEXT:      %10 = arith.mulf %8, %7 : f32
// CHECK-NEXT:      %11 = arith.addf %9, %10 : f32
// CHECK-NEXT:      linalg.yield %11 : f32
// CHECK-NEXT:    } -> tensor<3x4xf32>
// CHECK-NEXT:    %12 = arith.constant dense<0.000000e+00> : tensor<f32>
// CHECK-NEXT:    %13 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> ()>], iterator_types = ["reduction", "reduction"]} ins(%ct : tensor<2x4xf32>) outs(%12 : tensor<f32>) {
// CHECK-NEXT:    ^bb0(%14: f32, %15: f32):
// CHECK-NEXT:      %16 = arith.addf %15, %14 : f32
// CHECK-NEXT:      linalg.yield %16 : f32
// CHECK-NEXT:    } -> tensor<f32>
// CHECK-NEXT:    %gz = tensor.extract %13[] : tensor<f32>
// CHECK-NEXT:    func.return %ga, %gb, %gz : tensor<2x3xf32>, tensor<3x4xf32>, f32

// -----

// A constant-0 map result (a size-1 dim, as IREE writes broadcasts): the
// share is written without that dim and expanded back.
func.func @size_one(%a: tensor<2x1xf32>, %ct: tensor<2x3xf32>) -> tensor<2x1xf32> {
  %e = tensor.empty() : tensor<2x3xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, 0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%a : tensor<2x1xf32>) outs(%e : tensor<2x3xf32>) {
  ^bb0(%x: f32, %o: f32):
    linalg.yield %x : f32
  } -> tensor<2x3xf32>
  %g = grad.vjp %y, %ct wrt %a : tensor<2x3xf32>, tensor<2x1xf32>
  func.return %g : tensor<2x1xf32>
}

// CHECK-LABEL: func.func @size_one(
// CHECK-NEXT:    %e = tensor.empty() : tensor<2x3xf32>
// CHECK-NEXT:    %y = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, 0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%a : tensor<2x1xf32>) outs(%e : tensor<2x3xf32>) {
// CHECK-NEXT:    ^bb0(%x: f32, %o: f32):
// CHECK-NEXT:      linalg.yield %x : f32
// CHECK-NEXT:    } -> tensor<2x3xf32>
// CHECK-NEXT:    %0 = arith.constant dense<0.000000e+00> : tensor<2xf32>
// CHECK-NEXT:    %1 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%ct : tensor<2x3xf32>) outs(%0 : tensor<2xf32>) {
// CHECK-NEXT:    ^bb0(%2: f32, %3: f32):
// CHECK-NEXT:      %4 = arith.addf %3, %2 : f32
// CHECK-NEXT:      linalg.yield %4 : f32
// CHECK-NEXT:    } -> tensor<2xf32>
// CHECK-NEXT:    %g = tensor.expand_shape %1 [[0 : i64, 1 : i64]] output_shape [2, 1] : tensor<2xf32> into tensor<2x1xf32>
// CHECK-NEXT:    func.return %g : tensor<2x1xf32>

// -----

// A window map (`d0 * 2 + d1`, a strided sum pool as IREE writes
// reduce_window): per window position, one generic over the other loops
// (reading the strided slice of the input where its body needs it: a sum's
// does not), added at its place.
func.func @window(%a: tensor<5xf32>, %w: tensor<2xf32>, %init: tensor<2xf32>, %ct: tensor<2xf32>) -> tensor<5xf32> {
  %y = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0 * 2 + d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%a, %w : tensor<5xf32>, tensor<2xf32>) outs(%init : tensor<2xf32>) {
  ^bb0(%x: f32, %k: f32, %o: f32):
    %r = arith.addf %o, %x : f32
    linalg.yield %r : f32
  } -> tensor<2xf32>
  %g = grad.vjp %y, %ct wrt %a : tensor<2xf32>, tensor<5xf32>
  func.return %g : tensor<5xf32>
}

// CHECK-LABEL: func.func @window(
// CHECK-NEXT:    %y = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (((d0 * 2) + d1))>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%a, %w : tensor<5xf32>, tensor<2xf32>) outs(%init : tensor<2xf32>) {
// CHECK-NEXT:    ^bb0(%x: f32, %k: f32, %o: f32):
// CHECK-NEXT:      %r = arith.addf %o, %x : f32
// CHECK-NEXT:      linalg.yield %r : f32
// CHECK-NEXT:    } -> tensor<2xf32>
// CHECK-NEXT:    %0 = arith.constant dense<0.000000e+00> : tensor<5xf32>
// CHECK-NEXT:    %1 = arith.constant dense<0.000000e+00> : tensor<2xf32>
// CHECK-NEXT:    %2 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%ct : tensor<2xf32>) outs(%1 : tensor<2xf32>) {
// CHECK-NEXT:    ^bb0(%3: f32, %4: f32):
// CHECK-NEXT:      linalg.yield %3 : f32
// CHECK-NEXT:    } -> tensor<2xf32>
// CHECK-NEXT:    %5 = tensor.extract_slice %0[0] [2] [2] : tensor<5xf32> to tensor<2xf32>
// CHECK-NEXT:    %6 = arith.addf %5, %2 : tensor<2xf32>
// CHECK-NEXT:    %7 = tensor.insert_slice %6 into %0[0] [2] [2] : tensor<2xf32> into tensor<5xf32>
// CHECK-NEXT:    %8 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%ct : tensor<2xf32>) outs(%1 : tensor<2xf32>) {
// CHECK-NEXT:    ^bb0(%9: f32, %10: f32):
// CHECK-NEXT:      linalg.yield %9 : f32
// CHECK-NEXT:    } -> tensor<2xf32>
// CHECK-NEXT:    %11 = tensor.extract_slice %7[1] [2] [2] : tensor<5xf32> to tensor<2xf32>
// CHECK-NEXT:    %12 = arith.addf %11, %8 : tensor<2xf32>
// CHECK-NEXT:    %g = tensor.insert_slice %12 into %7[1] [2] [2] : tensor<2xf32> into tensor<5xf32>
// CHECK-NEXT:    func.return %g : tensor<5xf32>

// -----

// linalg.map differentiates as its generic form (identity maps, parallel
// loops); the rebuilt body reads the inputs' elements first, and a body that
// takes the init's element last gets it last.
func.func @map(%a: tensor<3xf32>, %b: tensor<3xf32>, %ct: tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>) {
  %e = tensor.empty() : tensor<3xf32>
  %r = linalg.map ins(%a, %b : tensor<3xf32>, tensor<3xf32>) outs(%e : tensor<3xf32>) (%x: f32, %y: f32, %o: f32) {
    %m = arith.mulf %x, %y : f32
    %s = math.sin %m : f32
    linalg.yield %s : f32
  }
  %ga, %gb = grad.vjp %r, %ct wrt %a, %b : tensor<3xf32>, tensor<3xf32>, tensor<3xf32>
  func.return %ga, %gb : tensor<3xf32>, tensor<3xf32>
}

// CHECK-LABEL: func.func @map(
// CHECK-NEXT:    %e = tensor.empty() : tensor<3xf32>
// CHECK-NEXT:    %r = linalg.map ins(%a, %b : tensor<3xf32>, tensor<3xf32>) outs(%e : tensor<3xf32>) (%x: f32, %y: f32, %o: f32) {
// CHECK-NEXT:      %m = arith.mulf %x, %y : f32
// CHECK-NEXT:      %s = math.sin %m : f32
// CHECK-NEXT:      linalg.yield %s : f32
// CHECK-NEXT:    }
// CHECK-NEXT:    %0 = arith.constant dense<0.000000e+00> : tensor<3xf32>
// CHECK-NEXT:    %ga = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%a, %b, %ct : tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) outs(%0 : tensor<3xf32>) {
// CHECK-NEXT:    ^bb0(%1: f32, %2: f32, %3: f32, %4: f32):
// CHECK-NEXT:      %m_1 = arith.mulf %1, %2 : f32
// CHECK-NEXT:      %5 = math.cos %m_1 : f32
// CHECK-NEXT:      %6 = arith.mulf %3, %5 : f32
// CHECK-NEXT:      %7 = arith.mulf %6, %2 : f32
// CHECK-NEXT:      linalg.yield %7 : f32
// CHECK-NEXT:    } -> tensor<3xf32>
// CHECK-NEXT:    %gb = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%a, %b, %ct : tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) outs(%0 : tensor<3xf32>) {
// CHECK-NEXT:    ^bb0(%8: f32, %9: f32, %10: f32, %11: f32):
// CHECK-NEXT:      %m_2 = arith.mulf %8, %9 : f32
// CHECK-NEXT:      %12 = math.cos %m_2 : f32
// CHECK-NEXT:      %13 = arith.mulf %10, %12 : f32
// CHECK-NEXT:      %14 = arith.mulf %13, %8 : f32
// CHECK-NEXT:      linalg.yield %14 : f32
// CHECK-NEXT:    } -> tensor<3xf32>
// CHECK-NEXT:    func.return %ga, %gb : tensor<3xf32>, tensor<3xf32>

// -----

// A gather inside a body (tensor.extract of a tensor on the path at computed
// indices, as IREE writes jnp.flip and x[i]): one generic gives each
// iteration's element gradient and index, a loop adds them into zeros.
func.func @gather(%a: tensor<4xf32>, %table: tensor<4xf32>, %ct: tensor<4xf32>) -> tensor<4xf32> {
  %e = tensor.empty() : tensor<4xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%a : tensor<4xf32>) outs(%e : tensor<4xf32>) {
  ^bb0(%x: f32, %o: f32):
    %i = linalg.index 0 : index
    %c3 = arith.constant 3 : index
    %r = arith.subi %c3, %i : index
    %v = tensor.extract %table[%r] : tensor<4xf32>
    %q = arith.mulf %v, %x : f32
    linalg.yield %q : f32
  } -> tensor<4xf32>
  %g = grad.vjp %y, %ct wrt %table : tensor<4xf32>, tensor<4xf32>
  func.return %g : tensor<4xf32>
}

// CHECK-LABEL: func.func @gather(
// CHECK-NEXT:    %e = tensor.empty() : tensor<4xf32>
// CHECK-NEXT:    %y = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%a : tensor<4xf32>) outs(%e : tensor<4xf32>) {
// CHECK-NEXT:    ^bb0(%x: f32, %o: f32):
// CHECK-NEXT:      %i = linalg.index 0 : index
// CHECK-NEXT:      %c3 = arith.constant 3 : index
// CHECK-NEXT:      %r = arith.subi %c3, %i : index
// CHECK-NEXT:      %v = tensor.extract %table[%r] : tensor<4xf32>
// CHECK-NEXT:      %q = arith.mulf %v, %x : f32
// CHECK-NEXT:      linalg.yield %q : f32
// CHECK-NEXT:    } -> tensor<4xf32>
// CHECK-NEXT:    %0 = arith.constant dense<0.000000e+00> : tensor<4xf32>
// CHECK-NEXT:    %1 = tensor.empty() : tensor<4xf32>
// CHECK-NEXT:    %2 = tensor.empty() : tensor<4xi64>
// CHECK-NEXT:    %3, %4 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%a, %ct : tensor<4xf32>, tensor<4xf32>) outs(%1, %2 : tensor<4xf32>, tensor<4xi64>) {
// CHECK-NEXT:    ^bb0(%5: f32, %6: f32, %7: f32, %8: i64):
// CHECK-NEXT:      %i_1 = linalg.index 0 : index
// CHECK-NEXT:      %c3_1 = arith.constant 3 : index
// CHECK-NEXT:      %r_1 = arith.subi %c3_1, %i_1 : index
// CHECK-NEXT:      %9 = arith.mulf %6, %5 : f32
// CHECK-NEXT:      %10 = arith.index_cast %r_1 : index to i64
// CHECK-NEXT:      linalg.yield %9, %10 : f32, i64
// CHECK-NEXT:    } -> (tensor<4xf32>, tensor<4xi64>)
// CHECK-NEXT:    %11 = arith.constant 0 : index
// CHECK-NEXT:    %12 = arith.constant 4 : index
// CHECK-NEXT:    %13 = arith.constant 1 : index
// CHECK-NEXT:    %g = scf.for %14 = %11 to %12 step %13 iter_args(%15 = %0) -> (tensor<4xf32>) {
// CHECK-NEXT:      %16 = tensor.extract %4[%14] : tensor<4xi64>
// CHECK-NEXT:      %17 = arith.index_cast %16 : i64 to index
// CHECK-NEXT:      %18 = tensor.extract %15[%17] : tensor<4xf32>
// CHECK-NEXT:      %19 = tensor.extract %3[%14] : tensor<4xf32>
// CHECK-NEXT:      %20 = arith.addf %18, %19 : f32
// CHECK-NEXT:      %21 = tensor.insert %20 into %15[%17] : tensor<4xf32>
// CHECK-NEXT:      scf.yield %21 : tensor<4xf32>
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %g : tensor<4xf32>
