// RUN: grad-opt %s -p expand-jvp --split-input-file | filecheck %s
// RUN: grad-opt %s -p expand-gradient --split-input-file | filecheck %s

// SPEC §5.6: `expand-jvp` replaces `grad.jvp %y wrt %x, %tx` by a forward walk
// over the path nodes in post-order of y's graph, each tangent built exactly
// as the table writes it (innermost first, left to right, one new op per op
// named, only `grad.const` reused). An operand off the path has no tangent:
// in `add` the other tangent passes unchanged, in `mul` and `dot` its term is
// left out, elsewhere it is 0.0. `expand-gradient` expands jvp ops the same way.

// add with both operands on the path: `add t_a t_b`.
func.func @add(%x: tensor<3xf32>, %tx: tensor<3xf32>) -> tensor<3xf32> {
  %y = grad.add %x, %x : tensor<3xf32>
  %t = grad.jvp %y wrt %x, %tx : tensor<3xf32>, tensor<3xf32>
  func.return %t : tensor<3xf32>
}

// CHECK-LABEL: func.func @add(
// CHECK-NEXT:    %y = grad.add %x, %x : tensor<3xf32>
// CHECK-NEXT:    [[T:%.*]] = grad.add %tx, %tx : tensor<3xf32>
// CHECK-NEXT:    func.return [[T]] : tensor<3xf32>

// -----

// add with b off the path: t_a passes unchanged (no op at all).
func.func @add_one_side(%x: tensor<3xf32>, %c: tensor<3xf32>, %tx: tensor<3xf32>) -> tensor<3xf32> {
  %y = grad.add %c, %x : tensor<3xf32>
  %t = grad.jvp %y wrt %x, %tx : tensor<3xf32>, tensor<3xf32>
  func.return %t : tensor<3xf32>
}

// CHECK-LABEL: func.func @add_one_side(
// CHECK-NEXT:    %y = grad.add %c, %x : tensor<3xf32>
// CHECK-NEXT:    func.return %tx : tensor<3xf32>

// -----

// mul with both operands on the path: `add (mul t_a b) (mul a t_b)`.
func.func @mul(%x: tensor<3xf32>, %tx: tensor<3xf32>) -> tensor<3xf32> {
  %y = grad.mul %x, %x : tensor<3xf32>
  %t = grad.jvp %y wrt %x, %tx : tensor<3xf32>, tensor<3xf32>
  func.return %t : tensor<3xf32>
}

// CHECK-LABEL: func.func @mul(
// CHECK-NEXT:    %y = grad.mul %x, %x : tensor<3xf32>
// CHECK-NEXT:    [[L:%.*]] = grad.mul %tx, %x : tensor<3xf32>
// CHECK-NEXT:    [[R:%.*]] = grad.mul %x, %tx : tensor<3xf32>
// CHECK-NEXT:    [[T:%.*]] = grad.add [[L]], [[R]] : tensor<3xf32>
// CHECK-NEXT:    func.return [[T]] : tensor<3xf32>

// -----

// mul with b off the path: the one term `mul t_a b`.
func.func @mul_a_only(%x: tensor<3xf32>, %c: tensor<3xf32>, %tx: tensor<3xf32>) -> tensor<3xf32> {
  %y = grad.mul %x, %c : tensor<3xf32>
  %t = grad.jvp %y wrt %x, %tx : tensor<3xf32>, tensor<3xf32>
  func.return %t : tensor<3xf32>
}

// CHECK-LABEL: func.func @mul_a_only(
// CHECK-NEXT:    %y = grad.mul %x, %c : tensor<3xf32>
// CHECK-NEXT:    [[T:%.*]] = grad.mul %tx, %c : tensor<3xf32>
// CHECK-NEXT:    func.return [[T]] : tensor<3xf32>

// -----

// mul with a off the path: the one term `mul a t_b`.
func.func @mul_b_only(%x: tensor<3xf32>, %c: tensor<3xf32>, %tx: tensor<3xf32>) -> tensor<3xf32> {
  %y = grad.mul %c, %x : tensor<3xf32>
  %t = grad.jvp %y wrt %x, %tx : tensor<3xf32>, tensor<3xf32>
  func.return %t : tensor<3xf32>
}

