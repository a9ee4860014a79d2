// RUN: grad-opt %s -p expand-jvp --split-input-file | filecheck %s
// RUN: grad-opt %s -p expand-gradient --split-input-file | filecheck %s

// SPEC §5.6, the rows of slice, pad, reverse, concat and the batched dot:
// slice and reverse are the same op on t_a; pad is the same op on t_a with
// pad value 0.0; concat joins the operands' tangents, an operand off the path
// contributing `+0.0` zeros of its type; dot is `add (dot t_a b) (dot a t_b)`,
// one term when one side is off the path. One new op per op named, only
// `grad.const` reused, innermost first.

// slice: the same op on t_a (same start, limit, stride).
func.func @slice(%x: tensor<7x6xf32>, %tx: tensor<7x6xf32>) -> tensor<2x2xf32> {
  %y = grad.slice %x [1, 0] [5, 5] [2, 3] : tensor<7x6xf32> to tensor<2x2xf32>
  %t = grad.jvp %y wrt %x, %tx : tensor<2x2xf32>, tensor<7x6xf32>
  func.return %t : tensor<2x2xf32>
}

// CHECK-LABEL: func.func @slice(
// CHECK-NEXT:    %y = grad.slice %x [1, 0] [5, 5] [2, 3] : tensor<7x6xf32> to tensor<2x2xf32>
// CHECK-NEXT:    [[T:%.*]] = grad.slice %tx [1, 0] [5, 5] [2, 3] : tensor<7x6xf32> to tensor<2x2xf32>
// CHECK-NEXT:    func.return [[T]] : tensor<2x2xf32>

// -----

// An empty slice: still the same op on t_a (an empty tangent).
func.func @slice_empty(%x: tensor<3x4xf32>, %tx: tensor<3x4xf32>) -> tensor<3x0xf32> {
  %y = grad.slice %x [0, 1] [3, 1] [1, 1] : tensor<3x4xf32> to tensor<3x0xf32>
  %t = grad.jvp %y wrt %x, %tx : tensor<3x0xf32>, tensor<3x4xf32>
  func.return %t : tensor<3x0xf32>
}

// CHECK-LABEL: func.func @slice_empty(
// CHECK-NEXT:    %y = grad.slice %x [0, 1] [3, 1] [1, 1] : tensor<3x4xf32> to tensor<3x0xf32>
// CHECK-NEXT:    [[T:%.*]] = grad.slice %tx [0, 1] [3, 1] [1, 1] : tensor<3x4xf32> to tensor<3x0xf32>
// CHECK-NEXT:    func.return [[T]] : tensor<3x0xf32>

// -----

// pad: the same amounts on t_a, with pad value 0.0 whatever the op's value
// (the padding is constant, its tangent is zero).
func.func @pad(%x: tensor<2x3xf32>, %tx: tensor<2x3xf32>) -> tensor<3x7xf32> {
  %y = grad.pad %x low [1, 0] high [0, 2] interior [0, 1] value -1.5 : tensor<2x3xf32> to tensor<3x7xf32>
  %t = grad.jvp %y wrt %x, %tx : tensor<3x7xf32>, tensor<2x3xf32>
  func.return %t : tensor<3x7xf32>
}

// CHECK-LABEL: func.func @pad(
// CHECK-NEXT:    %y = grad.pad %x low [1, 0] high [0, 2] interior [0, 1] value -1.5 : tensor<2x3xf32> to tensor<3x7xf32>
// CHECK-NEXT:    [[T:%.*]] = grad.pad %tx low [1, 0] high [0, 2] interior [0, 1] value 0.0 : tensor<2x3xf32> to tensor<3x7xf32>
// CHECK-NEXT:    func.return [[T]] : tensor<3x7xf32>

// -----

// pad with value 0xFF800000 (-inf, as for a max pool): the tangent pads 0.0.
func.func @pad_minus_infinity(%x: tensor<3xf32>, %tx: tensor<3xf32>) -> tensor<10xf32> {
  %y = grad.pad %x low [2] high [1] interior [2] value 0xFF800000 : tensor<3xf32> to tensor<10xf32>
  %t = grad.jvp %y wrt %x, %tx : tensor<10xf32>, tensor<3xf32>
  func.return %t : tensor<10xf32>
}

