// RUN: grad-opt %s -p canonicalize --split-input-file | filecheck %s
// Exact rewrites of `grad` ops, and the inexact ones that are refused.

// CHECK-LABEL: func.func @mul_by_one
// CHECK-NEXT:    func.return %x, %x : tensor<3xf32>, tensor<3xf32>
func.func @mul_by_one(%x: tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>) {
  %one = grad.const 1.0 : tensor<3xf32>
  %a = grad.mul %x, %one : tensor<3xf32>
  %b = grad.mul %one, %x : tensor<3xf32>
  func.return %a, %b : tensor<3xf32>, tensor<3xf32>
}

// -----

// CHECK-LABEL: func.func @neg_of_neg
// CHECK-NEXT:    func.return %x : tensor<3xi32>
func.func @neg_of_neg(%x: tensor<3xi32>) -> tensor<3xi32> {
  %a = grad.neg %x : tensor<3xi32>
  %b = grad.neg %a : tensor<3xi32>
  func.return %b : tensor<3xi32>
}

// -----

// CHECK-LABEL: func.func @max_of_same
// CHECK-NEXT:    func.return %x : tensor<3xf32>
func.func @max_of_same(%x: tensor<3xf32>) -> tensor<3xf32> {
  %a = grad.max %x, %x : tensor<3xf32>
  func.return %a : tensor<3xf32>
}

// -----

// CHECK-LABEL: func.func @where_of_splat_condition
// CHECK-NEXT:    func.return %x, %y : tensor<2xf32>, tensor<2xf32>
func.func @where_of_splat_condition(%x: tensor<2xf32>, %y: tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>) {
  %t = grad.const true : tensor<2xi1>
  %f = grad.const false : tensor<2xi1>
  %a = grad.where %t, %x, %y : tensor<2xf32>
  %b = grad.where %f, %x, %y : tensor<2xf32>
  func.return %a, %b : tensor<2xf32>, tensor<2xf32>
}

// -----

// CHECK-LABEL: func.func @where_of_same_sides
// CHECK-NEXT:    func.return %x : tensor<2xf32>
func.func @where_of_same_sides(%c: tensor<2xi1>, %x: tensor<2xf32>) -> tensor<2xf32> {
  %a = grad.where %c, %x, %x : tensor<2xf32>
  func.return %a : tensor<2xf32>
}

// -----

// CHECK-LABEL: func.func @where_of_where_same_condition
// CHECK-NEXT:    [[A:%.*]] = grad.where %c, %x, %w : tensor<2xf32>
// CHECK-NEXT:    [[B:%.*]] = grad.where %c, %x, %w : tensor<2xf32>
// CHECK-NEXT:    func.return [[A]], [[B]]
func.func @where_of_where_same_condition(%c: tensor<2xi1>, %x: tensor<2xf32>, %y: tensor<2xf32>, %w: tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>) {
  %inner = grad.where %c, %x, %y : tensor<2xf32>
  %a = grad.where %c, %inner, %w : tensor<2xf32>
  %inner2 = grad.where %c, %y, %w : tensor<2xf32>
  %b = grad.where %c, %x, %inner2 : tensor<2xf32>
  func.return %a, %b : tensor<2xf32>, tensor<2xf32>
}

// -----

// The zero side of a masked value times a finite constant is a constant.
// CHECK-LABEL: func.func @mul_of_masked_by_constant
// CHECK-NEXT:    %k = grad.const 0.5 : tensor<2xf32>
// CHECK-NEXT:    [[P:%.*]] = grad.mul %y, %k : tensor<2xf32>
// CHECK-NEXT:    [[Z:%.*]] = grad.const 0.0 : tensor<2xf32>
// CHECK-NEXT:    [[R:%.*]] = grad.where %c, [[P]], [[Z]] : tensor<2xf32>
// CHECK-NEXT:    func.return [[R]] : tensor<2xf32>
func.func @mul_of_masked_by_constant(%c: tensor<2xi1>, %y: tensor<2xf32>) -> tensor<2xf32> {
  %zero = grad.const 0.0 : tensor<2xf32>
  %k = grad.const 0.5 : tensor<2xf32>
  %m = grad.where %c, %y, %zero : tensor<2xf32>
  %r = grad.mul %m, %k : tensor<2xf32>
  func.return %r : tensor<2xf32>
}

// -----

