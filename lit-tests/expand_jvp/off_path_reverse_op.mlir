// RUN: grad-opt %s -p expand-jvp --split-input-file | filecheck %s --check-prefixes=CHECK,JVP
// RUN: grad-opt %s -p expand-gradient --split-input-file | filecheck %s --check-prefixes=CHECK,GRAD
// RUN: grad-opt %s -p expand-jvp,expand-gradient --split-input-file | filecheck %s --check-prefixes=CHECK,GRAD

// SPEC §5.7: `expand-jvp` expands, before each jvp, the `grad.gradient` and
// `grad.vjp` ops on its path (§5.1), and leaves the others for
// `expand-gradient`. CHECK lines hold for every run, JVP lines after
// `expand-jvp` alone, GRAD lines once everything is expanded.

// A gradient op in y's graph but off the jvp's path (%gw does not depend on
// x): expand-jvp leaves it for expand-gradient; the jvp is `mul gw t_x`.
func.func @gradient_off_jvp_path(%x: tensor<f32>, %w: tensor<f32>, %tx: tensor<f32>) -> tensor<f32> {
  %s = grad.sin %w : tensor<f32>
  %gw = grad.gradient %s wrt %w : tensor<f32>, tensor<f32>
  %y = grad.mul %gw, %x : tensor<f32>
  %t = grad.jvp %y wrt %x, %tx : tensor<f32>, tensor<f32>
  func.return %t : tensor<f32>
}

// CHECK-LABEL: func.func @gradient_off_jvp_path(
// CHECK-NEXT:    %s = grad.sin %w : tensor<f32>
// JVP-NEXT:      %gw = grad.gradient %s wrt %w : tensor<f32>, tensor<f32>
// JVP-NEXT:      %y = grad.mul %gw, %x : tensor<f32>
// JVP-NEXT:      [[T:%.*]] = grad.mul %gw, %tx : tensor<f32>
// JVP-NEXT:      func.return [[T]] : tensor<f32>
// GRAD-NEXT:     [[ONE:%.*]] = grad.const 1.0 : tensor<f32>
// GRAD-NEXT:     [[PI2:%.*]] = grad.const 1.5707964 : tensor<f32>
// GRAD-NEXT:     [[A:%.*]] = grad.add %w, [[PI2]] : tensor<f32>
// GRAD-NEXT:     [[COS:%.*]] = grad.sin [[A]] : tensor<f32>
// GRAD-NEXT:     [[GW:%.*]] = grad.mul [[ONE]], [[COS]] : tensor<f32>
// GRAD-NEXT:     %y = grad.mul [[GW]], %x : tensor<f32>
// GRAD-NEXT:     [[T:%.*]] = grad.mul [[GW]], %tx : tensor<f32>
// GRAD-NEXT:     func.return [[T]] : tensor<f32>