// CHECK-LABEL: func.func @pad_minus_infinity(
// CHECK-NEXT:    %y = grad.pad %x low [2] high [1] interior [2] value 0xFF800000 : tensor<3xf32> to tensor<10xf32>
// CHECK-NEXT:    [[T:%.*]] = grad.pad %tx low [2] high [1] interior [2] value 0.0 : tensor<3xf32> to tensor<10xf32>
// CHECK-NEXT:    func.return [[T]] : tensor<10xf32>

// -----

// reverse: the same dims on t_a.
func.func @reverse(%x: tensor<2x3x4xf32>, %tx: tensor<2x3x4xf32>) -> tensor<2x3x4xf32> {
  %y = grad.reverse %x [0, 2] : tensor<2x3x4xf32>
  %t = grad.jvp %y wrt %x, %tx : tensor<2x3x4xf32>, tensor<2x3x4xf32>
  func.return %t : tensor<2x3x4xf32>
}

// CHECK-LABEL: func.func @reverse(
// CHECK-NEXT:    %y = grad.reverse %x [0, 2] : tensor<2x3x4xf32>
// CHECK-NEXT:    [[T:%.*]] = grad.reverse %tx [0, 2] : tensor<2x3x4xf32>
// CHECK-NEXT:    func.return [[T]] : tensor<2x3x4xf32>

// -----

// A chain, in post-order: pad, then slice, then reverse of the tangents.
func.func @chain(%x: tensor<3xf32>, %tx: tensor<3xf32>) -> tensor<4xf32> {
  %p = grad.pad %x low [1] high [1] interior [1] value 1.0 : tensor<3xf32> to tensor<7xf32>
  %s = grad.slice %p [0] [7] [2] : tensor<7xf32> to tensor<4xf32>
  %y = grad.reverse %s [0] : tensor<4xf32>
  %t = grad.jvp %y wrt %x, %tx : tensor<4xf32>, tensor<3xf32>
  func.return %t : tensor<4xf32>
}

// CHECK-LABEL: func.func @chain(
// CHECK-NEXT:    %p = grad.pad %x low [1] high [1] interior [1] value 1.0 : tensor<3xf32> to tensor<7xf32>
// CHECK-NEXT:    %s = grad.slice %p [0] [7] [2] : tensor<7xf32> to tensor<4xf32>
// CHECK-NEXT:    %y = grad.reverse %s [0] : tensor<4xf32>
// CHECK-NEXT:    [[TP:%.*]] = grad.pad %tx low [1] high [1] interior [1] value 0.0 : tensor<3xf32> to tensor<7xf32>
// CHECK-NEXT:    [[TS:%.*]] = grad.slice [[TP]] [0] [7] [2] : tensor<7xf32> to tensor<4xf32>
// CHECK-NEXT:    [[T:%.*]] = grad.reverse [[TS]] [0] : tensor<4xf32>
// CHECK-NEXT:    func.return [[T]] : tensor<4xf32>

// -----

// concat with every operand on the path: `concat` of their tangents.
func.func @concat(%x: tensor<2x3xf32>, %tx: tensor<2x3xf32>) -> tensor<4x3xf32> {
  %n = grad.neg %x : tensor<2x3xf32>
  %y = grad.concat %x, %n [0] : tensor<2x3xf32>, tensor<2x3xf32> to tensor<4x3xf32>
  %t = grad.jvp %y wrt %x, %tx : tensor<4x3xf32>, tensor<2x3xf32>
  func.return %t : tensor<4x3xf32>
}

// CHECK-LABEL: func.func @concat(
// CHECK-NEXT:    %n = grad.neg %x : tensor<2x3xf32>
// CHECK-NEXT:    %y = grad.concat %x, %n [0] : tensor<2x3xf32>, tensor<2x3xf32> to tensor<4x3xf32>
// CHECK-NEXT:    [[TN:%.*]] = grad.neg %tx : tensor<2x3xf32>
// CHECK-NEXT:    [[T:%.*]] = grad.concat %tx, [[TN]] [0] : tensor<2x3xf32>, tensor<2x3xf32> to tensor<4x3xf32>
// CHECK-NEXT:    func.return [[T]] : tensor<4x3xf32>