// Refused: `mul x (where c y 0.0)` with x unknown: x * 0.0 is NaN for x = inf.
// CHECK-LABEL: func.func @refused_mul_of_masked
// CHECK-NEXT:    %zero = grad.const 0.0 : tensor<2xf32>
// CHECK-NEXT:    %m = grad.where %c, %y, %zero : tensor<2xf32>
// CHECK-NEXT:    %r = grad.mul %x, %m : tensor<2xf32>
// CHECK-NEXT:    func.return %r
func.func @refused_mul_of_masked(%c: tensor<2xi1>, %x: tensor<2xf32>, %y: tensor<2xf32>) -> tensor<2xf32> {
  %zero = grad.const 0.0 : tensor<2xf32>
  %m = grad.where %c, %y, %zero : tensor<2xf32>
  %r = grad.mul %x, %m : tensor<2xf32>
  func.return %r : tensor<2xf32>
}

// -----

// Refused: the masked constant is infinite, 0.0 * inf is NaN, not a zero.
// CHECK-LABEL: func.func @refused_mul_of_masked_by_infinity
// CHECK:         %r = grad.mul %m, %k : tensor<2xf32>
func.func @refused_mul_of_masked_by_infinity(%c: tensor<2xi1>, %y: tensor<2xf32>) -> tensor<2xf32> {
  %zero = grad.const 0.0 : tensor<2xf32>
  %k = grad.const 0x7F800000 : tensor<2xf32>
  %m = grad.where %c, %y, %zero : tensor<2xf32>
  %r = grad.mul %m, %k : tensor<2xf32>
  func.return %r : tensor<2xf32>
}

// -----

// Refused: x + 0.0 is not x when x is -0.0.
// CHECK-LABEL: func.func @refused_add_zero
// CHECK-NEXT:    %zero = grad.const 0.0 : tensor<3xf32>
// CHECK-NEXT:    %a = grad.add %x, %zero : tensor<3xf32>
// CHECK-NEXT:    func.return %a
func.func @refused_add_zero(%x: tensor<3xf32>) -> tensor<3xf32> {
  %zero = grad.const 0.0 : tensor<3xf32>
  %a = grad.add %x, %zero : tensor<3xf32>
  func.return %a : tensor<3xf32>
}

// -----

// Refused: x * 0.0 is not 0.0 when x is NaN, infinite or negative.
// CHECK-LABEL: func.func @refused_mul_zero
// CHECK-NEXT:    %zero = grad.const 0.0 : tensor<3xf32>
// CHECK-NEXT:    %a = grad.mul %x, %zero : tensor<3xf32>
// CHECK-NEXT:    func.return %a
func.func @refused_mul_zero(%x: tensor<3xf32>) -> tensor<3xf32> {
  %zero = grad.const 0.0 : tensor<3xf32>
  %a = grad.mul %x, %zero : tensor<3xf32>
  func.return %a : tensor<3xf32>
}

// -----

// Refused: recip (recip x) rounds twice.
// CHECK-LABEL: func.func @refused_recip_of_recip
// CHECK-NEXT:    %a = grad.recip %x : tensor<3xf32>
// CHECK-NEXT:    %b = grad.recip %a : tensor<3xf32>
// CHECK-NEXT:    func.return %b
func.func @refused_recip_of_recip(%x: tensor<3xf32>) -> tensor<3xf32> {
  %a = grad.recip %x : tensor<3xf32>
  %b = grad.recip %a : tensor<3xf32>
  func.return %b : tensor<3xf32>
}

// -----

// CHECK-LABEL: func.func @identity_shapes
// CHECK-NEXT:    func.return %x, %x, %x, %x, %x
func.func @identity_shapes(%x: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>) {
  %a = grad.reshape %x : tensor<2x3xf32> to tensor<2x3xf32>
  %b = grad.permute %x [0, 1] : tensor<2x3xf32> to tensor<2x3xf32>
  %c = grad.broadcast %x [0, 1] : tensor<2x3xf32> to tensor<2x3xf32>
  %d = grad.cast %x : tensor<2x3xf32> to tensor<2x3xf32>
  %e = grad.bitcast %x : tensor<2x3xf32> to tensor<2x3xf32>
  func.return %a, %b, %c, %d, %e : tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>
}

// -----

// Not an identity: a permute that swaps two dims of equal size.
// CHECK-LABEL: func.func @swap_is_kept
// CHECK-NEXT:    %a = grad.permute %x [1, 0] : tensor<2x2xf32> to tensor<2x2xf32>
func.func @swap_is_kept(%x: tensor<2x2xf32>) -> tensor<2x2xf32> {
  %a = grad.permute %x [1, 0] : tensor<2x2xf32> to tensor<2x2xf32>
  func.return %a : tensor<2x2xf32>
}

// -----

// CHECK-LABEL: func.func @reshape_of_reshape
// CHECK-NEXT:    %b = grad.reshape %x : tensor<6xf32> to tensor<3x2xf32>
// CHECK-NEXT:    func.return %b
func.func @reshape_of_reshape(%x: tensor<6xf32>) -> tensor<3x2xf32> {
  %a = grad.reshape %x : tensor<6xf32> to tensor<2x3xf32>
  %b = grad.reshape %a : tensor<2x3xf32> to tensor<3x2xf32>
  func.return %b : tensor<3x2xf32>
}

