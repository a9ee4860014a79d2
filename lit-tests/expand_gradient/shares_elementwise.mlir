// RUN: grad-opt %s -p expand-gradient --split-input-file | filecheck %s

// SPEC §5.3, elementwise rows: each share is built exactly as the table writes
// it, innermost op first, left to right, shares in operand order, one new op
// per op named (only `grad.const` is reused). Each case sums a tensor<3xf32>
// node into the loss, so the node's g is `broadcast 1.0` (checked as G) and
// constants show their type.

// add: `g` to a, `g` to b (no new op for the share itself).
func.func @add(%a: tensor<3xf32>, %b: tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>) {
  %y = grad.add %a, %b : tensor<3xf32>
  %l = grad.reduce add %y [0] : tensor<3xf32> to tensor<f32>
  %ga, %gb = grad.gradient %l wrt %a, %b : tensor<f32>, tensor<3xf32>, tensor<3xf32>
  func.return %ga, %gb : tensor<3xf32>, tensor<3xf32>
}

// CHECK-LABEL: func.func @add(
// CHECK-NEXT:    %y = grad.add %a, %b : tensor<3xf32>
// CHECK-NEXT:    %l = grad.reduce add %y [0] : tensor<3xf32> to tensor<f32>
// CHECK-NEXT:    [[ONE:%.*]] = grad.const 1.0 : tensor<f32>
// CHECK-NEXT:    [[G:%.*]] = grad.broadcast [[ONE]] [] : tensor<f32> to tensor<3xf32>
// CHECK-NEXT:    func.return [[G]], [[G]] : tensor<3xf32>, tensor<3xf32>

// -----

// add x x: both shares reach x, which adds them (left fold of two).
func.func @add_same(%x: tensor<3xf32>) -> tensor<3xf32> {
  %y = grad.add %x, %x : tensor<3xf32>
  %l = grad.reduce add %y [0] : tensor<3xf32> to tensor<f32>
  %g = grad.gradient %l wrt %x : tensor<f32>, tensor<3xf32>
  func.return %g : tensor<3xf32>
}

// CHECK-LABEL: func.func @add_same(
// CHECK-NEXT:    %y = grad.add %x, %x : tensor<3xf32>
// CHECK-NEXT:    %l = grad.reduce add %y [0] : tensor<3xf32> to tensor<f32>
// CHECK-NEXT:    [[ONE:%.*]] = grad.const 1.0 : tensor<f32>
// CHECK-NEXT:    [[G:%.*]] = grad.broadcast [[ONE]] [] : tensor<f32> to tensor<3xf32>
// CHECK-NEXT:    [[S:%.*]] = grad.add [[G]], [[G]] : tensor<3xf32>
// CHECK-NEXT:    func.return [[S]] : tensor<3xf32>

// -----

// mul a b: `mul g b` to a, then `mul g a` to b (g is the left operand).
func.func @mul(%a: tensor<3xf32>, %b: tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>) {
  %y = grad.mul %a, %b : tensor<3xf32>
  %l = grad.reduce add %y [0] : tensor<3xf32> to tensor<f32>
  %ga, %gb = grad.gradient %l wrt %a, %b : tensor<f32>, tensor<3xf32>, tensor<3xf32>
  func.return %ga, %gb : tensor<3xf32>, tensor<3xf32>
}

// CHECK-LABEL: func.func @mul(
// CHECK-NEXT:    %y = grad.mul %a, %b : tensor<3xf32>
// CHECK-NEXT:    %l = grad.reduce add %y [0] : tensor<3xf32> to tensor<f32>
// CHECK-NEXT:    [[ONE:%.*]] = grad.const 1.0 : tensor<f32>
// CHECK-NEXT:    [[G:%.*]] = grad.broadcast [[ONE]] [] : tensor<f32> to tensor<3xf32>
// CHECK-NEXT:    [[SA:%.*]] = grad.mul [[G]], %b : tensor<3xf32>
// CHECK-NEXT:    [[SB:%.*]] = grad.mul [[G]], %a : tensor<3xf32>
// CHECK-NEXT:    func.return [[SA]], [[SB]] : tensor<3xf32>, tensor<3xf32>

