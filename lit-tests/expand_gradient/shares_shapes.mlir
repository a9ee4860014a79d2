// RUN: grad-opt %s -p expand-gradient --split-input-file | filecheck %s

// SPEC §5.3, reduction and shape rows, built exactly as the table writes them
// (innermost first, left to right; only `grad.const` reused).

// reduce add a [axes]: `broadcast g` back to a's shape; the broadcast's dims
// are the input dims the reduction kept ([0, 2] reduced out of 3 dims: [1]).
func.func @reduce_add(%x: tensor<2x3x4xf32>) -> tensor<2x3x4xf32> {
  %r = grad.reduce add %x [0, 2] : tensor<2x3x4xf32> to tensor<3xf32>
  %l = grad.reduce add %r [0] : tensor<3xf32> to tensor<f32>
  %g = grad.gradient %l wrt %x : tensor<f32>, tensor<2x3x4xf32>
  func.return %g : tensor<2x3x4xf32>
}

// CHECK-LABEL: func.func @reduce_add(
// CHECK-NEXT:    %r = grad.reduce add %x [0, 2] : tensor<2x3x4xf32> to tensor<3xf32>
// CHECK-NEXT:    %l = grad.reduce add %r [0] : tensor<3xf32> to tensor<f32>
// CHECK-NEXT:    [[ONE:%.*]] = grad.const 1.0 : tensor<f32>
// CHECK-NEXT:    [[G:%.*]] = grad.broadcast [[ONE]] [] : tensor<f32> to tensor<3xf32>
// CHECK-NEXT:    [[S:%.*]] = grad.broadcast [[G]] [1] : tensor<3xf32> to tensor<2x3x4xf32>
// CHECK-NEXT:    func.return [[S]] : tensor<2x3x4xf32>

// -----

// reduce max a [axes]: with b = broadcast u and e = cmpeq a b (built first):
// `mul (where e (broadcast g) 0.0) (broadcast (recip (reduce add (where e 1.0 0.0) [axes])))`.
func.func @reduce_max(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %m = grad.reduce max %x [1] : tensor<2x3xf32> to tensor<2xf32>
  %l = grad.reduce add %m [0] : tensor<2xf32> to tensor<f32>
  %g = grad.gradient %l wrt %x : tensor<f32>, tensor<2x3xf32>
  func.return %g : tensor<2x3xf32>
}

// CHECK-LABEL: func.func @reduce_max(
// CHECK-NEXT:    %m = grad.reduce max %x [1] : tensor<2x3xf32> to tensor<2xf32>
// CHECK-NEXT:    %l = grad.reduce add %m [0] : tensor<2xf32> to tensor<f32>
// CHECK-NEXT:    [[ONE:%.*]] = grad.const 1.0 : tensor<f32>
// CHECK-NEXT:    [[G:%.*]] = grad.broadcast [[ONE]] [] : tensor<f32> to tensor<2xf32>
// CHECK-NEXT:    [[B:%.*]] = grad.broadcast %m [0] : tensor<2xf32> to tensor<2x3xf32>
// CHECK-NEXT:    [[E:%.*]] = grad.cmpeq %x, [[B]] : tensor<2x3xf32>
// CHECK-NEXT:    [[BG:%.*]] = grad.broadcast [[G]] [0] : tensor<2xf32> to tensor<2x3xf32>
// CHECK-NEXT:    [[ZERO:%.*]] = grad.const 0.0 : tensor<2x3xf32>
// CHECK-NEXT:    [[SPREAD:%.*]] = grad.where [[E]], [[BG]], [[ZERO]] : tensor<2x3xf32>
// CHECK-NEXT:    [[ONES:%.*]] = grad.const 1.0 : tensor<2x3xf32>
// CHECK-NEXT:    [[HITS:%.*]] = grad.where [[E]], [[ONES]], [[ZERO]] : tensor<2x3xf32>
// CHECK-NEXT:    [[COUNT:%.*]] = grad.reduce add [[HITS]] [1] : tensor<2x3xf32> to tensor<2xf32>
// CHECK-NEXT:    [[R:%.*]] = grad.recip [[COUNT]] : tensor<2xf32>
// CHECK-NEXT:    [[BR:%.*]] = grad.broadcast [[R]] [0] : tensor<2xf32> to tensor<2x3xf32>
// CHECK-NEXT:    [[S:%.*]] = grad.mul [[SPREAD]], [[BR]] : tensor<2x3xf32>
// CHECK-NEXT:    func.return [[S]] : tensor<2x3xf32>

