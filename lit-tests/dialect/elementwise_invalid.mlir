// RUN: grad-opt %s --split-input-file --verify-diagnostics | filecheck %s

// Element-type restrictions of the elementwise ops (SPEC §3.1).

func.func @sqrt_i32(%a: tensor<5xi32>) {
  // CHECK: {{.*}}elementwise_invalid.mlir:[[# @LINE + 1]]:3: error: 'grad.sqrt' op input must be a tensor of f32, got tensor<5xi32>
  %r = grad.sqrt %a : tensor<5xi32>
  func.return
}

// -----

func.func @sin_i1(%a: tensor<i1>) {
  // CHECK: {{.*}}elementwise_invalid.mlir:[[# @LINE + 1]]:3: error: 'grad.sin' op input must be a tensor of f32, got tensor<i1>
  %r = grad.sin %a : tensor<i1>
  func.return
}

// -----

func.func @add_i1(%a: tensor<5xi1>) {
  // CHECK: {{.*}}elementwise_invalid.mlir:[[# @LINE + 1]]:3: error: 'grad.add' op lhs must be a tensor of f32 or i32, got tensor<5xi1>
  %r = grad.add %a, %a : tensor<5xi1>
  func.return
}

// -----

func.func @neg_i1(%a: tensor<5xi1>) {
  // CHECK: {{.*}}elementwise_invalid.mlir:[[# @LINE + 1]]:3: error: 'grad.neg' op input must be a tensor of f32 or i32, got tensor<5xi1>
  %r = grad.neg %a : tensor<5xi1>
  func.return
}

// -----

func.func @idiv_f32(%a: tensor<5xf32>) {
  // CHECK: {{.*}}elementwise_invalid.mlir:[[# @LINE + 1]]:3: error: 'grad.idiv' op lhs must be a tensor of i32, got tensor<5xf32>
  %r = grad.idiv %a, %a : tensor<5xf32>
  func.return
}

// -----

func.func @mod_i1(%a: tensor<5xi1>) {
  // CHECK: {{.*}}elementwise_invalid.mlir:[[# @LINE + 1]]:3: error: 'grad.mod' op lhs must be a tensor of i32, got tensor<5xi1>
  %r = grad.mod %a, %a : tensor<5xi1>
  func.return
}

// -----

func.func @and_f32(%a: tensor<5xf32>) {
  // CHECK: {{.*}}elementwise_invalid.mlir:[[# @LINE + 1]]:3: error: 'grad.and' op lhs must be a tensor of i32 or i1, got tensor<5xf32>
  %r = grad.and %a, %a : tensor<5xf32>
  func.return
}

// -----

func.func @shl_i1(%a: tensor<5xi1>) {
  // CHECK: {{.*}}elementwise_invalid.mlir:[[# @LINE + 1]]:3: error: 'grad.shl' op lhs must be a tensor of i32, got tensor<5xi1>
  %r = grad.shl %a, %a : tensor<5xi1>
  func.return
}

// -----

// Operand and result types must agree; only the generic form can break that.
func.func @operand_types_differ(%a: tensor<5xf32>, %b: tensor<5xi32>) {
  // CHECK: {{.*}}elementwise_invalid.mlir:[[# @LINE + 1]]:3: error: 'grad.add' op rhs must have the type of lhs (tensor<5xf32>), got tensor<5xi32>
  %r = "grad.add"(%a, %b) : (tensor<5xf32>, tensor<5xi32>) -> tensor<5xf32>
  func.return
}

// -----

func.func @operand_shapes_differ(%a: tensor<5xf32>, %b: tensor<4xf32>) {
  // CHECK: {{.*}}elementwise_invalid.mlir:[[# @LINE + 1]]:3: error: 'grad.mul' op rhs must have the type of lhs (tensor<5xf32>), got tensor<4xf32>
  %r = "grad.mul"(%a, %b) : (tensor<5xf32>, tensor<4xf32>) -> tensor<5xf32>
  func.return
}

// -----

func.func @result_type_differs(%a: tensor<5xf32>) {
  // CHECK: {{.*}}elementwise_invalid.mlir:[[# @LINE + 1]]:3: error: 'grad.neg' op result must have the type of input (tensor<5xf32>), got tensor<5xi32>
  %r = "grad.neg"(%a) : (tensor<5xf32>) -> tensor<5xi32>
  func.return
}

// -----

func.func @dynamic_shape(%a: tensor<?xf32>) {
  // CHECK: {{.*}}elementwise_invalid.mlir:[[# @LINE + 1]]:3: error: 'grad.exp2' op input must be a statically shaped tensor of f32, got tensor<?xf32>
  %r = "grad.exp2"(%a) : (tensor<?xf32>) -> tensor<?xf32>
  func.return
}

// -----

func.func @f64_element(%a: tensor<5xf64>) {
  // CHECK: {{.*}}elementwise_invalid.mlir:[[# @LINE + 1]]:3: error: 'grad.detach' op input must be a tensor of f32, i32 or i1, got tensor<5xf64>
  %r = "grad.detach"(%a) : (tensor<5xf64>) -> tensor<5xf64>
  func.return
}