// CHECK-LABEL: func.func @mul_b_only(
// CHECK-NEXT:    %y = grad.mul %c, %x : tensor<3xf32>
// CHECK-NEXT:    [[T:%.*]] = grad.mul %c, %tx : tensor<3xf32>
// CHECK-NEXT:    func.return [[T]] : tensor<3xf32>

// -----

// neg: `neg t_a`.
func.func @neg(%x: tensor<3xf32>, %tx: tensor<3xf32>) -> tensor<3xf32> {
  %y = grad.neg %x : tensor<3xf32>
  %t = grad.jvp %y wrt %x, %tx : tensor<3xf32>, tensor<3xf32>
  func.return %t : tensor<3xf32>
}

// CHECK-LABEL: func.func @neg(
// CHECK-NEXT:    %y = grad.neg %x : tensor<3xf32>
// CHECK-NEXT:    [[T:%.*]] = grad.neg %tx : tensor<3xf32>
// CHECK-NEXT:    func.return [[T]] : tensor<3xf32>

// -----

// recip: `mul t_a (neg (mul u u))`.
func.func @recip(%x: tensor<3xf32>, %tx: tensor<3xf32>) -> tensor<3xf32> {
  %y = grad.recip %x : tensor<3xf32>
  %t = grad.jvp %y wrt %x, %tx : tensor<3xf32>, tensor<3xf32>
  func.return %t : tensor<3xf32>
}

// CHECK-LABEL: func.func @recip(
// CHECK-NEXT:    %y = grad.recip %x : tensor<3xf32>
// CHECK-NEXT:    [[UU:%.*]] = grad.mul %y, %y : tensor<3xf32>
// CHECK-NEXT:    [[N:%.*]] = grad.neg [[UU]] : tensor<3xf32>
// CHECK-NEXT:    [[T:%.*]] = grad.mul %tx, [[N]] : tensor<3xf32>
// CHECK-NEXT:    func.return [[T]] : tensor<3xf32>

// -----

// max with both operands on the path (b = neg x, whose tangent is `neg t_x`):
// `where (cmplt b a) t_a (where (cmplt a b) t_b (mul (add t_a t_b) 0.5))`.
func.func @max(%x: tensor<3xf32>, %tx: tensor<3xf32>) -> tensor<3xf32> {
  %n = grad.neg %x : tensor<3xf32>
  %y = grad.max %x, %n : tensor<3xf32>
  %t = grad.jvp %y wrt %x, %tx : tensor<3xf32>, tensor<3xf32>
  func.return %t : tensor<3xf32>
}

// CHECK-LABEL: func.func @max(
// CHECK-NEXT:    %n = grad.neg %x : tensor<3xf32>
// CHECK-NEXT:    %y = grad.max %x, %n : tensor<3xf32>
// CHECK-NEXT:    [[TN:%.*]] = grad.neg %tx : tensor<3xf32>
// CHECK-NEXT:    [[AW:%.*]] = grad.cmplt %n, %x : tensor<3xf32>
// CHECK-NEXT:    [[BW:%.*]] = grad.cmplt %x, %n : tensor<3xf32>
// CHECK-NEXT:    [[SUM:%.*]] = grad.add %tx, [[TN]] : tensor<3xf32>
// CHECK-NEXT:    [[HALF:%.*]] = grad.const 0.5 : tensor<3xf32>
// CHECK-NEXT:    [[TIE:%.*]] = grad.mul [[SUM]], [[HALF]] : tensor<3xf32>
// CHECK-NEXT:    [[IN:%.*]] = grad.where [[BW]], [[TN]], [[TIE]] : tensor<3xf32>
// CHECK-NEXT:    [[T:%.*]] = grad.where [[AW]], %tx, [[IN]] : tensor<3xf32>
// CHECK-NEXT:    func.return [[T]] : tensor<3xf32>

// -----

