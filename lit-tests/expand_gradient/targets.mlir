// RUN: grad-opt %s -p expand-gradient --split-input-file | filecheck %s

// SPEC §3.4, §5.2 step 5 and §5.4: several targets in one op, or several
// gradient ops of one loss in a block, cost one backward walk; all new ops go
// just before the (first) gradient op; result i is target i's gradient.

// Several targets, listed in another order than the operands: one walk, and
// each result is its own target's gradient (c gets `mul g y`, a and b get the
// add's g unchanged).
func.func @several_targets(%a: tensor<3xf32>, %b: tensor<3xf32>, %c: tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) {
  %y = grad.add %a, %b : tensor<3xf32>
  %z = grad.mul %y, %c : tensor<3xf32>
  %l = grad.reduce add %z [0] : tensor<3xf32> to tensor<f32>
  %gc, %ga, %gb = grad.gradient %l wrt %c, %a, %b : tensor<f32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>
  func.return %gc, %ga, %gb : tensor<3xf32>, tensor<3xf32>, tensor<3xf32>
}

// CHECK-LABEL: func.func @several_targets(
// CHECK-NEXT:    %y = grad.add %a, %b : tensor<3xf32>
// CHECK-NEXT:    %z = grad.mul %y, %c : tensor<3xf32>
// CHECK-NEXT:    %l = grad.reduce add %z [0] : tensor<3xf32> to tensor<f32>
// CHECK-NEXT:    [[ONE:%.*]] = grad.const 1.0 : tensor<f32>
// CHECK-NEXT:    [[G:%.*]] = grad.broadcast [[ONE]] [] : tensor<f32> to tensor<3xf32>
// CHECK-NEXT:    [[SY:%.*]] = grad.mul [[G]], %c : tensor<3xf32>
// CHECK-NEXT:    [[SC:%.*]] = grad.mul [[G]], %y : tensor<3xf32>
// CHECK-NEXT:    func.return [[SC]], [[SY]], [[SY]] : tensor<3xf32>, tensor<3xf32>, tensor<3xf32>

// -----

// The same target twice: both results are the same gradient value.
func.func @repeated_target(%x: tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>) {
  %y = grad.neg %x : tensor<3xf32>
  %l = grad.reduce add %y [0] : tensor<3xf32> to tensor<f32>
  %g0, %g1 = grad.gradient %l wrt %x, %x : tensor<f32>, tensor<3xf32>, tensor<3xf32>
  func.return %g0, %g1 : tensor<3xf32>, tensor<3xf32>
}

// CHECK-LABEL: func.func @repeated_target(
// CHECK-NEXT:    %y = grad.neg %x : tensor<3xf32>
// CHECK-NEXT:    %l = grad.reduce add %y [0] : tensor<3xf32> to tensor<f32>
// CHECK-NEXT:    [[ONE:%.*]] = grad.const 1.0 : tensor<f32>
// CHECK-NEXT:    [[G:%.*]] = grad.broadcast [[ONE]] [] : tensor<f32> to tensor<3xf32>
// CHECK-NEXT:    [[S:%.*]] = grad.neg [[G]] : tensor<3xf32>
// CHECK-NEXT:    func.return [[S]], [[S]] : tensor<3xf32>, tensor<3xf32>

// -----

// Two gradient ops of one loss in one block, with other ops between them: one
// walk, every new op before the first gradient op, no share op built twice.
func.func @two_gradient_ops(%a: tensor<3xf32>, %b: tensor<3xf32>) -> tensor<3xf32> {
  %y = grad.mul %a, %b : tensor<3xf32>
  %l = grad.reduce add %y [0] : tensor<3xf32> to tensor<f32>
  %ga = grad.gradient %l wrt %a : tensor<f32>, tensor<3xf32>
  %n = grad.neg %ga : tensor<3xf32>
  %gb = grad.gradient %l wrt %b : tensor<f32>, tensor<3xf32>
  %r = grad.add %n, %gb : tensor<3xf32>
  func.return %r : tensor<3xf32>
}

// CHECK-LABEL: func.func @two_gradient_ops(
// CHECK-NEXT:    %y = grad.mul %a, %b : tensor<3xf32>
// CHECK-NEXT:    %l = grad.reduce add %y [0] : tensor<3xf32> to tensor<f32>
// CHECK-NEXT:    [[ONE:%.*]] = grad.const 1.0 : tensor<f32>
// CHECK-NEXT:    [[G:%.*]] = grad.broadcast [[ONE]] [] : tensor<f32> to tensor<3xf32>
// CHECK-NEXT:    [[SA:%.*]] = grad.mul [[G]], %b : tensor<3xf32>
// CHECK-NEXT:    [[SB:%.*]] = grad.mul [[G]], %a : tensor<3xf32>
// CHECK-NOT:     grad.broadcast
// CHECK-NOT:     grad.mul
// CHECK:         %n = grad.neg [[SA]] : tensor<3xf32>
// CHECK-NOT:     grad.const
// CHECK-NOT:     grad.broadcast
// CHECK-NOT:     grad.mul
// CHECK:         %r = grad.add %n, [[SB]] : tensor<3xf32>
// CHECK-NEXT:    func.return %r : tensor<3xf32>

// -----

// A target w that depends on another target x: the walk continues past w for
// x (x gets `mul g w` from the mul, then the sin's share from w), and w's
// gradient is the one share it received.
func.func @dependent_targets(%x: tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>) {
  %w = grad.sin %x : tensor<3xf32>
  %p = grad.mul %w, %x : tensor<3xf32>
  %l = grad.reduce add %p [0] : tensor<3xf32> to tensor<f32>
  %gx, %gw = grad.gradient %l wrt %x, %w : tensor<f32>, tensor<3xf32>, tensor<3xf32>
  func.return %gx, %gw : tensor<3xf32>, tensor<3xf32>
}

