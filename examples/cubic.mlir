// f(x) = x^3 - 2x at five points: slot 0 holds x, slot 1 receives f'(x).
// Run it with: grad-run examples/cubic.mlir --slot 0=[1,2,3,4,5]
// (expect 3x^2 - 2, that is slot 1 = dense<[1.0, 10.0, 25.0, 46.0, 73.0]>)

func.func @main(%xs: memref<5xf32>, %out: memref<5xf32>) {
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
  func.return
}