// max with b off the path, the spec's own example:
// `where (cmplt b a) t_a (where (cmplt a b) 0.0 (mul t_a 0.5))`.
func.func @max_b_off_path(%a: tensor<3xf32>, %b: tensor<3xf32>, %ta: tensor<3xf32>) -> tensor<3xf32> {
  %y = grad.max %a, %b : tensor<3xf32>
  %t = grad.jvp %y wrt %a, %ta : tensor<3xf32>, tensor<3xf32>
  func.return %t : tensor<3xf32>
}

// CHECK-LABEL: func.func @max_b_off_path(
// CHECK-NEXT:    %y = grad.max %a, %b : tensor<3xf32>
// CHECK-NEXT:    [[AW:%.*]] = grad.cmplt %b, %a : tensor<3xf32>
// CHECK-NEXT:    [[BW:%.*]] = grad.cmplt %a, %b : tensor<3xf32>
// CHECK-NEXT:    [[ZERO:%.*]] = grad.const 0.0 : tensor<3xf32>
// CHECK-NEXT:    [[HALF:%.*]] = grad.const 0.5 : tensor<3xf32>
// CHECK-NEXT:    [[TIE:%.*]] = grad.mul %ta, [[HALF]] : tensor<3xf32>
// CHECK-NEXT:    [[IN:%.*]] = grad.where [[BW]], [[ZERO]], [[TIE]] : tensor<3xf32>
// CHECK-NEXT:    [[T:%.*]] = grad.where [[AW]], %ta, [[IN]] : tensor<3xf32>
// CHECK-NEXT:    func.return [[T]] : tensor<3xf32>

// -----

// max with a off the path: t_a is 0.0, created where it is first needed
// (after `cmplt b a`); `where (cmplt b a) 0.0 (where (cmplt a b) t_b (mul t_b 0.5))`.
func.func @max_a_off_path(%a: tensor<3xf32>, %b: tensor<3xf32>, %tb: tensor<3xf32>) -> tensor<3xf32> {
  %y = grad.max %a, %b : tensor<3xf32>
  %t = grad.jvp %y wrt %b, %tb : tensor<3xf32>, tensor<3xf32>
  func.return %t : tensor<3xf32>
}

// CHECK-LABEL: func.func @max_a_off_path(
// CHECK-NEXT:    %y = grad.max %a, %b : tensor<3xf32>
// CHECK-NEXT:    [[AW:%.*]] = grad.cmplt %b, %a : tensor<3xf32>
// CHECK-NEXT:    [[ZERO:%.*]] = grad.const 0.0 : tensor<3xf32>
// CHECK-NEXT:    [[BW:%.*]] = grad.cmplt %a, %b : tensor<3xf32>
// CHECK-NEXT:    [[HALF:%.*]] = grad.const 0.5 : tensor<3xf32>
// CHECK-NEXT:    [[TIE:%.*]] = grad.mul %tb, [[HALF]] : tensor<3xf32>
// CHECK-NEXT:    [[IN:%.*]] = grad.where [[BW]], %tb, [[TIE]] : tensor<3xf32>
// CHECK-NEXT:    [[T:%.*]] = grad.where [[AW]], [[ZERO]], [[IN]] : tensor<3xf32>
// CHECK-NEXT:    func.return [[T]] : tensor<3xf32>

// -----

// where with both branches on the path: `where c t_a t_b`; the condition (an
// i1 comparison of x) has no tangent and needs none.
func.func @where(%x: tensor<3xf32>, %d: tensor<3xf32>, %tx: tensor<3xf32>) -> tensor<3xf32> {
  %c = grad.cmplt %x, %d : tensor<3xf32>
  %n = grad.neg %x : tensor<3xf32>
  %y = grad.where %c, %x, %n : tensor<3xf32>
  %t = grad.jvp %y wrt %x, %tx : tensor<3xf32>, tensor<3xf32>
  func.return %t : tensor<3xf32>
}

// CHECK-LABEL: func.func @where(
// CHECK-NEXT:    %c = grad.cmplt %x, %d : tensor<3xf32>
// CHECK-NEXT:    %n = grad.neg %x : tensor<3xf32>
// CHECK-NEXT:    %y = grad.where %c, %x, %n : tensor<3xf32>
// CHECK-NEXT:    [[TN:%.*]] = grad.neg %tx : tensor<3xf32>
// CHECK-NEXT:    [[T:%.*]] = grad.where %c, %tx, [[TN]] : tensor<3xf32>
// CHECK-NEXT:    func.return [[T]] : tensor<3xf32>

