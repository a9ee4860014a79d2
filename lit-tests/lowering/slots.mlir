// RUN: grad-opt %s -p convert-grad-to-standard --split-input-file | filecheck %s

// Each slot (memref argument) becomes a tensor argument holding its initial
// contents and a result, after the function's own, holding its final
// contents; a slot only read is returned as it came. A whole load is the
// slot's current value and a whole store replaces it.

func.func @main(%xs: memref<3xf32>, %out: memref<3xf32>, %w: tensor<3xf32>) -> tensor<3xf32> {
  %x = grad.load %xs : memref<3xf32>
  %y = grad.mul %x, %w : tensor<3xf32>
  grad.store %y, %out : memref<3xf32>
  %again = grad.load %out : memref<3xf32>
  %z = grad.add %again, %x : tensor<3xf32>
  grad.store %z, %out : memref<3xf32>
  func.return %y : tensor<3xf32>
}

// CHECK:      func.func @main(%xs: tensor<3xf32>, %out: tensor<3xf32>, %w: tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) {
// CHECK-NEXT:   %y = arith.mulf %xs, %w : tensor<3xf32>
// CHECK-NEXT:   %z = arith.addf %y, %xs : tensor<3xf32>
// CHECK-NEXT:   func.return %y, %xs, %z : tensor<3xf32>, tensor<3xf32>, tensor<3xf32>
// CHECK-NEXT: }

// -----

// Indexed loads and stores are tensor.extract_slice and tensor.insert_slice
// at the leading indices.

func.func @indexed(%m: memref<4x3xf32>, %i: index) -> tensor<f32> {
  %c1 = arith.constant 1 : index
  %row = grad.load %m[%i] : memref<4x3xf32>
  %e = grad.load %m[%i, %c1] : memref<4x3xf32>
  %twice = grad.add %row, %row : tensor<3xf32>
  grad.store %twice, %m[%c1] : memref<4x3xf32>
  grad.store %e, %m[%i, %i] : memref<4x3xf32>
  func.return %e : tensor<f32>
}

// CHECK-LABEL: func.func @indexed(%m: tensor<4x3xf32>, %i: index) -> (tensor<f32>, tensor<4x3xf32>) {
// CHECK-NEXT:    %c1 = arith.constant 1 : index
// CHECK-NEXT:    %row = tensor.extract_slice %m[%i, 0] [1, 3] [1, 1] : tensor<4x3xf32> to tensor<3xf32>
// CHECK-NEXT:    %e = tensor.extract_slice %m[%i, %c1] [1, 1] [1, 1] : tensor<4x3xf32> to tensor<f32>
// CHECK-NEXT:    %twice = arith.addf %row, %row : tensor<3xf32>
// CHECK-NEXT:    %m_1 = tensor.insert_slice %twice into %m[%c1, 0] [1, 3] [1, 1] : tensor<3xf32> into tensor<4x3xf32>
// CHECK-NEXT:    %m_2 = tensor.insert_slice %e into %m_1[%i, %i] [1, 1] [1, 1] : tensor<f32> into tensor<4x3xf32>
// CHECK-NEXT:    func.return %e, %m_2 : tensor<f32>, tensor<4x3xf32>

// -----

// A loop whose body stores into a slot, or passes it to a call, carries the
// slot's value as an extra iteration argument; a call passes the current
// values and takes the callee's final values back.

func.func @loop(%acc: memref<2xf32>, %log: memref<f32>, %read: memref<2xf32>) -> tensor<f32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %zero = grad.const 0.0 : tensor<f32>
  %sum = scf.for %i = %c0 to %c3 step %c1 iter_args(%s = %zero) -> (tensor<f32>) {
    %a = grad.load %acc : memref<2xf32>
    %r = grad.load %read : memref<2xf32>
    %b = grad.add %a, %r : tensor<2xf32>
    grad.store %b, %acc : memref<2xf32>
    func.call @note(%b, %log) : (tensor<2xf32>, memref<f32>) -> ()
    %t = grad.reduce add %b [0] : tensor<2xf32> to tensor<f32>
    %s2 = grad.add %s, %t : tensor<f32>
    scf.yield %s2 : tensor<f32>
  }
  func.return %sum : tensor<f32>
}

func.func @note(%v: tensor<2xf32>, %log: memref<f32>) {
  %t = grad.reduce max %v [0] : tensor<2xf32> to tensor<f32>
  grad.store %t, %log : memref<f32>
  func.return
}

func.func private @external(%m: memref<2xf32>) -> tensor<f32>

// CHECK-LABEL: func.func @loop(%acc: tensor<2xf32>, %log: tensor<f32>, %read: tensor<2xf32>) -> (tensor<f32>, tensor<2xf32>, tensor<f32>, tensor<2xf32>) {
// CHECK:         %sum, %acc_1, %log_1 = scf.for %i = %c0 to %c3 step %c1 iter_args(%s = %zero, %acc_2 = %acc, %log_2 = %log) -> (tensor<f32>, tensor<2xf32>, tensor<f32>) {
// CHECK-NEXT:      %b = arith.addf %acc_2, %read : tensor<2xf32>
// CHECK-NEXT:      %log_3 = func.call @note(%b, %log_2) : (tensor<2xf32>, tensor<f32>) -> tensor<f32>
// CHECK:           scf.yield %s2, %b, %log_3 : tensor<f32>, tensor<2xf32>, tensor<f32>
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %sum, %acc_1, %log_1, %read : tensor<f32>, tensor<2xf32>, tensor<f32>, tensor<2xf32>
// CHECK-LABEL: func.func @note(%v: tensor<2xf32>, %log: tensor<f32>) -> tensor<f32> {
// CHECK:         func.return %t_3 : tensor<f32>
// CHECK:       func.func private @external(tensor<2xf32>) -> (tensor<f32>, tensor<2xf32>)
