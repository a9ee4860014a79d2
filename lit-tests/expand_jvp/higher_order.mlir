// RUN: grad-opt %s -p expand-jvp --split-input-file | filecheck %s --check-prefixes=CHECK,JVP
// RUN: grad-opt %s -p expand-gradient --split-input-file | filecheck %s --check-prefixes=CHECK,GRAD
// RUN: grad-opt %s -p expand-jvp,expand-gradient --split-input-file | filecheck %s --check-prefixes=CHECK,GRAD

// SPEC §5.7: `expand-jvp` expands each `grad.jvp`, and before it any
// `grad.gradient` or `grad.vjp` op on its path; it leaves the others for
// `expand-gradient`, which expands all three kinds in program order. So a jvp
// of a gradient and a gradient of a jvp both differentiate expanded graphs.
// CHECK lines hold for every run, JVP lines after `expand-jvp` alone, GRAD
// lines once everything is expanded.

// jvp of a gradient: the gradient of x·x is `add (mul 1 x) (mul 1 x)`; its
// tangent takes one term per mul (operand a, the constant, is off the path).
func.func @jvp_of_gradient(%x: tensor<f32>, %tx: tensor<f32>) -> tensor<f32> {
  %y = grad.mul %x, %x : tensor<f32>
  %g = grad.gradient %y wrt %x : tensor<f32>, tensor<f32>
  %t = grad.jvp %g wrt %x, %tx : tensor<f32>, tensor<f32>
  func.return %t : tensor<f32>
}

// CHECK-LABEL: func.func @jvp_of_gradient(
// CHECK-NEXT:    %y = grad.mul %x, %x : tensor<f32>
// CHECK-NEXT:    [[ONE:%.*]] = grad.const 1.0 : tensor<f32>
// CHECK-NEXT:    [[S1:%.*]] = grad.mul [[ONE]], %x : tensor<f32>
// CHECK-NEXT:    [[S2:%.*]] = grad.mul [[ONE]], %x : tensor<f32>
// CHECK-NEXT:    [[G:%.*]] = grad.add [[S1]], [[S2]] : tensor<f32>
// CHECK-NEXT:    [[J1:%.*]] = grad.mul [[ONE]], %tx : tensor<f32>
// CHECK-NEXT:    [[J2:%.*]] = grad.mul [[ONE]], %tx : tensor<f32>
// CHECK-NEXT:    [[J:%.*]] = grad.add [[J1]], [[J2]] : tensor<f32>
// CHECK-NEXT:    func.return [[J]] : tensor<f32>

// -----

// gradient of a jvp: expand-jvp alone leaves the gradient op (now of the
// expanded tangent); expand-gradient then walks `add (mul tx x) (mul x tx)`.
func.func @gradient_of_jvp(%x: tensor<f32>, %tx: tensor<f32>) -> tensor<f32> {
  %y = grad.mul %x, %x : tensor<f32>
  %t = grad.jvp %y wrt %x, %tx : tensor<f32>, tensor<f32>
  %h = grad.gradient %t wrt %x : tensor<f32>, tensor<f32>
  func.return %h : tensor<f32>
}

// CHECK-LABEL: func.func @gradient_of_jvp(
// CHECK-NEXT:    %y = grad.mul %x, %x : tensor<f32>
// CHECK-NEXT:    [[J1:%.*]] = grad.mul %tx, %x : tensor<f32>
// CHECK-NEXT:    [[J2:%.*]] = grad.mul %x, %tx : tensor<f32>
// CHECK-NEXT:    [[T:%.*]] = grad.add [[J1]], [[J2]] : tensor<f32>
// JVP-NEXT:      %h = grad.gradient [[T]] wrt %x : tensor<f32>, tensor<f32>
// JVP-NEXT:      func.return %h : tensor<f32>
// GRAD-NEXT:     [[ONE:%.*]] = grad.const 1.0 : tensor<f32>
// GRAD-NEXT:     [[K1:%.*]] = grad.mul [[ONE]], %tx : tensor<f32>
// GRAD-NEXT:     [[K2:%.*]] = grad.mul [[ONE]], %tx : tensor<f32>
// GRAD-NEXT:     [[H:%.*]] = grad.add [[K1]], [[K2]] : tensor<f32>
// GRAD-NEXT:     func.return [[H]] : tensor<f32>

