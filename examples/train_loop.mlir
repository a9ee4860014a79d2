// Training in IR: the MLP of examples/train_mlp.py (64 -> 64 ReLU -> 10,
// softmax cross-entropy) trained by minibatch SGD for %epochs epochs in one
// program, its gradient taken inside the loop body (SPEC §11: with
// `control_flow` the loss and the targets may depend on the iteration, and
// the gradient goes through the call of @loss). The weights are the loops'
// iter_args; the program returns the last batch's loss and the test accuracy.
//
// The data and the initial weights come from the Python example:
//   python examples/train_mlp.py --export /tmp/digits
//   grad-run examples/train_loop.mlir \
//     --arg 0=/tmp/digits/x_train.npy --arg 1=/tmp/digits/y_train.npy \
//     --arg 2=/tmp/digits/x_test.npy --arg 3=/tmp/digits/y_test.npy \
//     --arg 4=/tmp/digits/w0.npy --arg 5=/tmp/digits/b0.npy \
//     --arg 6=/tmp/digits/w1.npy --arg 7=/tmp/digits/b1.npy --arg 8=20
// (1408 training examples, 22 batches of 64 an epoch, in the exported order;
// 360 test examples; labels one-hot.) On scikit-learn's digits, 20 epochs of
// this plain SGD reach a test accuracy of 0.958 in 0.7 s (the Python
// example, 10 epochs of Adam: 0.961); tests/test_examples_models.py checks
// two epochs against the same SGD in float64 NumPy.

func.func @logits(%x: tensor<64x64xf32>, %w0: tensor<64x64xf32>, %b0: tensor<64xf32>,
                  %w1: tensor<64x10xf32>, %b1: tensor<10xf32>) -> tensor<64x10xf32> {
  %xw0 = grad.dot %x, %w0 : tensor<64x64xf32>, tensor<64x64xf32> to tensor<64x64xf32>
  %b0r = grad.broadcast %b0 [1] : tensor<64xf32> to tensor<64x64xf32>
  %pre = grad.add %xw0, %b0r : tensor<64x64xf32>
  %zero = grad.const 0.0 : tensor<64x64xf32>
  %hidden = grad.max %pre, %zero : tensor<64x64xf32>
  %hw1 = grad.dot %hidden, %w1 : tensor<64x64xf32>, tensor<64x10xf32> to tensor<64x10xf32>
  %b1r = grad.broadcast %b1 [1] : tensor<10xf32> to tensor<64x10xf32>
  %z = grad.add %hw1, %b1r : tensor<64x10xf32>
  func.return %z : tensor<64x10xf32>
}

// The mean cross-entropy of a batch: -sum(y * log_softmax(z)) / 64.
func.func @loss(%x: tensor<64x64xf32>, %y: tensor<64x10xf32>, %w0: tensor<64x64xf32>,
                %b0: tensor<64xf32>, %w1: tensor<64x10xf32>, %b1: tensor<10xf32>) -> tensor<f32> {
  %z = func.call @logits(%x, %w0, %b0, %w1, %b1)
      : (tensor<64x64xf32>, tensor<64x64xf32>, tensor<64xf32>, tensor<64x10xf32>, tensor<10xf32>)
      -> tensor<64x10xf32>
  %m = grad.reduce max %z [1] : tensor<64x10xf32> to tensor<64xf32>
  %md = grad.detach %m : tensor<64xf32>
  %mb = grad.broadcast %md [0] : tensor<64xf32> to tensor<64x10xf32>
  %nm = grad.neg %mb : tensor<64x10xf32>
  %s = grad.add %z, %nm : tensor<64x10xf32>
  %log2e = grad.const 1.442695 : tensor<64x10xf32>
  %s2 = grad.mul %s, %log2e : tensor<64x10xf32>
  %e = grad.exp2 %s2 : tensor<64x10xf32>
  %sum = grad.reduce add %e [1] : tensor<64x10xf32> to tensor<64xf32>
  %lsum2 = grad.log2 %sum : tensor<64xf32>
  %ln2 = grad.const 0.6931472 : tensor<64xf32>
  %lsum = grad.mul %lsum2, %ln2 : tensor<64xf32>
  %lb = grad.broadcast %lsum [0] : tensor<64xf32> to tensor<64x10xf32>
  %nl = grad.neg %lb : tensor<64x10xf32>
  %logp = grad.add %s, %nl : tensor<64x10xf32>
  %ylogp = grad.mul %y, %logp : tensor<64x10xf32>
  %total = grad.reduce add %ylogp [0, 1] : tensor<64x10xf32> to tensor<f32>
  %scale = grad.const -0.015625 : tensor<f32>
  %l = grad.mul %total, %scale : tensor<f32>
  func.return %l : tensor<f32>
}