// -----

// permute [1, 2, 0] then [2, 0, 1] is the identity; [1, 2, 0] twice is [2, 0, 1].
// CHECK-LABEL: func.func @permute_of_permute
// CHECK-NEXT:    %c = grad.permute %x [2, 0, 1] : tensor<2x3x4xf32> to tensor<4x2x3xf32>
// CHECK-NEXT:    func.return %x, %c
func.func @permute_of_permute(%x: tensor<2x3x4xf32>) -> (tensor<2x3x4xf32>, tensor<4x2x3xf32>) {
  %a = grad.permute %x [1, 2, 0] : tensor<2x3x4xf32> to tensor<3x4x2xf32>
  %b = grad.permute %a [2, 0, 1] : tensor<3x4x2xf32> to tensor<2x3x4xf32>
  %c = grad.permute %a [1, 2, 0] : tensor<3x4x2xf32> to tensor<4x2x3xf32>
  func.return %b, %c : tensor<2x3x4xf32>, tensor<4x2x3xf32>
}

// -----

// Folding computes in float32 with the interpreter's kernels: 0.1 + 0.2 in f32
// is 0.3 (f32), and -0.0 survives `neg 0.0`.
// CHECK-LABEL: func.func @fold_constants
// CHECK-NEXT:    [[S:%.*]] = grad.const 0.3 : tensor<2xf32>
// CHECK-NEXT:    [[N:%.*]] = grad.const -0.0 : tensor<2xf32>
// CHECK-NEXT:    [[D:%.*]] = grad.const dense<[1, -1]> : tensor<2xi32>
// CHECK-NEXT:    func.return [[S]], [[N]], [[D]]
func.func @fold_constants() -> (tensor<2xf32>, tensor<2xf32>, tensor<2xi32>) {
  %a = grad.const 0.1 : tensor<2xf32>
  %b = grad.const 0.2 : tensor<2xf32>
  %s = grad.add %a, %b : tensor<2xf32>
  %z = grad.const 0.0 : tensor<2xf32>
  %n = grad.neg %z : tensor<2xf32>
  %p = grad.const dense<[7, -7]> : tensor<2xi32>
  %q = grad.const 4 : tensor<2xi32>
  %d = grad.idiv %p, %q : tensor<2xi32>
  func.return %s, %n, %d : tensor<2xf32>, tensor<2xf32>, tensor<2xi32>
}

// -----

// A division by zero is a run-time error of the program, not of the compiler.
// CHECK-LABEL: func.func @no_fold_of_an_error
// CHECK:         %d = grad.idiv %p, %z : tensor<2xi32>
func.func @no_fold_of_an_error() -> tensor<2xi32> {
  %p = grad.const 7 : tensor<2xi32>
  %z = grad.const 0 : tensor<2xi32>
  %d = grad.idiv %p, %z : tensor<2xi32>
  func.return %d : tensor<2xi32>
}

// -----

// Kept: %t is a gradient target, and replacing it by %x (its value) would move
// the derivative to %x, which has other uses.
// CHECK-LABEL: func.func @differentiated_value_is_kept
// CHECK-NEXT:    %one = grad.const 1.0 : tensor<f32>
// CHECK-NEXT:    %t = grad.mul %x, %one : tensor<f32>
// CHECK-NEXT:    %y = grad.mul %t, %x : tensor<f32>
// CHECK-NEXT:    %g = grad.gradient %y wrt %t : tensor<f32>, tensor<f32>
func.func @differentiated_value_is_kept(%x: tensor<f32>) -> tensor<f32> {
  %one = grad.const 1.0 : tensor<f32>
  %t = grad.mul %x, %one : tensor<f32>
  %y = grad.mul %t, %x : tensor<f32>
  %g = grad.gradient %y wrt %t : tensor<f32>, tensor<f32>
  func.return %g : tensor<f32>
}

// -----

// Kept: `neg (neg a)` is not folded to %x when %a, between them, is a target;
// the loss would no longer depend on it.
// CHECK-LABEL: func.func @differentiated_value_is_not_bypassed
// CHECK-NEXT:    %a = grad.neg %x : tensor<f32>
// CHECK-NEXT:    %y = grad.neg %a : tensor<f32>
// CHECK-NEXT:    %g = grad.gradient %y wrt %a : tensor<f32>, tensor<f32>
func.func @differentiated_value_is_not_bypassed(%x: tensor<f32>) -> tensor<f32> {
  %a = grad.neg %x : tensor<f32>
  %y = grad.neg %a : tensor<f32>
  %g = grad.gradient %y wrt %a : tensor<f32>, tensor<f32>
  func.return %g : tensor<f32>
}
