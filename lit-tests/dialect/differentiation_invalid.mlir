// RUN: grad-opt %s --split-input-file --verify-diagnostics | filecheck %s

// Type checks of grad.gradient, grad.vjp and grad.jvp. (SPEC §4's rules about
// the loss, the targets and the path are tested with expand-gradient.)

func.func @gradient_result_type(%y: tensor<f32>, %x: tensor<5xf32>) {
  // CHECK: {{.*}}differentiation_invalid.mlir:[[# @LINE + 1]]:3: error: 'grad.gradient' op result 0 must have the type of target 0: expected tensor<5xf32>, got tensor<4xf32>
  %g = "grad.gradient"(%y, %x) : (tensor<f32>, tensor<5xf32>) -> tensor<4xf32>
  func.return
}

// -----

func.func @gradient_second_result_type(%y: tensor<f32>, %a: tensor<5xf32>, %b: tensor<2xf32>) {
  // CHECK: {{.*}}differentiation_invalid.mlir:[[# @LINE + 1]]:3: error: 'grad.gradient' op result 1 must have the type of target 1: expected tensor<2xf32>, got tensor<5xf32>
  %g:2 = "grad.gradient"(%y, %a, %b) : (tensor<f32>, tensor<5xf32>, tensor<2xf32>) -> (tensor<5xf32>, tensor<5xf32>)
  func.return
}

// -----

func.func @gradient_no_targets(%y: tensor<f32>) {
  // CHECK: {{.*}}differentiation_invalid.mlir:[[# @LINE + 1]]:3: error: 'grad.gradient' op expected at least one target
  "grad.gradient"(%y) : (tensor<f32>) -> ()
  func.return
}

// -----

func.func @gradient_result_count(%y: tensor<f32>, %x: tensor<5xf32>) {
  // CHECK: {{.*}}differentiation_invalid.mlir:[[# @LINE + 1]]:3: error: 'grad.gradient' op expected one result per target (1), got 2
  %g:2 = "grad.gradient"(%y, %x) : (tensor<f32>, tensor<5xf32>) -> (tensor<5xf32>, tensor<5xf32>)
  func.return
}

// -----

func.func @vjp_cotangent_type(%y: tensor<3xf32>, %ct: tensor<f32>, %x: tensor<5xf32>) {
  // CHECK: {{.*}}differentiation_invalid.mlir:[[# @LINE + 1]]:3: error: 'grad.vjp' op cotangent must have the loss's type: expected tensor<3xf32>, got tensor<f32>
  %g = "grad.vjp"(%y, %ct, %x) : (tensor<3xf32>, tensor<f32>, tensor<5xf32>) -> tensor<5xf32>
  func.return
}

// -----

func.func @vjp_result_type(%y: tensor<3xf32>, %x: tensor<5xf32>) {
  // CHECK: {{.*}}differentiation_invalid.mlir:[[# @LINE + 1]]:3: error: 'grad.vjp' op result 0 must have the type of target 0: expected tensor<5xf32>, got tensor<3xf32>
  %g = "grad.vjp"(%y, %y, %x) : (tensor<3xf32>, tensor<3xf32>, tensor<5xf32>) -> tensor<3xf32>
  func.return
}

// -----

func.func @vjp_no_targets(%y: tensor<3xf32>) {
  // CHECK: {{.*}}differentiation_invalid.mlir:[[# @LINE + 1]]:3: error: 'grad.vjp' op expected at least one target
  "grad.vjp"(%y, %y) : (tensor<3xf32>, tensor<3xf32>) -> ()
  func.return
}

// -----

func.func @jvp_tangent_type(%y: tensor<3xf32>, %x: tensor<5xf32>, %t: tensor<4xf32>) {
  // CHECK: {{.*}}differentiation_invalid.mlir:[[# @LINE + 1]]:3: error: 'grad.jvp' op tangent must have the target's type: expected tensor<5xf32>, got tensor<4xf32>
  %g = "grad.jvp"(%y, %x, %t) : (tensor<3xf32>, tensor<5xf32>, tensor<4xf32>) -> tensor<3xf32>
  func.return
}

// -----

func.func @jvp_result_type(%y: tensor<3xf32>, %x: tensor<5xf32>) {
  // CHECK: {{.*}}differentiation_invalid.mlir:[[# @LINE + 1]]:3: error: 'grad.jvp' op result must have the type of the output: expected tensor<3xf32>, got tensor<5xf32>
  %g = "grad.jvp"(%y, %x, %x) : (tensor<3xf32>, tensor<5xf32>, tensor<5xf32>) -> tensor<5xf32>
  func.return
}
