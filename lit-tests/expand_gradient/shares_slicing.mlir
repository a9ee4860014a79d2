// RUN: grad-opt %s -p expand-gradient --split-input-file | filecheck %s

// SPEC §5.3, the rows of slice, pad, reverse, concat and the batched dot,
// built exactly as the table writes them (innermost first, left to right,
// shares in operand order; only `grad.const` reused). The loss is a
// `reduce add`, so g is `broadcast 1.0` of the node's type.

// slice a [s] [l] [k]: `pad g low [s] high [n - s - (m - 1) k - 1]
// interior [k - 1] value 0.0` per dim (n: a's size, m: the result's).
// dim 0: n 7, s 1, l 5, k 2, m 2 (rows 1, 3): high 7 - 1 - 2 - 1 = 3.
// dim 1: n 6, s 0, l 5, k 3, m 2 (cols 0, 3): high 6 - 0 - 3 - 1 = 2, not
// n - l = 1: the limit need not be the last element taken plus one.
func.func @slice_strided(%x: tensor<7x6xf32>) -> tensor<7x6xf32> {
  %s = grad.slice %x [1, 0] [5, 5] [2, 3] : tensor<7x6xf32> to tensor<2x2xf32>
  %l = grad.reduce add %s [0, 1] : tensor<2x2xf32> to tensor<f32>
  %g = grad.gradient %l wrt %x : tensor<f32>, tensor<7x6xf32>
  func.return %g : tensor<7x6xf32>
}

// CHECK-LABEL: func.func @slice_strided(
// CHECK-NEXT:    %s = grad.slice %x [1, 0] [5, 5] [2, 3] : tensor<7x6xf32> to tensor<2x2xf32>
// CHECK-NEXT:    %l = grad.reduce add %s [0, 1] : tensor<2x2xf32> to tensor<f32>
// CHECK-NEXT:    [[ONE:%.*]] = grad.const 1.0 : tensor<f32>
// CHECK-NEXT:    [[G:%.*]] = grad.broadcast [[ONE]] [] : tensor<f32> to tensor<2x2xf32>
// CHECK-NEXT:    [[S:%.*]] = grad.pad [[G]] low [1, 0] high [3, 2] interior [1, 2] value 0.0 : tensor<2x2xf32> to tensor<7x6xf32>
// CHECK-NEXT:    func.return [[S]] : tensor<7x6xf32>

// -----

// slice with stride 1: interior 0; a full dim (dim 0) pads nothing.
func.func @slice_unit_stride(%x: tensor<3x5xf32>) -> tensor<3x5xf32> {
  %s = grad.slice %x [0, 1] [3, 3] [1, 1] : tensor<3x5xf32> to tensor<3x2xf32>
  %l = grad.reduce add %s [0, 1] : tensor<3x2xf32> to tensor<f32>
  %g = grad.gradient %l wrt %x : tensor<f32>, tensor<3x5xf32>
  func.return %g : tensor<3x5xf32>
}

// CHECK-LABEL: func.func @slice_unit_stride(
// CHECK-NEXT:    %s = grad.slice %x [0, 1] [3, 3] [1, 1] : tensor<3x5xf32> to tensor<3x2xf32>
// CHECK-NEXT:    %l = grad.reduce add %s [0, 1] : tensor<3x2xf32> to tensor<f32>
// CHECK-NEXT:    [[ONE:%.*]] = grad.const 1.0 : tensor<f32>
// CHECK-NEXT:    [[G:%.*]] = grad.broadcast [[ONE]] [] : tensor<f32> to tensor<3x2xf32>
// CHECK-NEXT:    [[S:%.*]] = grad.pad [[G]] low [0, 1] high [0, 2] interior [0, 0] value 0.0 : tensor<3x2xf32> to tensor<3x5xf32>
// CHECK-NEXT:    func.return [[S]] : tensor<3x5xf32>

// -----

// A slice with no element: the share is `+0.0` zeros of a's type (the
// formula would give m - 1 = -1 along dim 1), even though dim 0 is not empty.
func.func @slice_empty(%x: tensor<3x4xf32>) -> tensor<3x4xf32> {
  %s = grad.slice %x [0, 1] [3, 1] [1, 1] : tensor<3x4xf32> to tensor<3x0xf32>
  %l = grad.reduce add %s [0, 1] : tensor<3x0xf32> to tensor<f32>
  %g = grad.gradient %l wrt %x : tensor<f32>, tensor<3x4xf32>
  func.return %g : tensor<3x4xf32>
}