// -----

// where with a off the path: its tangent is 0.0.
func.func @where_a_off_path(%x: tensor<3xf32>, %d: tensor<3xf32>, %tx: tensor<3xf32>) -> tensor<3xf32> {
  %c = grad.cmplt %x, %d : tensor<3xf32>
  %y = grad.where %c, %d, %x : tensor<3xf32>
  %t = grad.jvp %y wrt %x, %tx : tensor<3xf32>, tensor<3xf32>
  func.return %t : tensor<3xf32>
}

// CHECK-LABEL: func.func @where_a_off_path(
// CHECK-NEXT:    %c = grad.cmplt %x, %d : tensor<3xf32>
// CHECK-NEXT:    %y = grad.where %c, %d, %x : tensor<3xf32>
// CHECK-NEXT:    [[ZERO:%.*]] = grad.const 0.0 : tensor<3xf32>
// CHECK-NEXT:    [[T:%.*]] = grad.where %c, [[ZERO]], %tx : tensor<3xf32>
// CHECK-NEXT:    func.return [[T]] : tensor<3xf32>

// -----

// exp2: `mul (mul t_a u) 0.6931472`.
func.func @exp2(%x: tensor<3xf32>, %tx: tensor<3xf32>) -> tensor<3xf32> {
  %y = grad.exp2 %x : tensor<3xf32>
  %t = grad.jvp %y wrt %x, %tx : tensor<3xf32>, tensor<3xf32>
  func.return %t : tensor<3xf32>
}

// CHECK-LABEL: func.func @exp2(
// CHECK-NEXT:    %y = grad.exp2 %x : tensor<3xf32>
// CHECK-NEXT:    [[TU:%.*]] = grad.mul %tx, %y : tensor<3xf32>
// CHECK-NEXT:    [[LN2:%.*]] = grad.const 0.6931472 : tensor<3xf32>
// CHECK-NEXT:    [[T:%.*]] = grad.mul [[TU]], [[LN2]] : tensor<3xf32>
// CHECK-NEXT:    func.return [[T]] : tensor<3xf32>

// -----

// log2: `mul t_a (recip (mul a 0.6931472))`.
func.func @log2(%x: tensor<3xf32>, %tx: tensor<3xf32>) -> tensor<3xf32> {
  %y = grad.log2 %x : tensor<3xf32>
  %t = grad.jvp %y wrt %x, %tx : tensor<3xf32>, tensor<3xf32>
  func.return %t : tensor<3xf32>
}

// CHECK-LABEL: func.func @log2(
// CHECK-NEXT:    %y = grad.log2 %x : tensor<3xf32>
// CHECK-NEXT:    [[LN2:%.*]] = grad.const 0.6931472 : tensor<3xf32>
// CHECK-NEXT:    [[AL:%.*]] = grad.mul %x, [[LN2]] : tensor<3xf32>
// CHECK-NEXT:    [[R:%.*]] = grad.recip [[AL]] : tensor<3xf32>
// CHECK-NEXT:    [[T:%.*]] = grad.mul %tx, [[R]] : tensor<3xf32>
// CHECK-NEXT:    func.return [[T]] : tensor<3xf32>

// -----

// sqrt: `mul t_a (recip (mul u 2.0))`.
func.func @sqrt(%x: tensor<3xf32>, %tx: tensor<3xf32>) -> tensor<3xf32> {
  %y = grad.sqrt %x : tensor<3xf32>
  %t = grad.jvp %y wrt %x, %tx : tensor<3xf32>, tensor<3xf32>
  func.return %t : tensor<3xf32>
}

// CHECK-LABEL: func.func @sqrt(
// CHECK-NEXT:    %y = grad.sqrt %x : tensor<3xf32>
// CHECK-NEXT:    [[TWO:%.*]] = grad.const 2.0 : tensor<3xf32>
// CHECK-NEXT:    [[U2:%.*]] = grad.mul %y, [[TWO]] : tensor<3xf32>
// CHECK-NEXT:    [[R:%.*]] = grad.recip [[U2]] : tensor<3xf32>
// CHECK-NEXT:    [[T:%.*]] = grad.mul %tx, [[R]] : tensor<3xf32>
// CHECK-NEXT:    func.return [[T]] : tensor<3xf32>

