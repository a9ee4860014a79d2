// RUN: grad-opt %s -p expand-gradient --split-input-file | filecheck %s

// SPEC §5.1 and §4: which nodes take part. Only f32 values that depend on a
// target and that the loss depends on (through f32 values only) compute or
// receive shares; i32/i1 routes and `grad.detach` are dead ends that send
// nothing (not a zero share); ops off the path are never inspected.

// grad_reduce_mul_off_path: `reduce mul` has no rule, but %p does not depend
// on the target, so it is off the path: valid, and it receives no share.
func.func @grad_reduce_mul_off_path(%x: tensor<3xf32>, %w: tensor<3xf32>) -> tensor<3xf32> {
  %s = grad.reduce add %x [0] : tensor<3xf32> to tensor<f32>
  %p = grad.reduce mul %w [0] : tensor<3xf32> to tensor<f32>
  %l = grad.mul %s, %p : tensor<f32>
  %g = grad.gradient %l wrt %x : tensor<f32>, tensor<3xf32>
  func.return %g : tensor<3xf32>
}

// CHECK-LABEL: func.func @grad_reduce_mul_off_path(
// CHECK-NEXT:    %s = grad.reduce add %x [0] : tensor<3xf32> to tensor<f32>
// CHECK-NEXT:    %p = grad.reduce mul %w [0] : tensor<3xf32> to tensor<f32>
// CHECK-NEXT:    %l = grad.mul %s, %p : tensor<f32>
// CHECK-NEXT:    [[ONE:%.*]] = grad.const 1.0 : tensor<f32>
// CHECK-NEXT:    [[GS:%.*]] = grad.mul [[ONE]], %p : tensor<f32>
// CHECK-NEXT:    [[S:%.*]] = grad.broadcast [[GS]] [] : tensor<f32> to tensor<3xf32>
// CHECK-NEXT:    func.return [[S]] : tensor<3xf32>

// -----

// `reduce mul` of a detached copy of the target: detach cuts the path, so the
// reduce mul is off it (valid) and x gets only the direct share.
func.func @reduce_mul_of_detached_target(%x: tensor<3xf32>) -> tensor<3xf32> {
  %d = grad.detach %x : tensor<3xf32>
  %p = grad.reduce mul %d [0] : tensor<3xf32> to tensor<f32>
  %s = grad.reduce add %x [0] : tensor<3xf32> to tensor<f32>
  %l = grad.add %p, %s : tensor<f32>
  %g = grad.gradient %l wrt %x : tensor<f32>, tensor<3xf32>
  func.return %g : tensor<3xf32>
}

// CHECK-LABEL: func.func @reduce_mul_of_detached_target(
// CHECK-NEXT:    %d = grad.detach %x : tensor<3xf32>
// CHECK-NEXT:    %p = grad.reduce mul %d [0] : tensor<3xf32> to tensor<f32>
// CHECK-NEXT:    %s = grad.reduce add %x [0] : tensor<3xf32> to tensor<f32>
// CHECK-NEXT:    %l = grad.add %p, %s : tensor<f32>
// CHECK-NEXT:    [[ONE:%.*]] = grad.const 1.0 : tensor<f32>
// CHECK-NEXT:    [[S:%.*]] = grad.broadcast [[ONE]] [] : tensor<f32> to tensor<3xf32>
// CHECK-NEXT:    func.return [[S]] : tensor<3xf32>

// -----

// mul x (detach x): only operand 0 is on the path; its share is `mul g b`
// with b the detached value; nothing is built for operand 1.
func.func @mul_detach(%x: tensor<f32>) -> tensor<f32> {
  %d = grad.detach %x : tensor<f32>
  %l = grad.mul %x, %d : tensor<f32>
  %g = grad.gradient %l wrt %x : tensor<f32>, tensor<f32>
  func.return %g : tensor<f32>
}

// CHECK-LABEL: func.func @mul_detach(
// CHECK-NEXT:    %d = grad.detach %x : tensor<f32>
// CHECK-NEXT:    %l = grad.mul %x, %d : tensor<f32>
// CHECK-NEXT:    [[ONE:%.*]] = grad.const 1.0 : tensor<f32>
// CHECK-NEXT:    [[S:%.*]] = grad.mul [[ONE]], %d : tensor<f32>
// CHECK-NEXT:    func.return [[S]] : tensor<f32>

// -----

