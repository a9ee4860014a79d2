// RUN: grad-opt %s --split-input-file --verify-diagnostics 2>&1 | filecheck %s

// A decimal literal beyond float32's range is an infinity (it becomes
// numpy.float32(float(text)), SPEC §3.1), printed as its bit pattern, with
// nothing on stderr: NumPy's overflow warning used to be printed there.

func.func @f() -> (tensor<f32>, tensor<2xf32>) {
  %big = grad.const 1e39 : tensor<f32>
  %small = grad.const -3.5e38 : tensor<2xf32>
  func.return %big, %small : tensor<f32>, tensor<2xf32>
}

// CHECK-NOT:  Warning
// CHECK:      %big = grad.const 0x7F800000 : tensor<f32>
// CHECK-NEXT: %small = grad.const 0xFF800000 : tensor<2xf32>
// CHECK-NOT:  Warning

// -----

// A `dense` literal stores f32 data as such, and a value beyond its range is
// an error at the literal (xDSL's "float too large to pack with f format"
// pointed at the next line).

func.func @g() -> tensor<2xf32> {
  %c = grad.const dense<[1.0, 1.0e39]> : tensor<2xf32>
  func.return %c : tensor<2xf32>
}

// CHECK: {{.*}}const_range.mlir:[[# @LINE - 4]]:19: error: a value of the dense literal is out of range for f32
// CHECK-NOT:  Warning
