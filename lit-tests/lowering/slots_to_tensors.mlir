// RUN: grad-opt %s -p slots-to-tensors --split-input-file --verify-diagnostics | filecheck %s
// RUN: xdsl-opt %s -p slots-to-tensors --split-input-file --verify-diagnostics | filecheck %s --check-prefix=XDSL
// RUN: grad-opt %s -p slots-to-tensors,convert-grad-to-standard --split-input-file --verify-diagnostics > %t.two
// RUN: grad-opt %s -p convert-grad-to-standard --split-input-file --verify-diagnostics > %t.one
// RUN: diff %t.one %t.two

// slots-to-tensors turns each slot (memref argument) into a tensor argument
// holding its initial contents and a result, after the function's own,
// holding its final contents, and leaves every other op as it is: the grad
// ops stay for a lowering of their own. It is the first step of
// convert-grad-to-standard, which gives the same output with or without it
// before (the last RUN lines). Plain xdsl-opt knows the pass too.

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
// CHECK-NEXT:   %y = grad.mul %xs, %w : tensor<3xf32>
// CHECK-NEXT:   %z = grad.add %y, %xs : tensor<3xf32>
// CHECK-NEXT:   func.return %y, %xs, %z : tensor<3xf32>, tensor<3xf32>, tensor<3xf32>
// CHECK-NEXT: }

// XDSL:      func.func @main(%xs: tensor<3xf32>, %out: tensor<3xf32>, %w: tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) {
// XDSL-NEXT:   %y = grad.mul %xs, %w : tensor<3xf32>

// -----

// Indexed loads and stores read and write slices of the slot's value.

func.func @indexed(%m: memref<4x3xi32>, %i: index) -> tensor<i32> {
  %row = grad.load %m[%i] : memref<4x3xi32>
  %twice = grad.add %row, %row : tensor<3xi32>
  grad.store %twice, %m[%i] : memref<4x3xi32>
  %e = grad.load %m[%i, %i] : memref<4x3xi32>
  func.return %e : tensor<i32>
}

// CHECK-LABEL: func.func @indexed(%m: tensor<4x3xi32>, %i: index) -> (tensor<i32>, tensor<4x3xi32>) {
// CHECK-NEXT:    %row = tensor.extract_slice %m[%i, 0] [1, 3] [1, 1] : tensor<4x3xi32> to tensor<3xi32>
// CHECK-NEXT:    %twice = grad.add %row, %row : tensor<3xi32>
// CHECK-NEXT:    %m_1 = tensor.insert_slice %twice into %m[%i, 0] [1, 3] [1, 1] : tensor<3xi32> into tensor<4x3xi32>
// CHECK-NEXT:    %e = tensor.extract_slice %m_1[%i, %i] [1, 1] [1, 1] : tensor<4x3xi32> to tensor<i32>
// CHECK-NEXT:    func.return %e, %m_1 : tensor<i32>, tensor<4x3xi32>

// -----

// A loop that stores into a slot carries its value; a call passes the
// current value and takes the callee's final value back.

func.func @loop(%acc: memref<2xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  scf.for %i = %c0 to %c3 step %c1 {
    %a = grad.load %acc : memref<2xf32>
    %b = grad.add %a, %a : tensor<2xf32>
    grad.store %b, %acc : memref<2xf32>
    func.call @step(%acc) : (memref<2xf32>) -> ()
    scf.yield
  }
  func.return
}

func.func @step(%s: memref<2xf32>) {
  %v = grad.load %s : memref<2xf32>
  %w = grad.neg %v : tensor<2xf32>
  grad.store %w, %s : memref<2xf32>
  func.return
}

// CHECK-LABEL: func.func @loop(%acc: tensor<2xf32>) -> tensor<2xf32> {
// CHECK:         %acc_1 = scf.for %i = %c0 to %c3 step %c1 iter_args(%acc_2 = %acc) -> (tensor<2xf32>) {
// CHECK-NEXT:      %b = grad.add %acc_2, %acc_2 : tensor<2xf32>
// CHECK-NEXT:      %acc_3 = func.call @step(%b) : (tensor<2xf32>) -> tensor<2xf32>
// CHECK-NEXT:      scf.yield %acc_3 : tensor<2xf32>
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %acc_1 : tensor<2xf32>
// CHECK-LABEL: func.func @step(%s: tensor<2xf32>) -> tensor<2xf32> {
// CHECK-NEXT:    %w = grad.neg %s : tensor<2xf32>
// CHECK-NEXT:    func.return %w : tensor<2xf32>

// -----

// Any other use of a slot is a located error.

func.func @leak(%s: memref<2xf32>) -> memref<2xf32> {
  func.return %s : memref<2xf32>
}

// CHECK: slots_to_tensors.mlir:[[# @LINE - 3]]:3: error: 'func.return' op uses a slot: only grad.load, grad.store, func.call and scf.for can take part in turning slots into tensors
// CHECK-NEXT:   func.return %s : memref<2xf32>
// CHECK-NEXT:   ^