// CHECK-LABEL: func.func @slice_empty(
// CHECK-NEXT:    %s = grad.slice %x [0, 1] [3, 1] [1, 1] : tensor<3x4xf32> to tensor<3x0xf32>
// CHECK-NEXT:    %l = grad.reduce add %s [0, 1] : tensor<3x0xf32> to tensor<f32>
// CHECK-NEXT:    [[ONE:%.*]] = grad.const 1.0 : tensor<f32>
// CHECK-NEXT:    [[G:%.*]] = grad.broadcast [[ONE]] [] : tensor<f32> to tensor<3x0xf32>
// CHECK-NEXT:    [[Z:%.*]] = grad.const 0.0 : tensor<3x4xf32>
// CHECK-NEXT:    func.return [[Z]] : tensor<3x4xf32>

// -----

// pad a low [lo] high [hi] interior [i]: `slice g [lo] [lo + (n - 1)(i + 1) + 1] [i + 1]`.
// dim 0: lo 1, n 2, i 0: [1, 3) stride 1. dim 1: lo 0, n 3, i 1: [0, 5) stride 2.
// The pad value receives nothing, whatever it is.
func.func @pad_interior(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %p = grad.pad %x low [1, 0] high [0, 2] interior [0, 1] value 2.5 : tensor<2x3xf32> to tensor<3x7xf32>
  %l = grad.reduce add %p [0, 1] : tensor<3x7xf32> to tensor<f32>
  %g = grad.gradient %l wrt %x : tensor<f32>, tensor<2x3xf32>
  func.return %g : tensor<2x3xf32>
}

// CHECK-LABEL: func.func @pad_interior(
// CHECK-NEXT:    %p = grad.pad %x low [1, 0] high [0, 2] interior [0, 1] value 2.5 : tensor<2x3xf32> to tensor<3x7xf32>
// CHECK-NEXT:    %l = grad.reduce add %p [0, 1] : tensor<3x7xf32> to tensor<f32>
// CHECK-NEXT:    [[ONE:%.*]] = grad.const 1.0 : tensor<f32>
// CHECK-NEXT:    [[G:%.*]] = grad.broadcast [[ONE]] [] : tensor<f32> to tensor<3x7xf32>
// CHECK-NEXT:    [[S:%.*]] = grad.slice [[G]] [1, 0] [3, 5] [1, 2] : tensor<3x7xf32> to tensor<2x3xf32>
// CHECK-NEXT:    func.return [[S]] : tensor<2x3xf32>

// -----

// lo 2, n 3, i 2 (2 + 3 + 4 + 1 = 10 elements): `slice g [2] [9] [3]` takes
// 2, 5 and 8; the limit is the last element plus one, not lo + n(i + 1) = 11,
// which would be past the end.
func.func @pad_wide_interior(%x: tensor<3xf32>) -> tensor<3xf32> {
  %p = grad.pad %x low [2] high [1] interior [2] value 0.0 : tensor<3xf32> to tensor<10xf32>
  %l = grad.reduce add %p [0] : tensor<10xf32> to tensor<f32>
  %g = grad.gradient %l wrt %x : tensor<f32>, tensor<3xf32>
  func.return %g : tensor<3xf32>
}

// CHECK-LABEL: func.func @pad_wide_interior(
// CHECK-NEXT:    %p = grad.pad %x low [2] high [1] interior [2] value 0.0 : tensor<3xf32> to tensor<10xf32>
// CHECK-NEXT:    %l = grad.reduce add %p [0] : tensor<10xf32> to tensor<f32>
// CHECK-NEXT:    [[ONE:%.*]] = grad.const 1.0 : tensor<f32>
// CHECK-NEXT:    [[G:%.*]] = grad.broadcast [[ONE]] [] : tensor<f32> to tensor<10xf32>
// CHECK-NEXT:    [[S:%.*]] = grad.slice [[G]] [2] [9] [3] : tensor<10xf32> to tensor<3xf32>
// CHECK-NEXT:    func.return [[S]] : tensor<3xf32>

// -----

