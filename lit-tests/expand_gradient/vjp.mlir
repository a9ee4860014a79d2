// RUN: grad-opt %s -p expand-gradient --split-input-file | filecheck %s

// SPEC §5.5: `grad.vjp` is reverse mode seeded with the cotangent instead of
// `grad.const 1.0`; path, walk, shares and accumulation order are those of
// `grad.gradient`. `expand-gradient` expands it; vjp ops of the same loss and
// cotangent in a block share one walk.

// The reference: grad.gradient of sum(sin x).
func.func @gradient_reference(%x: tensor<3xf32>) -> tensor<3xf32> {
  %y = grad.sin %x : tensor<3xf32>
  %l = grad.reduce add %y [0] : tensor<3xf32> to tensor<f32>
  %g = grad.gradient %l wrt %x : tensor<f32>, tensor<3xf32>
  func.return %g : tensor<3xf32>
}

// CHECK-LABEL: func.func @gradient_reference(
// CHECK-NEXT:    %y = grad.sin %x : tensor<3xf32>
// CHECK-NEXT:    %l = grad.reduce add %y [0] : tensor<3xf32> to tensor<f32>
// CHECK-NEXT:    [[SEED:%.*]] = grad.const 1.0 : tensor<f32>
// CHECK-NEXT:    [[G:%.*]] = grad.broadcast [[SEED]] [] : tensor<f32> to tensor<3xf32>
// CHECK-NEXT:    [[PI2:%.*]] = grad.const 1.5707964 : tensor<3xf32>
// CHECK-NEXT:    [[A:%.*]] = grad.add %x, [[PI2]] : tensor<3xf32>
// CHECK-NEXT:    [[COS:%.*]] = grad.sin [[A]] : tensor<3xf32>
// CHECK-NEXT:    [[S:%.*]] = grad.mul [[G]], [[COS]] : tensor<3xf32>
// CHECK-NEXT:    func.return [[S]] : tensor<3xf32>

// -----

// The same with grad.vjp and a constant 1.0 cotangent: exactly the same ops,
// except that the seed is the program's %one (no new 1.0 constant).
func.func @vjp_one(%x: tensor<3xf32>) -> tensor<3xf32> {
  %one = grad.const 1.0 : tensor<f32>
  %y = grad.sin %x : tensor<3xf32>
  %l = grad.reduce add %y [0] : tensor<3xf32> to tensor<f32>
  %g = grad.vjp %l, %one wrt %x : tensor<f32>, tensor<3xf32>
  func.return %g : tensor<3xf32>
}

// CHECK-LABEL: func.func @vjp_one(
// CHECK-NEXT:    %one = grad.const 1.0 : tensor<f32>
// CHECK-NEXT:    %y = grad.sin %x : tensor<3xf32>
// CHECK-NEXT:    %l = grad.reduce add %y [0] : tensor<3xf32> to tensor<f32>
// CHECK-NEXT:    [[G:%.*]] = grad.broadcast %one [] : tensor<f32> to tensor<3xf32>
// CHECK-NEXT:    [[PI2:%.*]] = grad.const 1.5707964 : tensor<3xf32>
// CHECK-NEXT:    [[A:%.*]] = grad.add %x, [[PI2]] : tensor<3xf32>
// CHECK-NEXT:    [[COS:%.*]] = grad.sin [[A]] : tensor<3xf32>
// CHECK-NEXT:    [[S:%.*]] = grad.mul [[G]], [[COS]] : tensor<3xf32>
// CHECK-NEXT:    func.return [[S]] : tensor<3xf32>

// -----

// A non-scalar loss seeded by a cotangent argument, two targets.
func.func @vjp_tensor_loss(%a: tensor<3xf32>, %b: tensor<3xf32>, %ct: tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>) {
  %y = grad.mul %a, %b : tensor<3xf32>
  %ga, %gb = grad.vjp %y, %ct wrt %a, %b : tensor<3xf32>, tensor<3xf32>, tensor<3xf32>
  func.return %ga, %gb : tensor<3xf32>, tensor<3xf32>
}