// floor through cast to i32 and back: the route passes an i32 value, so x is
// not on the path and gets `grad.const 0.0` of its type. No share is sent, so
// nothing else is built (not even the unused seed 1.0).
func.func @floor_cast(%x: tensor<3xf32>) -> tensor<3xf32> {
  %i = grad.cast %x : tensor<3xf32> to tensor<3xi32>
  %f = grad.cast %i : tensor<3xi32> to tensor<3xf32>
  %l = grad.reduce add %f [0] : tensor<3xf32> to tensor<f32>
  %g = grad.gradient %l wrt %x : tensor<f32>, tensor<3xf32>
  func.return %g : tensor<3xf32>
}

// CHECK-LABEL: func.func @floor_cast(
// CHECK-NEXT:    %i = grad.cast %x : tensor<3xf32> to tensor<3xi32>
// CHECK-NEXT:    %f = grad.cast %i : tensor<3xi32> to tensor<3xf32>
// CHECK-NEXT:    %l = grad.reduce add %f [0] : tensor<3xf32> to tensor<f32>
// CHECK-NEXT:    [[Z:%.*]] = grad.const 0.0 : tensor<3xf32>
// CHECK-NEXT:    func.return [[Z]] : tensor<3xf32>

// -----

// A dead end sends nothing, not a zero share: x gets the `add` share alone,
// used unchanged (a zero share through the casts would show as an extra add).
func.func @cast_dead_end_no_share(%x: tensor<3xf32>) -> tensor<3xf32> {
  %i = grad.cast %x : tensor<3xf32> to tensor<3xi32>
  %f = grad.cast %i : tensor<3xi32> to tensor<3xf32>
  %y = grad.add %f, %x : tensor<3xf32>
  %l = grad.reduce add %y [0] : tensor<3xf32> to tensor<f32>
  %g = grad.gradient %l wrt %x : tensor<f32>, tensor<3xf32>
  func.return %g : tensor<3xf32>
}

// CHECK-LABEL: func.func @cast_dead_end_no_share(
// CHECK-NEXT:    %i = grad.cast %x : tensor<3xf32> to tensor<3xi32>
// CHECK-NEXT:    %f = grad.cast %i : tensor<3xi32> to tensor<3xf32>
// CHECK-NEXT:    %y = grad.add %f, %x : tensor<3xf32>
// CHECK-NEXT:    %l = grad.reduce add %y [0] : tensor<3xf32> to tensor<f32>
// CHECK-NEXT:    [[ONE:%.*]] = grad.const 1.0 : tensor<f32>
// CHECK-NEXT:    [[G:%.*]] = grad.broadcast [[ONE]] [] : tensor<f32> to tensor<3xf32>
// CHECK-NEXT:    func.return [[G]] : tensor<3xf32>

// -----

// A comparison used as a `where` condition is a dead end: x only decides the
// condition, so its gradient is zeros.
func.func @where_condition_dead_end(%x: tensor<3xf32>, %a: tensor<3xf32>, %b: tensor<3xf32>) -> tensor<3xf32> {
  %c = grad.cmplt %x, %a : tensor<3xf32>
  %y = grad.where %c, %a, %b : tensor<3xf32>
  %l = grad.reduce add %y [0] : tensor<3xf32> to tensor<f32>
  %g = grad.gradient %l wrt %x : tensor<f32>, tensor<3xf32>
  func.return %g : tensor<3xf32>
}

// CHECK-LABEL: func.func @where_condition_dead_end(
// CHECK-NEXT:    %c = grad.cmplt %x, %a : tensor<3xf32>
// CHECK-NEXT:    %y = grad.where %c, %a, %b : tensor<3xf32>
// CHECK-NEXT:    %l = grad.reduce add %y [0] : tensor<3xf32> to tensor<f32>
// CHECK-NEXT:    [[Z:%.*]] = grad.const 0.0 : tensor<3xf32>
// CHECK-NEXT:    func.return [[Z]] : tensor<3xf32>

// -----

// Loss independent of the target: zeros of the target's type (not an error).
func.func @independent_loss(%x: tensor<2x3xf32>, %y: tensor<3xf32>) -> tensor<2x3xf32> {
  %l = grad.reduce add %y [0] : tensor<3xf32> to tensor<f32>
  %g = grad.gradient %l wrt %x : tensor<f32>, tensor<2x3xf32>
  func.return %g : tensor<2x3xf32>
}

// CHECK-LABEL: func.func @independent_loss(
// CHECK-NEXT:    %l = grad.reduce add %y [0] : tensor<3xf32> to tensor<f32>
// CHECK-NEXT:    [[Z:%.*]] = grad.const 0.0 : tensor<2x3xf32>
// CHECK-NEXT:    func.return [[Z]] : tensor<2x3xf32>

