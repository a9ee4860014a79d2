// RUN: GRAD_ROUNDTRIP | filecheck %s
// RUN: XDSL_ROUNDTRIP | filecheck %s
// RUN: grad-opt %s --split-input-file --print-op-generic > %t.generic
// RUN: filecheck %s --input-file=%t.generic --check-prefix=CHECK-GENERIC
// RUN: grad-opt --split-input-file < %t.generic | filecheck %s

// Differentiation ops (SPEC §3.4, §5.5, §5.6). The custom form lists the
// loss's type, then each target's; a result has its target's type.

func.func @gradient_one_target(%x: tensor<5xf32>) -> tensor<5xf32> {
  %sq = grad.mul %x, %x : tensor<5xf32>
  %y = grad.reduce add %sq [0] : tensor<5xf32> to tensor<f32>
  %g = grad.gradient %y wrt %x : tensor<f32>, tensor<5xf32>
  func.return %g : tensor<5xf32>
}

// CHECK-LABEL: func.func @gradient_one_target(%x: tensor<5xf32>) -> tensor<5xf32> {
// CHECK:         %g = grad.gradient %y wrt %x : tensor<f32>, tensor<5xf32>
// CHECK-NEXT:    func.return %g : tensor<5xf32>

// CHECK-GENERIC-LABEL: "func.func"() <{sym_name = "gradient_one_target"
// CHECK-GENERIC:         %g = "grad.gradient"(%y, %x) : (tensor<f32>, tensor<5xf32>) -> tensor<5xf32>

// -----

func.func @gradient_several_targets(%a: tensor<5xf32>, %b: tensor<2x3xf32>) {
  %sa = grad.reduce add %a [0] : tensor<5xf32> to tensor<f32>
  %sb = grad.reduce max %b [0, 1] : tensor<2x3xf32> to tensor<f32>
  %y = grad.mul %sa, %sb : tensor<f32>
  %g0, %g1 = grad.gradient %y wrt %a, %b : tensor<f32>, tensor<5xf32>, tensor<2x3xf32>
  %h:3 = grad.gradient %y wrt %b, %a, %b {tag} : tensor<f32>, tensor<2x3xf32>, tensor<5xf32>, tensor<2x3xf32>
  func.return
}

// CHECK-LABEL: func.func @gradient_several_targets(%a: tensor<5xf32>, %b: tensor<2x3xf32>) {
// CHECK:         %g0, %g1 = grad.gradient %y wrt %a, %b : tensor<f32>, tensor<5xf32>, tensor<2x3xf32>
// CHECK-NEXT:    %h, %h_1, %h_2 = grad.gradient %y wrt %b, %a, %b {tag} : tensor<f32>, tensor<2x3xf32>, tensor<5xf32>, tensor<2x3xf32>
// CHECK-NEXT:    func.return

// CHECK-GENERIC-LABEL: "func.func"() <{sym_name = "gradient_several_targets"
// CHECK-GENERIC:         %g0, %g1 = "grad.gradient"(%y, %a, %b) : (tensor<f32>, tensor<5xf32>, tensor<2x3xf32>) -> (tensor<5xf32>, tensor<2x3xf32>)

// -----

// A gradient of a gradient.
func.func @second_order(%x: tensor<f32>) -> tensor<f32> {
  %c = grad.mul %x, %x : tensor<f32>
  %y = grad.mul %c, %x : tensor<f32>
  %g = grad.gradient %y wrt %x : tensor<f32>, tensor<f32>
  %gg = grad.gradient %g wrt %x : tensor<f32>, tensor<f32>
  func.return %gg : tensor<f32>
}

// CHECK-LABEL: func.func @second_order(%x: tensor<f32>) -> tensor<f32> {
// CHECK:         %g = grad.gradient %y wrt %x : tensor<f32>, tensor<f32>
// CHECK-NEXT:    %gg = grad.gradient %g wrt %x : tensor<f32>, tensor<f32>

// -----

// `grad.vjp %y, %ct wrt %x`: the loss may be any f32 tensor; the cotangent has
// its type. Generic operands: loss, cotangent, targets.
func.func @vjp(%x: tensor<5xf32>, %w: tensor<3x5xf32>, %ct: tensor<5xf32>) {
  %y = grad.sin %x : tensor<5xf32>
  %g = grad.vjp %y, %ct wrt %x : tensor<5xf32>, tensor<5xf32>
  %b = grad.broadcast %y [1] : tensor<5xf32> to tensor<3x5xf32>
  %z = grad.mul %b, %w : tensor<3x5xf32>
  %ones = grad.const 1.0 : tensor<3x5xf32>
  %gx, %gw = grad.vjp %z, %ones wrt %x, %w : tensor<3x5xf32>, tensor<5xf32>, tensor<3x5xf32>
  func.return
}

// CHECK-LABEL: func.func @vjp(%x: tensor<5xf32>, %w: tensor<3x5xf32>, %ct: tensor<5xf32>) {
// CHECK-NEXT:    %y = grad.sin %x : tensor<5xf32>
// CHECK-NEXT:    %g = grad.vjp %y, %ct wrt %x : tensor<5xf32>, tensor<5xf32>
// CHECK:         %gx, %gw = grad.vjp %z, %ones wrt %x, %w : tensor<3x5xf32>, tensor<5xf32>, tensor<3x5xf32>
// CHECK-NEXT:    func.return

// CHECK-GENERIC-LABEL: "func.func"() <{sym_name = "vjp"
// CHECK-GENERIC:         %g = "grad.vjp"(%y, %ct, %x) : (tensor<5xf32>, tensor<5xf32>, tensor<5xf32>) -> tensor<5xf32>
// CHECK-GENERIC:         %gx, %gw = "grad.vjp"(%z, %ones, %x, %w) : (tensor<3x5xf32>, tensor<3x5xf32>, tensor<5xf32>, tensor<3x5xf32>) -> (tensor<5xf32>, tensor<3x5xf32>)

// -----

// `grad.jvp %y wrt %x, %tx`: types of y, then of x (and of the tangent).
// Generic operands: y, x, tx.
func.func @jvp(%x: tensor<5xf32>, %tx: tensor<5xf32>) -> tensor<2xf32> {
  %e = grad.exp2 %x : tensor<5xf32>
  %y = grad.reshape %e : tensor<5xf32> to tensor<5xf32>
  %p = grad.reduce add %y [0] : tensor<5xf32> to tensor<f32>
  %q = grad.broadcast %p [] : tensor<f32> to tensor<2xf32>
  %t = grad.jvp %q wrt %x, %tx : tensor<2xf32>, tensor<5xf32>
  func.return %t : tensor<2xf32>
}

// CHECK-LABEL: func.func @jvp(%x: tensor<5xf32>, %tx: tensor<5xf32>) -> tensor<2xf32> {
// CHECK:         %t = grad.jvp %q wrt %x, %tx : tensor<2xf32>, tensor<5xf32>
// CHECK-NEXT:    func.return %t : tensor<2xf32>

// CHECK-GENERIC-LABEL: "func.func"() <{sym_name = "jvp"
// CHECK-GENERIC:         %t = "grad.jvp"(%q, %x, %tx) : (tensor<2xf32>, tensor<5xf32>, tensor<5xf32>) -> tensor<2xf32>
