// One SGD training step of a 2-layer MLP: 4 inputs of 3 features, a hidden
// layer of 5 ReLU units, 2 classes, softmax cross-entropy against one-hot
// labels (mean over the batch), learning rate 0.1. The gradients of all four
// weight tensors come from one grad.gradient (one backward walk); the updated
// weights are stored back into their slots and the loss is returned.
// bench/interpreter_speed.py runs the same program at batch 256, 784 -> 512 -> 10.
// Run it with:
//   grad-run examples/mlp_step.mlir --slot 0=[1,0,2,0,1,1,-1,2,0,3,-1,1] \
//     --slot 1=[1,0,0,1,0,1,1,0] \
//     --slot 2=[0.1,-0.2,0.3,0.2,-0.1,0.2,0.1,0.1,-0.3,0.2,-0.1,0.2,0.1,0.3,-0.2] \
//     --slot 4=[0.3,-0.1,0.2,0.2,-0.3,0.1,0.1,-0.2,0.2,0.3]
// (the loss is 0.69215024; slots 2-5 hold the updated weights and biases)

func.func @main(%xs: memref<4x3xf32>, %ys: memref<4x2xf32>,
                %w1s: memref<3x5xf32>, %b1s: memref<5xf32>,
                %w2s: memref<5x2xf32>, %b2s: memref<2xf32>) -> tensor<f32> {
  %x = grad.load %xs : memref<4x3xf32>
  %y = grad.load %ys : memref<4x2xf32>
  %w1 = grad.load %w1s : memref<3x5xf32>
  %b1 = grad.load %b1s : memref<5xf32>
  %w2 = grad.load %w2s : memref<5x2xf32>
  %b2 = grad.load %b2s : memref<2xf32>
  // hidden = relu(x w1 + b1)
  %xw1 = grad.dot %x, %w1 : tensor<4x3xf32>, tensor<3x5xf32> to tensor<4x5xf32>
  %b1r = grad.broadcast %b1 [1] : tensor<5xf32> to tensor<4x5xf32>
  %pre = grad.add %xw1, %b1r : tensor<4x5xf32>
  %zero = grad.const 0.0 : tensor<4x5xf32>
  %hidden = grad.max %pre, %zero : tensor<4x5xf32>
  // logits = hidden w2 + b2
  %hw2 = grad.dot %hidden, %w2 : tensor<4x5xf32>, tensor<5x2xf32> to tensor<4x2xf32>
  %b2r = grad.broadcast %b2 [1] : tensor<2xf32> to tensor<4x2xf32>
  %z = grad.add %hw2, %b2r : tensor<4x2xf32>
  // stable log-softmax: s = z - max(z) (detached); log p = s - ln(sum(exp(s)))
  %m = grad.reduce max %z [1] : tensor<4x2xf32> to tensor<4xf32>
  %md = grad.detach %m : tensor<4xf32>
  %mb = grad.broadcast %md [0] : tensor<4xf32> to tensor<4x2xf32>
  %nm = grad.neg %mb : tensor<4x2xf32>
  %s = grad.add %z, %nm : tensor<4x2xf32>
  %log2e = grad.const 1.442695 : tensor<4x2xf32>
  %s2 = grad.mul %s, %log2e : tensor<4x2xf32>
  %e = grad.exp2 %s2 : tensor<4x2xf32>
  %sum = grad.reduce add %e [1] : tensor<4x2xf32> to tensor<4xf32>
  %lsum2 = grad.log2 %sum : tensor<4xf32>
  %ln2 = grad.const 0.6931472 : tensor<4xf32>
  %lsum = grad.mul %lsum2, %ln2 : tensor<4xf32>
  %lb = grad.broadcast %lsum [0] : tensor<4xf32> to tensor<4x2xf32>
  %nl = grad.neg %lb : tensor<4x2xf32>
  %logp = grad.add %s, %nl : tensor<4x2xf32>
  // loss = -sum(y * log p) / batch
  %ylogp = grad.mul %y, %logp : tensor<4x2xf32>
  %total = grad.reduce add %ylogp [0, 1] : tensor<4x2xf32> to tensor<f32>
  %scale = grad.const -0.25 : tensor<f32>
  %loss = grad.mul %total, %scale : tensor<f32>
  %gw1, %gb1, %gw2, %gb2 = grad.gradient %loss wrt %w1, %b1, %w2, %b2
      : tensor<f32>, tensor<3x5xf32>, tensor<5xf32>, tensor<5x2xf32>, tensor<2xf32>
  // w <- w - 0.1 * dloss/dw
  %lr1 = grad.const -0.1 : tensor<3x5xf32>
  %d1 = grad.mul %gw1, %lr1 : tensor<3x5xf32>
  %nw1 = grad.add %w1, %d1 : tensor<3x5xf32>
  grad.store %nw1, %w1s : memref<3x5xf32>
  %lrb1 = grad.const -0.1 : tensor<5xf32>
  %db1 = grad.mul %gb1, %lrb1 : tensor<5xf32>
  %nb1 = grad.add %b1, %db1 : tensor<5xf32>
  grad.store %nb1, %b1s : memref<5xf32>
  %lr2 = grad.const -0.1 : tensor<5x2xf32>
  %d2 = grad.mul %gw2, %lr2 : tensor<5x2xf32>
  %nw2 = grad.add %w2, %d2 : tensor<5x2xf32>
  grad.store %nw2, %w2s : memref<5x2xf32>
  %lrb2 = grad.const -0.1 : tensor<2xf32>
  %db2 = grad.mul %gb2, %lrb2 : tensor<2xf32>
  %nb2 = grad.add %b2, %db2 : tensor<2xf32>
  grad.store %nb2, %b2s : memref<2xf32>
  func.return %loss : tensor<f32>
}