// -----

// sin: `mul t_a (sin (add a 1.5707964))`.
func.func @sin(%x: tensor<3xf32>, %tx: tensor<3xf32>) -> tensor<3xf32> {
  %y = grad.sin %x : tensor<3xf32>
  %t = grad.jvp %y wrt %x, %tx : tensor<3xf32>, tensor<3xf32>
  func.return %t : tensor<3xf32>
}

// CHECK-LABEL: func.func @sin(
// CHECK-NEXT:    %y = grad.sin %x : tensor<3xf32>
// CHECK-NEXT:    [[PI2:%.*]] = grad.const 1.5707964 : tensor<3xf32>
// CHECK-NEXT:    [[A:%.*]] = grad.add %x, [[PI2]] : tensor<3xf32>
// CHECK-NEXT:    [[COS:%.*]] = grad.sin [[A]] : tensor<3xf32>
// CHECK-NEXT:    [[T:%.*]] = grad.mul %tx, [[COS]] : tensor<3xf32>
// CHECK-NEXT:    func.return [[T]] : tensor<3xf32>

// -----

// cast and bitcast f32 -> f32: `t_a` itself (no op).
func.func @cast_bitcast(%x: tensor<3xf32>, %tx: tensor<3xf32>) -> tensor<3xf32> {
  %c = grad.cast %x : tensor<3xf32> to tensor<3xf32>
  %y = grad.bitcast %c : tensor<3xf32> to tensor<3xf32>
  %t = grad.jvp %y wrt %x, %tx : tensor<3xf32>, tensor<3xf32>
  func.return %t : tensor<3xf32>
}

// CHECK-LABEL: func.func @cast_bitcast(
// CHECK-NEXT:    %c = grad.cast %x : tensor<3xf32> to tensor<3xf32>
// CHECK-NEXT:    %y = grad.bitcast %c : tensor<3xf32> to tensor<3xf32>
// CHECK-NEXT:    func.return %tx : tensor<3xf32>

// -----

// reduce add: `reduce add t_a [axes]`.
func.func @reduce_add(%x: tensor<2x3xf32>, %tx: tensor<2x3xf32>) -> tensor<2xf32> {
  %y = grad.reduce add %x [1] : tensor<2x3xf32> to tensor<2xf32>
  %t = grad.jvp %y wrt %x, %tx : tensor<2xf32>, tensor<2x3xf32>
  func.return %t : tensor<2xf32>
}

// CHECK-LABEL: func.func @reduce_add(
// CHECK-NEXT:    %y = grad.reduce add %x [1] : tensor<2x3xf32> to tensor<2xf32>
// CHECK-NEXT:    [[T:%.*]] = grad.reduce add %tx [1] : tensor<2x3xf32> to tensor<2xf32>
// CHECK-NEXT:    func.return [[T]] : tensor<2xf32>

// -----

// reduce max: with e = cmpeq a (broadcast u):
// `mul (reduce add (where e t_a 0.0) [axes]) (recip (reduce add (where e 1.0 0.0) [axes]))`.
func.func @reduce_max(%x: tensor<2x3xf32>, %tx: tensor<2x3xf32>) -> tensor<2xf32> {
  %y = grad.reduce max %x [1] : tensor<2x3xf32> to tensor<2xf32>
  %t = grad.jvp %y wrt %x, %tx : tensor<2xf32>, tensor<2x3xf32>
  func.return %t : tensor<2xf32>
}

