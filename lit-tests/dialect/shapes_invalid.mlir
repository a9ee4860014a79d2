// RUN: grad-opt %s --split-input-file --verify-diagnostics | filecheck %s

// grad.reduce: axes non-empty, in range, sorted, unique; kind add/max/mul;
// the result drops the reduced axes.

func.func @reduce_no_axes(%a: tensor<5x3xf32>) {
  // CHECK: {{.*}}shapes_invalid.mlir:[[# @LINE + 1]]:3: error: 'grad.reduce' op axes must not be empty
  %r = grad.reduce add %a [] : tensor<5x3xf32> to tensor<5x3xf32>
  func.return
}

// -----

func.func @reduce_axis_out_of_range(%a: tensor<5x3xf32>) {
  // CHECK: {{.*}}shapes_invalid.mlir:[[# @LINE + 1]]:3: error: 'grad.reduce' op axes must be in range [0, 2), got [2]
  %r = grad.reduce add %a [2] : tensor<5x3xf32> to tensor<5x3xf32>
  func.return
}

// -----

func.func @reduce_negative_axis(%a: tensor<5x3xf32>) {
  // CHECK: {{.*}}shapes_invalid.mlir:[[# @LINE + 1]]:3: error: 'grad.reduce' op axes must be in range [0, 2), got [-1]
  %r = grad.reduce add %a [-1] : tensor<5x3xf32> to tensor<5xf32>
  func.return
}

// -----

func.func @reduce_unsorted(%a: tensor<5x3xf32>) {
  // CHECK: {{.*}}shapes_invalid.mlir:[[# @LINE + 1]]:3: error: 'grad.reduce' op axes must be sorted and unique, got [1, 0]
  %r = grad.reduce add %a [1, 0] : tensor<5x3xf32> to tensor<f32>
  func.return
}

// -----

func.func @reduce_duplicate(%a: tensor<5x3xf32>) {
  // CHECK: {{.*}}shapes_invalid.mlir:[[# @LINE + 1]]:3: error: 'grad.reduce' op axes must be sorted and unique, got [0, 0]
  %r = grad.reduce add %a [0, 0] : tensor<5x3xf32> to tensor<3xf32>
  func.return
}

// -----

func.func @reduce_kind(%a: tensor<5x3xf32>) {
  // CHECK: {{.*}}shapes_invalid.mlir:[[# @LINE + 1]]:3: error: 'grad.reduce' op kind must be add, max or mul, got 'min'
  %r = grad.reduce min %a [0] : tensor<5x3xf32> to tensor<3xf32>
  func.return
}

// -----

func.func @reduce_kind_generic(%a: tensor<5x3xf32>) {
  // CHECK: {{.*}}shapes_invalid.mlir:[[# @LINE + 1]]:3: error: 'grad.reduce' op kind must be add, max or mul, got 'sum'
  %r = "grad.reduce"(%a) <{kind = "sum", axes = array<i64: 0>}> : (tensor<5x3xf32>) -> tensor<3xf32>
  func.return
}

// -----

func.func @reduce_result_shape(%a: tensor<5x3xf32>) {
  // CHECK: {{.*}}shapes_invalid.mlir:[[# @LINE + 1]]:3: error: 'grad.reduce' op result must be tensor<3xf32> (the input without the reduced axes), got tensor<5xf32>
  %r = grad.reduce add %a [0] : tensor<5x3xf32> to tensor<5xf32>
  func.return
}

// -----

func.func @reduce_result_keeps_rank(%a: tensor<5x3xf32>) {
  // CHECK: {{.*}}shapes_invalid.mlir:[[# @LINE + 1]]:3: error: 'grad.reduce' op result must be tensor<3xf32> (the input without the reduced axes), got tensor<1x3xf32>
  %r = grad.reduce max %a [0] : tensor<5x3xf32> to tensor<1x3xf32>
  func.return
}

// -----

func.func @reduce_result_element(%a: tensor<5xi32>) {
  // CHECK: {{.*}}shapes_invalid.mlir:[[# @LINE + 1]]:3: error: 'grad.reduce' op result must be tensor<i32> (the input without the reduced axes), got tensor<f32>
  %r = grad.reduce add %a [0] : tensor<5xi32> to tensor<f32>
  func.return
}

// -----

func.func @reduce_i1(%a: tensor<5xi1>) {
  // CHECK: {{.*}}shapes_invalid.mlir:[[# @LINE + 1]]:3: error: 'grad.reduce' op input must be a tensor of f32 or i32, got tensor<5xi1>
  %r = grad.reduce add %a [0] : tensor<5xi1> to tensor<i1>
  func.return
}

// -----