// pad of an operand with no element: its gradient is `+0.0` zeros of its type.
func.func @pad_empty(%x: tensor<0x2xf32>) -> tensor<0x2xf32> {
  %p = grad.pad %x low [1, 0] high [1, 0] interior [3, 0] value 0.0 : tensor<0x2xf32> to tensor<2x2xf32>
  %l = grad.reduce add %p [0, 1] : tensor<2x2xf32> to tensor<f32>
  %g = grad.gradient %l wrt %x : tensor<f32>, tensor<0x2xf32>
  func.return %g : tensor<0x2xf32>
}

// CHECK-LABEL: func.func @pad_empty(
// CHECK-NEXT:    %p = grad.pad %x low [1, 0] high [1, 0] interior [3, 0] value 0.0 : tensor<0x2xf32> to tensor<2x2xf32>
// CHECK-NEXT:    %l = grad.reduce add %p [0, 1] : tensor<2x2xf32> to tensor<f32>
// CHECK-NEXT:    [[ONE:%.*]] = grad.const 1.0 : tensor<f32>
// CHECK-NEXT:    [[G:%.*]] = grad.broadcast [[ONE]] [] : tensor<f32> to tensor<2x2xf32>
// CHECK-NEXT:    [[Z:%.*]] = grad.const 0.0 : tensor<0x2xf32>
// CHECK-NEXT:    func.return [[Z]] : tensor<0x2xf32>

// -----

// Each is the other's transpose: x -> pad -> slice; the walk builds the pad
// of the slice's share, then the slice of the pad's. Padding [a, b, c] with
// interior 1 gives [0, a, 0, b, 0, c, 0]; the slice takes 0, 2, 4, 6 (only
// pad values), so the gradient is zero, but it is built structurally.
// slice: n 7, s 0, k 2, m 4: high 7 - 0 - 6 - 1 = 0, interior 1.
// pad: lo 1, n 3, i 1: `slice [1] [1 + 4 + 1] [2]`.
func.func @pad_then_slice(%x: tensor<3xf32>) -> tensor<3xf32> {
  %p = grad.pad %x low [1] high [1] interior [1] value 0.0 : tensor<3xf32> to tensor<7xf32>
  %s = grad.slice %p [0] [7] [2] : tensor<7xf32> to tensor<4xf32>
  %l = grad.reduce add %s [0] : tensor<4xf32> to tensor<f32>
  %g = grad.gradient %l wrt %x : tensor<f32>, tensor<3xf32>
  func.return %g : tensor<3xf32>
}

// CHECK-LABEL: func.func @pad_then_slice(
// CHECK-NEXT:    %p = grad.pad %x low [1] high [1] interior [1] value 0.0 : tensor<3xf32> to tensor<7xf32>
// CHECK-NEXT:    %s = grad.slice %p [0] [7] [2] : tensor<7xf32> to tensor<4xf32>
// CHECK-NEXT:    %l = grad.reduce add %s [0] : tensor<4xf32> to tensor<f32>
// CHECK-NEXT:    [[ONE:%.*]] = grad.const 1.0 : tensor<f32>
// CHECK-NEXT:    [[G:%.*]] = grad.broadcast [[ONE]] [] : tensor<f32> to tensor<4xf32>
// CHECK-NEXT:    [[GP:%.*]] = grad.pad [[G]] low [0] high [0] interior [1] value 0.0 : tensor<4xf32> to tensor<7xf32>
// CHECK-NEXT:    [[GX:%.*]] = grad.slice [[GP]] [1] [6] [2] : tensor<7xf32> to tensor<3xf32>
// CHECK-NEXT:    func.return [[GX]] : tensor<3xf32>

// -----

// reverse a [dims]: `reverse g [dims]`.
func.func @reverse(%x: tensor<2x3x4xf32>) -> tensor<2x3x4xf32> {
  %r = grad.reverse %x [0, 2] : tensor<2x3x4xf32>
  %l = grad.reduce add %r [0, 1, 2] : tensor<2x3x4xf32> to tensor<f32>
  %g = grad.gradient %l wrt %x : tensor<f32>, tensor<2x3x4xf32>
  func.return %g : tensor<2x3x4xf32>
}

