// A 2-D convolution written with the data-movement ops (issue 12): NCHW input
// x (1 image, 2 channels, 5x5), kernel w (3 output channels x 2 input channels
// x 3x3), zero padding 1, as `pad` -> one strided `slice` per kernel tap ->
// `concat` of the 9 taps along the channels -> `reshape` to a patch matrix ->
// one `dot` with the kernel as a matrix (im2col). @main has stride 1 (5x5
// output), @stride2 stride 2 (3x3 output). Each returns the loss sum(out^2),
// the output, and the gradient of the loss w.r.t. the input and the kernel
// (one grad.gradient, one backward walk: the slices' shares are pads, the
// pad's share is a slice, the concat's shares are slices).
// Run it with (add `--entry stride2` for stride 2):
//   grad-run examples/conv2d.mlir \
//     --arg 0='[-1.25,0.5,-0.5,1.25,0.25,-0.75,1,0,-1,0.75,-0.25,-1.25,0.5,-0.5,1.25,0.25,-0.75,1,0,-1,0.75,-0.25,-1.25,0.5,-0.5,1.25,0.25,-0.75,1,0,-1,0.75,-0.25,-1.25,0.5,-0.5,1.25,0.25,-0.75,1,0,-1,0.75,-0.25,-1.25,0.5,-0.5,1.25,0.25,-0.75]' \
//     --arg 1='[-0.5,0.125,-0.375,0.25,-0.25,0.375,-0.125,0.5,0,-0.5,0.125,-0.375,0.25,-0.25,0.375,-0.125,0.5,0,-0.5,0.125,-0.375,0.25,-0.25,0.375,-0.125,0.5,0,-0.5,0.125,-0.375,0.25,-0.25,0.375,-0.125,0.5,0,-0.5,0.125,-0.375,0.25,-0.25,0.375,-0.125,0.5,0,-0.5,0.125,-0.375,0.25,-0.25,0.375,-0.125,0.5,0]'
// (result 0, the loss, is dense<52.22168> : tensor<f32>; with --entry stride2,
// dense<18.08496>: every value is a multiple of 1/32, so both are exact.)
// tests/test_examples_models.py checks the loss, the output and both gradients
// against explicit loops over the output positions in float64.

func.func @main(%x: tensor<1x2x5x5xf32>, %w: tensor<3x2x3x3xf32>) -> (tensor<f32>, tensor<1x3x5x5xf32>, tensor<1x2x5x5xf32>, tensor<3x2x3x3xf32>) {
  // zero padding of 1 around each image (H and W only)
  %xp = grad.pad %x low [0, 0, 1, 1] high [0, 0, 1, 1] interior [0, 0, 0, 0] value 0.0 : tensor<1x2x5x5xf32> to tensor<1x2x7x7xf32>
  // tap (i, j) at every output position (y, x): xp[:, :, y + i, x + j]
  %t00 = grad.slice %xp [0, 0, 0, 0] [1, 2, 5, 5] [1, 1, 1, 1] : tensor<1x2x7x7xf32> to tensor<1x2x5x5xf32>
  %t01 = grad.slice %xp [0, 0, 0, 1] [1, 2, 5, 6] [1, 1, 1, 1] : tensor<1x2x7x7xf32> to tensor<1x2x5x5xf32>
  %t02 = grad.slice %xp [0, 0, 0, 2] [1, 2, 5, 7] [1, 1, 1, 1] : tensor<1x2x7x7xf32> to tensor<1x2x5x5xf32>
  %t10 = grad.slice %xp [0, 0, 1, 0] [1, 2, 6, 5] [1, 1, 1, 1] : tensor<1x2x7x7xf32> to tensor<1x2x5x5xf32>
  %t11 = grad.slice %xp [0, 0, 1, 1] [1, 2, 6, 6] [1, 1, 1, 1] : tensor<1x2x7x7xf32> to tensor<1x2x5x5xf32>
  %t12 = grad.slice %xp [0, 0, 1, 2] [1, 2, 6, 7] [1, 1, 1, 1] : tensor<1x2x7x7xf32> to tensor<1x2x5x5xf32>
  %t20 = grad.slice %xp [0, 0, 2, 0] [1, 2, 7, 5] [1, 1, 1, 1] : tensor<1x2x7x7xf32> to tensor<1x2x5x5xf32>
  %t21 = grad.slice %xp [0, 0, 2, 1] [1, 2, 7, 6] [1, 1, 1, 1] : tensor<1x2x7x7xf32> to tensor<1x2x5x5xf32>
  %t22 = grad.slice %xp [0, 0, 2, 2] [1, 2, 7, 7] [1, 1, 1, 1] : tensor<1x2x7x7xf32> to tensor<1x2x5x5xf32>
  // patches: row (3 i + j) * 2 + channel, one column per output position
  %cat = grad.concat %t00, %t01, %t02, %t10, %t11, %t12, %t20, %t21, %t22 [1] : tensor<1x2x5x5xf32>, tensor<1x2x5x5xf32>, tensor<1x2x5x5xf32>, tensor<1x2x5x5xf32>, tensor<1x2x5x5xf32>, tensor<1x2x5x5xf32>, tensor<1x2x5x5xf32>, tensor<1x2x5x5xf32>, tensor<1x2x5x5xf32> to tensor<1x18x5x5xf32>
  %patches = grad.reshape %cat : tensor<1x18x5x5xf32> to tensor<18x25xf32>
  // the kernel as a matrix with the same row order: w[o, c, i, j] at (o, (3 i + j) * 2 + c)
  %wt = grad.permute %w [0, 2, 3, 1] : tensor<3x2x3x3xf32> to tensor<3x3x3x2xf32>
  %wm = grad.reshape %wt : tensor<3x3x3x2xf32> to tensor<3x18xf32>
  %y = grad.dot %wm, %patches : tensor<3x18xf32>, tensor<18x25xf32> to tensor<3x25xf32>
  %out = grad.reshape %y : tensor<3x25xf32> to tensor<1x3x5x5xf32>
  // loss = sum(out^2)
  %sq = grad.mul %out, %out : tensor<1x3x5x5xf32>
  %loss = grad.reduce add %sq [0, 1, 2, 3] : tensor<1x3x5x5xf32> to tensor<f32>
  %gx, %gw = grad.gradient %loss wrt %x, %w : tensor<f32>, tensor<1x2x5x5xf32>, tensor<3x2x3x3xf32>
  func.return %loss, %out, %gx, %gw : tensor<f32>, tensor<1x3x5x5xf32>, tensor<1x2x5x5xf32>, tensor<3x2x3x3xf32>
}

