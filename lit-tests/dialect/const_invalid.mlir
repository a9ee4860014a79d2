// RUN: grad-opt %s --split-input-file --verify-diagnostics | filecheck %s

// Verifier errors of `grad.const`; the custom form cannot express them.

// CHECK: {{.*}}const_invalid.mlir:[[# @LINE + 1]]:1: error: 'grad.const' op value type i32 does not match result element type f32
%c = "grad.const"() <{value = 2 : i32}> : () -> tensor<5xf32>

// -----

// CHECK: {{.*}}const_invalid.mlir:[[# @LINE + 1]]:1: error: 'grad.const' op value type f32 does not match result element type i1
%c = "grad.const"() <{value = 1.0 : f32}> : () -> tensor<5xi1>

// -----

// CHECK: {{.*}}const_invalid.mlir:[[# @LINE + 1]]:1: error: 'grad.const' op dense value type tensor<2xf32> does not match result type tensor<3xf32>
%c = "grad.const"() <{value = dense<[1.0, 2.0]> : tensor<2xf32>}> : () -> tensor<3xf32>

// -----

// CHECK: {{.*}}const_invalid.mlir:[[# @LINE + 1]]:1: error: 'grad.const' op dense value type tensor<2xi32> does not match result type tensor<2xf32>
%c = "grad.const"() <{value = dense<[1, 2]> : tensor<2xi32>}> : () -> tensor<2xf32>

// -----

// CHECK: {{.*}}const_invalid.mlir:[[# @LINE + 1]]:1: error: 'grad.const' op result must be a tensor of f32, i32 or i1, got tensor<3xf64>
%c = "grad.const"() <{value = 1.0 : f64}> : () -> tensor<3xf64>

// -----

// CHECK: {{.*}}const_invalid.mlir:[[# @LINE + 1]]:1: error: 'grad.const' op result must be a statically shaped tensor of f32, i32 or i1, got tensor<?xf32>
%c = "grad.const"() <{value = 1.0 : f32}> : () -> tensor<?xf32>

// -----

// The custom form takes its type from a dense literal, so an f64 literal
// reaches the verifier.
// CHECK: {{.*}}const_invalid.mlir:[[# @LINE + 1]]:1: error: 'grad.const' op result must be a tensor of f32, i32 or i1, got tensor<2xf64>
%c = grad.const dense<[2.0, 2.0]> : tensor<2xf64>
