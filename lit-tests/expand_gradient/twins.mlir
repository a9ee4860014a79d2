// RUN: grad-opt %s --split-input-file -p expand-gradient | filecheck %s
// RUN: grad-opt %s --split-input-file -p cse,expand-gradient | filecheck %s --check-prefix=CSE

// SPEC §4 rule 6 refuses a computed target with a twin that the loss depends
// on (expand_gradient/invalid.mlir). These programs are valid: a twin that
// the loss does not depend on, or reaches only through `grad.detach`, ops that
// differ in a property, loads (never merged: they touch memory) and function
// arguments are not twins that matter, and `cse` before `expand-gradient`
// leaves each gradient as it is.

// The twin %b is returned, not used by the loss: cse may merge it with %a.
func.func @twin_off_the_loss(%x: tensor<f32>) -> (tensor<f32>, tensor<f32>) {
  %a = grad.sin %x : tensor<f32>
  %b = grad.sin %x : tensor<f32>
  %l = grad.mul %a, %a : tensor<f32>
  %g = grad.gradient %l wrt %a : tensor<f32>, tensor<f32>
  func.return %g, %b : tensor<f32>, tensor<f32>
}

// CHECK-LABEL: func.func @twin_off_the_loss
// CHECK-NOT:     grad.gradient
// CHECK:         func.return
// CSE-LABEL:   func.func @twin_off_the_loss
// CSE:           %[[A:.*]] = grad.sin %x
// CSE-NOT:       grad.sin
// CSE:           func.return %{{.*}}, %[[A]]

// -----

// The loss reads the twin only through detach, which passes no gradient.
func.func @twin_detached(%x: tensor<f32>) -> tensor<f32> {
  %a = grad.sin %x : tensor<f32>
  %b = grad.sin %x : tensor<f32>
  %d = grad.detach %b : tensor<f32>
  %l = grad.mul %a, %d : tensor<f32>
  %g = grad.gradient %l wrt %a : tensor<f32>, tensor<f32>
  func.return %g : tensor<f32>
}

// CHECK-LABEL: func.func @twin_detached
// CHECK:         %[[ONE:.*]] = grad.const 1.0 : tensor<f32>
// CHECK-NEXT:    %g = grad.mul %[[ONE]], %d : tensor<f32>

// -----

// Equal but for a property (the reduce kind): not twins.
func.func @different_kind(%x: tensor<3xf32>) -> tensor<f32> {
  %a = grad.reduce add %x [0] : tensor<3xf32> to tensor<f32>
  %b = grad.reduce max %x [0] : tensor<3xf32> to tensor<f32>
  %l = grad.mul %a, %b : tensor<f32>
  %g = grad.gradient %l wrt %a : tensor<f32>, tensor<f32>
  func.return %g : tensor<f32>
}

// CHECK-LABEL: func.func @different_kind
// CHECK:         %g = grad.mul %{{.*}}, %b : tensor<f32>

// -----

// Two loads of one slot are two nodes (cse never merges them), and so are
// the sines of them; a function argument is never value-numbered.
func.func @loads_and_arguments(%s: memref<f32>, %x: tensor<f32>) -> (tensor<f32>, tensor<f32>) {
  %w = grad.load %s : memref<f32>
  %v = grad.load %s : memref<f32>
  %a = grad.sin %w : tensor<f32>
  %b = grad.sin %v : tensor<f32>
  %p = grad.mul %a, %b : tensor<f32>
  %l = grad.mul %p, %x : tensor<f32>
  %ga, %gx = grad.gradient %l wrt %a, %x : tensor<f32>, tensor<f32>, tensor<f32>
  func.return %ga, %gx : tensor<f32>, tensor<f32>
}

// CHECK-LABEL: func.func @loads_and_arguments
// CHECK-NOT:     grad.gradient
// CHECK:         func.return %ga, %gx
// CSE-LABEL:   func.func @loads_and_arguments
// CSE-COUNT-2:   grad.sin