// -----

// neg a: `neg g`.
func.func @neg(%x: tensor<3xf32>) -> tensor<3xf32> {
  %y = grad.neg %x : tensor<3xf32>
  %l = grad.reduce add %y [0] : tensor<3xf32> to tensor<f32>
  %g = grad.gradient %l wrt %x : tensor<f32>, tensor<3xf32>
  func.return %g : tensor<3xf32>
}

// CHECK-LABEL: func.func @neg(
// CHECK-NEXT:    %y = grad.neg %x : tensor<3xf32>
// CHECK-NEXT:    %l = grad.reduce add %y [0] : tensor<3xf32> to tensor<f32>
// CHECK-NEXT:    [[ONE:%.*]] = grad.const 1.0 : tensor<f32>
// CHECK-NEXT:    [[G:%.*]] = grad.broadcast [[ONE]] [] : tensor<f32> to tensor<3xf32>
// CHECK-NEXT:    [[S:%.*]] = grad.neg [[G]] : tensor<3xf32>
// CHECK-NEXT:    func.return [[S]] : tensor<3xf32>

// -----

// recip a: `mul g (neg (mul u u))`, u the recip's own result: the spec's own
// example of the creation order (`mul u u`, then `neg`, then `mul g`).
func.func @recip(%x: tensor<3xf32>) -> tensor<3xf32> {
  %y = grad.recip %x : tensor<3xf32>
  %l = grad.reduce add %y [0] : tensor<3xf32> to tensor<f32>
  %g = grad.gradient %l wrt %x : tensor<f32>, tensor<3xf32>
  func.return %g : tensor<3xf32>
}

// CHECK-LABEL: func.func @recip(
// CHECK-NEXT:    %y = grad.recip %x : tensor<3xf32>
// CHECK-NEXT:    %l = grad.reduce add %y [0] : tensor<3xf32> to tensor<f32>
// CHECK-NEXT:    [[ONE:%.*]] = grad.const 1.0 : tensor<f32>
// CHECK-NEXT:    [[G:%.*]] = grad.broadcast [[ONE]] [] : tensor<f32> to tensor<3xf32>
// CHECK-NEXT:    [[UU:%.*]] = grad.mul %y, %y : tensor<3xf32>
// CHECK-NEXT:    [[N:%.*]] = grad.neg [[UU]] : tensor<3xf32>
// CHECK-NEXT:    [[S:%.*]] = grad.mul [[G]], [[N]] : tensor<3xf32>
// CHECK-NEXT:    func.return [[S]] : tensor<3xf32>

// -----

// max a b, both on the path: e = cmpeq a b and h = where e (mul g 0.5) 0.0 are
// built once, before the first share, and shared by both shares;
// `where (cmplt b a) g h` to a, `where (cmplt a b) g h` to b.
func.func @max(%a: tensor<3xf32>, %b: tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>) {
  %y = grad.max %a, %b : tensor<3xf32>
  %l = grad.reduce add %y [0] : tensor<3xf32> to tensor<f32>
  %ga, %gb = grad.gradient %l wrt %a, %b : tensor<f32>, tensor<3xf32>, tensor<3xf32>
  func.return %ga, %gb : tensor<3xf32>, tensor<3xf32>
}

