// RUN: grad-opt %s --split-input-file --verify-diagnostics | filecheck %s

func.func @cast_shape(%a: tensor<5xf32>) {
  // CHECK: {{.*}}conversion_invalid.mlir:[[# @LINE + 1]]:3: error: 'grad.cast' op result shape must equal the input shape [5], got [4]
  %r = grad.cast %a : tensor<5xf32> to tensor<4xi32>
  func.return
}

// -----

func.func @cast_f64(%a: tensor<5xf32>) {
  // CHECK: {{.*}}conversion_invalid.mlir:[[# @LINE + 1]]:3: error: 'grad.cast' op result must be a tensor of f32, i32 or i1, got tensor<5xf64>
  %r = grad.cast %a : tensor<5xf32> to tensor<5xf64>
  func.return
}

// -----

func.func @bitcast_to_i1(%a: tensor<5xf32>) {
  // CHECK: {{.*}}conversion_invalid.mlir:[[# @LINE + 1]]:3: error: 'grad.bitcast' op bitcast must be between f32 and i32 or to the same type, got f32 to i1
  %r = grad.bitcast %a : tensor<5xf32> to tensor<5xi1>
  func.return
}

// -----

func.func @bitcast_from_i1(%a: tensor<2xi1>) {
  // CHECK: {{.*}}conversion_invalid.mlir:[[# @LINE + 1]]:3: error: 'grad.bitcast' op bitcast must be between f32 and i32 or to the same type, got i1 to i32
  %r = grad.bitcast %a : tensor<2xi1> to tensor<2xi32>
  func.return
}

// -----

func.func @bitcast_shape(%a: tensor<2x2xf32>) {
  // CHECK: {{.*}}conversion_invalid.mlir:[[# @LINE + 1]]:3: error: 'grad.bitcast' op result shape must equal the input shape [2, 2], got [4]
  %r = grad.bitcast %a : tensor<2x2xf32> to tensor<4xi32>
  func.return
}