// -----

// A target the loss does not reach, although both read x (x feeds t, but the
// loss ignores t): zeros; x's own share is not built, x is not a target.
func.func @target_not_reached(%x: tensor<3xf32>) -> tensor<3xf32> {
  %t = grad.sin %x : tensor<3xf32>
  %l = grad.reduce add %x [0] : tensor<3xf32> to tensor<f32>
  %g = grad.gradient %l wrt %t : tensor<f32>, tensor<3xf32>
  func.return %g : tensor<3xf32>
}

// CHECK-LABEL: func.func @target_not_reached(
// CHECK-NEXT:    %t = grad.sin %x : tensor<3xf32>
// CHECK-NEXT:    %l = grad.reduce add %x [0] : tensor<3xf32> to tensor<f32>
// CHECK-NEXT:    [[Z:%.*]] = grad.const 0.0 : tensor<3xf32>
// CHECK-NEXT:    func.return [[Z]] : tensor<3xf32>

// -----

// A training step: the weight is loaded, differentiated, and the update is
// stored back into the same slot. The load precedes the store, so there is
// no memory edge into the loss (valid); the update is off the path.
func.func @training_step(%slot: memref<3xf32>) {
  %w = grad.load %slot : memref<3xf32>
  %y = grad.mul %w, %w : tensor<3xf32>
  %l = grad.reduce add %y [0] : tensor<3xf32> to tensor<f32>
  %g = grad.gradient %l wrt %w : tensor<f32>, tensor<3xf32>
  %lr = grad.const 0.1 : tensor<3xf32>
  %step = grad.mul %g, %lr : tensor<3xf32>
  %nw = grad.neg %step : tensor<3xf32>
  %w2 = grad.add %w, %nw : tensor<3xf32>
  grad.store %w2, %slot : memref<3xf32>
  func.return
}

// CHECK-LABEL: func.func @training_step(
// CHECK-NEXT:    %w = grad.load %slot : memref<3xf32>
// CHECK-NEXT:    %y = grad.mul %w, %w : tensor<3xf32>
// CHECK-NEXT:    %l = grad.reduce add %y [0] : tensor<3xf32> to tensor<f32>
// CHECK-NEXT:    [[ONE:%.*]] = grad.const 1.0 : tensor<f32>
// CHECK-NEXT:    [[G:%.*]] = grad.broadcast [[ONE]] [] : tensor<f32> to tensor<3xf32>
// CHECK-NEXT:    [[S1:%.*]] = grad.mul [[G]], %w : tensor<3xf32>
// CHECK-NEXT:    [[S2:%.*]] = grad.mul [[G]], %w : tensor<3xf32>
// CHECK-NEXT:    [[GW:%.*]] = grad.add [[S1]], [[S2]] : tensor<3xf32>
// CHECK-NEXT:    %lr = grad.const 0.1 : tensor<3xf32>
// CHECK-NEXT:    %step = grad.mul [[GW]], %lr : tensor<3xf32>
// CHECK-NEXT:    %nw = grad.neg %step : tensor<3xf32>
// CHECK-NEXT:    %w2 = grad.add %w, %nw : tensor<3xf32>
// CHECK-NEXT:    grad.store %w2, %slot : memref<3xf32>
// CHECK-NEXT:    func.return
// CHECK-NEXT:  }

// -----

// The same step inside an `scf.for` body: the loss depends on neither the
// induction variable nor an iteration argument (valid), and the expansion
// goes into the loop body, before the gradient op.
func.func @training_loop(%slot: memref<3xf32>) {
  %lb = arith.constant 0 : index
  %ub = arith.constant 10 : index
  %st = arith.constant 1 : index
  scf.for %i = %lb to %ub step %st {
    %w = grad.load %slot : memref<3xf32>
    %y = grad.sin %w : tensor<3xf32>
    %l = grad.reduce add %y [0] : tensor<3xf32> to tensor<f32>
    %g = grad.gradient %l wrt %w : tensor<f32>, tensor<3xf32>
    %w2 = grad.add %w, %g : tensor<3xf32>
    grad.store %w2, %slot : memref<3xf32>
  }
  func.return
}