// CHECK-LABEL: func.func @max(
// CHECK-NEXT:    %y = grad.max %a, %b : tensor<3xf32>
// CHECK-NEXT:    %l = grad.reduce add %y [0] : tensor<3xf32> to tensor<f32>
// CHECK-NEXT:    [[ONE:%.*]] = grad.const 1.0 : tensor<f32>
// CHECK-NEXT:    [[G:%.*]] = grad.broadcast [[ONE]] [] : tensor<f32> to tensor<3xf32>
// CHECK-NEXT:    [[E:%.*]] = grad.cmpeq %a, %b : tensor<3xf32>
// CHECK-NEXT:    [[HALF:%.*]] = grad.const 0.5 : tensor<3xf32>
// CHECK-NEXT:    [[GH:%.*]] = grad.mul [[G]], [[HALF]] : tensor<3xf32>
// CHECK-NEXT:    [[ZERO:%.*]] = grad.const 0.0 : tensor<3xf32>
// CHECK-NEXT:    [[H:%.*]] = grad.where [[E]], [[GH]], [[ZERO]] : tensor<3xf32>
// CHECK-NEXT:    [[LA:%.*]] = grad.cmplt %b, %a : tensor<3xf32>
// CHECK-NEXT:    [[SA:%.*]] = grad.where [[LA]], [[G]], [[H]] : tensor<3xf32>
// CHECK-NEXT:    [[LB:%.*]] = grad.cmplt %a, %b : tensor<3xf32>
// CHECK-NEXT:    [[SB:%.*]] = grad.where [[LB]], [[G]], [[H]] : tensor<3xf32>
// CHECK-NEXT:    func.return [[SA]], [[SB]] : tensor<3xf32>, tensor<3xf32>

// -----

// max with only operand a on the path (%c is not a target): only a's share is
// built; b gets nothing (no `cmplt a b`).
func.func @max_a_only(%x: tensor<3xf32>, %c: tensor<3xf32>) -> tensor<3xf32> {
  %y = grad.max %x, %c : tensor<3xf32>
  %l = grad.reduce add %y [0] : tensor<3xf32> to tensor<f32>
  %g = grad.gradient %l wrt %x : tensor<f32>, tensor<3xf32>
  func.return %g : tensor<3xf32>
}

// CHECK-LABEL: func.func @max_a_only(
// CHECK-NEXT:    %y = grad.max %x, %c : tensor<3xf32>
// CHECK-NEXT:    %l = grad.reduce add %y [0] : tensor<3xf32> to tensor<f32>
// CHECK-NEXT:    [[ONE:%.*]] = grad.const 1.0 : tensor<f32>
// CHECK-NEXT:    [[G:%.*]] = grad.broadcast [[ONE]] [] : tensor<f32> to tensor<3xf32>
// CHECK-NEXT:    [[E:%.*]] = grad.cmpeq %x, %c : tensor<3xf32>
// CHECK-NEXT:    [[HALF:%.*]] = grad.const 0.5 : tensor<3xf32>
// CHECK-NEXT:    [[GH:%.*]] = grad.mul [[G]], [[HALF]] : tensor<3xf32>
// CHECK-NEXT:    [[ZERO:%.*]] = grad.const 0.0 : tensor<3xf32>
// CHECK-NEXT:    [[H:%.*]] = grad.where [[E]], [[GH]], [[ZERO]] : tensor<3xf32>
// CHECK-NEXT:    [[LA:%.*]] = grad.cmplt %c, %x : tensor<3xf32>
// CHECK-NEXT:    [[SA:%.*]] = grad.where [[LA]], [[G]], [[H]] : tensor<3xf32>
// CHECK-NEXT:    func.return [[SA]] : tensor<3xf32>

// -----

// max with only operand b on the path: b's share `where (cmplt a b) g h`,
// with a = %c, b = %x.
func.func @max_b_only(%c: tensor<3xf32>, %x: tensor<3xf32>) -> tensor<3xf32> {
  %y = grad.max %c, %x : tensor<3xf32>
  %l = grad.reduce add %y [0] : tensor<3xf32> to tensor<f32>
  %g = grad.gradient %l wrt %x : tensor<f32>, tensor<3xf32>
  func.return %g : tensor<3xf32>
}