// CHECK-LABEL: func.func @reduce_max(
// CHECK-NEXT:    %y = grad.reduce max %x [1] : tensor<2x3xf32> to tensor<2xf32>
// CHECK-NEXT:    [[B:%.*]] = grad.broadcast %y [0] : tensor<2xf32> to tensor<2x3xf32>
// CHECK-NEXT:    [[E:%.*]] = grad.cmpeq %x, [[B]] : tensor<2x3xf32>
// CHECK-NEXT:    [[ZERO:%.*]] = grad.const 0.0 : tensor<2x3xf32>
// CHECK-NEXT:    [[W:%.*]] = grad.where [[E]], %tx, [[ZERO]] : tensor<2x3xf32>
// CHECK-NEXT:    [[SUM:%.*]] = grad.reduce add [[W]] [1] : tensor<2x3xf32> to tensor<2xf32>
// CHECK-NEXT:    [[ONES:%.*]] = grad.const 1.0 : tensor<2x3xf32>
// CHECK-NEXT:    [[HITS:%.*]] = grad.where [[E]], [[ONES]], [[ZERO]] : tensor<2x3xf32>
// CHECK-NEXT:    [[COUNT:%.*]] = grad.reduce add [[HITS]] [1] : tensor<2x3xf32> to tensor<2xf32>
// CHECK-NEXT:    [[R:%.*]] = grad.recip [[COUNT]] : tensor<2xf32>
// CHECK-NEXT:    [[T:%.*]] = grad.mul [[SUM]], [[R]] : tensor<2xf32>
// CHECK-NEXT:    func.return [[T]] : tensor<2xf32>

// -----

// broadcast, reshape, permute: the same op on t_a (same dims / perm).
func.func @shapes(%x: tensor<1x3xf32>, %tx: tensor<1x3xf32>) -> tensor<4x3xf32> {
  %b = grad.broadcast %x [1, 2] : tensor<1x3xf32> to tensor<2x1x3xf32>
  %r = grad.reshape %b : tensor<2x1x3xf32> to tensor<3x2xf32>
  %p = grad.permute %r [1, 0] : tensor<3x2xf32> to tensor<2x3xf32>
  %e = grad.broadcast %p [0, 1] : tensor<2x3xf32> to tensor<2x3xf32>
  %y = grad.reshape %e : tensor<2x3xf32> to tensor<6xf32>
  %z = grad.broadcast %x [0, 1] : tensor<1x3xf32> to tensor<4x3xf32>
  %t = grad.jvp %z wrt %x, %tx : tensor<4x3xf32>, tensor<1x3xf32>
  %t2 = grad.jvp %y wrt %x, %tx : tensor<6xf32>, tensor<1x3xf32>
  func.return %t : tensor<4x3xf32>
}

// CHECK-LABEL: func.func @shapes(
// CHECK-NEXT:    %b = grad.broadcast %x [1, 2] : tensor<1x3xf32> to tensor<2x1x3xf32>
// CHECK-NEXT:    %r = grad.reshape %b : tensor<2x1x3xf32> to tensor<3x2xf32>
// CHECK-NEXT:    %p = grad.permute %r [1, 0] : tensor<3x2xf32> to tensor<2x3xf32>
// CHECK-NEXT:    %e = grad.broadcast %p [0, 1] : tensor<2x3xf32> to tensor<2x3xf32>
// CHECK-NEXT:    %y = grad.reshape %e : tensor<2x3xf32> to tensor<6xf32>
// CHECK-NEXT:    %z = grad.broadcast %x [0, 1] : tensor<1x3xf32> to tensor<4x3xf32>
// CHECK-NEXT:    [[T:%.*]] = grad.broadcast %tx [0, 1] : tensor<1x3xf32> to tensor<4x3xf32>
// CHECK-NEXT:    [[TB:%.*]] = grad.broadcast %tx [1, 2] : tensor<1x3xf32> to tensor<2x1x3xf32>
// CHECK-NEXT:    [[TR:%.*]] = grad.reshape [[TB]] : tensor<2x1x3xf32> to tensor<3x2xf32>
// CHECK-NEXT:    [[TP:%.*]] = grad.permute [[TR]] [1, 0] : tensor<3x2xf32> to tensor<2x3xf32>
// CHECK-NEXT:    [[TE:%.*]] = grad.broadcast [[TP]] [0, 1] : tensor<2x3xf32> to tensor<2x3xf32>
// CHECK-NEXT:    [[TY:%.*]] = grad.reshape [[TE]] : tensor<2x3xf32> to tensor<6xf32>
// CHECK-NEXT:    func.return [[T]] : tensor<4x3xf32>

