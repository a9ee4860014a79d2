// RUN: GRAD_ROUNDTRIP | filecheck %s
// RUN: GRAD_GENERIC_ROUNDTRIP | filecheck %s

// SPEC §11: `control_flow` is a unit property of the three differentiation
// ops, printed as a keyword before the attribute dictionary and the colon
// (`<{control_flow}>` in the generic form).

func.func @three_ops(%x: tensor<5xf32>) -> (tensor<5xf32>, tensor<5xf32>, tensor<f32>) {
  %y = grad.reduce add %x [0] : tensor<5xf32> to tensor<f32>
  %g = grad.gradient %y wrt %x control_flow : tensor<f32>, tensor<5xf32>
  %ct = grad.const 2.0 : tensor<f32>
  %v = grad.vjp %y, %ct wrt %x control_flow {note = "kept"} : tensor<f32>, tensor<5xf32>
  %t = grad.jvp %y wrt %x, %x control_flow : tensor<f32>, tensor<5xf32>
  %p = grad.gradient %y wrt %x : tensor<f32>, tensor<5xf32>
  func.return %g, %v, %t : tensor<5xf32>, tensor<5xf32>, tensor<f32>
}

// CHECK-LABEL: func.func @three_ops(
// CHECK:         %g = grad.gradient %y wrt %x control_flow : tensor<f32>, tensor<5xf32>
// CHECK:         %v = grad.vjp %y, %ct wrt %x control_flow {note = "kept"} : tensor<f32>, tensor<5xf32>
// CHECK-NEXT:    %t = grad.jvp %y wrt %x, %x control_flow : tensor<f32>, tensor<5xf32>
// CHECK-NEXT:    %p = grad.gradient %y wrt %x : tensor<f32>, tensor<5xf32>

// -----

func.func @generic_form(%x: tensor<f32>) -> tensor<f32> {
  %g = "grad.gradient"(%x, %x) <{control_flow}> : (tensor<f32>, tensor<f32>) -> tensor<f32>
  func.return %g : tensor<f32>
}

// CHECK-LABEL: func.func @generic_form(
// CHECK-NEXT:    %g = grad.gradient %x wrt %x control_flow : tensor<f32>, tensor<f32>