// CHECK-LABEL: func.func @max_b_only(
// CHECK-NEXT:    %y = grad.max %c, %x : tensor<3xf32>
// CHECK-NEXT:    %l = grad.reduce add %y [0] : tensor<3xf32> to tensor<f32>
// CHECK-NEXT:    [[ONE:%.*]] = grad.const 1.0 : tensor<f32>
// CHECK-NEXT:    [[G:%.*]] = grad.broadcast [[ONE]] [] : tensor<f32> to tensor<3xf32>
// CHECK-NEXT:    [[E:%.*]] = grad.cmpeq %c, %x : tensor<3xf32>
// CHECK-NEXT:    [[HALF:%.*]] = grad.const 0.5 : tensor<3xf32>
// CHECK-NEXT:    [[GH:%.*]] = grad.mul [[G]], [[HALF]] : tensor<3xf32>
// CHECK-NEXT:    [[ZERO:%.*]] = grad.const 0.0 : tensor<3xf32>
// CHECK-NEXT:    [[H:%.*]] = grad.where [[E]], [[GH]], [[ZERO]] : tensor<3xf32>
// CHECK-NEXT:    [[LB:%.*]] = grad.cmplt %c, %x : tensor<3xf32>
// CHECK-NEXT:    [[SB:%.*]] = grad.where [[LB]], [[G]], [[H]] : tensor<3xf32>
// CHECK-NEXT:    func.return [[SB]] : tensor<3xf32>

// -----

// where c a b: `where c g 0.0` to a, `where c 0.0 g` to b, nothing to c. The
// condition is an i1 comparison of the targets: a dead end, not differentiated.
func.func @where(%a: tensor<3xf32>, %b: tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>) {
  %c = grad.cmplt %a, %b : tensor<3xf32>
  %y = grad.where %c, %a, %b : tensor<3xf32>
  %l = grad.reduce add %y [0] : tensor<3xf32> to tensor<f32>
  %ga, %gb = grad.gradient %l wrt %a, %b : tensor<f32>, tensor<3xf32>, tensor<3xf32>
  func.return %ga, %gb : tensor<3xf32>, tensor<3xf32>
}

// CHECK-LABEL: func.func @where(
// CHECK-NEXT:    %c = grad.cmplt %a, %b : tensor<3xf32>
// CHECK-NEXT:    %y = grad.where %c, %a, %b : tensor<3xf32>
// CHECK-NEXT:    %l = grad.reduce add %y [0] : tensor<3xf32> to tensor<f32>
// CHECK-NEXT:    [[ONE:%.*]] = grad.const 1.0 : tensor<f32>
// CHECK-NEXT:    [[G:%.*]] = grad.broadcast [[ONE]] [] : tensor<f32> to tensor<3xf32>
// CHECK-NEXT:    [[ZERO:%.*]] = grad.const 0.0 : tensor<3xf32>
// CHECK-NEXT:    [[SA:%.*]] = grad.where %c, [[G]], [[ZERO]] : tensor<3xf32>
// CHECK-NEXT:    [[SB:%.*]] = grad.where %c, [[ZERO]], [[G]] : tensor<3xf32>
// CHECK-NEXT:    func.return [[SA]], [[SB]] : tensor<3xf32>, tensor<3xf32>

// -----

// exp2 a: `mul (mul g u) 0.6931472`.
func.func @exp2(%x: tensor<3xf32>) -> tensor<3xf32> {
  %y = grad.exp2 %x : tensor<3xf32>
  %l = grad.reduce add %y [0] : tensor<3xf32> to tensor<f32>
  %g = grad.gradient %l wrt %x : tensor<f32>, tensor<3xf32>
  func.return %g : tensor<3xf32>
}

// CHECK-LABEL: func.func @exp2(
// CHECK-NEXT:    %y = grad.exp2 %x : tensor<3xf32>
// CHECK-NEXT:    %l = grad.reduce add %y [0] : tensor<3xf32> to tensor<f32>
// CHECK-NEXT:    [[ONE:%.*]] = grad.const 1.0 : tensor<f32>
// CHECK-NEXT:    [[G:%.*]] = grad.broadcast [[ONE]] [] : tensor<f32> to tensor<3xf32>
// CHECK-NEXT:    [[GU:%.*]] = grad.mul [[G]], %y : tensor<3xf32>
// CHECK-NEXT:    [[LN2:%.*]] = grad.const 0.6931472 : tensor<3xf32>
// CHECK-NEXT:    [[S:%.*]] = grad.mul [[GU]], [[LN2]] : tensor<3xf32>
// CHECK-NEXT:    func.return [[S]] : tensor<3xf32>