// CHECK-LABEL: func.func @vjp_tensor_loss(
// CHECK-NEXT:    %y = grad.mul %a, %b : tensor<3xf32>
// CHECK-NEXT:    [[SA:%.*]] = grad.mul %ct, %b : tensor<3xf32>
// CHECK-NEXT:    [[SB:%.*]] = grad.mul %ct, %a : tensor<3xf32>
// CHECK-NEXT:    func.return [[SA]], [[SB]] : tensor<3xf32>, tensor<3xf32>

// -----

// Two vjp ops of one loss and one cotangent share one walk (all ops before
// the first); a vjp of the same loss with another cotangent is its own walk,
// placed before it.
func.func @vjp_walks(%a: tensor<3xf32>, %b: tensor<3xf32>, %ct: tensor<3xf32>, %ct2: tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) {
  %y = grad.mul %a, %b : tensor<3xf32>
  %ga = grad.vjp %y, %ct wrt %a : tensor<3xf32>, tensor<3xf32>
  %n = grad.neg %ga : tensor<3xf32>
  %gb = grad.vjp %y, %ct wrt %b : tensor<3xf32>, tensor<3xf32>
  %gc = grad.vjp %y, %ct2 wrt %a : tensor<3xf32>, tensor<3xf32>
  func.return %n, %gb, %gc : tensor<3xf32>, tensor<3xf32>, tensor<3xf32>
}

// CHECK-LABEL: func.func @vjp_walks(
// CHECK-NEXT:    %y = grad.mul %a, %b : tensor<3xf32>
// CHECK-NEXT:    [[SA:%.*]] = grad.mul %ct, %b : tensor<3xf32>
// CHECK-NEXT:    [[SB:%.*]] = grad.mul %ct, %a : tensor<3xf32>
// CHECK-NEXT:    %n = grad.neg [[SA]] : tensor<3xf32>
// CHECK-NEXT:    [[SC:%.*]] = grad.mul %ct2, %b : tensor<3xf32>
// CHECK-NEXT:    func.return %n, [[SB]], [[SC]] : tensor<3xf32>, tensor<3xf32>, tensor<3xf32>

// -----

// A gradient and a vjp of the same loss do not share a walk (different seeds),
// even with a 1.0 cotangent: each builds its own share.
func.func @gradient_and_vjp(%x: tensor<f32>) -> (tensor<f32>, tensor<f32>) {
  %one = grad.const 1.0 : tensor<f32>
  %l = grad.neg %x : tensor<f32>
  %g = grad.gradient %l wrt %x : tensor<f32>, tensor<f32>
  %v = grad.vjp %l, %one wrt %x : tensor<f32>, tensor<f32>
  func.return %g, %v : tensor<f32>, tensor<f32>
}

// CHECK-LABEL: func.func @gradient_and_vjp(
// CHECK-NEXT:    %one = grad.const 1.0 : tensor<f32>
// CHECK-NEXT:    %l = grad.neg %x : tensor<f32>
// CHECK-NEXT:    [[SEED:%.*]] = grad.const 1.0 : tensor<f32>
// CHECK-NEXT:    [[G:%.*]] = grad.neg [[SEED]] : tensor<f32>
// CHECK-NEXT:    [[V:%.*]] = grad.neg %one : tensor<f32>
// CHECK-NEXT:    func.return [[G]], [[V]] : tensor<f32>, tensor<f32>

// -----

// vjp with respect to the loss itself: the cotangent.
func.func @vjp_wrt_loss(%x: tensor<3xf32>, %ct: tensor<3xf32>) -> tensor<3xf32> {
  %g = grad.vjp %x, %ct wrt %x : tensor<3xf32>, tensor<3xf32>
  func.return %g : tensor<3xf32>
}

// CHECK-LABEL: func.func @vjp_wrt_loss(
// CHECK-NEXT:    func.return %ct : tensor<3xf32>
// CHECK-NEXT:  }