// grad.broadcast: one strictly increasing output dim per input dim; sizes
// agree or the input size is 1.

func.func @broadcast_dims_count(%a: tensor<3xf32>) {
  // CHECK: {{.*}}shapes_invalid.mlir:[[# @LINE + 1]]:3: error: 'grad.broadcast' op dims must have one entry per input dim (1), got [0, 1]
  %r = grad.broadcast %a [0, 1] : tensor<3xf32> to tensor<2x3xf32>
  func.return
}

// -----

func.func @broadcast_dims_decreasing(%a: tensor<3x3xf32>) {
  // CHECK: {{.*}}shapes_invalid.mlir:[[# @LINE + 1]]:3: error: 'grad.broadcast' op dims must be strictly increasing, got [1, 0]
  %r = grad.broadcast %a [1, 0] : tensor<3x3xf32> to tensor<3x3xf32>
  func.return
}

// -----

func.func @broadcast_dims_repeated(%a: tensor<3x3xf32>) {
  // CHECK: {{.*}}shapes_invalid.mlir:[[# @LINE + 1]]:3: error: 'grad.broadcast' op dims must be strictly increasing, got [1, 1]
  %r = grad.broadcast %a [1, 1] : tensor<3x3xf32> to tensor<3x3xf32>
  func.return
}

// -----

func.func @broadcast_dim_out_of_range(%a: tensor<3xf32>) {
  // CHECK: {{.*}}shapes_invalid.mlir:[[# @LINE + 1]]:3: error: 'grad.broadcast' op dims must be in range [0, 2), got [2]
  %r = grad.broadcast %a [2] : tensor<3xf32> to tensor<2x3xf32>
  func.return
}

// -----

func.func @broadcast_sizes(%a: tensor<3xf32>) {
  // CHECK: {{.*}}shapes_invalid.mlir:[[# @LINE + 1]]:3: error: 'grad.broadcast' op input dim 0 of size 3 cannot broadcast to output dim 0 of size 2
  %r = grad.broadcast %a [0] : tensor<3xf32> to tensor<2x3xf32>
  func.return
}

// -----

func.func @broadcast_element(%a: tensor<3xf32>) {
  // CHECK: {{.*}}shapes_invalid.mlir:[[# @LINE + 1]]:3: error: 'grad.broadcast' op result element type must be f32, got i32
  %r = grad.broadcast %a [1] : tensor<3xf32> to tensor<2x3xi32>
  func.return
}

// -----

// grad.permute: a permutation of the input dims; output dim i is input dim
// perm[i].

func.func @permute_not_a_permutation(%a: tensor<2x3xf32>) {
  // CHECK: {{.*}}shapes_invalid.mlir:[[# @LINE + 1]]:3: error: 'grad.permute' op perm must be a permutation of [0, 2), got [0, 0]
  %r = grad.permute %a [0, 0] : tensor<2x3xf32> to tensor<2x2xf32>
  func.return
}

// -----

func.func @permute_wrong_length(%a: tensor<2x3xf32>) {
  // CHECK: {{.*}}shapes_invalid.mlir:[[# @LINE + 1]]:3: error: 'grad.permute' op perm must be a permutation of [0, 2), got [1, 0, 2]
  %r = grad.permute %a [1, 0, 2] : tensor<2x3xf32> to tensor<3x2xf32>
  func.return
}

// -----

func.func @permute_result_shape(%a: tensor<2x3xf32>) {
  // CHECK: {{.*}}shapes_invalid.mlir:[[# @LINE + 1]]:3: error: 'grad.permute' op result shape must be [3, 2], got [2, 3]
  %r = grad.permute %a [1, 0] : tensor<2x3xf32> to tensor<2x3xf32>
  func.return
}

// -----

// grad.reshape keeps the element count and type.

func.func @reshape_count(%a: tensor<2x3xf32>) {
  // CHECK: {{.*}}shapes_invalid.mlir:[[# @LINE + 1]]:3: error: 'grad.reshape' op result must have as many elements as the input (6), got 5
  %r = grad.reshape %a : tensor<2x3xf32> to tensor<5xf32>
  func.return
}

// -----

func.func @reshape_element(%a: tensor<6xf32>) {
  // CHECK: {{.*}}shapes_invalid.mlir:[[# @LINE + 1]]:3: error: 'grad.reshape' op result element type must be f32, got i32
  %r = grad.reshape %a : tensor<6xf32> to tensor<2x3xi32>
  func.return
}

// -----

// grad.dot: f32 operands of rank >= 2 with equal batch dims, inner sizes agree,
// result [batch] x m x n (batched cases are in slicing_invalid.mlir).