func.func @stride2(%x: tensor<1x2x5x5xf32>, %w: tensor<3x2x3x3xf32>) -> (tensor<f32>, tensor<1x3x3x3xf32>, tensor<1x2x5x5xf32>, tensor<3x2x3x3xf32>) {
  // zero padding of 1 around each image (H and W only)
  %xp = grad.pad %x low [0, 0, 1, 1] high [0, 0, 1, 1] interior [0, 0, 0, 0] value 0.0 : tensor<1x2x5x5xf32> to tensor<1x2x7x7xf32>
  // tap (i, j) at every output position (y, x): xp[:, :, 2 y + i, 2 x + j]
  %t00 = grad.slice %xp [0, 0, 0, 0] [1, 2, 5, 5] [1, 1, 2, 2] : tensor<1x2x7x7xf32> to tensor<1x2x3x3xf32>
  %t01 = grad.slice %xp [0, 0, 0, 1] [1, 2, 5, 6] [1, 1, 2, 2] : tensor<1x2x7x7xf32> to tensor<1x2x3x3xf32>
  %t02 = grad.slice %xp [0, 0, 0, 2] [1, 2, 5, 7] [1, 1, 2, 2] : tensor<1x2x7x7xf32> to tensor<1x2x3x3xf32>
  %t10 = grad.slice %xp [0, 0, 1, 0] [1, 2, 6, 5] [1, 1, 2, 2] : tensor<1x2x7x7xf32> to tensor<1x2x3x3xf32>
  %t11 = grad.slice %xp [0, 0, 1, 1] [1, 2, 6, 6] [1, 1, 2, 2] : tensor<1x2x7x7xf32> to tensor<1x2x3x3xf32>
  %t12 = grad.slice %xp [0, 0, 1, 2] [1, 2, 6, 7] [1, 1, 2, 2] : tensor<1x2x7x7xf32> to tensor<1x2x3x3xf32>
  %t20 = grad.slice %xp [0, 0, 2, 0] [1, 2, 7, 5] [1, 1, 2, 2] : tensor<1x2x7x7xf32> to tensor<1x2x3x3xf32>
  %t21 = grad.slice %xp [0, 0, 2, 1] [1, 2, 7, 6] [1, 1, 2, 2] : tensor<1x2x7x7xf32> to tensor<1x2x3x3xf32>
  %t22 = grad.slice %xp [0, 0, 2, 2] [1, 2, 7, 7] [1, 1, 2, 2] : tensor<1x2x7x7xf32> to tensor<1x2x3x3xf32>
  // patches: row (3 i + j) * 2 + channel, one column per output position
  %cat = grad.concat %t00, %t01, %t02, %t10, %t11, %t12, %t20, %t21, %t22 [1] : tensor<1x2x3x3xf32>, tensor<1x2x3x3xf32>, tensor<1x2x3x3xf32>, tensor<1x2x3x3xf32>, tensor<1x2x3x3xf32>, tensor<1x2x3x3xf32>, tensor<1x2x3x3xf32>, tensor<1x2x3x3xf32>, tensor<1x2x3x3xf32> to tensor<1x18x3x3xf32>
  %patches = grad.reshape %cat : tensor<1x18x3x3xf32> to tensor<18x9xf32>
  // the kernel as a matrix with the same row order: w[o, c, i, j] at (o, (3 i + j) * 2 + c)
  %wt = grad.permute %w [0, 2, 3, 1] : tensor<3x2x3x3xf32> to tensor<3x3x3x2xf32>
  %wm = grad.reshape %wt : tensor<3x3x3x2xf32> to tensor<3x18xf32>
  %y = grad.dot %wm, %patches : tensor<3x18xf32>, tensor<18x9xf32> to tensor<3x9xf32>
  %out = grad.reshape %y : tensor<3x9xf32> to tensor<1x3x3x3xf32>
  // loss = sum(out^2)
  %sq = grad.mul %out, %out : tensor<1x3x3x3xf32>
  %loss = grad.reduce add %sq [0, 1, 2, 3] : tensor<1x3x3x3xf32> to tensor<f32>
  %gx, %gw = grad.gradient %loss wrt %x, %w : tensor<f32>, tensor<1x2x5x5xf32>, tensor<3x2x3x3xf32>
  func.return %loss, %out, %gx, %gw : tensor<f32>, tensor<1x3x3x3xf32>, tensor<1x2x5x5xf32>, tensor<3x2x3x3xf32>
}