// CHECK-LABEL: func.func @reverse(
// CHECK-NEXT:    %r = grad.reverse %x [0, 2] : tensor<2x3x4xf32>
// CHECK-NEXT:    %l = grad.reduce add %r [0, 1, 2] : tensor<2x3x4xf32> to tensor<f32>
// CHECK-NEXT:    [[ONE:%.*]] = grad.const 1.0 : tensor<f32>
// CHECK-NEXT:    [[G:%.*]] = grad.broadcast [[ONE]] [] : tensor<f32> to tensor<2x3x4xf32>
// CHECK-NEXT:    [[S:%.*]] = grad.reverse [[G]] [0, 2] : tensor<2x3x4xf32>
// CHECK-NEXT:    func.return [[S]] : tensor<2x3x4xf32>

// -----

// concat a0, a1, ... [d]: to aj, `slice g` with start oj, limit oj + size,
// stride 1 along d (oj: the sizes of a0 ... aj-1 along d), other dims whole.
// Three operands, the middle one (%c, width 3) off the path: no share for it;
// %b's part starts at 1 + 3 = 4.
func.func @concat_three(%a: tensor<2x1xf32>, %c: tensor<2x3xf32>, %b: tensor<2x2xf32>) -> (tensor<2x1xf32>, tensor<2x2xf32>) {
  %k = grad.concat %a, %c, %b [1] : tensor<2x1xf32>, tensor<2x3xf32>, tensor<2x2xf32> to tensor<2x6xf32>
  %l = grad.reduce add %k [0, 1] : tensor<2x6xf32> to tensor<f32>
  %ga, %gb = grad.gradient %l wrt %a, %b : tensor<f32>, tensor<2x1xf32>, tensor<2x2xf32>
  func.return %ga, %gb : tensor<2x1xf32>, tensor<2x2xf32>
}

// CHECK-LABEL: func.func @concat_three(
// CHECK-NEXT:    %k = grad.concat %a, %c, %b [1] : tensor<2x1xf32>, tensor<2x3xf32>, tensor<2x2xf32> to tensor<2x6xf32>
// CHECK-NEXT:    %l = grad.reduce add %k [0, 1] : tensor<2x6xf32> to tensor<f32>
// CHECK-NEXT:    [[ONE:%.*]] = grad.const 1.0 : tensor<f32>
// CHECK-NEXT:    [[G:%.*]] = grad.broadcast [[ONE]] [] : tensor<f32> to tensor<2x6xf32>
// CHECK-NEXT:    [[SA:%.*]] = grad.slice [[G]] [0, 0] [2, 1] [1, 1] : tensor<2x6xf32> to tensor<2x1xf32>
// CHECK-NEXT:    [[SB:%.*]] = grad.slice [[G]] [0, 4] [2, 6] [1, 1] : tensor<2x6xf32> to tensor<2x2xf32>
// CHECK-NEXT:    func.return [[SA]], [[SB]] : tensor<2x1xf32>, tensor<2x2xf32>

// -----

// One value in two places: x gets a share per use, in operand order, added
// as they arrived (SPEC §5.2): `add (slice g [0..1)) (slice g [3..4))`.
func.func @concat_repeated(%x: tensor<1x3xf32>, %y: tensor<2x3xf32>) -> (tensor<1x3xf32>, tensor<2x3xf32>) {
  %k = grad.concat %x, %y, %x [0] : tensor<1x3xf32>, tensor<2x3xf32>, tensor<1x3xf32> to tensor<4x3xf32>
  %l = grad.reduce add %k [0, 1] : tensor<4x3xf32> to tensor<f32>
  %gx, %gy = grad.gradient %l wrt %x, %y : tensor<f32>, tensor<1x3xf32>, tensor<2x3xf32>
  func.return %gx, %gy : tensor<1x3xf32>, tensor<2x3xf32>
}