// -----

// permute by a non-involutive perm: the same perm on t_a (not its inverse).
func.func @permute(%x: tensor<2x3x4xf32>, %tx: tensor<2x3x4xf32>) -> tensor<3x4x2xf32> {
  %y = grad.permute %x [1, 2, 0] : tensor<2x3x4xf32> to tensor<3x4x2xf32>
  %t = grad.jvp %y wrt %x, %tx : tensor<3x4x2xf32>, tensor<2x3x4xf32>
  func.return %t : tensor<3x4x2xf32>
}

// CHECK-LABEL: func.func @permute(
// CHECK-NEXT:    %y = grad.permute %x [1, 2, 0] : tensor<2x3x4xf32> to tensor<3x4x2xf32>
// CHECK-NEXT:    [[T:%.*]] = grad.permute %tx [1, 2, 0] : tensor<2x3x4xf32> to tensor<3x4x2xf32>
// CHECK-NEXT:    func.return [[T]] : tensor<3x4x2xf32>

// -----

// dot with both operands on the path: `add (dot t_a b) (dot a t_b)`.
func.func @dot(%x: tensor<2x2xf32>, %tx: tensor<2x2xf32>) -> tensor<2x2xf32> {
  %y = grad.dot %x, %x : tensor<2x2xf32>, tensor<2x2xf32> to tensor<2x2xf32>
  %t = grad.jvp %y wrt %x, %tx : tensor<2x2xf32>, tensor<2x2xf32>
  func.return %t : tensor<2x2xf32>
}

// CHECK-LABEL: func.func @dot(
// CHECK-NEXT:    %y = grad.dot %x, %x : tensor<2x2xf32>, tensor<2x2xf32> to tensor<2x2xf32>
// CHECK-NEXT:    [[L:%.*]] = grad.dot %tx, %x : tensor<2x2xf32>, tensor<2x2xf32> to tensor<2x2xf32>
// CHECK-NEXT:    [[R:%.*]] = grad.dot %x, %tx : tensor<2x2xf32>, tensor<2x2xf32> to tensor<2x2xf32>
// CHECK-NEXT:    [[T:%.*]] = grad.add [[L]], [[R]] : tensor<2x2xf32>
// CHECK-NEXT:    func.return [[T]] : tensor<2x2xf32>

// -----

// dot with one operand on the path: one term each (`dot t_a b`, `dot a t_b`).
func.func @dot_one_side(%x: tensor<2x3xf32>, %w: tensor<3x4xf32>, %tx: tensor<2x3xf32>, %v: tensor<4x2xf32>) -> (tensor<2x4xf32>, tensor<4x3xf32>) {
  %y = grad.dot %x, %w : tensor<2x3xf32>, tensor<3x4xf32> to tensor<2x4xf32>
  %z = grad.dot %v, %x : tensor<4x2xf32>, tensor<2x3xf32> to tensor<4x3xf32>
  %t = grad.jvp %y wrt %x, %tx : tensor<2x4xf32>, tensor<2x3xf32>
  %s = grad.jvp %z wrt %x, %tx : tensor<4x3xf32>, tensor<2x3xf32>
  func.return %t, %s : tensor<2x4xf32>, tensor<4x3xf32>
}

// CHECK-LABEL: func.func @dot_one_side(
// CHECK-NEXT:    %y = grad.dot %x, %w : tensor<2x3xf32>, tensor<3x4xf32> to tensor<2x4xf32>
// CHECK-NEXT:    %z = grad.dot %v, %x : tensor<4x2xf32>, tensor<2x3xf32> to tensor<4x3xf32>
// CHECK-NEXT:    [[T:%.*]] = grad.dot %tx, %w : tensor<2x3xf32>, tensor<3x4xf32> to tensor<2x4xf32>
// CHECK-NEXT:    [[S:%.*]] = grad.dot %v, %tx : tensor<4x2xf32>, tensor<2x3xf32> to tensor<4x3xf32>
// CHECK-NEXT:    func.return [[T]], [[S]] : tensor<2x4xf32>, tensor<4x3xf32>

// -----

