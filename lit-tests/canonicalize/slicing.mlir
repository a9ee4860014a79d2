// RUN: grad-opt %s -p canonicalize --split-input-file | filecheck %s
// The exact identities of slice, pad and reverse, constant folding of the five
// new ops (computed by the interpreter's kernels: data moves bit for bit, the
// dot in float32), and what is not an identity and stays.

// A full slice (start 0, limit the size, stride 1 in every dim) is its operand.
// CHECK-LABEL: func.func @full_slice
// CHECK-NEXT:    func.return %x, %k, %s : tensor<2x3xf32>, tensor<4xi32>, tensor<f32>
func.func @full_slice(%x: tensor<2x3xf32>, %k: tensor<4xi32>, %s: tensor<f32>) -> (tensor<2x3xf32>, tensor<4xi32>, tensor<f32>) {
  %a = grad.slice %x [0, 0] [2, 3] [1, 1] : tensor<2x3xf32> to tensor<2x3xf32>
  %b = grad.slice %k [0] [4] [1] : tensor<4xi32> to tensor<4xi32>
  %c = grad.slice %s [] [] [] : tensor<f32> to tensor<f32>
  func.return %a, %b, %c : tensor<2x3xf32>, tensor<4xi32>, tensor<f32>
}

// -----

// A zero pad (low, high and interior all 0) is its operand, whatever the value.
// CHECK-LABEL: func.func @zero_pad
// CHECK-NEXT:    func.return %x, %b : tensor<2x3xf32>, tensor<2xi1>
func.func @zero_pad(%x: tensor<2x3xf32>, %b: tensor<2xi1>) -> (tensor<2x3xf32>, tensor<2xi1>) {
  %a = grad.pad %x low [0, 0] high [0, 0] interior [0, 0] value 7.0 : tensor<2x3xf32> to tensor<2x3xf32>
  %c = grad.pad %b low [0] high [0] interior [0] value true : tensor<2xi1> to tensor<2xi1>
  func.return %a, %c : tensor<2x3xf32>, tensor<2xi1>
}

// -----

// reverse (reverse x d) d is x, for one dim or several.
// CHECK-LABEL: func.func @reverse_of_reverse
// CHECK-NEXT:    func.return %x, %x : tensor<2x3xf32>, tensor<2x3xf32>
func.func @reverse_of_reverse(%x: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>) {
  %a = grad.reverse %x [1] : tensor<2x3xf32>
  %b = grad.reverse %a [1] : tensor<2x3xf32>
  %c = grad.reverse %x [0, 1] : tensor<2x3xf32>
  %d = grad.reverse %c [0, 1] : tensor<2x3xf32>
  func.return %b, %d : tensor<2x3xf32>, tensor<2x3xf32>
}

// -----

// Not full: a shorter limit, a later start, a stride of 2 (even with the
// limit at the size).
// CHECK-LABEL: func.func @partial_slice_is_kept
// CHECK-NEXT:    %a = grad.slice %x [0, 0] [2, 2] [1, 1] : tensor<2x3xf32> to tensor<2x2xf32>
// CHECK-NEXT:    %b = grad.slice %x [1, 0] [2, 3] [1, 1] : tensor<2x3xf32> to tensor<1x3xf32>
// CHECK-NEXT:    %c = grad.slice %x [0, 0] [2, 3] [1, 2] : tensor<2x3xf32> to tensor<2x2xf32>
// CHECK-NEXT:    func.return %a, %b, %c
func.func @partial_slice_is_kept(%x: tensor<2x3xf32>) -> (tensor<2x2xf32>, tensor<1x3xf32>, tensor<2x2xf32>) {
  %a = grad.slice %x [0, 0] [2, 2] [1, 1] : tensor<2x3xf32> to tensor<2x2xf32>
  %b = grad.slice %x [1, 0] [2, 3] [1, 1] : tensor<2x3xf32> to tensor<1x3xf32>
  %c = grad.slice %x [0, 0] [2, 3] [1, 2] : tensor<2x3xf32> to tensor<2x2xf32>
  func.return %a, %b, %c : tensor<2x2xf32>, tensor<1x3xf32>, tensor<2x2xf32>
}

// -----

