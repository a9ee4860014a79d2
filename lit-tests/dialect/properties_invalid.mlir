// RUN: grad-opt %s --split-input-file --verify-diagnostics | filecheck %s

// SPEC §3.2: a list property of the wrong kind (an `array<f32: ...>` where
// `array<i64: ...>` is due) is a verification error that names the property,
// never a crash. The list properties of the shape ops that existed before
// issue 12 (`axes`, `dims`, `perm`); those of the new ops are in
// slicing_invalid.mlir.

func.func @reduce_axes_of_floats(%a: tensor<5x3xf32>) {
  // CHECK: {{.*}}properties_invalid.mlir:[[# @LINE + 1]]:3: error: {{.*}}axes
  %r = "grad.reduce"(%a) <{kind = "add", axes = array<f32: 0.0>}> : (tensor<5x3xf32>) -> tensor<3xf32>
  func.return
}

// -----

func.func @broadcast_dims_of_floats(%a: tensor<3xf32>) {
  // CHECK: {{.*}}properties_invalid.mlir:[[# @LINE + 1]]:3: error: {{.*}}dims
  %r = "grad.broadcast"(%a) <{dims = array<f32: 1.0>}> : (tensor<3xf32>) -> tensor<2x3xf32>
  func.return
}

// -----

func.func @permute_perm_of_floats(%a: tensor<2x3xf32>) {
  // CHECK: {{.*}}properties_invalid.mlir:[[# @LINE + 1]]:3: error: {{.*}}perm
  %r = "grad.permute"(%a) <{perm = array<f32: 1.0, 0.0>}> : (tensor<2x3xf32>) -> tensor<3x2xf32>
  func.return
}
