// RUN: grad-opt %s -p expand-jvp --split-input-file | filecheck %s
// RUN: grad-opt %s -p expand-gradient --split-input-file | filecheck %s
// RUN: grad-opt %s -p expand-jvp,expand-gradient --split-input-file | filecheck %s

// SPEC §5 (the expanded module must be valid IR) with §5.7's expansion order:
// `expand-jvp` expands a gradient on a jvp's path just before that jvp, so
// expansions are not made in program order; constants are shared per block
// and must still be defined before every use.

// A jvp of a gradient after another jvp that needs the same constant: every
// constant must be defined before its first use (the gradient, expanded before
// the second jvp, sits earlier in the block than the first jvp's ops). The
// expansion is the same as expand-gradient's, in program order.
func.func @jvp_of_gradient_after_jvp(%x: tensor<f32>, %tx: tensor<f32>) -> (tensor<f32>, tensor<f32>) {
  %y = grad.sin %x : tensor<f32>
  %g = grad.gradient %y wrt %x : tensor<f32>, tensor<f32>
  %s = grad.sin %x : tensor<f32>
  %t1 = grad.jvp %s wrt %x, %tx : tensor<f32>, tensor<f32>
  %t2 = grad.jvp %g wrt %x, %tx : tensor<f32>, tensor<f32>
  func.return %t1, %t2 : tensor<f32>, tensor<f32>
}

// CHECK-LABEL: func.func @jvp_of_gradient_after_jvp(
// CHECK-NEXT:    %y = grad.sin %x : tensor<f32>
// CHECK-NEXT:    [[ONE:%.*]] = grad.const 1.0 : tensor<f32>
// CHECK-NEXT:    [[PI2:%.*]] = grad.const 1.5707964 : tensor<f32>
// CHECK-NEXT:    [[A:%.*]] = grad.add %x, [[PI2]] : tensor<f32>
// CHECK-NEXT:    [[COS:%.*]] = grad.sin [[A]] : tensor<f32>
// CHECK-NEXT:    [[G:%.*]] = grad.mul [[ONE]], [[COS]] : tensor<f32>
// CHECK-NEXT:    %s = grad.sin %x : tensor<f32>
// CHECK-NEXT:    [[A1:%.*]] = grad.add %x, [[PI2]] : tensor<f32>
// CHECK-NEXT:    [[C1:%.*]] = grad.sin [[A1]] : tensor<f32>
// CHECK-NEXT:    [[T1:%.*]] = grad.mul %tx, [[C1]] : tensor<f32>
// CHECK-NEXT:    [[A2:%.*]] = grad.add [[A]], [[PI2]] : tensor<f32>
// CHECK-NEXT:    [[C2:%.*]] = grad.sin [[A2]] : tensor<f32>
// CHECK-NEXT:    [[TC:%.*]] = grad.mul %tx, [[C2]] : tensor<f32>
// CHECK-NEXT:    [[T2:%.*]] = grad.mul [[ONE]], [[TC]] : tensor<f32>
// CHECK-NEXT:    func.return [[T1]], [[T2]] : tensor<f32>, tensor<f32>