// -----

// log2 a: `mul g (recip (mul a 0.6931472))` (a, the operand, not u).
func.func @log2(%x: tensor<3xf32>) -> tensor<3xf32> {
  %y = grad.log2 %x : tensor<3xf32>
  %l = grad.reduce add %y [0] : tensor<3xf32> to tensor<f32>
  %g = grad.gradient %l wrt %x : tensor<f32>, tensor<3xf32>
  func.return %g : tensor<3xf32>
}

// CHECK-LABEL: func.func @log2(
// CHECK-NEXT:    %y = grad.log2 %x : tensor<3xf32>
// CHECK-NEXT:    %l = grad.reduce add %y [0] : tensor<3xf32> to tensor<f32>
// CHECK-NEXT:    [[ONE:%.*]] = grad.const 1.0 : tensor<f32>
// CHECK-NEXT:    [[G:%.*]] = grad.broadcast [[ONE]] [] : tensor<f32> to tensor<3xf32>
// CHECK-NEXT:    [[LN2:%.*]] = grad.const 0.6931472 : tensor<3xf32>
// CHECK-NEXT:    [[AL:%.*]] = grad.mul %x, [[LN2]] : tensor<3xf32>
// CHECK-NEXT:    [[R:%.*]] = grad.recip [[AL]] : tensor<3xf32>
// CHECK-NEXT:    [[S:%.*]] = grad.mul [[G]], [[R]] : tensor<3xf32>
// CHECK-NEXT:    func.return [[S]] : tensor<3xf32>

// -----

// sqrt a: `mul g (recip (mul u 2.0))`.
func.func @sqrt(%x: tensor<3xf32>) -> tensor<3xf32> {
  %y = grad.sqrt %x : tensor<3xf32>
  %l = grad.reduce add %y [0] : tensor<3xf32> to tensor<f32>
  %g = grad.gradient %l wrt %x : tensor<f32>, tensor<3xf32>
  func.return %g : tensor<3xf32>
}

// CHECK-LABEL: func.func @sqrt(
// CHECK-NEXT:    %y = grad.sqrt %x : tensor<3xf32>
// CHECK-NEXT:    %l = grad.reduce add %y [0] : tensor<3xf32> to tensor<f32>
// CHECK-NEXT:    [[ONE:%.*]] = grad.const 1.0 : tensor<f32>
// CHECK-NEXT:    [[G:%.*]] = grad.broadcast [[ONE]] [] : tensor<f32> to tensor<3xf32>
// CHECK-NEXT:    [[TWO:%.*]] = grad.const 2.0 : tensor<3xf32>
// CHECK-NEXT:    [[U2:%.*]] = grad.mul %y, [[TWO]] : tensor<3xf32>
// CHECK-NEXT:    [[R:%.*]] = grad.recip [[U2]] : tensor<3xf32>
// CHECK-NEXT:    [[S:%.*]] = grad.mul [[G]], [[R]] : tensor<3xf32>
// CHECK-NEXT:    func.return [[S]] : tensor<3xf32>

// -----

// sin a: `mul g (sin (add a 1.5707964))`.
func.func @sin(%x: tensor<3xf32>) -> tensor<3xf32> {
  %y = grad.sin %x : tensor<3xf32>
  %l = grad.reduce add %y [0] : tensor<3xf32> to tensor<f32>
  %g = grad.gradient %l wrt %x : tensor<f32>, tensor<3xf32>
  func.return %g : tensor<3xf32>
}

