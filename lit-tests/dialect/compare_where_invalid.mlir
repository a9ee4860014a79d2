// RUN: grad-opt %s --split-input-file --verify-diagnostics | filecheck %s

func.func @cmplt_i1(%a: tensor<5xi1>) {
  // CHECK: {{.*}}compare_where_invalid.mlir:[[# @LINE + 1]]:3: error: 'grad.cmplt' op lhs must be a tensor of f32 or i32, got tensor<5xi1>
  %r = grad.cmplt %a, %a : tensor<5xi1>
  func.return
}

// -----

func.func @compare_result_not_i1(%a: tensor<5xf32>) {
  // CHECK: {{.*}}compare_where_invalid.mlir:[[# @LINE + 1]]:3: error: 'grad.cmplt' op result must be tensor<5xi1>, got tensor<5xf32>
  %r = "grad.cmplt"(%a, %a) : (tensor<5xf32>, tensor<5xf32>) -> tensor<5xf32>
  func.return
}

// -----

func.func @compare_result_shape(%a: tensor<5xi32>) {
  // CHECK: {{.*}}compare_where_invalid.mlir:[[# @LINE + 1]]:3: error: 'grad.cmpeq' op result must be tensor<5xi1>, got tensor<1xi1>
  %r = "grad.cmpeq"(%a, %a) : (tensor<5xi32>, tensor<5xi32>) -> tensor<1xi1>
  func.return
}

// -----

func.func @compare_operands_differ(%a: tensor<5xf32>, %b: tensor<4xf32>) {
  // CHECK: {{.*}}compare_where_invalid.mlir:[[# @LINE + 1]]:3: error: 'grad.cmpne' op rhs must have the type of lhs (tensor<5xf32>), got tensor<4xf32>
  %r = "grad.cmpne"(%a, %b) : (tensor<5xf32>, tensor<4xf32>) -> tensor<5xi1>
  func.return
}

// -----

func.func @condition_not_i1(%a: tensor<5xf32>) {
  // CHECK: {{.*}}compare_where_invalid.mlir:[[# @LINE + 1]]:3: error: 'grad.where' op condition must be tensor<5xi1>, got tensor<5xf32>
  %r = "grad.where"(%a, %a, %a) : (tensor<5xf32>, tensor<5xf32>, tensor<5xf32>) -> tensor<5xf32>
  func.return
}

// -----

func.func @condition_shape(%c: tensor<4xi1>, %a: tensor<5xf32>) {
  // CHECK: {{.*}}compare_where_invalid.mlir:[[# @LINE + 1]]:3: error: 'grad.where' op condition must be tensor<5xi1>, got tensor<4xi1>
  %r = "grad.where"(%c, %a, %a) : (tensor<4xi1>, tensor<5xf32>, tensor<5xf32>) -> tensor<5xf32>
  func.return
}

// -----

func.func @branches_differ(%c: tensor<5xi1>, %a: tensor<5xf32>, %b: tensor<5xi32>) {
  // CHECK: {{.*}}compare_where_invalid.mlir:[[# @LINE + 1]]:3: error: 'grad.where' op on_false must have the result type tensor<5xf32>, got tensor<5xi32>
  %r = "grad.where"(%c, %a, %b) : (tensor<5xi1>, tensor<5xf32>, tensor<5xi32>) -> tensor<5xf32>
  func.return
}