// -----

// reduce max over every axis (rank-0 result): the broadcasts have no dims.
func.func @reduce_max_all(%x: tensor<4xf32>) -> tensor<4xf32> {
  %l = grad.reduce max %x [0] : tensor<4xf32> to tensor<f32>
  %g = grad.gradient %l wrt %x : tensor<f32>, tensor<4xf32>
  func.return %g : tensor<4xf32>
}

// CHECK-LABEL: func.func @reduce_max_all(
// CHECK-NEXT:    %l = grad.reduce max %x [0] : tensor<4xf32> to tensor<f32>
// CHECK-NEXT:    [[ONE:%.*]] = grad.const 1.0 : tensor<f32>
// CHECK-NEXT:    [[B:%.*]] = grad.broadcast %l [] : tensor<f32> to tensor<4xf32>
// CHECK-NEXT:    [[E:%.*]] = grad.cmpeq %x, [[B]] : tensor<4xf32>
// CHECK-NEXT:    [[BG:%.*]] = grad.broadcast [[ONE]] [] : tensor<f32> to tensor<4xf32>
// CHECK-NEXT:    [[ZERO:%.*]] = grad.const 0.0 : tensor<4xf32>
// CHECK-NEXT:    [[SPREAD:%.*]] = grad.where [[E]], [[BG]], [[ZERO]] : tensor<4xf32>
// CHECK-NEXT:    [[ONES:%.*]] = grad.const 1.0 : tensor<4xf32>
// CHECK-NEXT:    [[HITS:%.*]] = grad.where [[E]], [[ONES]], [[ZERO]] : tensor<4xf32>
// CHECK-NEXT:    [[COUNT:%.*]] = grad.reduce add [[HITS]] [0] : tensor<4xf32> to tensor<f32>
// CHECK-NEXT:    [[R:%.*]] = grad.recip [[COUNT]] : tensor<f32>
// CHECK-NEXT:    [[BR:%.*]] = grad.broadcast [[R]] [] : tensor<f32> to tensor<4xf32>
// CHECK-NEXT:    [[S:%.*]] = grad.mul [[SPREAD]], [[BR]] : tensor<4xf32>
// CHECK-NEXT:    func.return [[S]] : tensor<4xf32>

// -----

// broadcast with a new output dim (0): `reduce add g [0]`, whose type already
// is a's type, so no reshape.
func.func @broadcast_new_dim(%x: tensor<3xf32>) -> tensor<3xf32> {
  %b = grad.broadcast %x [1] : tensor<3xf32> to tensor<2x3xf32>
  %l = grad.reduce add %b [0, 1] : tensor<2x3xf32> to tensor<f32>
  %g = grad.gradient %l wrt %x : tensor<f32>, tensor<3xf32>
  func.return %g : tensor<3xf32>
}

// CHECK-LABEL: func.func @broadcast_new_dim(
// CHECK-NEXT:    %b = grad.broadcast %x [1] : tensor<3xf32> to tensor<2x3xf32>
// CHECK-NEXT:    %l = grad.reduce add %b [0, 1] : tensor<2x3xf32> to tensor<f32>
// CHECK-NEXT:    [[ONE:%.*]] = grad.const 1.0 : tensor<f32>
// CHECK-NEXT:    [[G:%.*]] = grad.broadcast [[ONE]] [] : tensor<f32> to tensor<2x3xf32>
// CHECK-NEXT:    [[S:%.*]] = grad.reduce add [[G]] [0] : tensor<2x3xf32> to tensor<3xf32>
// CHECK-NEXT:    func.return [[S]] : tensor<3xf32>

