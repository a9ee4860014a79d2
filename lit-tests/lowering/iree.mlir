// REQUIRES: iree
// RUN: grad-opt %s -p expand-gradient,convert-grad-to-standard | iree-opt | filecheck %s
// RUN: grad-run %s --backend iree --slot '0=[1, 2, 3, 4, 5]' | filecheck %s --check-prefix=OUT
// RUN: grad-opt %S/slicing.mlir -p convert-grad-to-standard --split-input-file | iree-opt --split-input-file | filecheck %s --check-prefix=SLICING

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

// iree-opt also takes the lowered slice, pad, reverse, concat and batched dot
// of slicing.mlir, size-0 dims included.

// SLICING-LABEL: func.func @slice
// SLICING:         tensor.extract_slice %arg0[1, 0] [2, 2] [1, 3] : tensor<4x5xf32> to tensor<2x2xf32>
// SLICING:         tensor.empty() : tensor<0x5xf32>
// SLICING-LABEL: func.func @pad
// SLICING:         tensor.insert_slice %arg0 into %{{.*}}[1, 0] [2, 3] [1, 2] : tensor<2x3xf32> into tensor<3x7xf32>
// SLICING-LABEL: func.func @reverse
// SLICING:         tensor.extract %arg0[%{{.*}}, %{{.*}}, %{{.*}}] : tensor<3x4x2xi32>
// SLICING:         tensor.extract %arg1[%{{.*}}, %{{.*}}] : tensor<0x3xi1>
// SLICING-LABEL: func.func @concat
// SLICING:         tensor.concat dim(1) %arg2, %arg3, %arg4, %arg5 : (tensor<2x0xi32>, tensor<2x3xi32>, tensor<2x1xi32>, tensor<2x2xi32>) -> tensor<2x6xi32>
// SLICING-LABEL: func.func @batched_dot
// SLICING:         linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "parallel", "reduction"]
// SLICING:         linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]
