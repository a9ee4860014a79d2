// RUN: grad-opt %s -p expand-gradient --split-input-file | filecheck %s

// SPEC §5.2: a node's gradient is the sum of its shares in the order they
// arrived during the backward walk (reverse post-order of the loss's graph),
// as a left fold `add (add s1 s2) s3`. Arrival order is often not program order.

// The spec's example y = (x·x)·x: x receives `mul g m` from the outer mul
// first, then the inner mul's two shares (operand 0's, then operand 1's).
func.func @cube(%x: tensor<f32>) -> tensor<f32> {
  %m = grad.mul %x, %x : tensor<f32>
  %y = grad.mul %m, %x : tensor<f32>
  %g = grad.gradient %y wrt %x : tensor<f32>, tensor<f32>
  func.return %g : tensor<f32>
}

// CHECK-LABEL: func.func @cube(
// CHECK-NEXT:    %m = grad.mul %x, %x : tensor<f32>
// CHECK-NEXT:    %y = grad.mul %m, %x : tensor<f32>
// CHECK-NEXT:    [[ONE:%.*]] = grad.const 1.0 : tensor<f32>
// CHECK-NEXT:    [[GM:%.*]] = grad.mul [[ONE]], %x : tensor<f32>
// CHECK-NEXT:    [[S1:%.*]] = grad.mul [[ONE]], %m : tensor<f32>
// CHECK-NEXT:    [[S2:%.*]] = grad.mul [[GM]], %x : tensor<f32>
// CHECK-NEXT:    [[S3:%.*]] = grad.mul [[GM]], %x : tensor<f32>
// CHECK-NEXT:    [[A:%.*]] = grad.add [[S1]], [[S2]] : tensor<f32>
// CHECK-NEXT:    [[G:%.*]] = grad.add [[A]], [[S3]] : tensor<f32>
// CHECK-NEXT:    func.return [[G]] : tensor<f32>

// -----

// grad_accumulation_order: l = (x·c1 + x·c2) + x·c3. The walk reaches p3
// before p2 before p1, so x's gradient is `add (add t3 t2) t1`. In f32 the
// order matters: (3 + -1e8) + 1e8 = 0, while (1e8 + -1e8) + 3 = 3.
func.func @grad_accumulation_order(%x: tensor<f32>) -> tensor<f32> {
  %c1 = grad.const 1.0e8 : tensor<f32>
  %c2 = grad.const -1.0e8 : tensor<f32>
  %c3 = grad.const 3.0 : tensor<f32>
  %p1 = grad.mul %x, %c1 : tensor<f32>
  %p2 = grad.mul %x, %c2 : tensor<f32>
  %p3 = grad.mul %x, %c3 : tensor<f32>
  %s = grad.add %p1, %p2 : tensor<f32>
  %l = grad.add %s, %p3 : tensor<f32>
  %g = grad.gradient %l wrt %x : tensor<f32>, tensor<f32>
  func.return %g : tensor<f32>
}

// CHECK-LABEL: func.func @grad_accumulation_order(
// CHECK-NEXT:    %c1 = grad.const 1.0e+08 : tensor<f32>
// CHECK-NEXT:    %c2 = grad.const -1.0e+08 : tensor<f32>
// CHECK-NEXT:    %c3 = grad.const 3.0 : tensor<f32>
// CHECK-NEXT:    %p1 = grad.mul %x, %c1 : tensor<f32>
// CHECK-NEXT:    %p2 = grad.mul %x, %c2 : tensor<f32>
// CHECK-NEXT:    %p3 = grad.mul %x, %c3 : tensor<f32>
// CHECK-NEXT:    %s = grad.add %p1, %p2 : tensor<f32>
// CHECK-NEXT:    %l = grad.add %s, %p3 : tensor<f32>
// CHECK-NEXT:    [[ONE:%.*]] = grad.const 1.0 : tensor<f32>
// CHECK-NEXT:    [[T3:%.*]] = grad.mul [[ONE]], %c3 : tensor<f32>
// CHECK-NEXT:    [[T2:%.*]] = grad.mul [[ONE]], %c2 : tensor<f32>
// CHECK-NEXT:    [[T1:%.*]] = grad.mul [[ONE]], %c1 : tensor<f32>
// CHECK-NEXT:    [[A:%.*]] = grad.add [[T3]], [[T2]] : tensor<f32>
// CHECK-NEXT:    [[G:%.*]] = grad.add [[A]], [[T1]] : tensor<f32>
// CHECK-NEXT:    func.return [[G]] : tensor<f32>

// -----

// grad_accumulation_other_order: the same products, defined in program order
// p1, p2, p3, but summed as (p2 + p3) + p1. The walk reaches p1, then p3,
// then p2: x's gradient is `add (add t1 t3) t2`, not the program-order chain
// `add (add t1 t2) t3` (which would give 3 instead of 0 here).
func.func @grad_accumulation_other_order(%x: tensor<f32>) -> tensor<f32> {
  %c1 = grad.const 1.0e8 : tensor<f32>
  %c2 = grad.const -1.0e8 : tensor<f32>
  %c3 = grad.const 3.0 : tensor<f32>
  %p1 = grad.mul %x, %c1 : tensor<f32>
  %p2 = grad.mul %x, %c2 : tensor<f32>
  %p3 = grad.mul %x, %c3 : tensor<f32>
  %s = grad.add %p2, %p3 : tensor<f32>
  %l = grad.add %s, %p1 : tensor<f32>
  %g = grad.gradient %l wrt %x : tensor<f32>, tensor<f32>
  func.return %g : tensor<f32>
}

// CHECK-LABEL: func.func @grad_accumulation_other_order(
// CHECK-NEXT:    %c1 = grad.const 1.0e+08 : tensor<f32>
// CHECK-NEXT:    %c2 = grad.const -1.0e+08 : tensor<f32>
// CHECK-NEXT:    %c3 = grad.const 3.0 : tensor<f32>
// CHECK-NEXT:    %p1 = grad.mul %x, %c1 : tensor<f32>
// CHECK-NEXT:    %p2 = grad.mul %x, %c2 : tensor<f32>
// CHECK-NEXT:    %p3 = grad.mul %x, %c3 : tensor<f32>
// CHECK-NEXT:    %s = grad.add %p2, %p3 : tensor<f32>
// CHECK-NEXT:    %l = grad.add %s, %p1 : tensor<f32>
// CHECK-NEXT:    [[ONE:%.*]] = grad.const 1.0 : tensor<f32>
// CHECK-NEXT:    [[T1:%.*]] = grad.mul [[ONE]], %c1 : tensor<f32>
// CHECK-NEXT:    [[T3:%.*]] = grad.mul [[ONE]], %c3 : tensor<f32>
// CHECK-NEXT:    [[T2:%.*]] = grad.mul [[ONE]], %c2 : tensor<f32>
// CHECK-NOT:     grad.add [[T1]], [[T2]]
// CHECK:         [[A:%.*]] = grad.add [[T1]], [[T3]] : tensor<f32>
// CHECK-NEXT:    [[G:%.*]] = grad.add [[A]], [[T2]] : tensor<f32>
// CHECK-NEXT:    func.return [[G]] : tensor<f32>
