// RUN: grad-opt %s --split-input-file --verify-diagnostics | filecheck %s

// Every constraint of `grad.gather`, `grad.scatter_add`, `grad.iota` and
// `grad.argsort` (SPEC §3.6) is a located verification error.

func.func @gather_float_index(%a: tensor<4x5xf32>, %i: tensor<3xf32>) {
  // CHECK: {{.*}}indexing_invalid.mlir:[[# @LINE + 1]]:3: error: 'grad.gather' op index must be a tensor of i32, got tensor<3xf32>
  %r = grad.gather %a, %i [1] : tensor<4x5xf32>, tensor<3xf32> to tensor<4x3xf32>
  func.return
}

// -----

func.func @gather_axis(%a: tensor<4x5xf32>, %i: tensor<3xi32>) {
  // CHECK: {{.*}}indexing_invalid.mlir:[[# @LINE + 1]]:3: error: 'grad.gather' op axis must be in range [0, 2), got 2
  %r = grad.gather %a, %i [2] : tensor<4x5xf32>, tensor<3xi32> to tensor<4x3xf32>
  func.return
}

// -----

func.func @gather_result(%a: tensor<4x5xf32>, %i: tensor<2x3xi32>) {
  // CHECK: {{.*}}indexing_invalid.mlir:[[# @LINE + 1]]:3: error: 'grad.gather' op result must be tensor<4x2x3xf32> (input dims before the axis, index dims, input dims after it), got tensor<4x3xf32>
  %r = grad.gather %a, %i [1] : tensor<4x5xf32>, tensor<2x3xi32> to tensor<4x3xf32>
  func.return
}

// -----

func.func @gather_two_axes(%a: tensor<4x5xf32>, %i: tensor<3xi32>) {
  // CHECK: {{.*}}indexing_invalid.mlir:[[# @LINE + 1]]:27: error: expected one integer for axis
  %r = grad.gather %a, %i [0, 1] : tensor<4x5xf32>, tensor<3xi32> to tensor<4x3xf32>
  func.return
}

// -----

func.func @scatter_bool(%d: tensor<5xi1>, %i: tensor<3xi32>, %u: tensor<3xi1>) {
  // CHECK: {{.*}}indexing_invalid.mlir:[[# @LINE + 1]]:3: error: 'grad.scatter_add' op dest must be a tensor of f32 or i32, got tensor<5xi1>
  %r = grad.scatter_add %d, %i, %u [0] : tensor<5xi1>, tensor<3xi32>, tensor<3xi1> to tensor<5xi1>
  func.return
}

// -----

func.func @scatter_updates(%d: tensor<4x5xf32>, %i: tensor<3xi32>, %u: tensor<3x5xf32>) {
  // CHECK: {{.*}}indexing_invalid.mlir:[[# @LINE + 1]]:3: error: 'grad.scatter_add' op updates must be tensor<4x3xf32> (what gathering dest at index gives), got tensor<3x5xf32>
  %r = grad.scatter_add %d, %i, %u [1] : tensor<4x5xf32>, tensor<3xi32>, tensor<3x5xf32> to tensor<4x5xf32>
  func.return
}

// -----

func.func @scatter_result(%d: tensor<5xf32>, %i: tensor<3xi32>, %u: tensor<3xf32>) {
  // CHECK: {{.*}}indexing_invalid.mlir:[[# @LINE + 1]]:3: error: 'grad.scatter_add' op result must have the type of dest (tensor<5xf32>), got tensor<6xf32>
  %r = grad.scatter_add %d, %i, %u [0] : tensor<5xf32>, tensor<3xi32>, tensor<3xf32> to tensor<6xf32>
  func.return
}

// -----

func.func @scatter_index(%d: tensor<5xf32>, %i: tensor<3xi1>, %u: tensor<3xf32>) {
  // CHECK: {{.*}}indexing_invalid.mlir:[[# @LINE + 1]]:3: error: 'grad.scatter_add' op index must be a tensor of i32, got tensor<3xi1>
  %r = grad.scatter_add %d, %i, %u [0] : tensor<5xf32>, tensor<3xi1>, tensor<3xf32> to tensor<5xf32>
  func.return
}

// -----

func.func @iota_dim() {
  // CHECK: {{.*}}indexing_invalid.mlir:[[# @LINE + 1]]:3: error: 'grad.iota' op dim must be in range [0, 2), got 2
  %r = grad.iota [2] : tensor<4x3xi32>
  func.return
}

// -----

func.func @iota_scalar() {
  // CHECK: {{.*}}indexing_invalid.mlir:[[# @LINE + 1]]:3: error: 'grad.iota' op dim must be in range [0, 0), got 0
  %r = grad.iota [0] : tensor<i32>
  func.return
}

// -----

func.func @iota_bool() {
  // CHECK: {{.*}}indexing_invalid.mlir:[[# @LINE + 1]]:3: error: 'grad.iota' op result must be a tensor of i32 or f32, got tensor<4xi1>
  %r = grad.iota [0] : tensor<4xi1>
  func.return
}

// -----

func.func @iota_generic_property() {
  // CHECK: {{.*}}indexing_invalid.mlir:[[# @LINE + 1]]:3: error: 'grad.iota' op dim must be an i64 integer, got array<i64: 0>
  %r = "grad.iota"() <{dim = array<i64: 0>}> : () -> tensor<4xi32>
  func.return
}

// -----

func.func @argsort_result(%a: tensor<4x5xf32>) {
  // CHECK: {{.*}}indexing_invalid.mlir:[[# @LINE + 1]]:3: error: 'grad.argsort' op result must be tensor<4x5xi32>, got tensor<4x5xf32>
  %r = grad.argsort %a [1] : tensor<4x5xf32> to tensor<4x5xf32>
  func.return
}

// -----

func.func @argsort_dim(%a: tensor<4x5xf32>) {
  // CHECK: {{.*}}indexing_invalid.mlir:[[# @LINE + 1]]:3: error: 'grad.argsort' op dim must be in range [0, 2), got -1
  %r = grad.argsort %a [-1] : tensor<4x5xf32> to tensor<4x5xi32>
  func.return
}

// -----

func.func @argsort_bool(%a: tensor<5xi1>) {
  // CHECK: {{.*}}indexing_invalid.mlir:[[# @LINE + 1]]:3: error: 'grad.argsort' op input must be a tensor of f32 or i32, got tensor<5xi1>
  %r = grad.argsort %a [0] : tensor<5xi1> to tensor<5xi32>
  func.return
}
