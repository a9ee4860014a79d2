func.func @main(%x: tensor<f32>, %w: tensor<f32>) -> tensor<f32> {
  %s = grad.sin %x : tensor<f32>
  %p = grad.mul %s, %x : tensor<f32>
  %d = grad.detach %w : tensor<f32>
  %y = grad.add %p, %d : tensor<f32>
  %g = grad.gradient %y wrt %x : tensor<f32>, tensor<f32>
  func.return %g : tensor<f32>
}