// -----

// broadcast expanding a size-1 dim (0, 1 -> 4): `reduce add g [0]` gives
// tensor<3xf32>, which differs from a's type, so `reshape` back to tensor<1x3xf32>.
func.func @broadcast_expanded_dim(%x: tensor<1x3xf32>) -> tensor<1x3xf32> {
  %b = grad.broadcast %x [0, 1] : tensor<1x3xf32> to tensor<4x3xf32>
  %l = grad.reduce add %b [0, 1] : tensor<4x3xf32> to tensor<f32>
  %g = grad.gradient %l wrt %x : tensor<f32>, tensor<1x3xf32>
  func.return %g : tensor<1x3xf32>
}

// CHECK-LABEL: func.func @broadcast_expanded_dim(
// CHECK-NEXT:    %b = grad.broadcast %x [0, 1] : tensor<1x3xf32> to tensor<4x3xf32>
// CHECK-NEXT:    %l = grad.reduce add %b [0, 1] : tensor<4x3xf32> to tensor<f32>
// CHECK-NEXT:    [[ONE:%.*]] = grad.const 1.0 : tensor<f32>
// CHECK-NEXT:    [[G:%.*]] = grad.broadcast [[ONE]] [] : tensor<f32> to tensor<4x3xf32>
// CHECK-NEXT:    [[R:%.*]] = grad.reduce add [[G]] [0] : tensor<4x3xf32> to tensor<3xf32>
// CHECK-NEXT:    [[S:%.*]] = grad.reshape [[R]] : tensor<3xf32> to tensor<1x3xf32>
// CHECK-NEXT:    func.return [[S]] : tensor<1x3xf32>

// -----

// broadcast with a new dim (0) and an expanded one (2): one `reduce add` over
// both, sorted, then `reshape`.
func.func @broadcast_new_and_expanded(%x: tensor<3x1xf32>) -> tensor<3x1xf32> {
  %b = grad.broadcast %x [1, 2] : tensor<3x1xf32> to tensor<2x3x4xf32>
  %l = grad.reduce add %b [0, 1, 2] : tensor<2x3x4xf32> to tensor<f32>
  %g = grad.gradient %l wrt %x : tensor<f32>, tensor<3x1xf32>
  func.return %g : tensor<3x1xf32>
}

// CHECK-LABEL: func.func @broadcast_new_and_expanded(
// CHECK-NEXT:    %b = grad.broadcast %x [1, 2] : tensor<3x1xf32> to tensor<2x3x4xf32>
// CHECK-NEXT:    %l = grad.reduce add %b [0, 1, 2] : tensor<2x3x4xf32> to tensor<f32>
// CHECK-NEXT:    [[ONE:%.*]] = grad.const 1.0 : tensor<f32>
// CHECK-NEXT:    [[G:%.*]] = grad.broadcast [[ONE]] [] : tensor<f32> to tensor<2x3x4xf32>
// CHECK-NEXT:    [[R:%.*]] = grad.reduce add [[G]] [0, 2] : tensor<2x3x4xf32> to tensor<3xf32>
// CHECK-NEXT:    [[S:%.*]] = grad.reshape [[R]] : tensor<3xf32> to tensor<3x1xf32>
// CHECK-NEXT:    func.return [[S]] : tensor<3x1xf32>

// -----

// A size-1 input dim placed on a size-1 output dim is not expanded: only the
// new dim 0 is reduced, and the result already has a's type (no reshape).
func.func @broadcast_kept_unit_dim(%x: tensor<1xf32>) -> tensor<1xf32> {
  %b = grad.broadcast %x [1] : tensor<1xf32> to tensor<2x1xf32>
  %l = grad.reduce add %b [0, 1] : tensor<2x1xf32> to tensor<f32>
  %g = grad.gradient %l wrt %x : tensor<f32>, tensor<1xf32>
  func.return %g : tensor<1xf32>
}

