// RUN: grad-opt %s --split-input-file --verify-diagnostics | filecheck %s

// Errors of the custom syntax, reported by the parser at the offending token.

// CHECK: {{.*}}syntax_invalid.mlir:[[# @LINE + 1]]:17: error: expected 'true' or 'false' for i1, got '2'
%c = grad.const 2 : tensor<5xi1>

// -----

// CHECK: {{.*}}syntax_invalid.mlir:[[# @LINE + 1]]:17: error: expected 'true' or 'false' for i1, got '1.0'
%c = grad.const 1.0 : tensor<i1>

// -----

// CHECK: {{.*}}syntax_invalid.mlir:[[# @LINE + 1]]:17: error: integer literal 2147483648 does not fit in i32
%c = grad.const 2147483648 : tensor<5xi32>

// -----

// CHECK: {{.*}}syntax_invalid.mlir:[[# @LINE + 1]]:17: error: integer literal -2147483649 does not fit in i32
%c = grad.const -2147483649 : tensor<i32>

// -----

// CHECK: {{.*}}syntax_invalid.mlir:[[# @LINE + 1]]:17: error: expected an integer literal, got '1.5'
%c = grad.const 1.5 : tensor<2xi32>

// -----

// CHECK: {{.*}}syntax_invalid.mlir:[[# @LINE + 1]]:17: error: expected a number for f32, got 'true'
%c = grad.const true : tensor<2xf32>

// -----

// CHECK: {{.*}}syntax_invalid.mlir:[[# @LINE + 1]]:17: error: hexadecimal literal 0x1FFFFFFFF exceeds 32 bits
%c = grad.const 0x1FFFFFFFF : tensor<f32>

// -----

// CHECK: {{.*}}syntax_invalid.mlir:[[# @LINE + 1]]:17: error: expected a literal value
%c = grad.const pi : tensor<f32>

// -----

// CHECK: {{.*}}syntax_invalid.mlir:[[# @LINE + 1]]:23: error: expected a statically shaped tensor of f32, i32 or i1, got memref<5xf32>
%c = grad.const 2.0 : memref<5xf32>

// -----

// CHECK: {{.*}}syntax_invalid.mlir:[[# @LINE + 1]]:23: error: expected a statically shaped tensor of f32, i32 or i1, got tensor<?xf32>
%c = grad.const 1.0 : tensor<?xf32>

// -----

// CHECK: {{.*}}syntax_invalid.mlir:[[# @LINE + 1]]:23: error: expected a statically shaped tensor of f32, i32 or i1, got f32
%c = grad.const 1.0 : f32

// -----

// CHECK: {{.*}}syntax_invalid.mlir:[[# @LINE + 1]]:17: error: expected a dense literal of tensor type, got dense<2.000000e+00> : vector<2xf32>
%c = grad.const dense<[2.0, 2.0]> : vector<2xf32>

// -----

func.func @non_tensor_operand(%a: tensor<5xf32>) {
  // CHECK: {{.*}}syntax_invalid.mlir:[[# @LINE + 1]]:22: error: expected a statically shaped tensor of f32, i32 or i1, got tensor<5xf64>
  %r = grad.neg %a : tensor<5xf64>
  func.return
}

// -----

func.func @operand_count(%a: tensor<5xf32>) {
  // CHECK: {{.*}}syntax_invalid.mlir:[[# @LINE + 1]]:17: error: expected 2 operands, got 1
  %r = grad.add %a : tensor<5xf32>
  func.return
}

// -----

func.func @where_operand_count(%c: tensor<5xi1>, %a: tensor<5xf32>) {
  // CHECK: {{.*}}syntax_invalid.mlir:[[# @LINE + 1]]:19: error: expected 3 operands, got 2
  %r = grad.where %c, %a : tensor<5xf32>
  func.return
}

// -----

func.func @type_differs_from_definition(%a: tensor<5xf32>) {
  // CHECK: {{.*}}syntax_invalid.mlir:[[# @LINE + 1]]:17: error: operand is used with type tensor<4xf32>, but has been previously used or defined with type tensor<5xf32>
  %r = grad.add %a, %a : tensor<4xf32>
  func.return
}

// -----

func.func @load_from_tensor(%s: tensor<5xf32>) {
  // CHECK: {{.*}}syntax_invalid.mlir:[[# @LINE + 1]]:23: error: expected a memref type, got tensor<5xf32>
  %x = grad.load %s : tensor<5xf32>
  func.return
}

// -----

func.func @load_too_many_indices(%s: memref<5xf32>, %i: index) {
  // CHECK: {{.*}}syntax_invalid.mlir:[[# @LINE + 1]]:31: error: too many indices for memref<5xf32>: expected at most 1, got 2
  %x = grad.load %s[%i, %i] : memref<5xf32>
  func.return
}

// -----

func.func @gradient_missing_type(%y: tensor<f32>, %x: tensor<5xf32>) {
  // CHECK: {{.*}}syntax_invalid.mlir:[[# @LINE + 1]]:34: error: expected 2 types, got 1
  %g = grad.gradient %y wrt %x : tensor<f32>
  func.return
}

// -----

func.func @vjp_extra_type(%y: tensor<f32>, %x: tensor<5xf32>) {
  // CHECK: {{.*}}syntax_invalid.mlir:[[# @LINE + 1]]:33: error: expected 2 types, got 3
  %g = grad.vjp %y, %y wrt %x : tensor<f32>, tensor<5xf32>, tensor<5xf32>
  func.return
}

// -----

func.func @jvp_one_target(%y: tensor<f32>, %x: tensor<5xf32>) {
  // CHECK: {{.*}}syntax_invalid.mlir:[[# @LINE + 1]]:33: error: expected 2 types, got 3
  %t = grad.jvp %y wrt %x, %x : tensor<f32>, tensor<5xf32>, tensor<5xf32>
  func.return
}

// -----

func.func @reduce_without_kind(%a: tensor<5xf32>) {
  // CHECK: {{.*}}syntax_invalid.mlir:[[# @LINE + 1]]:20: error: identifier expected (reduction kind: add, max or mul)
  %r = grad.reduce %a [0] : tensor<5xf32> to tensor<f32>
  func.return
}
