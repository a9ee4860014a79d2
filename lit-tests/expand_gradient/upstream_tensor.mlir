// RUN: grad-opt %s -p expand-gradient --split-input-file > %t
// RUN: filecheck %s --input-file=%t
// RUN: filecheck %s --input-file=%t --check-prefix=NOGRAD

// SPEC §10.2, data movement: each share is data movement of g back to where
// the elements came from, in the tensor dialect, zeros as dense splats.
// NOGRAD-NOT: = grad.

// extract_slice with a dynamic offset and rank reduction: g inserted into
// zeros of the source's type with the same offsets, sizes and strides.
func.func @extract_slice(%s: tensor<4x6xf32>, %i: index, %ct: tensor<3xf32>) -> tensor<4x6xf32> {
  %x = tensor.extract_slice %s[1, %i] [1, 3] [1, 2] : tensor<4x6xf32> to tensor<3xf32>
  %g = grad.vjp %x, %ct wrt %s : tensor<3xf32>, tensor<4x6xf32>
  func.return %g : tensor<4x6xf32>
}

// CHECK-LABEL: func.func @extract_slice(
// CHECK-NEXT:    %x = tensor.extract_slice %s[1, %i] [1, 3] [1, 2] : tensor<4x6xf32> to tensor<3xf32>
// CHECK-NEXT:    %0 = arith.constant dense<0.000000e+00> : tensor<4x6xf32>
// CHECK-NEXT:    %g = tensor.insert_slice %ct into %0[1, %i] [1, 3] [1, 2] : tensor<3xf32> into tensor<4x6xf32>
// CHECK-NEXT:    func.return %g : tensor<4x6xf32>

// -----

// insert_slice: the slice of g to the source; g with the region zeroed to the
// destination.
func.func @insert_slice(%s: tensor<2x2xf32>, %d: tensor<4x4xf32>, %ct: tensor<4x4xf32>) -> (tensor<2x2xf32>, tensor<4x4xf32>) {
  %x = tensor.insert_slice %s into %d[1, 0] [2, 2] [1, 2] : tensor<2x2xf32> into tensor<4x4xf32>
  %gs, %gd = grad.vjp %x, %ct wrt %s, %d : tensor<4x4xf32>, tensor<2x2xf32>, tensor<4x4xf32>
  func.return %gs, %gd : tensor<2x2xf32>, tensor<4x4xf32>
}

// CHECK-LABEL: func.func @insert_slice(
// CHECK-NEXT:    %x = tensor.insert_slice %s into %d[1, 0] [2, 2] [1, 2] : tensor<2x2xf32> into tensor<4x4xf32>
// CHECK-NEXT:    %gs = tensor.extract_slice %ct[1, 0] [2, 2] [1, 2] : tensor<4x4xf32> to tensor<2x2xf32>
// CHECK-NEXT:    %0 = arith.constant dense<0.000000e+00> : tensor<2x2xf32>
// CHECK-NEXT:    %gd = tensor.insert_slice %0 into %ct[1, 0] [2, 2] [1, 2] : tensor<2x2xf32> into tensor<4x4xf32>
// CHECK-NEXT:    func.return %gs, %gd : tensor<2x2xf32>, tensor<4x4xf32>

// -----

// pad with a literal pad value: the interior of g; concat: slices of g.
func.func @pad_concat(%s: tensor<2x3xf32>, %ct: tensor<5x4xf32>) -> tensor<2x3xf32> {
  %c = arith.constant 0.0 : f32
  %p = tensor.pad %s low[1, 0] high[0, 1] {
  ^bb0(%j: index, %k: index):
    tensor.yield %c : f32
  } : tensor<2x3xf32> to tensor<3x4xf32>
  %x = tensor.concat dim(0) %p, %p : (tensor<3x4xf32>, tensor<3x4xf32>) -> tensor<6x4xf32>
  %y = tensor.extract_slice %x[1, 0] [5, 4] [1, 1] : tensor<6x4xf32> to tensor<5x4xf32>
  %g = grad.vjp %y, %ct wrt %s : tensor<5x4xf32>, tensor<2x3xf32>
  func.return %g : tensor<2x3xf32>
}