// -----

// concat of three with the middle one (%c) off the path: it contributes
// `+0.0` zeros of its type, created when the concat's tangent is built
// (after the tangent of %n, which comes earlier in post-order).
func.func @concat_three(%x: tensor<2x1xf32>, %c: tensor<2x3xf32>, %tx: tensor<2x1xf32>) -> tensor<2x5xf32> {
  %n = grad.neg %x : tensor<2x1xf32>
  %y = grad.concat %x, %c, %n [1] : tensor<2x1xf32>, tensor<2x3xf32>, tensor<2x1xf32> to tensor<2x5xf32>
  %t = grad.jvp %y wrt %x, %tx : tensor<2x5xf32>, tensor<2x1xf32>
  func.return %t : tensor<2x5xf32>
}

// CHECK-LABEL: func.func @concat_three(
// CHECK-NEXT:    %n = grad.neg %x : tensor<2x1xf32>
// CHECK-NEXT:    %y = grad.concat %x, %c, %n [1] : tensor<2x1xf32>, tensor<2x3xf32>, tensor<2x1xf32> to tensor<2x5xf32>
// CHECK-NEXT:    [[TN:%.*]] = grad.neg %tx : tensor<2x1xf32>
// CHECK-NEXT:    [[Z:%.*]] = grad.const 0.0 : tensor<2x3xf32>
// CHECK-NEXT:    [[T:%.*]] = grad.concat %tx, [[Z]], [[TN]] [1] : tensor<2x1xf32>, tensor<2x3xf32>, tensor<2x1xf32> to tensor<2x5xf32>
// CHECK-NEXT:    func.return [[T]] : tensor<2x5xf32>

// -----

// Two off-path operands of one type share one zeros constant (only
// `grad.const` is reused); one of another type gets its own.
func.func @concat_zeros_reused(%c: tensor<1x2xf32>, %x: tensor<3x2xf32>, %d: tensor<2x2xf32>, %tx: tensor<3x2xf32>) -> tensor<7x2xf32> {
  %y = grad.concat %c, %x, %c, %d [0] : tensor<1x2xf32>, tensor<3x2xf32>, tensor<1x2xf32>, tensor<2x2xf32> to tensor<7x2xf32>
  %t = grad.jvp %y wrt %x, %tx : tensor<7x2xf32>, tensor<3x2xf32>
  func.return %t : tensor<7x2xf32>
}

// CHECK-LABEL: func.func @concat_zeros_reused(
// CHECK-NEXT:    %y = grad.concat %c, %x, %c, %d [0] : tensor<1x2xf32>, tensor<3x2xf32>, tensor<1x2xf32>, tensor<2x2xf32> to tensor<7x2xf32>
// CHECK-NEXT:    [[Z1:%.*]] = grad.const 0.0 : tensor<1x2xf32>
// CHECK-NEXT:    [[Z2:%.*]] = grad.const 0.0 : tensor<2x2xf32>
// CHECK-NEXT:    [[T:%.*]] = grad.concat [[Z1]], %tx, [[Z1]], [[Z2]] [0] : tensor<1x2xf32>, tensor<3x2xf32>, tensor<1x2xf32>, tensor<2x2xf32> to tensor<7x2xf32>
// CHECK-NEXT:    func.return [[T]] : tensor<7x2xf32>

// -----

// Batched dot with both operands on the path: `add (dot t_a b) (dot a t_b)`.
func.func @dot(%x: tensor<2x3x3xf32>, %tx: tensor<2x3x3xf32>) -> tensor<2x3x3xf32> {
  %y = grad.dot %x, %x : tensor<2x3x3xf32>, tensor<2x3x3xf32> to tensor<2x3x3xf32>
  %t = grad.jvp %y wrt %x, %tx : tensor<2x3x3xf32>, tensor<2x3x3xf32>
  func.return %t : tensor<2x3x3xf32>
}