// CHECK-LABEL: func.func @broadcast_kept_unit_dim(
// CHECK-NEXT:    %b = grad.broadcast %x [1] : tensor<1xf32> to tensor<2x1xf32>
// CHECK-NEXT:    %l = grad.reduce add %b [0, 1] : tensor<2x1xf32> to tensor<f32>
// CHECK-NEXT:    [[ONE:%.*]] = grad.const 1.0 : tensor<f32>
// CHECK-NEXT:    [[G:%.*]] = grad.broadcast [[ONE]] [] : tensor<f32> to tensor<2x1xf32>
// CHECK-NEXT:    [[S:%.*]] = grad.reduce add [[G]] [0] : tensor<2x1xf32> to tensor<1xf32>
// CHECK-NEXT:    func.return [[S]] : tensor<1xf32>

// -----

// broadcast with no new or expanded dim: the share is `g` itself.
func.func @broadcast_identity(%x: tensor<1x3xf32>) -> tensor<1x3xf32> {
  %b = grad.broadcast %x [0, 1] : tensor<1x3xf32> to tensor<1x3xf32>
  %l = grad.reduce add %b [0, 1] : tensor<1x3xf32> to tensor<f32>
  %g = grad.gradient %l wrt %x : tensor<f32>, tensor<1x3xf32>
  func.return %g : tensor<1x3xf32>
}

// CHECK-LABEL: func.func @broadcast_identity(
// CHECK-NEXT:    %b = grad.broadcast %x [0, 1] : tensor<1x3xf32> to tensor<1x3xf32>
// CHECK-NEXT:    %l = grad.reduce add %b [0, 1] : tensor<1x3xf32> to tensor<f32>
// CHECK-NEXT:    [[ONE:%.*]] = grad.const 1.0 : tensor<f32>
// CHECK-NEXT:    [[G:%.*]] = grad.broadcast [[ONE]] [] : tensor<f32> to tensor<1x3xf32>
// CHECK-NEXT:    func.return [[G]] : tensor<1x3xf32>

// -----

// reshape a: `reshape g` to a's shape.
func.func @reshape(%x: tensor<6xf32>) -> tensor<6xf32> {
  %r = grad.reshape %x : tensor<6xf32> to tensor<2x3xf32>
  %l = grad.reduce add %r [0, 1] : tensor<2x3xf32> to tensor<f32>
  %g = grad.gradient %l wrt %x : tensor<f32>, tensor<6xf32>
  func.return %g : tensor<6xf32>
}

// CHECK-LABEL: func.func @reshape(
// CHECK-NEXT:    %r = grad.reshape %x : tensor<6xf32> to tensor<2x3xf32>
// CHECK-NEXT:    %l = grad.reduce add %r [0, 1] : tensor<2x3xf32> to tensor<f32>
// CHECK-NEXT:    [[ONE:%.*]] = grad.const 1.0 : tensor<f32>
// CHECK-NEXT:    [[G:%.*]] = grad.broadcast [[ONE]] [] : tensor<f32> to tensor<2x3xf32>
// CHECK-NEXT:    [[S:%.*]] = grad.reshape [[G]] : tensor<2x3xf32> to tensor<6xf32>
// CHECK-NEXT:    func.return [[S]] : tensor<6xf32>

// -----

// permute a [1, 2, 0]: `permute g` by the inverse permutation [2, 0, 1]
// (not by [1, 2, 0] again, which is not its own inverse).
func.func @permute(%x: tensor<2x3x4xf32>) -> tensor<2x3x4xf32> {
  %p = grad.permute %x [1, 2, 0] : tensor<2x3x4xf32> to tensor<3x4x2xf32>
  %l = grad.reduce add %p [0, 1, 2] : tensor<3x4x2xf32> to tensor<f32>
  %g = grad.gradient %l wrt %x : tensor<f32>, tensor<2x3x4xf32>
  func.return %g : tensor<2x3x4xf32>
}

