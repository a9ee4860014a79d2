// RUN: grad-run %s --arg '0=[1.0, -2.0, 3.0]' | filecheck %s
// RUN: grad-opt %s -p expand-gradient,convert-grad-to-standard | filecheck %s --check-prefix=LOWERED

// grad.custom runs as the call of its function; its derivatives are the
// user's: here f(x) = x * x with a vjp that clips the cotangent times 2x to
// [-1, 1] and a jvp that gives 10 t, so neither is f's own derivative 2x.
// Lowered, it is the func.call of @f, so IREE runs it (lowering/custom_iree.mlir);
// the derivatives are copies of the functions' bodies.

func.func @f(%x: tensor<3xf32>) -> tensor<3xf32> {
  %m = grad.mul %x, %x : tensor<3xf32>
  func.return %m : tensor<3xf32>
}
func.func @f_vjp(%x: tensor<3xf32>, %g: tensor<3xf32>) -> tensor<3xf32> {
  %two = grad.const 2.0 : tensor<3xf32>
  %d = grad.mul %x, %two : tensor<3xf32>
  %gd = grad.mul %g, %d : tensor<3xf32>
  %one = grad.const 1.0 : tensor<3xf32>
  %low = grad.const -1.0 : tensor<3xf32>
  %n = grad.neg %gd : tensor<3xf32>
  %m = grad.max %n, %low : tensor<3xf32>
  %k = grad.neg %m : tensor<3xf32>
  %c = grad.max %k, %low : tensor<3xf32>
  func.return %c : tensor<3xf32>
}
func.func @f_jvp(%x: tensor<3xf32>, %t: tensor<3xf32>) -> tensor<3xf32> {
  %ten = grad.const 10.0 : tensor<3xf32>
  %r = grad.mul %t, %ten : tensor<3xf32>
  func.return %r : tensor<3xf32>
}
func.func @main(%x: tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) {
  %y = grad.custom @f(%x) vjp @f_vjp jvp @f_jvp : (tensor<3xf32>) -> tensor<3xf32>
  %s = grad.reduce add %y [0] : tensor<3xf32> to tensor<f32>
  %g = grad.gradient %s wrt %x : tensor<f32>, tensor<3xf32>
  %t = grad.jvp %y wrt %x, %x : tensor<3xf32>, tensor<3xf32>
  func.return %y, %g, %t : tensor<3xf32>, tensor<3xf32>, tensor<3xf32>
}

// CHECK:      result 0 = dense<[1.0, 4.0, 9.0]> : tensor<3xf32>
// CHECK-NEXT: result 1 = dense<[1.0, -1.0, 1.0]> : tensor<3xf32>
// CHECK-NEXT: result 2 = dense<[10.0, -20.0, 30.0]> : tensor<3xf32>

// LOWERED-LABEL: func.func @main
// LOWERED-NEXT:  %y = func.call @f(%x) : (tensor<3xf32>) -> tensor<3xf32>
// LOWERED-NOT:   grad.
// LOWERED-NOT:   func.call
// LOWERED:       func.return