// CHECK-LABEL: func.func @pad_concat(
// CHECK-NEXT:    %c = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:    %p = tensor.pad %s low[1, 0] high[0, 1] {
// CHECK-NEXT:    ^bb0(%j: index, %k: index):
// CHECK-NEXT:      tensor.yield %c : f32
// CHECK-NEXT:    } : tensor<2x3xf32> to tensor<3x4xf32>
// CHECK-NEXT:    %x = tensor.concat dim(0) %p, %p : (tensor<3x4xf32>, tensor<3x4xf32>) -> tensor<6x4xf32>
// CHECK-NEXT:    %y = tensor.extract_slice %x[1, 0] [5, 4] [1, 1] : tensor<6x4xf32> to tensor<5x4xf32>
// CHECK-NEXT:    %0 = arith.constant dense<0.000000e+00> : tensor<6x4xf32>
// CHECK-NEXT:    %1 = tensor.insert_slice %ct into %0[1, 0] [5, 4] [1, 1] : tensor<5x4xf32> into tensor<6x4xf32>
// CHECK-NEXT:    %2 = tensor.extract_slice %1[0, 0] [3, 4] [1, 1] : tensor<6x4xf32> to tensor<3x4xf32>
// CHECK-NEXT:    %3 = tensor.extract_slice %1[3, 0] [3, 4] [1, 1] : tensor<6x4xf32> to tensor<3x4xf32>
// CHECK-NEXT:    %4 = arith.addf %2, %3 : tensor<3x4xf32>
// CHECK-NEXT:    %g = tensor.extract_slice %4[1, 0] [2, 3] [1, 1] : tensor<3x4xf32> to tensor<2x3xf32>
// CHECK-NEXT:    func.return %g : tensor<2x3xf32>

// -----

// extract, insert and from_elements: scalar data movement by index.
func.func @elements(%t: tensor<2x2xf32>, %s: f32) -> (tensor<2x2xf32>, f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %i = tensor.insert %s into %t[%c0, %c1] : tensor<2x2xf32>
  %e = tensor.extract %i[%c1, %c1] : tensor<2x2xf32>
  %f = tensor.from_elements %e, %s : tensor<2xf32>
  %l = tensor.extract %f[%c1] : tensor<2xf32>
  %m = arith.mulf %l, %e : f32
  %gt, %gs = grad.gradient %m wrt %t, %s : f32, tensor<2x2xf32>, f32
  func.return %gt, %gs : tensor<2x2xf32>, f32
}

// CHECK-LABEL: func.func @elements(
// CHECK-NEXT:    %c0 = arith.constant 0 : index
// CHECK-NEXT:    %c1 = arith.constant 1 : index
// CHECK-NEXT:    %i = tensor.insert %s into %t[%c0, %c1] : tensor<2x2xf32>
// CHECK-NEXT:    %e = tensor.extract %i[%c1, %c1] : tensor<2x2xf32>
// CHECK-NEXT:    %f = tensor.from_elements %e, %s : tensor<2xf32>
// CHECK-NEXT:    %l = tensor.extract %f[%c1] : tensor<2xf32>
// CHECK-NEXT:    %m = arith.mulf %l, %e : f32
// CHECK-NEXT:    %0 = arith.constant 1.000000e+00 : f32
// CHECK-NEXT:    %1 = arith.mulf %0, %e : f32
// CHECK-NEXT:    %2 = arith.mulf %0, %l : f32
// CHECK-NEXT:    %3 = arith.constant dense<0.000000e+00> : tensor<2xf32>
// CHECK-NEXT:    %4 = tensor.insert %1 into %3[%c1] : tensor<2xf32>
// CHECK-NEXT:    %5 = arith.constant 0 : index
// CHECK-NEXT:    %6 = tensor.extract %4[%5] : tensor<2xf32>
// CHECK-NEXT:    %7 = arith.constant 1 : index
// CHECK-NEXT:    %8 = tensor.extract %4[%7] : tensor<2xf32>
// CHECK-NEXT:    %9 = arith.addf %2, %6 : f32
// CHECK-NEXT:    %10 = arith.constant dense<0.000000e+00> : tensor<2x2xf32>
// CHECK-NEXT:    %11 = tensor.insert %9 into %10[%c1, %c1] : tensor<2x2xf32>
// CHECK-NEXT:    %12 = tensor.extract %11[%c0, %c1] : tensor<2x2xf32>
// CHECK-NEXT:    %13 = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:    %gt = tensor.insert %13 into %11[%c0, %c1] : tensor<2x2xf32>
// CHECK-NEXT:    %gs = arith.addf %8, %12 : f32
// CHECK-NEXT:    func.return %gt, %gs : tensor<2x2xf32>, f32

// -----

