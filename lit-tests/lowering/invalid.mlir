// RUN: grad-opt %s --split-input-file --verify-diagnostics -p convert-grad-to-standard | filecheck %s

// What convert-grad-to-standard cannot lower is a located error naming the op.

// A differentiation op must be expanded first.
func.func @unexpanded(%x: tensor<f32>) -> tensor<f32> {
  %y = grad.mul %x, %x : tensor<f32>
  %g = grad.gradient %y wrt %x : tensor<f32>, tensor<f32>
  func.return %g : tensor<f32>
}

// CHECK:      invalid.mlir:[[# @LINE - 4]]:3: error: 'grad.gradient' op must be expanded before lowering: run expand-gradient before convert-grad-to-standard
// CHECK-NEXT:   %g = grad.gradient %y wrt %x : tensor<f32>, tensor<f32>
// CHECK-NEXT:   ^
// CHECK-NEXT: {{//}} -----

// -----

// One slot passed as two arguments aliases in the interpreter (a store through
// one is seen through the other), which tensor values cannot express.
func.func @aliased(%s: memref<2xf32>) {
  func.call @copy(%s, %s) : (memref<2xf32>, memref<2xf32>) -> ()
  func.return
}

func.func @copy(%from: memref<2xf32>, %to: memref<2xf32>) {
  %v = grad.load %from : memref<2xf32>
  grad.store %v, %to : memref<2xf32>
  func.return
}

// CHECK:      invalid.mlir:[[# @LINE - 10]]:3: error: 'func.call' op passes one slot as two arguments: aliased slots cannot be turned into tensors
// CHECK-NEXT:   func.call @copy(%s, %s) : (memref<2xf32>, memref<2xf32>) -> ()
// CHECK-NEXT:   ^
// CHECK-NEXT: {{//}} -----

// -----

// A slot that is not an argument of the function using it (here a loop's
// iteration argument) has no value to stand for it.
func.func @carried(%s: memref<2xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %c1 step %c1 iter_args(%m = %s) -> (memref<2xf32>) {
    %v = grad.load %m : memref<2xf32>
    scf.yield %m : memref<2xf32>
  }
  func.return
}

// CHECK:      invalid.mlir:[[# @LINE - 6]]:5: error: 'grad.load' op uses memref<2xf32> that is not an argument of its function: only slots passed as arguments can be turned into tensors
// CHECK-NEXT:     %v = grad.load %m : memref<2xf32>
// CHECK-NEXT:     ^