// -----

// jvp of a vjp: the vjp on the jvp's path is expanded first.
func.func @jvp_of_vjp(%x: tensor<f32>, %ct: tensor<f32>, %tx: tensor<f32>) -> tensor<f32> {
  %y = grad.mul %x, %x : tensor<f32>
  %v = grad.vjp %y, %ct wrt %x : tensor<f32>, tensor<f32>
  %t = grad.jvp %v wrt %x, %tx : tensor<f32>, tensor<f32>
  func.return %t : tensor<f32>
}

// CHECK-LABEL: func.func @jvp_of_vjp(
// CHECK-NEXT:    %y = grad.mul %x, %x : tensor<f32>
// CHECK-NEXT:    [[V1:%.*]] = grad.mul %ct, %x : tensor<f32>
// CHECK-NEXT:    [[V2:%.*]] = grad.mul %ct, %x : tensor<f32>
// CHECK-NEXT:    [[V:%.*]] = grad.add [[V1]], [[V2]] : tensor<f32>
// CHECK-NEXT:    [[J1:%.*]] = grad.mul %ct, %tx : tensor<f32>
// CHECK-NEXT:    [[J2:%.*]] = grad.mul %ct, %tx : tensor<f32>
// CHECK-NEXT:    [[J:%.*]] = grad.add [[J1]], [[J2]] : tensor<f32>
// CHECK-NEXT:    func.return [[J]] : tensor<f32>

// -----

// A gradient op that no jvp depends on is left alone by expand-jvp.
func.func @gradient_without_jvp(%x: tensor<f32>, %tx: tensor<f32>) -> (tensor<f32>, tensor<f32>) {
  %y = grad.neg %x : tensor<f32>
  %g = grad.gradient %y wrt %x : tensor<f32>, tensor<f32>
  %t = grad.jvp %y wrt %x, %tx : tensor<f32>, tensor<f32>
  func.return %g, %t : tensor<f32>, tensor<f32>
}

// CHECK-LABEL: func.func @gradient_without_jvp(
// CHECK-NEXT:    %y = grad.neg %x : tensor<f32>
// JVP-NEXT:      %g = grad.gradient %y wrt %x : tensor<f32>, tensor<f32>
// GRAD-NEXT:     [[ONE:%.*]] = grad.const 1.0 : tensor<f32>
// GRAD-NEXT:     [[G:%.*]] = grad.neg [[ONE]] : tensor<f32>
// CHECK-NEXT:    [[T:%.*]] = grad.neg %tx : tensor<f32>
// JVP-NEXT:      func.return %g, [[T]] : tensor<f32>, tensor<f32>
// GRAD-NEXT:     func.return [[G]], [[T]] : tensor<f32>, tensor<f32>

// -----

// jvp of a jvp: the inner jvp (earlier in program order) is expanded first;
// the outer one then takes one term per mul of `add (mul tx x) (mul x tx)`.
func.func @jvp_of_jvp(%x: tensor<f32>, %tx: tensor<f32>, %tx2: tensor<f32>) -> tensor<f32> {
  %y = grad.mul %x, %x : tensor<f32>
  %t = grad.jvp %y wrt %x, %tx : tensor<f32>, tensor<f32>
  %t2 = grad.jvp %t wrt %x, %tx2 : tensor<f32>, tensor<f32>
  func.return %t2 : tensor<f32>
}

// CHECK-LABEL: func.func @jvp_of_jvp(
// CHECK-NEXT:    %y = grad.mul %x, %x : tensor<f32>
// CHECK-NEXT:    [[J1:%.*]] = grad.mul %tx, %x : tensor<f32>
// CHECK-NEXT:    [[J2:%.*]] = grad.mul %x, %tx : tensor<f32>
// CHECK-NEXT:    [[T:%.*]] = grad.add [[J1]], [[J2]] : tensor<f32>
// CHECK-NEXT:    [[K1:%.*]] = grad.mul %tx, %tx2 : tensor<f32>
// CHECK-NEXT:    [[K2:%.*]] = grad.mul %tx2, %tx : tensor<f32>
// CHECK-NEXT:    [[T2:%.*]] = grad.add [[K1]], [[K2]] : tensor<f32>
// CHECK-NEXT:    func.return [[T2]] : tensor<f32>