// CHECK-LABEL: func.func @dependent_targets(
// CHECK-NEXT:    %w = grad.sin %x : tensor<3xf32>
// CHECK-NEXT:    %p = grad.mul %w, %x : tensor<3xf32>
// CHECK-NEXT:    %l = grad.reduce add %p [0] : tensor<3xf32> to tensor<f32>
// CHECK-NEXT:    [[ONE:%.*]] = grad.const 1.0 : tensor<f32>
// CHECK-NEXT:    [[G:%.*]] = grad.broadcast [[ONE]] [] : tensor<f32> to tensor<3xf32>
// CHECK-NEXT:    [[SW:%.*]] = grad.mul [[G]], %x : tensor<3xf32>
// CHECK-NEXT:    [[SX1:%.*]] = grad.mul [[G]], %w : tensor<3xf32>
// CHECK-NEXT:    [[PI2:%.*]] = grad.const 1.5707964 : tensor<3xf32>
// CHECK-NEXT:    [[A:%.*]] = grad.add %x, [[PI2]] : tensor<3xf32>
// CHECK-NEXT:    [[COS:%.*]] = grad.sin [[A]] : tensor<3xf32>
// CHECK-NEXT:    [[SX2:%.*]] = grad.mul [[SW]], [[COS]] : tensor<3xf32>
// CHECK-NEXT:    [[GX:%.*]] = grad.add [[SX1]], [[SX2]] : tensor<3xf32>
// CHECK-NEXT:    func.return [[GX]], [[SW]] : tensor<3xf32>, tensor<3xf32>

// -----

// The same w alone: the walk does not go past w's operands (no share to x, no
// sin rule), and w's gradient is built by the same ops as above (same bits).
func.func @dependent_target_alone(%x: tensor<3xf32>) -> tensor<3xf32> {
  %w = grad.sin %x : tensor<3xf32>
  %p = grad.mul %w, %x : tensor<3xf32>
  %l = grad.reduce add %p [0] : tensor<3xf32> to tensor<f32>
  %gw = grad.gradient %l wrt %w : tensor<f32>, tensor<3xf32>
  func.return %gw : tensor<3xf32>
}

// CHECK-LABEL: func.func @dependent_target_alone(
// CHECK-NEXT:    %w = grad.sin %x : tensor<3xf32>
// CHECK-NEXT:    %p = grad.mul %w, %x : tensor<3xf32>
// CHECK-NEXT:    %l = grad.reduce add %p [0] : tensor<3xf32> to tensor<f32>
// CHECK-NEXT:    [[ONE:%.*]] = grad.const 1.0 : tensor<f32>
// CHECK-NEXT:    [[G:%.*]] = grad.broadcast [[ONE]] [] : tensor<f32> to tensor<3xf32>
// CHECK-NEXT:    [[SW:%.*]] = grad.mul [[G]], %x : tensor<3xf32>
// CHECK-NEXT:    func.return [[SW]] : tensor<3xf32>

// -----

// Gradient with respect to the loss itself: the seed, 1.0.
func.func @wrt_loss(%x: tensor<3xf32>) -> tensor<f32> {
  %y = grad.sin %x : tensor<3xf32>
  %l = grad.reduce add %y [0] : tensor<3xf32> to tensor<f32>
  %g = grad.gradient %l wrt %l : tensor<f32>, tensor<f32>
  func.return %g : tensor<f32>
}

// CHECK-LABEL: func.func @wrt_loss(
// CHECK-NEXT:    %y = grad.sin %x : tensor<3xf32>
// CHECK-NEXT:    %l = grad.reduce add %y [0] : tensor<3xf32> to tensor<f32>
// CHECK-NEXT:    [[ONE:%.*]] = grad.const 1.0 : tensor<f32>
// CHECK-NEXT:    func.return [[ONE]] : tensor<f32>

// -----

// A loaded weight is a valid target (no store into the slot precedes it).
func.func @load_target(%slot: memref<3xf32>) -> tensor<3xf32> {
  %w = grad.load %slot : memref<3xf32>
  %y = grad.mul %w, %w : tensor<3xf32>
  %l = grad.reduce add %y [0] : tensor<3xf32> to tensor<f32>
  %g = grad.gradient %l wrt %w : tensor<f32>, tensor<3xf32>
  func.return %g : tensor<3xf32>
}

// CHECK-LABEL: func.func @load_target(
// CHECK-NEXT:    %w = grad.load %slot : memref<3xf32>
// CHECK-NEXT:    %y = grad.mul %w, %w : tensor<3xf32>
// CHECK-NEXT:    %l = grad.reduce add %y [0] : tensor<3xf32> to tensor<f32>
// CHECK-NEXT:    [[ONE:%.*]] = grad.const 1.0 : tensor<f32>
// CHECK-NEXT:    [[G:%.*]] = grad.broadcast [[ONE]] [] : tensor<f32> to tensor<3xf32>
// CHECK-NEXT:    [[S1:%.*]] = grad.mul [[G]], %w : tensor<3xf32>
// CHECK-NEXT:    [[S2:%.*]] = grad.mul [[G]], %w : tensor<3xf32>
// CHECK-NEXT:    [[S:%.*]] = grad.add [[S1]], [[S2]] : tensor<3xf32>
// CHECK-NEXT:    func.return [[S]] : tensor<3xf32>