// detach cuts the path: only the direct route carries the tangent.
func.func @detach(%x: tensor<3xf32>, %tx: tensor<3xf32>) -> tensor<3xf32> {
  %d = grad.detach %x : tensor<3xf32>
  %y = grad.mul %d, %x : tensor<3xf32>
  %t = grad.jvp %y wrt %x, %tx : tensor<3xf32>, tensor<3xf32>
  func.return %t : tensor<3xf32>
}

// CHECK-LABEL: func.func @detach(
// CHECK-NEXT:    %d = grad.detach %x : tensor<3xf32>
// CHECK-NEXT:    %y = grad.mul %d, %x : tensor<3xf32>
// CHECK-NEXT:    [[T:%.*]] = grad.mul %d, %tx : tensor<3xf32>
// CHECK-NEXT:    func.return [[T]] : tensor<3xf32>

// -----

// y not on the path (only an i32 route from x): `+0.0` zeros of y's type.
func.func @off_path(%x: tensor<3xf32>, %tx: tensor<3xf32>) -> tensor<3xf32> {
  %i = grad.cast %x : tensor<3xf32> to tensor<3xi32>
  %y = grad.cast %i : tensor<3xi32> to tensor<3xf32>
  %t = grad.jvp %y wrt %x, %tx : tensor<3xf32>, tensor<3xf32>
  func.return %t : tensor<3xf32>
}

// CHECK-LABEL: func.func @off_path(
// CHECK-NEXT:    %i = grad.cast %x : tensor<3xf32> to tensor<3xi32>
// CHECK-NEXT:    %y = grad.cast %i : tensor<3xi32> to tensor<3xf32>
// CHECK-NEXT:    [[Z:%.*]] = grad.const 0.0 : tensor<3xf32>
// CHECK-NEXT:    func.return [[Z]] : tensor<3xf32>

// -----

// y is the target itself: its tangent is %tx.
func.func @identity(%x: tensor<3xf32>, %tx: tensor<3xf32>) -> tensor<3xf32> {
  %t = grad.jvp %x wrt %x, %tx : tensor<3xf32>, tensor<3xf32>
  func.return %t : tensor<3xf32>
}

// CHECK-LABEL: func.func @identity(
// CHECK-NEXT:    func.return %tx : tensor<3xf32>

// -----

// A chain: tangents are built in post-order of y's graph, each node once even
// when used twice (m feeds both operands of the add).
func.func @chain(%x: tensor<3xf32>, %tx: tensor<3xf32>) -> tensor<3xf32> {
  %m = grad.mul %x, %x : tensor<3xf32>
  %s = grad.sin %m : tensor<3xf32>
  %y = grad.add %s, %m : tensor<3xf32>
  %t = grad.jvp %y wrt %x, %tx : tensor<3xf32>, tensor<3xf32>
  func.return %t : tensor<3xf32>
}

// CHECK-LABEL: func.func @chain(
// CHECK-NEXT:    %m = grad.mul %x, %x : tensor<3xf32>
// CHECK-NEXT:    %s = grad.sin %m : tensor<3xf32>
// CHECK-NEXT:    %y = grad.add %s, %m : tensor<3xf32>
// CHECK-NEXT:    [[L:%.*]] = grad.mul %tx, %x : tensor<3xf32>
// CHECK-NEXT:    [[R:%.*]] = grad.mul %x, %tx : tensor<3xf32>
// CHECK-NEXT:    [[TM:%.*]] = grad.add [[L]], [[R]] : tensor<3xf32>
// CHECK-NEXT:    [[PI2:%.*]] = grad.const 1.5707964 : tensor<3xf32>
// CHECK-NEXT:    [[A:%.*]] = grad.add %m, [[PI2]] : tensor<3xf32>
// CHECK-NEXT:    [[COS:%.*]] = grad.sin [[A]] : tensor<3xf32>
// CHECK-NEXT:    [[TS:%.*]] = grad.mul [[TM]], [[COS]] : tensor<3xf32>
// CHECK-NEXT:    [[T:%.*]] = grad.add [[TS]], [[TM]] : tensor<3xf32>
// CHECK-NEXT:    func.return [[T]] : tensor<3xf32>
