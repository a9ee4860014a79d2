// RUN: grad-opt %s -p expand-gradient --split-input-file | filecheck %s

// SPEC §3.6's shares and tangents, built as written: `gather a, i` sends
// `scatter_add (const 0.0 of a's type), i, g` to a and nothing to i, its
// tangent is `gather t_a, i`; `scatter_add d, i, u` sends g to d and
// `gather g, i` to u, its tangent `scatter_add t_d, i, t_u` (+0.0 zeros
// off the path); `argsort` and `iota` are dead ends.

func.func @gather(%x: tensor<4x5xf32>, %i: tensor<3xi32>) -> tensor<4x5xf32> {
  %r = grad.gather %x, %i [1] : tensor<4x5xf32>, tensor<3xi32> to tensor<4x3xf32>
  %l = grad.reduce add %r [0, 1] : tensor<4x3xf32> to tensor<f32>
  %g = grad.gradient %l wrt %x : tensor<f32>, tensor<4x5xf32>
  func.return %g : tensor<4x5xf32>
}

// CHECK-LABEL: func.func @gather(
// CHECK-NEXT:    %r = grad.gather %x, %i [1] : tensor<4x5xf32>, tensor<3xi32> to tensor<4x3xf32>
// CHECK-NEXT:    %l = grad.reduce add %r [0, 1] : tensor<4x3xf32> to tensor<f32>
// CHECK-NEXT:    [[ONE:%.*]] = grad.const 1.0 : tensor<f32>
// CHECK-NEXT:    [[G:%.*]] = grad.broadcast [[ONE]] [] : tensor<f32> to tensor<4x3xf32>
// CHECK-NEXT:    [[Z:%.*]] = grad.const 0.0 : tensor<4x5xf32>
// CHECK-NEXT:    %g = grad.scatter_add [[Z]], %i, [[G]] [1] : tensor<4x5xf32>, tensor<3xi32>, tensor<4x3xf32> to tensor<4x5xf32>
// CHECK-NEXT:    func.return %g : tensor<4x5xf32>

// -----

// Both operands of scatter_add on the path: g to d first, then gather g to u.
func.func @scatter_add(%d: tensor<5xf32>, %i: tensor<2x2xi32>, %u: tensor<2x2xf32>) -> (tensor<5xf32>, tensor<2x2xf32>) {
  %r = grad.scatter_add %d, %i, %u [0] : tensor<5xf32>, tensor<2x2xi32>, tensor<2x2xf32> to tensor<5xf32>
  %m = grad.mul %r, %r : tensor<5xf32>
  %l = grad.reduce add %m [0] : tensor<5xf32> to tensor<f32>
  %gd, %gu = grad.gradient %l wrt %d, %u : tensor<f32>, tensor<5xf32>, tensor<2x2xf32>
  func.return %gd, %gu : tensor<5xf32>, tensor<2x2xf32>
}

// CHECK-LABEL: func.func @scatter_add(
// CHECK:         [[GR:%[a-z0-9]+]] = grad.add
// CHECK-NEXT:    %gu = grad.gather [[GR]], %i [0] : tensor<5xf32>, tensor<2x2xi32> to tensor<2x2xf32>
// CHECK-NEXT:    func.return [[GR]], %gu : tensor<5xf32>, tensor<2x2xf32>

// -----

// sort = gather of argsort: g goes back through the permutation; argsort
// itself receives nothing (its result is i32).
func.func @sort(%x: tensor<6xf32>) -> tensor<6xf32> {
  %p = grad.argsort %x [0] : tensor<6xf32> to tensor<6xi32>
  %s = grad.gather %x, %p [0] : tensor<6xf32>, tensor<6xi32> to tensor<6xf32>
  %w = grad.iota [0] : tensor<6xf32>
  %m = grad.mul %s, %w : tensor<6xf32>
  %l = grad.reduce add %m [0] : tensor<6xf32> to tensor<f32>
  %g = grad.gradient %l wrt %x : tensor<f32>, tensor<6xf32>
  func.return %g : tensor<6xf32>
}

// CHECK-LABEL: func.func @sort(
// CHECK:         %l = grad.reduce add %m
// CHECK:         [[GS:%[0-9]+]] = grad.mul {{%.*}}, %w : tensor<6xf32>
// CHECK-NEXT:    [[Z:%.*]] = grad.const 0.0 : tensor<6xf32>
// CHECK-NEXT:    %g = grad.scatter_add [[Z]], %p, [[GS]] [0] : tensor<6xf32>, tensor<6xi32>, tensor<6xf32> to tensor<6xf32>
// CHECK-NEXT:    func.return %g : tensor<6xf32>

// -----

// Only through argsort: a dead end, so the gradient is zeros.
func.func @argsort_dead_end(%x: tensor<6xf32>) -> tensor<6xf32> {
  %p = grad.argsort %x [0] : tensor<6xf32> to tensor<6xi32>
  %f = grad.cast %p : tensor<6xi32> to tensor<6xf32>
  %l = grad.reduce add %f [0] : tensor<6xf32> to tensor<f32>
  %g = grad.gradient %l wrt %x : tensor<f32>, tensor<6xf32>
  func.return %g : tensor<6xf32>
}

// CHECK-LABEL: func.func @argsort_dead_end(
// CHECK:         %g = grad.const 0.0 : tensor<6xf32>
// CHECK-NEXT:    func.return %g : tensor<6xf32>

// -----

// Tangents: gather t_a, i; scatter_add with u off the path gets +0.0 zeros.
func.func @tangents(%x: tensor<5xf32>, %t: tensor<5xf32>, %i: tensor<3xi32>, %u: tensor<3xf32>) -> tensor<3xf32> {
  %r = grad.scatter_add %x, %i, %u [0] : tensor<5xf32>, tensor<3xi32>, tensor<3xf32> to tensor<5xf32>
  %y = grad.gather %r, %i [0] : tensor<5xf32>, tensor<3xi32> to tensor<3xf32>
  %ty = grad.jvp %y wrt %x, %t : tensor<3xf32>, tensor<5xf32>
  func.return %ty : tensor<3xf32>
}

// CHECK-LABEL: func.func @tangents(
// CHECK:         [[Z:%.*]] = grad.const 0.0 : tensor<3xf32>
// CHECK-NEXT:    [[TR:%.*]] = grad.scatter_add %t, %i, [[Z]] [0] : tensor<5xf32>, tensor<3xi32>, tensor<3xf32> to tensor<5xf32>
// CHECK-NEXT:    %ty = grad.gather [[TR]], %i [0] : tensor<5xf32>, tensor<3xi32> to tensor<3xf32>
// CHECK-NEXT:    func.return %ty : tensor<3xf32>
