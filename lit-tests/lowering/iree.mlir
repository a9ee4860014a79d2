// REQUIRES: iree
// RUN: grad-opt %s -p expand-gradient,convert-grad-to-standard | iree-opt | filecheck %s
// RUN: grad-run %s --backend iree --slot '0=[1, 2, 3, 4, 5]' | filecheck %s --check-prefix=OUT

// Upstream MLIR (IREE's iree-opt) parses and verifies the lowered module,
// and IREE compiles and runs it: f(x) = x^3 - 2x, f'(x) = 3x^2 - 2.

func.func @main(%xs: memref<5xf32>, %out: memref<5xf32>) -> tensor<f32> {
  %x = grad.load %xs : memref<5xf32>
  %square = grad.mul %x, %x : tensor<5xf32>
  %cube = grad.mul %square, %x : tensor<5xf32>
  %two = grad.const 2.0 : tensor<5xf32>
  %twice = grad.mul %two, %x : tensor<5xf32>
  %minus = grad.neg %twice : tensor<5xf32>
  %f = grad.add %cube, %minus : tensor<5xf32>
  %loss = grad.reduce add %f [0] : tensor<5xf32> to tensor<f32>
  %g = grad.gradient %loss wrt %x : tensor<f32>, tensor<5xf32>
  grad.store %g, %out : memref<5xf32>
  func.return %loss : tensor<f32>
}

// CHECK:      func.func @main(%{{.*}}: tensor<5xf32>, %{{.*}}: tensor<5xf32>) -> (tensor<f32>, tensor<5xf32>, tensor<5xf32>)
// CHECK:        linalg.reduce
// CHECK:        return

// OUT:      result 0 = dense<195.0> : tensor<f32>
// OUT-NEXT: slot 0 = dense<[1.0, 2.0, 3.0, 4.0, 5.0]> : memref<5xf32>
// OUT-NEXT: slot 1 = dense<[1.0, 10.0, 25.0, 46.0, 73.0]> : memref<5xf32>