// CHECK-LABEL: func.func @concat_repeated(
// CHECK-NEXT:    %k = grad.concat %x, %y, %x [0] : tensor<1x3xf32>, tensor<2x3xf32>, tensor<1x3xf32> to tensor<4x3xf32>
// CHECK-NEXT:    %l = grad.reduce add %k [0, 1] : tensor<4x3xf32> to tensor<f32>
// CHECK-NEXT:    [[ONE:%.*]] = grad.const 1.0 : tensor<f32>
// CHECK-NEXT:    [[G:%.*]] = grad.broadcast [[ONE]] [] : tensor<f32> to tensor<4x3xf32>
// CHECK-NEXT:    [[S0:%.*]] = grad.slice [[G]] [0, 0] [1, 3] [1, 1] : tensor<4x3xf32> to tensor<1x3xf32>
// CHECK-NEXT:    [[S1:%.*]] = grad.slice [[G]] [1, 0] [3, 3] [1, 1] : tensor<4x3xf32> to tensor<2x3xf32>
// CHECK-NEXT:    [[S2:%.*]] = grad.slice [[G]] [3, 0] [4, 3] [1, 1] : tensor<4x3xf32> to tensor<1x3xf32>
// CHECK-NEXT:    [[GX:%.*]] = grad.add [[S0]], [[S2]] : tensor<1x3xf32>
// CHECK-NEXT:    func.return [[GX]], [[S1]] : tensor<1x3xf32>, tensor<2x3xf32>

// -----

// A size-0 operand still gets its (empty) slice: its part is [1, 1).
func.func @concat_with_empty(%x: tensor<1xf32>, %z: tensor<0xf32>, %y: tensor<2xf32>) -> (tensor<0xf32>, tensor<2xf32>) {
  %k = grad.concat %x, %z, %y [0] : tensor<1xf32>, tensor<0xf32>, tensor<2xf32> to tensor<3xf32>
  %l = grad.reduce add %k [0] : tensor<3xf32> to tensor<f32>
  %gz, %gy = grad.gradient %l wrt %z, %y : tensor<f32>, tensor<0xf32>, tensor<2xf32>
  func.return %gz, %gy : tensor<0xf32>, tensor<2xf32>
}

// CHECK-LABEL: func.func @concat_with_empty(
// CHECK-NEXT:    %k = grad.concat %x, %z, %y [0] : tensor<1xf32>, tensor<0xf32>, tensor<2xf32> to tensor<3xf32>
// CHECK-NEXT:    %l = grad.reduce add %k [0] : tensor<3xf32> to tensor<f32>
// CHECK-NEXT:    [[ONE:%.*]] = grad.const 1.0 : tensor<f32>
// CHECK-NEXT:    [[G:%.*]] = grad.broadcast [[ONE]] [] : tensor<f32> to tensor<3xf32>
// CHECK-NEXT:    [[SZ:%.*]] = grad.slice [[G]] [1] [1] [1] : tensor<3xf32> to tensor<0xf32>
// CHECK-NEXT:    [[SY:%.*]] = grad.slice [[G]] [1] [3] [1] : tensor<3xf32> to tensor<2xf32>
// CHECK-NEXT:    func.return [[SZ]], [[SY]] : tensor<0xf32>, tensor<2xf32>

// -----

// Batched dot, rank 3: `dot g (permute b [0, 2, 1])` to a, then
// `dot (permute a [0, 2, 1]) g` to b; the batch dim stays in front.
func.func @dot_rank_3(%a: tensor<2x3x4xf32>, %b: tensor<2x4x5xf32>) -> (tensor<2x3x4xf32>, tensor<2x4x5xf32>) {
  %d = grad.dot %a, %b : tensor<2x3x4xf32>, tensor<2x4x5xf32> to tensor<2x3x5xf32>
  %l = grad.reduce add %d [0, 1, 2] : tensor<2x3x5xf32> to tensor<f32>
  %ga, %gb = grad.gradient %l wrt %a, %b : tensor<f32>, tensor<2x3x4xf32>, tensor<2x4x5xf32>
  func.return %ga, %gb : tensor<2x3x4xf32>, tensor<2x4x5xf32>
}

// CHECK-LABEL: func.func @dot_rank_3(
// CHECK-NEXT:    %d = grad.dot %a, %b : tensor<2x3x4xf32>, tensor<2x4x5xf32> to tensor<2x3x5xf32>
// CHECK-NEXT:    %l = grad.reduce add %d [0, 1, 2] : tensor<2x3x5xf32> to tensor<f32>
// CHECK-NEXT:    [[ONE:%.*]] = grad.const 1.0 : tensor<f32>
// CHECK-NEXT:    [[G:%.*]] = grad.broadcast [[ONE]] [] : tensor<f32> to tensor<2x3x5xf32>
// CHECK-NEXT:    [[BT:%.*]] = grad.permute %b [0, 2, 1] : tensor<2x4x5xf32> to tensor<2x5x4xf32>
// CHECK-NEXT:    [[SA:%.*]] = grad.dot [[G]], [[BT]] : tensor<2x3x5xf32>, tensor<2x5x4xf32> to tensor<2x3x4xf32>
// CHECK-NEXT:    [[AT:%.*]] = grad.permute %a [0, 2, 1] : tensor<2x3x4xf32> to tensor<2x4x3xf32>
// CHECK-NEXT:    [[SB:%.*]] = grad.dot [[AT]], [[G]] : tensor<2x4x3xf32>, tensor<2x3x5xf32> to tensor<2x4x5xf32>
// CHECK-NEXT:    func.return [[SA]], [[SB]] : tensor<2x3x4xf32>, tensor<2x4x5xf32>