// A pad that adds something is kept.
// CHECK-LABEL: func.func @pad_is_kept
// CHECK-NEXT:    %a = grad.pad %x low [0] high [1] interior [0] value 0.0 : tensor<3xf32> to tensor<4xf32>
// CHECK-NEXT:    %b = grad.pad %x low [0] high [0] interior [1] value 0.0 : tensor<3xf32> to tensor<5xf32>
// CHECK-NEXT:    func.return %a, %b
func.func @pad_is_kept(%x: tensor<3xf32>) -> (tensor<4xf32>, tensor<5xf32>) {
  %a = grad.pad %x low [0] high [1] interior [0] value 0.0 : tensor<3xf32> to tensor<4xf32>
  %b = grad.pad %x low [0] high [0] interior [1] value 0.0 : tensor<3xf32> to tensor<5xf32>
  func.return %a, %b : tensor<4xf32>, tensor<5xf32>
}

// -----

// reverse of a reverse along other dims is not the identity: both stay.
// CHECK-LABEL: func.func @reverse_other_dims_is_kept
// CHECK-NEXT:    %a = grad.reverse %x [0] : tensor<2x3xf32>
// CHECK-NEXT:    %b = grad.reverse %a [1] : tensor<2x3xf32>
// CHECK-NEXT:    func.return %b
func.func @reverse_other_dims_is_kept(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %a = grad.reverse %x [0] : tensor<2x3xf32>
  %b = grad.reverse %a [1] : tensor<2x3xf32>
  func.return %b : tensor<2x3xf32>
}

// -----

// Kept: %s is a gradient target; replacing it by %x would move the
// derivative to %x, which has other uses.
// CHECK-LABEL: func.func @differentiated_slice_is_kept
// CHECK-NEXT:    %s = grad.slice %x [] [] [] : tensor<f32> to tensor<f32>
// CHECK-NEXT:    %y = grad.mul %s, %x : tensor<f32>
// CHECK-NEXT:    %g = grad.gradient %y wrt %s : tensor<f32>, tensor<f32>
func.func @differentiated_slice_is_kept(%x: tensor<f32>) -> tensor<f32> {
  %s = grad.slice %x [] [] [] : tensor<f32> to tensor<f32>
  %y = grad.mul %s, %x : tensor<f32>
  %g = grad.gradient %y wrt %s : tensor<f32>, tensor<f32>
  func.return %g : tensor<f32>
}

// -----

// Folding slice: dense data gives dense data (-0.0 kept); a splat stays a splat.
// CHECK-LABEL: func.func @fold_slice
// CHECK-NEXT:    [[A:%.*]] = grad.const dense<[-0.000000e+00, 2.000000e+00]> : tensor<2xf32>
// CHECK-NEXT:    [[B:%.*]] = grad.const dense<{{\[}}[2], [6]]> : tensor<2x1xi32>
// CHECK-NEXT:    [[C:%.*]] = grad.const 1.5 : tensor<2x2xf32>
// CHECK-NEXT:    func.return [[A]], [[B]], [[C]]
func.func @fold_slice() -> (tensor<2xf32>, tensor<2x1xi32>, tensor<2x2xf32>) {
  %v = grad.const dense<[-0.0, 1.0, 2.0]> : tensor<3xf32>
  %a = grad.slice %v [0] [3] [2] : tensor<3xf32> to tensor<2xf32>
  %m = grad.const dense<[[1, 2, 3, 4], [5, 6, 7, 8]]> : tensor<2x4xi32>
  %b = grad.slice %m [0, 1] [2, 2] [1, 1] : tensor<2x4xi32> to tensor<2x1xi32>
  %s = grad.const 1.5 : tensor<4x4xf32>
  %c = grad.slice %s [1, 0] [3, 4] [1, 2] : tensor<4x4xf32> to tensor<2x2xf32>
  func.return %a, %b, %c : tensor<2xf32>, tensor<2x1xi32>, tensor<2x2xf32>
}

// -----

