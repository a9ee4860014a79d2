// RUN: grad-run %s --slot '0=[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]' --slot 1=2.5 | filecheck %s

// A load copies the slot (or the sub-tensor at the leading indices); a store
// writes it, and every later load sees the write, also in a callee, which gets
// the slot itself.

func.func @main(%m: memref<2x3xf32>, %s: memref<f32>, %out: memref<3xi32>) -> (tensor<2x3xf32>, tensor<3xf32>, tensor<f32>, tensor<2x3xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %before = grad.load %m : memref<2x3xf32>
  %row = grad.load %m[%c1] : memref<2x3xf32>
  %x = grad.load %m[%c0, %c2] : memref<2x3xf32>
  %scale = grad.load %s : memref<f32>
  %y = grad.mul %x, %scale : tensor<f32>
  grad.store %y, %m[%c1, %c0] : memref<2x3xf32>
  grad.store %row, %m[%c0] : memref<2x3xf32>
  func.call @double(%s) : (memref<f32>) -> ()
  %after = grad.load %m : memref<2x3xf32>
  %ints = grad.const dense<[7, 8, 9]> : tensor<3xi32>
  grad.store %ints, %out : memref<3xi32>
  func.return %before, %row, %y, %after : tensor<2x3xf32>, tensor<3xf32>, tensor<f32>, tensor<2x3xf32>
}

func.func @double(%s: memref<f32>) {
  %v = grad.load %s : memref<f32>
  %w = grad.add %v, %v : tensor<f32>
  grad.store %w, %s : memref<f32>
  func.return
}

// CHECK:      result 0 = dense<{{\[\[}}1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32>
// CHECK-NEXT: result 1 = dense<[4.0, 5.0, 6.0]> : tensor<3xf32>
// CHECK-NEXT: result 2 = dense<7.5> : tensor<f32>
// CHECK-NEXT: result 3 = dense<{{\[\[}}4.0, 5.0, 6.0], [7.5, 5.0, 6.0]]> : tensor<2x3xf32>
// CHECK-NEXT: slot 0 = dense<{{\[\[}}4.0, 5.0, 6.0], [7.5, 5.0, 6.0]]> : memref<2x3xf32>
// CHECK-NEXT: slot 1 = dense<5.0> : memref<f32>
// CHECK-NEXT: slot 2 = dense<[7, 8, 9]> : memref<3xi32>