// -----

// Batched dot, rank 4: the permute is [0, 1, 3, 2].
func.func @dot_rank_4(%a: tensor<2x3x4x5xf32>, %b: tensor<2x3x5x6xf32>) -> (tensor<2x3x4x5xf32>, tensor<2x3x5x6xf32>) {
  %d = grad.dot %a, %b : tensor<2x3x4x5xf32>, tensor<2x3x5x6xf32> to tensor<2x3x4x6xf32>
  %l = grad.reduce add %d [0, 1, 2, 3] : tensor<2x3x4x6xf32> to tensor<f32>
  %ga, %gb = grad.gradient %l wrt %a, %b : tensor<f32>, tensor<2x3x4x5xf32>, tensor<2x3x5x6xf32>
  func.return %ga, %gb : tensor<2x3x4x5xf32>, tensor<2x3x5x6xf32>
}

// CHECK-LABEL: func.func @dot_rank_4(
// CHECK-NEXT:    %d = grad.dot %a, %b : tensor<2x3x4x5xf32>, tensor<2x3x5x6xf32> to tensor<2x3x4x6xf32>
// CHECK-NEXT:    %l = grad.reduce add %d [0, 1, 2, 3] : tensor<2x3x4x6xf32> to tensor<f32>
// CHECK-NEXT:    [[ONE:%.*]] = grad.const 1.0 : tensor<f32>
// CHECK-NEXT:    [[G:%.*]] = grad.broadcast [[ONE]] [] : tensor<f32> to tensor<2x3x4x6xf32>
// CHECK-NEXT:    [[BT:%.*]] = grad.permute %b [0, 1, 3, 2] : tensor<2x3x5x6xf32> to tensor<2x3x6x5xf32>
// CHECK-NEXT:    [[SA:%.*]] = grad.dot [[G]], [[BT]] : tensor<2x3x4x6xf32>, tensor<2x3x6x5xf32> to tensor<2x3x4x5xf32>
// CHECK-NEXT:    [[AT:%.*]] = grad.permute %a [0, 1, 3, 2] : tensor<2x3x4x5xf32> to tensor<2x3x5x4xf32>
// CHECK-NEXT:    [[SB:%.*]] = grad.dot [[AT]], [[G]] : tensor<2x3x5x4xf32>, tensor<2x3x4x6xf32> to tensor<2x3x5x6xf32>
// CHECK-NEXT:    func.return [[SA]], [[SB]] : tensor<2x3x4x5xf32>, tensor<2x3x5x6xf32>

// -----

// Batched dot with only b on the path: one share, built only for b.
func.func @dot_rank_3_one_side(%a: tensor<3x2x2xf32>, %b: tensor<3x2x1xf32>) -> tensor<3x2x1xf32> {
  %d = grad.dot %a, %b : tensor<3x2x2xf32>, tensor<3x2x1xf32> to tensor<3x2x1xf32>
  %l = grad.reduce add %d [0, 1, 2] : tensor<3x2x1xf32> to tensor<f32>
  %gb = grad.gradient %l wrt %b : tensor<f32>, tensor<3x2x1xf32>
  func.return %gb : tensor<3x2x1xf32>
}