// Folding pad: interior and edge padding take the value; a splat padded with
// its own value is a splat.
// CHECK-LABEL: func.func @fold_pad
// CHECK-NEXT:    [[A:%.*]] = grad.const dense<[-7, 1, -7, 2, -7, -7]> : tensor<6xi32>
// CHECK-NEXT:    [[B:%.*]] = grad.const dense<[false, true, true, false]> : tensor<4xi1>
// CHECK-NEXT:    [[C:%.*]] = grad.const 2.0 : tensor<3x5xf32>
// CHECK-NEXT:    func.return [[A]], [[B]], [[C]]
func.func @fold_pad() -> (tensor<6xi32>, tensor<4xi1>, tensor<3x5xf32>) {
  %k = grad.const dense<[1, 2]> : tensor<2xi32>
  %a = grad.pad %k low [1] high [2] interior [1] value -7 : tensor<2xi32> to tensor<6xi32>
  %t = grad.const true : tensor<2xi1>
  %b = grad.pad %t low [1] high [1] interior [0] value false : tensor<2xi1> to tensor<4xi1>
  %s = grad.const 2.0 : tensor<2x2xf32>
  %c = grad.pad %s low [1, 0] high [0, 1] interior [0, 2] value 2.0 : tensor<2x2xf32> to tensor<3x5xf32>
  func.return %a, %b, %c : tensor<6xi32>, tensor<4xi1>, tensor<3x5xf32>
}

// -----

// Folding reverse.
// CHECK-LABEL: func.func @fold_reverse
// CHECK-NEXT:    [[A:%.*]] = grad.const dense<{{\[}}[6, 5, 4], [3, 2, 1]]> : tensor<2x3xi32>
// CHECK-NEXT:    [[B:%.*]] = grad.const dense<[2.000000e+00, -0.000000e+00]> : tensor<2xf32>
// CHECK-NEXT:    func.return [[A]], [[B]]
func.func @fold_reverse() -> (tensor<2x3xi32>, tensor<2xf32>) {
  %m = grad.const dense<[[1, 2, 3], [4, 5, 6]]> : tensor<2x3xi32>
  %a = grad.reverse %m [0, 1] : tensor<2x3xi32>
  %v = grad.const dense<[-0.0, 2.0]> : tensor<2xf32>
  %b = grad.reverse %v [0] : tensor<2xf32>
  func.return %a, %b : tensor<2x3xi32>, tensor<2xf32>
}

// -----

// Folding concat, in operand order; equal splats join into a splat.
// CHECK-LABEL: func.func @fold_concat
// CHECK-NEXT:    [[A:%.*]] = grad.const dense<{{\[}}[1, 2, 9], [3, 4, 9]]> : tensor<2x3xi32>
// CHECK-NEXT:    [[B:%.*]] = grad.const 0.5 : tensor<5xf32>
// CHECK-NEXT:    func.return [[A]], [[B]]
func.func @fold_concat() -> (tensor<2x3xi32>, tensor<5xf32>) {
  %m = grad.const dense<[[1, 2], [3, 4]]> : tensor<2x2xi32>
  %n = grad.const 9 : tensor<2x1xi32>
  %a = grad.concat %m, %n [1] : tensor<2x2xi32>, tensor<2x1xi32> to tensor<2x3xi32>
  %h = grad.const 0.5 : tensor<2xf32>
  %i = grad.const 0.5 : tensor<3xf32>
  %b = grad.concat %h, %i [0] : tensor<2xf32>, tensor<3xf32> to tensor<5xf32>
  func.return %a, %b : tensor<2x3xi32>, tensor<5xf32>
}

// -----

// Folding the batched dot: 2 * 3, three times, is 18 everywhere; with dense
// operands, one product per batch.
// CHECK-LABEL: func.func @fold_dot
// CHECK-NEXT:    [[A:%.*]] = grad.const 18.0 : tensor<2x2x2xf32>
// CHECK-NEXT:    [[B:%.*]] = grad.const dense<{{\[\[\[}}2.000000e+00]], {{\[\[}}1.200000e+01]]]> : tensor<2x1x1xf32>
// CHECK-NEXT:    func.return [[A]], [[B]]
func.func @fold_dot() -> (tensor<2x2x2xf32>, tensor<2x1x1xf32>) {
  %p = grad.const 2.0 : tensor<2x2x3xf32>
  %q = grad.const 3.0 : tensor<2x3x2xf32>
  %a = grad.dot %p, %q : tensor<2x2x3xf32>, tensor<2x3x2xf32> to tensor<2x2x2xf32>
  %u = grad.const dense<[[[1.0, 1.0]], [[2.0, 3.0]]]> : tensor<2x1x2xf32>
  %w = grad.const dense<[[[1.0], [1.0]], [[3.0], [2.0]]]> : tensor<2x2x1xf32>
  %b = grad.dot %u, %w : tensor<2x1x2xf32>, tensor<2x2x1xf32> to tensor<2x1x1xf32>
  func.return %a, %b : tensor<2x2x2xf32>, tensor<2x1x1xf32>
}