// CHECK-LABEL: func.func @training_loop(
// CHECK-NEXT:    %lb = arith.constant 0 : index
// CHECK-NEXT:    %ub = arith.constant 10 : index
// CHECK-NEXT:    %st = arith.constant 1 : index
// CHECK-NEXT:    scf.for %i = %lb to %ub step %st {
// CHECK-NEXT:      %w = grad.load %slot : memref<3xf32>
// CHECK-NEXT:      %y = grad.sin %w : tensor<3xf32>
// CHECK-NEXT:      %l = grad.reduce add %y [0] : tensor<3xf32> to tensor<f32>
// CHECK-NEXT:      [[ONE:%.*]] = grad.const 1.0 : tensor<f32>
// CHECK-NEXT:      [[G:%.*]] = grad.broadcast [[ONE]] [] : tensor<f32> to tensor<3xf32>
// CHECK-NEXT:      [[PI2:%.*]] = grad.const 1.5707964 : tensor<3xf32>
// CHECK-NEXT:      [[A:%.*]] = grad.add %w, [[PI2]] : tensor<3xf32>
// CHECK-NEXT:      [[COS:%.*]] = grad.sin [[A]] : tensor<3xf32>
// CHECK-NEXT:      [[GW:%.*]] = grad.mul [[G]], [[COS]] : tensor<3xf32>
// CHECK-NEXT:      %w2 = grad.add %w, [[GW]] : tensor<3xf32>
// CHECK-NEXT:      grad.store %w2, %slot : memref<3xf32>
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return
// CHECK-NEXT:  }

// -----

// A path value stored into one slot does not affect loads of another slot.
func.func @store_other_slot(%x: tensor<3xf32>, %s: memref<3xf32>, %t: memref<3xf32>) -> tensor<3xf32> {
  grad.store %x, %s : memref<3xf32>
  %v = grad.load %t : memref<3xf32>
  %y = grad.mul %x, %v : tensor<3xf32>
  %l = grad.reduce add %y [0] : tensor<3xf32> to tensor<f32>
  %g = grad.gradient %l wrt %x : tensor<f32>, tensor<3xf32>
  func.return %g : tensor<3xf32>
}

// CHECK-LABEL: func.func @store_other_slot(
// CHECK-NEXT:    grad.store %x, %s : memref<3xf32>
// CHECK-NEXT:    %v = grad.load %t : memref<3xf32>
// CHECK-NEXT:    %y = grad.mul %x, %v : tensor<3xf32>
// CHECK-NEXT:    %l = grad.reduce add %y [0] : tensor<3xf32> to tensor<f32>
// CHECK-NEXT:    [[ONE:%.*]] = grad.const 1.0 : tensor<f32>
// CHECK-NEXT:    [[G:%.*]] = grad.broadcast [[ONE]] [] : tensor<f32> to tensor<3xf32>
// CHECK-NEXT:    [[S:%.*]] = grad.mul [[G]], %v : tensor<3xf32>
// CHECK-NEXT:    func.return [[S]] : tensor<3xf32>

// -----

// A gradient op inside a loop body whose loss and target are defined outside
// the loop: no open range is involved (valid); the expansion goes into the
// body, before the gradient op.
func.func @gradient_in_loop_of_outer_loss(%x: tensor<f32>) -> tensor<f32> {
  %lb = arith.constant 0 : index
  %ub = arith.constant 4 : index
  %st = arith.constant 1 : index
  %l = grad.neg %x : tensor<f32>
  %r = scf.for %i = %lb to %ub step %st iter_args(%acc = %x) -> (tensor<f32>) {
    %g = grad.gradient %l wrt %x : tensor<f32>, tensor<f32>
    %n = grad.add %acc, %g : tensor<f32>
    scf.yield %n : tensor<f32>
  }
  func.return %r : tensor<f32>
}

// CHECK-LABEL: func.func @gradient_in_loop_of_outer_loss(
// CHECK-NEXT:    %lb = arith.constant 0 : index
// CHECK-NEXT:    %ub = arith.constant 4 : index
// CHECK-NEXT:    %st = arith.constant 1 : index
// CHECK-NEXT:    %l = grad.neg %x : tensor<f32>
// CHECK-NEXT:    %r = scf.for %i = %lb to %ub step %st iter_args(%acc = %x) -> (tensor<f32>) {
// CHECK-NEXT:      [[ONE:%.*]] = grad.const 1.0 : tensor<f32>
// CHECK-NEXT:      [[G:%.*]] = grad.neg [[ONE]] : tensor<f32>
// CHECK-NEXT:      %n = grad.add %acc, [[G]] : tensor<f32>
// CHECK-NEXT:      scf.yield %n : tensor<f32>
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %r : tensor<f32>