// expand_shape, collapse_shape and cast: the inverse reshape of g; splat: the
// sum of g's elements, a reduction generic.
func.func @reshapes(%a: tensor<6xf32>, %s: f32, %ct: tensor<2x3xf32>) -> (tensor<6xf32>, f32) {
  %e = tensor.expand_shape %a [[0, 1]] output_shape [2, 3] : tensor<6xf32> into tensor<2x3xf32>
  %c = tensor.collapse_shape %e [[0, 1]] : tensor<2x3xf32> into tensor<6xf32>
  %e2 = tensor.expand_shape %c [[0, 1]] output_shape [2, 3] : tensor<6xf32> into tensor<2x3xf32>
  %b = tensor.cast %e2 : tensor<2x3xf32> to tensor<2x3xf32>
  %sp = tensor.splat %s : tensor<2x3xf32>
  %m = arith.mulf %b, %sp : tensor<2x3xf32>
  %ga, %gs = grad.vjp %m, %ct wrt %a, %s : tensor<2x3xf32>, tensor<6xf32>, f32
  func.return %ga, %gs : tensor<6xf32>, f32
}

// CHECK-LABEL: func.func @reshapes(
// CHECK-NEXT:    %e = tensor.expand_shape %a [[0 : i64, 1 : i64]] output_shape [2, 3] : tensor<6xf32> into tensor<2x3xf32>
// CHECK-NEXT:    %c = tensor.collapse_shape %e [[0 : i64, 1 : i64]] : tensor<2x3xf32> into tensor<6xf32>
// CHECK-NEXT:    %e2 = tensor.expand_shape %c [[0 : i64, 1 : i64]] output_shape [2, 3] : tensor<6xf32> into tensor<2x3xf32>
// CHECK-NEXT:    %b = tensor.cast %e2 : tensor<2x3xf32> to tensor<2x3xf32>
// CHECK-NEXT:    %sp = tensor.splat %s : tensor<2x3xf32>
// CHECK-NEXT:    %m = arith.mulf %b, %sp : tensor<2x3xf32>
// CHECK-NEXT:    %0 = arith.mulf %ct, %sp : tensor<2x3xf32>
// CHECK-NEXT:    %1 = arith.mulf %ct, %b : tensor<2x3xf32>
// CHECK-NEXT:    %2 = arith.constant dense<0.000000e+00> : tensor<f32>
// CHECK-NEXT:    %3 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> ()>], iterator_types = ["reduction", "reduction"]} ins(%1 : tensor<2x3xf32>) outs(%2 : tensor<f32>) {
// CHECK-NEXT:    ^bb0(%4: f32, %5: f32):
// CHECK-NEXT:      %6 = arith.addf %5, %4 : f32
// CHECK-NEXT:      linalg.yield %6 : f32
// CHECK-NEXT:    } -> tensor<f32>
// CHECK-NEXT:    %gs = tensor.extract %3[] : tensor<f32>
// CHECK-NEXT:    %7 = tensor.cast %0 : tensor<2x3xf32> to tensor<2x3xf32>
// CHECK-NEXT:    %8 = tensor.collapse_shape %7 [[0 : i64, 1 : i64]] : tensor<2x3xf32> into tensor<6xf32>
// CHECK-NEXT:    %9 = tensor.expand_shape %8 [[0 : i64, 1 : i64]] output_shape [2, 3] : tensor<6xf32> into tensor<2x3xf32>
// CHECK-NEXT:    %ga = tensor.collapse_shape %9 [[0 : i64, 1 : i64]] : tensor<2x3xf32> into tensor<6xf32>
// CHECK-NEXT:    func.return %ga, %gs : tensor<6xf32>, f32

// -----

// A computed pad value off the path: the source gets the interior of g, the
// pad value nothing.
func.func @computed_pad_value(%a: tensor<2xf32>, %v: f32, %ct: tensor<4xf32>) -> tensor<2xf32> {
  %w = math.exp %v : f32
  %p = tensor.pad %a low[1] high[1] {
  ^bb0(%i: index):
    tensor.yield %w : f32
  } : tensor<2xf32> to tensor<4xf32>
  %g = grad.vjp %p, %ct wrt %a : tensor<4xf32>, tensor<2xf32>
  func.return %g : tensor<2xf32>
}

// CHECK-LABEL: func.func @computed_pad_value(
// CHECK-NEXT:    %w = math.exp %v : f32
// CHECK-NEXT:    %p = tensor.pad %a low[1] high[1] {
// CHECK-NEXT:    ^bb0(%i: index):
// CHECK-NEXT:      tensor.yield %w : f32
// CHECK-NEXT:    } : tensor<2xf32> to tensor<4xf32>
// CHECK-NEXT:    %g = tensor.extract_slice %ct[1] [2] [1] : tensor<4xf32> to tensor<2xf32>
// CHECK-NEXT:    func.return %g : tensor<2xf32>