// CHECK-LABEL: func.func @dot_rank_3_one_side(
// CHECK-NEXT:    %d = grad.dot %a, %b : tensor<3x2x2xf32>, tensor<3x2x1xf32> to tensor<3x2x1xf32>
// CHECK-NEXT:    %l = grad.reduce add %d [0, 1, 2] : tensor<3x2x1xf32> to tensor<f32>
// CHECK-NEXT:    [[ONE:%.*]] = grad.const 1.0 : tensor<f32>
// CHECK-NEXT:    [[G:%.*]] = grad.broadcast [[ONE]] [] : tensor<f32> to tensor<3x2x1xf32>
// CHECK-NEXT:    [[AT:%.*]] = grad.permute %a [0, 2, 1] : tensor<3x2x2xf32> to tensor<3x2x2xf32>
// CHECK-NEXT:    [[SB:%.*]] = grad.dot [[AT]], [[G]] : tensor<3x2x2xf32>, tensor<3x2x1xf32> to tensor<3x2x1xf32>
// CHECK-NEXT:    func.return [[SB]] : tensor<3x2x1xf32>

// -----

// The 2-D dot keeps its rule ([1, 0] is the last-two swap for r = 2).
func.func @dot_rank_2(%a: tensor<2x3xf32>, %b: tensor<3x4xf32>) -> tensor<2x3xf32> {
  %d = grad.dot %a, %b : tensor<2x3xf32>, tensor<3x4xf32> to tensor<2x4xf32>
  %l = grad.reduce add %d [0, 1] : tensor<2x4xf32> to tensor<f32>
  %ga = grad.gradient %l wrt %a : tensor<f32>, tensor<2x3xf32>
  func.return %ga : tensor<2x3xf32>
}

// CHECK-LABEL: func.func @dot_rank_2(
// CHECK-NEXT:    %d = grad.dot %a, %b : tensor<2x3xf32>, tensor<3x4xf32> to tensor<2x4xf32>
// CHECK-NEXT:    %l = grad.reduce add %d [0, 1] : tensor<2x4xf32> to tensor<f32>
// CHECK-NEXT:    [[ONE:%.*]] = grad.const 1.0 : tensor<f32>
// CHECK-NEXT:    [[G:%.*]] = grad.broadcast [[ONE]] [] : tensor<f32> to tensor<2x4xf32>
// CHECK-NEXT:    [[BT:%.*]] = grad.permute %b [1, 0] : tensor<3x4xf32> to tensor<4x3xf32>
// CHECK-NEXT:    [[SA:%.*]] = grad.dot [[G]], [[BT]] : tensor<2x4xf32>, tensor<4x3xf32> to tensor<2x3xf32>
// CHECK-NEXT:    func.return [[SA]] : tensor<2x3xf32>

// -----

// i32 data is a dead end: an i32 slice, pad, reverse or concat of a cast of x
// sends nothing back, and the only share x gets is through the f32 route.
func.func @integer_dead_end(%x: tensor<4xf32>) -> tensor<4xf32> {
  %i = grad.cast %x : tensor<4xf32> to tensor<4xi32>
  %s = grad.slice %i [0] [4] [2] : tensor<4xi32> to tensor<2xi32>
  %p = grad.pad %s low [1] high [1] interior [0] value 0 : tensor<2xi32> to tensor<4xi32>
  %r = grad.reverse %p [0] : tensor<4xi32>
  %k = grad.concat %r, %i [0] : tensor<4xi32>, tensor<4xi32> to tensor<8xi32>
  %f = grad.cast %k : tensor<8xi32> to tensor<8xf32>
  %v = grad.reverse %x [0] : tensor<4xf32>
  %j = grad.concat %f, %v [0] : tensor<8xf32>, tensor<4xf32> to tensor<12xf32>
  %l = grad.reduce add %j [0] : tensor<12xf32> to tensor<f32>
  %g = grad.gradient %l wrt %x : tensor<f32>, tensor<4xf32>
  func.return %g : tensor<4xf32>
}

// CHECK-LABEL: func.func @integer_dead_end(
// CHECK:         %l = grad.reduce add %j [0] : tensor<12xf32> to tensor<f32>
// CHECK-NEXT:    [[ONE:%.*]] = grad.const 1.0 : tensor<f32>
// CHECK-NEXT:    [[G:%.*]] = grad.broadcast [[ONE]] [] : tensor<f32> to tensor<12xf32>
// CHECK-NEXT:    [[SV:%.*]] = grad.slice [[G]] [8] [12] [1] : tensor<12xf32> to tensor<4xf32>
// CHECK-NEXT:    [[GX:%.*]] = grad.reverse [[SV]] [0] : tensor<4xf32>
// CHECK-NEXT:    func.return [[GX]] : tensor<4xf32>