// CHECK-LABEL: func.func @dot(
// CHECK-NEXT:    %y = grad.dot %x, %x : tensor<2x3x3xf32>, tensor<2x3x3xf32> to tensor<2x3x3xf32>
// CHECK-NEXT:    [[L:%.*]] = grad.dot %tx, %x : tensor<2x3x3xf32>, tensor<2x3x3xf32> to tensor<2x3x3xf32>
// CHECK-NEXT:    [[R:%.*]] = grad.dot %x, %tx : tensor<2x3x3xf32>, tensor<2x3x3xf32> to tensor<2x3x3xf32>
// CHECK-NEXT:    [[T:%.*]] = grad.add [[L]], [[R]] : tensor<2x3x3xf32>
// CHECK-NEXT:    func.return [[T]] : tensor<2x3x3xf32>

// -----

// Batched dot of rank 4 with one side off the path: one term each.
func.func @dot_one_side(%x: tensor<2x3x4x5xf32>, %w: tensor<2x3x5x6xf32>, %v: tensor<2x3x1x4xf32>, %tx: tensor<2x3x4x5xf32>) -> (tensor<2x3x4x6xf32>, tensor<2x3x1x5xf32>) {
  %y = grad.dot %x, %w : tensor<2x3x4x5xf32>, tensor<2x3x5x6xf32> to tensor<2x3x4x6xf32>
  %z = grad.dot %v, %x : tensor<2x3x1x4xf32>, tensor<2x3x4x5xf32> to tensor<2x3x1x5xf32>
  %t = grad.jvp %y wrt %x, %tx : tensor<2x3x4x6xf32>, tensor<2x3x4x5xf32>
  %s = grad.jvp %z wrt %x, %tx : tensor<2x3x1x5xf32>, tensor<2x3x4x5xf32>
  func.return %t, %s : tensor<2x3x4x6xf32>, tensor<2x3x1x5xf32>
}

// CHECK-LABEL: func.func @dot_one_side(
// CHECK-NEXT:    %y = grad.dot %x, %w : tensor<2x3x4x5xf32>, tensor<2x3x5x6xf32> to tensor<2x3x4x6xf32>
// CHECK-NEXT:    %z = grad.dot %v, %x : tensor<2x3x1x4xf32>, tensor<2x3x4x5xf32> to tensor<2x3x1x5xf32>
// CHECK-NEXT:    [[T:%.*]] = grad.dot %tx, %w : tensor<2x3x4x5xf32>, tensor<2x3x5x6xf32> to tensor<2x3x4x6xf32>
// CHECK-NEXT:    [[S:%.*]] = grad.dot %v, %tx : tensor<2x3x1x4xf32>, tensor<2x3x4x5xf32> to tensor<2x3x1x5xf32>
// CHECK-NEXT:    func.return [[T]], [[S]] : tensor<2x3x4x6xf32>, tensor<2x3x1x5xf32>

// -----

// A concat whose only f32 route from x is through i32 is off the path: the
// result is `+0.0` zeros of y's type.
func.func @off_path(%x: tensor<2xf32>, %c: tensor<2xf32>, %tx: tensor<2xf32>) -> tensor<4xf32> {
  %i = grad.cast %x : tensor<2xf32> to tensor<2xi32>
  %r = grad.reverse %i [0] : tensor<2xi32>
  %f = grad.cast %r : tensor<2xi32> to tensor<2xf32>
  %y = grad.concat %f, %c [0] : tensor<2xf32>, tensor<2xf32> to tensor<4xf32>
  %t = grad.jvp %y wrt %x, %tx : tensor<4xf32>, tensor<2xf32>
  func.return %t : tensor<4xf32>
}

// CHECK-LABEL: func.func @off_path(
// CHECK-NEXT:    %i = grad.cast %x : tensor<2xf32> to tensor<2xi32>
// CHECK-NEXT:    %r = grad.reverse %i [0] : tensor<2xi32>
// CHECK-NEXT:    %f = grad.cast %r : tensor<2xi32> to tensor<2xf32>
// CHECK-NEXT:    %y = grad.concat %f, %c [0] : tensor<2xf32>, tensor<2xf32> to tensor<4xf32>
// CHECK-NEXT:    [[Z:%.*]] = grad.const 0.0 : tensor<4xf32>
// CHECK-NEXT:    func.return [[Z]] : tensor<4xf32>
