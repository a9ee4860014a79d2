// RUN: grad-run %s --slot '0=[1.0, 2.0, 3.0, 4.0]' | filecheck %s

// scf.for with index bounds from arith.constant: iteration values flow through
// scf.yield, the body reads outer values, loops nest, and a loop that runs no
// iteration gives its initial values. func.call passes tensors and slots and
// returns several results.

func.func @main(%xs: memref<4xf32>, %table: memref<3x2xi32>) -> (tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %zero = grad.const 0.0 : tensor<f32>
  %one = grad.const 1.0 : tensor<f32>
  %sum, %product = scf.for %i = %c0 to %c4 step %c1 iter_args(%s = %zero, %p = %one) -> (tensor<f32>, tensor<f32>) {
    %x = grad.load %xs[%i] : memref<4xf32>
    %s2 = grad.add %s, %x : tensor<f32>
    %p2 = grad.mul %p, %x : tensor<f32>
    scf.yield %s2, %p2 : tensor<f32>, tensor<f32>
  }
  %none = scf.for %i = %c4 to %c0 step %c1 iter_args(%s = %one) -> (tensor<f32>) {
    %s2 = grad.add %s, %s : tensor<f32>
    scf.yield %s2 : tensor<f32>
  }
  %ione = grad.const 1 : tensor<i32>
  scf.for %i = %c0 to %c3 step %c1 {
    scf.for %j = %c0 to %c2 step %c1 {
      %v = grad.load %table[%i, %j] : memref<3x2xi32>
      %w = grad.add %v, %ione : tensor<i32>
      grad.store %w, %table[%i, %j] : memref<3x2xi32>
      scf.yield
    }
    scf.yield
  }
  %even = scf.for %i = %c0 to %c4 step %c2 iter_args(%s = %zero) -> (tensor<f32>) {
    %x = grad.load %xs[%i] : memref<4xf32>
    %s2 = grad.add %s, %x : tensor<f32>
    scf.yield %s2 : tensor<f32>
  }
  %mean, %last = func.call @stats(%sum, %xs) : (tensor<f32>, memref<4xf32>) -> (tensor<f32>, tensor<f32>)
  func.return %product, %none, %even, %mean, %last : tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>
}

func.func @stats(%sum: tensor<f32>, %xs: memref<4xf32>) -> (tensor<f32>, tensor<f32>) {
  %quarter = grad.const 0.25 : tensor<f32>
  %mean = grad.mul %sum, %quarter : tensor<f32>
  %c3 = arith.constant 3 : index
  %last = grad.load %xs[%c3] : memref<4xf32>
  grad.store %mean, %xs[%c3] : memref<4xf32>
  func.return %mean, %last : tensor<f32>, tensor<f32>
}

// CHECK:      result 0 = dense<24.0> : tensor<f32>
// CHECK-NEXT: result 1 = dense<1.0> : tensor<f32>
// CHECK-NEXT: result 2 = dense<4.0> : tensor<f32>
// CHECK-NEXT: result 3 = dense<2.5> : tensor<f32>
// CHECK-NEXT: result 4 = dense<4.0> : tensor<f32>
// CHECK-NEXT: slot 0 = dense<[1.0, 2.0, 3.0, 2.5]> : memref<4xf32>
// CHECK-NEXT: slot 1 = dense<{{\[\[}}1, 1], [1, 1], [1, 1]]> : memref<3x2xi32>
