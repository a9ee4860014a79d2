// RUN: grad-run %s --arg '0=[0.5, -2.0, 3.0]' | filecheck %s

// grad-run expands grad.gradient, grad.vjp and grad.jvp before running: for
// f(x) = sum(x^3) the gradient is 3x^2, the gradient of sum(3x^2) is 6x, and
// the jvp along t is 3x^2 * t.

func.func @main(%x: tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) {
  %square = grad.mul %x, %x : tensor<3xf32>
  %cube = grad.mul %square, %x : tensor<3xf32>
  %loss = grad.reduce add %cube [0] : tensor<3xf32> to tensor<f32>
  %g = grad.gradient %loss wrt %x : tensor<f32>, tensor<3xf32>
  %gsum = grad.reduce add %g [0] : tensor<3xf32> to tensor<f32>
  %h = grad.gradient %gsum wrt %x : tensor<f32>, tensor<3xf32>
  %ct = grad.const dense<[1.0, 0.0, 2.0]> : tensor<3xf32>
  %v = grad.vjp %cube, %ct wrt %x : tensor<3xf32>, tensor<3xf32>
  %t = grad.const 2.0 : tensor<3xf32>
  %j = grad.jvp %cube wrt %x, %t : tensor<3xf32>, tensor<3xf32>
  func.return %g, %h, %v, %j : tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>
}

// CHECK:      result 0 = dense<[0.75, 12.0, 27.0]> : tensor<3xf32>
// CHECK-NEXT: result 1 = dense<[3.0, -12.0, 18.0]> : tensor<3xf32>
// CHECK-NEXT: result 2 = dense<[0.75, 0.0, 54.0]> : tensor<3xf32>
// CHECK-NEXT: result 3 = dense<[1.5, 24.0, 54.0]> : tensor<3xf32>
