// RUN: grad-opt %s --split-input-file --verify-diagnostics | filecheck %s

// The verifier of grad.custom checks @f, its vjp and its jvp against the op's
// signature and names the function that does not fit.

func.func @f(%x: tensor<3xf32>) -> tensor<3xf32> {
  func.return %x : tensor<3xf32>
}
func.func @wrong_vjp(%x: tensor<3xf32>) -> tensor<3xf32> {
  func.return %x : tensor<3xf32>
}
func.func @main(%x: tensor<3xf32>) -> tensor<3xf32> {
  // CHECK: {{.*}}custom_invalid.mlir:[[# @LINE + 1]]:3: error: 'grad.custom' op the vjp function @wrong_vjp has type (tensor<3xf32>) -> tensor<3xf32>, expected (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32> for @f
  %r = grad.custom @f(%x) vjp @wrong_vjp : (tensor<3xf32>) -> tensor<3xf32>
  func.return %r : tensor<3xf32>
}

// -----

func.func @f(%x: tensor<3xf32>) -> tensor<3xf32> {
  func.return %x : tensor<3xf32>
}
func.func @wrong_jvp(%x: tensor<3xf32>, %t: tensor<3xf32>) -> tensor<f32> {
  %s = grad.reduce add %t [0] : tensor<3xf32> to tensor<f32>
  func.return %s : tensor<f32>
}
func.func @main(%x: tensor<3xf32>) -> tensor<3xf32> {
  // CHECK: {{.*}}custom_invalid.mlir:[[# @LINE + 1]]:3: error: 'grad.custom' op the jvp function @wrong_jvp has type (tensor<3xf32>, tensor<3xf32>) -> tensor<f32>, expected (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32> for @f
  %r = grad.custom @f(%x) jvp @wrong_jvp : (tensor<3xf32>) -> tensor<3xf32>
  func.return %r : tensor<3xf32>
}

// -----

func.func @f(%x: tensor<3xf32>) -> tensor<2xf32> {
  %s = grad.slice %x [0] [2] [1] : tensor<3xf32> to tensor<2xf32>
  func.return %s : tensor<2xf32>
}
func.func @main(%x: tensor<3xf32>) -> tensor<3xf32> {
  // CHECK: {{.*}}custom_invalid.mlir:[[# @LINE + 1]]:3: error: 'grad.custom' op the function @f has type (tensor<3xf32>) -> tensor<2xf32>, expected (tensor<3xf32>) -> tensor<3xf32>
  %r = grad.custom @f(%x) : (tensor<3xf32>) -> tensor<3xf32>
  func.return %r : tensor<3xf32>
}

// -----

func.func @main(%x: tensor<3xf32>) -> tensor<3xf32> {
  // CHECK: {{.*}}custom_invalid.mlir:[[# @LINE + 1]]:3: error: 'grad.custom' op the function @missing is not a func.func of the module
  %r = grad.custom @missing(%x) : (tensor<3xf32>) -> tensor<3xf32>
  func.return %r : tensor<3xf32>
}

// -----

func.func @f(%x: memref<3xf32>) -> tensor<3xf32> {
  %r = grad.load %x : memref<3xf32>
  func.return %r : tensor<3xf32>
}
func.func @main(%x: memref<3xf32>) -> tensor<3xf32> {
  // CHECK: {{.*}}custom_invalid.mlir:[[# @LINE + 1]]:3: error: 'grad.custom' op operands and results must be tensors, got memref<3xf32>
  %r = "grad.custom"(%x) <{callee = @f}> : (memref<3xf32>) -> tensor<3xf32>
  func.return %r : tensor<3xf32>
}

// -----

func.func @main(%x: tensor<3xf32>) -> tensor<3xf32> {
  // CHECK: {{.*}}custom_invalid.mlir:[[# @LINE + 1]]:29: error: expected 1 operand type, got 2
  %r = grad.custom @f(%x) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  func.return %r : tensor<3xf32>
}