// CHECK-LABEL: func.func @sin(
// CHECK-NEXT:    %y = grad.sin %x : tensor<3xf32>
// CHECK-NEXT:    %l = grad.reduce add %y [0] : tensor<3xf32> to tensor<f32>
// CHECK-NEXT:    [[ONE:%.*]] = grad.const 1.0 : tensor<f32>
// CHECK-NEXT:    [[G:%.*]] = grad.broadcast [[ONE]] [] : tensor<f32> to tensor<3xf32>
// CHECK-NEXT:    [[PI2:%.*]] = grad.const 1.5707964 : tensor<3xf32>
// CHECK-NEXT:    [[A:%.*]] = grad.add %x, [[PI2]] : tensor<3xf32>
// CHECK-NEXT:    [[C:%.*]] = grad.sin [[A]] : tensor<3xf32>
// CHECK-NEXT:    [[S:%.*]] = grad.mul [[G]], [[C]] : tensor<3xf32>
// CHECK-NEXT:    func.return [[S]] : tensor<3xf32>

// -----

// cast f32 -> f32: `g` itself (no new op).
func.func @cast(%x: tensor<3xf32>) -> tensor<3xf32> {
  %y = grad.cast %x : tensor<3xf32> to tensor<3xf32>
  %l = grad.reduce add %y [0] : tensor<3xf32> to tensor<f32>
  %g = grad.gradient %l wrt %x : tensor<f32>, tensor<3xf32>
  func.return %g : tensor<3xf32>
}

// CHECK-LABEL: func.func @cast(
// CHECK-NEXT:    %y = grad.cast %x : tensor<3xf32> to tensor<3xf32>
// CHECK-NEXT:    %l = grad.reduce add %y [0] : tensor<3xf32> to tensor<f32>
// CHECK-NEXT:    [[ONE:%.*]] = grad.const 1.0 : tensor<f32>
// CHECK-NEXT:    [[G:%.*]] = grad.broadcast [[ONE]] [] : tensor<f32> to tensor<3xf32>
// CHECK-NEXT:    func.return [[G]] : tensor<3xf32>

// -----

// bitcast f32 -> f32: `g` itself (no new op).
func.func @bitcast(%x: tensor<3xf32>) -> tensor<3xf32> {
  %y = grad.bitcast %x : tensor<3xf32> to tensor<3xf32>
  %l = grad.reduce add %y [0] : tensor<3xf32> to tensor<f32>
  %g = grad.gradient %l wrt %x : tensor<f32>, tensor<3xf32>
  func.return %g : tensor<3xf32>
}

// CHECK-LABEL: func.func @bitcast(
// CHECK-NEXT:    %y = grad.bitcast %x : tensor<3xf32> to tensor<3xf32>
// CHECK-NEXT:    %l = grad.reduce add %y [0] : tensor<3xf32> to tensor<f32>
// CHECK-NEXT:    [[ONE:%.*]] = grad.const 1.0 : tensor<f32>
// CHECK-NEXT:    [[G:%.*]] = grad.broadcast [[ONE]] [] : tensor<f32> to tensor<3xf32>
// CHECK-NEXT:    func.return [[G]] : tensor<3xf32>

// -----

// detach a: nothing. x gets only the `add` share through operand 1, used
// unchanged (a second share through the detach would show as `add g g`).
func.func @detach(%x: tensor<3xf32>) -> tensor<3xf32> {
  %d = grad.detach %x : tensor<3xf32>
  %y = grad.add %d, %x : tensor<3xf32>
  %l = grad.reduce add %y [0] : tensor<3xf32> to tensor<f32>
  %g = grad.gradient %l wrt %x : tensor<f32>, tensor<3xf32>
  func.return %g : tensor<3xf32>
}

// CHECK-LABEL: func.func @detach(
// CHECK-NEXT:    %d = grad.detach %x : tensor<3xf32>
// CHECK-NEXT:    %y = grad.add %d, %x : tensor<3xf32>
// CHECK-NEXT:    %l = grad.reduce add %y [0] : tensor<3xf32> to tensor<f32>
// CHECK-NEXT:    [[ONE:%.*]] = grad.const 1.0 : tensor<f32>
// CHECK-NEXT:    [[G:%.*]] = grad.broadcast [[ONE]] [] : tensor<f32> to tensor<3xf32>
// CHECK-NEXT:    func.return [[G]] : tensor<3xf32>