func.func @main(%xs: tensor<1408x64xf32>, %ys: tensor<1408x10xf32>,
                %xt: tensor<360x64xf32>, %yt: tensor<360x10xf32>,
                %w0i: tensor<64x64xf32>, %b0i: tensor<64xf32>,
                %w1i: tensor<64x10xf32>, %b1i: tensor<10xf32>, %epochs: i32)
    -> (tensor<f32>, tensor<f32>) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %batches = arith.constant 22 : i32
  %rows = arith.constant 64 : i32
  %none = grad.const 0.0 : tensor<f32>
  %w0, %b0, %w1, %b1, %last = scf.for %epoch = %c0 to %epochs step %c1
      iter_args(%ew0 = %w0i, %eb0 = %b0i, %ew1 = %w1i, %eb1 = %b1i, %el = %none)
      -> (tensor<64x64xf32>, tensor<64xf32>, tensor<64x10xf32>, tensor<10xf32>, tensor<f32>) : i32 {
    %nw0, %nb0, %nw1, %nb1, %nl = scf.for %k = %c0 to %batches step %c1
        iter_args(%v0 = %ew0, %u0 = %eb0, %v1 = %ew1, %u1 = %eb1, %l0 = %el)
        -> (tensor<64x64xf32>, tensor<64xf32>, tensor<64x10xf32>, tensor<10xf32>, tensor<f32>) : i32 {
      %first32 = arith.muli %k, %rows : i32
      %first = arith.index_cast %first32 : i32 to index
      %x = tensor.extract_slice %xs[%first, 0] [64, 64] [1, 1] : tensor<1408x64xf32> to tensor<64x64xf32>
      %y = tensor.extract_slice %ys[%first, 0] [64, 10] [1, 1] : tensor<1408x10xf32> to tensor<64x10xf32>
      %l = func.call @loss(%x, %y, %v0, %u0, %v1, %u1)
          : (tensor<64x64xf32>, tensor<64x10xf32>, tensor<64x64xf32>, tensor<64xf32>,
             tensor<64x10xf32>, tensor<10xf32>) -> tensor<f32>
      %g0, %h0, %g1, %h1 = grad.gradient %l wrt %v0, %u0, %v1, %u1 control_flow
          : tensor<f32>, tensor<64x64xf32>, tensor<64xf32>, tensor<64x10xf32>, tensor<10xf32>
      // w <- w - 0.1 * dloss/dw
      %r0 = grad.const -0.1 : tensor<64x64xf32>
      %d0 = grad.mul %g0, %r0 : tensor<64x64xf32>
      %w0n = grad.add %v0, %d0 : tensor<64x64xf32>
      %q0 = grad.const -0.1 : tensor<64xf32>
      %e0 = grad.mul %h0, %q0 : tensor<64xf32>
      %b0n = grad.add %u0, %e0 : tensor<64xf32>
      %r1 = grad.const -0.1 : tensor<64x10xf32>
      %d1 = grad.mul %g1, %r1 : tensor<64x10xf32>
      %w1n = grad.add %v1, %d1 : tensor<64x10xf32>
      %q1 = grad.const -0.1 : tensor<10xf32>
      %e1 = grad.mul %h1, %q1 : tensor<10xf32>
      %b1n = grad.add %u1, %e1 : tensor<10xf32>
      scf.yield %w0n, %b0n, %w1n, %b1n, %l
          : tensor<64x64xf32>, tensor<64xf32>, tensor<64x10xf32>, tensor<10xf32>, tensor<f32>
    }
    scf.yield %nw0, %nb0, %nw1, %nb1, %nl
        : tensor<64x64xf32>, tensor<64xf32>, tensor<64x10xf32>, tensor<10xf32>, tensor<f32>
  }
  // test accuracy: the share of rows whose true class has the largest logit
  %xw0 = grad.dot %xt, %w0 : tensor<360x64xf32>, tensor<64x64xf32> to tensor<360x64xf32>
  %b0r = grad.broadcast %b0 [1] : tensor<64xf32> to tensor<360x64xf32>
  %pre = grad.add %xw0, %b0r : tensor<360x64xf32>
  %zero = grad.const 0.0 : tensor<360x64xf32>
  %hidden = grad.max %pre, %zero : tensor<360x64xf32>
  %hw1 = grad.dot %hidden, %w1 : tensor<360x64xf32>, tensor<64x10xf32> to tensor<360x10xf32>
  %b1r = grad.broadcast %b1 [1] : tensor<10xf32> to tensor<360x10xf32>
  %z = grad.add %hw1, %b1r : tensor<360x10xf32>
  %top = grad.reduce max %z [1] : tensor<360x10xf32> to tensor<360xf32>
  %topb = grad.broadcast %top [0] : tensor<360xf32> to tensor<360x10xf32>
  %hit = grad.cmpeq %z, %topb : tensor<360x10xf32>
  %hitf = grad.cast %hit : tensor<360x10xi1> to tensor<360x10xf32>
  %right = grad.mul %hitf, %yt : tensor<360x10xf32>
  %count = grad.reduce add %right [0, 1] : tensor<360x10xf32> to tensor<f32>
  %inverse = grad.const 0.0027777778 : tensor<f32>
  %accuracy = grad.mul %count, %inverse : tensor<f32>
  func.return %last, %accuracy : tensor<f32>, tensor<f32>
}