// CHECK-LABEL: func.func @permute(
// CHECK-NEXT:    %p = grad.permute %x [1, 2, 0] : tensor<2x3x4xf32> to tensor<3x4x2xf32>
// CHECK-NEXT:    %l = grad.reduce add %p [0, 1, 2] : tensor<3x4x2xf32> to tensor<f32>
// CHECK-NEXT:    [[ONE:%.*]] = grad.const 1.0 : tensor<f32>
// CHECK-NEXT:    [[G:%.*]] = grad.broadcast [[ONE]] [] : tensor<f32> to tensor<3x4x2xf32>
// CHECK-NEXT:    [[S:%.*]] = grad.permute [[G]] [2, 0, 1] : tensor<3x4x2xf32> to tensor<2x3x4xf32>
// CHECK-NEXT:    func.return [[S]] : tensor<2x3x4xf32>

// -----

// dot a b: `dot g (permute b [1, 0])` to a, then `dot (permute a [1, 0]) g` to b.
func.func @dot(%a: tensor<2x3xf32>, %b: tensor<3x4xf32>) -> (tensor<2x3xf32>, tensor<3x4xf32>) {
  %d = grad.dot %a, %b : tensor<2x3xf32>, tensor<3x4xf32> to tensor<2x4xf32>
  %l = grad.reduce add %d [0, 1] : tensor<2x4xf32> to tensor<f32>
  %ga, %gb = grad.gradient %l wrt %a, %b : tensor<f32>, tensor<2x3xf32>, tensor<3x4xf32>
  func.return %ga, %gb : tensor<2x3xf32>, tensor<3x4xf32>
}

// CHECK-LABEL: func.func @dot(
// CHECK-NEXT:    %d = grad.dot %a, %b : tensor<2x3xf32>, tensor<3x4xf32> to tensor<2x4xf32>
// CHECK-NEXT:    %l = grad.reduce add %d [0, 1] : tensor<2x4xf32> to tensor<f32>
// CHECK-NEXT:    [[ONE:%.*]] = grad.const 1.0 : tensor<f32>
// CHECK-NEXT:    [[G:%.*]] = grad.broadcast [[ONE]] [] : tensor<f32> to tensor<2x4xf32>
// CHECK-NEXT:    [[BT:%.*]] = grad.permute %b [1, 0] : tensor<3x4xf32> to tensor<4x3xf32>
// CHECK-NEXT:    [[SA:%.*]] = grad.dot [[G]], [[BT]] : tensor<2x4xf32>, tensor<4x3xf32> to tensor<2x3xf32>
// CHECK-NEXT:    [[AT:%.*]] = grad.permute %a [1, 0] : tensor<2x3xf32> to tensor<3x2xf32>
// CHECK-NEXT:    [[SB:%.*]] = grad.dot [[AT]], [[G]] : tensor<3x2xf32>, tensor<2x4xf32> to tensor<3x4xf32>
// CHECK-NEXT:    func.return [[SA]], [[SB]] : tensor<2x3xf32>, tensor<3x4xf32>

// -----

// broadcast of a scalar: every output dim is new, so `reduce add g [0, 1]`,
// which already has a's type tensor<f32> (no reshape).
func.func @broadcast_scalar(%x: tensor<f32>) -> tensor<f32> {
  %b = grad.broadcast %x [] : tensor<f32> to tensor<2x3xf32>
  %l = grad.reduce add %b [0, 1] : tensor<2x3xf32> to tensor<f32>
  %g = grad.gradient %l wrt %x : tensor<f32>, tensor<f32>
  func.return %g : tensor<f32>
}

// CHECK-LABEL: func.func @broadcast_scalar(
// CHECK-NEXT:    %b = grad.broadcast %x [] : tensor<f32> to tensor<2x3xf32>
// CHECK-NEXT:    %l = grad.reduce add %b [0, 1] : tensor<2x3xf32> to tensor<f32>
// CHECK-NEXT:    [[ONE:%.*]] = grad.const 1.0 : tensor<f32>
// CHECK-NEXT:    [[G:%.*]] = grad.broadcast [[ONE]] [] : tensor<f32> to tensor<2x3xf32>
// CHECK-NEXT:    [[S:%.*]] = grad.reduce add [[G]] [0, 1] : tensor<2x3xf32> to tensor<f32>
// CHECK-NEXT:    func.return [[S]] : tensor<f32>