func.func @dot_rank(%a: tensor<6xf32>, %b: tensor<6x2xf32>) {
  // CHECK: {{.*}}shapes_invalid.mlir:[[# @LINE + 1]]:3: error: 'grad.dot' op lhs must be a tensor of rank at least 2, got tensor<6xf32>
  %r = grad.dot %a, %b : tensor<6xf32>, tensor<6x2xf32> to tensor<2xf32>
  func.return
}

// -----

func.func @dot_rhs_rank(%a: tensor<2x3xf32>, %b: tensor<3x4x1xf32>) {
  // CHECK: {{.*}}shapes_invalid.mlir:[[# @LINE + 1]]:3: error: 'grad.dot' op lhs and rhs must have the same rank, got 2 and 3
  %r = grad.dot %a, %b : tensor<2x3xf32>, tensor<3x4x1xf32> to tensor<2x4xf32>
  func.return
}

// -----

func.func @dot_rhs_vector(%a: tensor<2x3xf32>, %b: tensor<3xf32>) {
  // CHECK: {{.*}}shapes_invalid.mlir:[[# @LINE + 1]]:3: error: 'grad.dot' op rhs must be a tensor of rank at least 2, got tensor<3xf32>
  %r = grad.dot %a, %b : tensor<2x3xf32>, tensor<3xf32> to tensor<2xf32>
  func.return
}

// -----

func.func @dot_inner_sizes(%a: tensor<2x3xf32>) {
  // CHECK: {{.*}}shapes_invalid.mlir:[[# @LINE + 1]]:3: error: 'grad.dot' op inner sizes must agree: lhs has 3 columns, rhs has 2 rows
  %r = grad.dot %a, %a : tensor<2x3xf32>, tensor<2x3xf32> to tensor<2x3xf32>
  func.return
}

// -----

func.func @dot_result(%a: tensor<2x3xf32>, %b: tensor<3x4xf32>) {
  // CHECK: {{.*}}shapes_invalid.mlir:[[# @LINE + 1]]:3: error: 'grad.dot' op result must be tensor<2x4xf32>, got tensor<4x2xf32>
  %r = grad.dot %a, %b : tensor<2x3xf32>, tensor<3x4xf32> to tensor<4x2xf32>
  func.return
}

// -----

func.func @dot_i32(%a: tensor<2x3xi32>, %b: tensor<3x4xi32>) {
  // CHECK: {{.*}}shapes_invalid.mlir:[[# @LINE + 1]]:3: error: 'grad.dot' op lhs must be a tensor of f32, got tensor<2x3xi32>
  %r = grad.dot %a, %b : tensor<2x3xi32>, tensor<3x4xi32> to tensor<2x4xi32>
  func.return
}

// -----

// A list property of the wrong kind is a verification error that names it,
// never a crash (a generic `perm = array<f32: ...>` used to be indexed).

func.func @permute_f32_perm(%a: tensor<2x3xf32>) {
  // CHECK: {{.*}}shapes_invalid.mlir:[[# @LINE + 1]]:3: error: 'grad.permute' op perm must be an array<i64: ...>, got array<f32: 0.000000e+00>
  %r = "grad.permute"(%a) <{perm = array<f32: 0.0>}> : (tensor<2x3xf32>) -> tensor<3x2xf32>
  func.return
}

// -----

func.func @reduce_f32_axes(%a: tensor<2x3xf32>) {
  // CHECK: {{.*}}shapes_invalid.mlir:[[# @LINE + 1]]:3: error: 'grad.reduce' op axes must be an array<i64: ...>, got array<f32: 0.000000e+00>
  %r = "grad.reduce"(%a) <{kind = "add", axes = array<f32: 0.0>}> : (tensor<2x3xf32>) -> tensor<3xf32>
  func.return
}

// -----

func.func @broadcast_i32_dims(%a: tensor<3xf32>) {
  // CHECK: {{.*}}shapes_invalid.mlir:[[# @LINE + 1]]:3: error: 'grad.broadcast' op dims must be an array<i64: ...>, got array<i32: 1>
  %r = "grad.broadcast"(%a) <{dims = array<i32: 1>}> : (tensor<3xf32>) -> tensor<2x3xf32>
  func.return
}

// -----

func.func @reduce_dense_axes(%a: tensor<2x3xf32>) {
  // CHECK: {{.*}}shapes_invalid.mlir:[[# @LINE + 1]]:3: error: 'grad.reduce' op axes must be an array<i64: ...>, got 0 : i64
  %r = "grad.reduce"(%a) <{kind = "add", axes = 0 : i64}> : (tensor<2x3xf32>) -> tensor<3xf32>
  func.return
}
