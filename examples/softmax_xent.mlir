// Softmax cross-entropy of 2 rows of 4 logits against one-hot labels, and its
// gradient w.r.t. the logits, which is (softmax(z) - y) / rows.
// The softmax is the stable one: the row maximum is subtracted first, through
// grad.detach, since the result does not depend on it (and its gradient would
// only add rounding noise).
// Run it with:
//   grad-run examples/softmax_xent.mlir --slot 0=[1,2,3,4,1,1,1,1] --slot 1=[0,0,0,1,1,0,0,0]

func.func @main(%logits: memref<2x4xf32>, %labels: memref<2x4xf32>,
                %loss_out: memref<f32>, %grad_out: memref<2x4xf32>) {
  %z = grad.load %logits : memref<2x4xf32>
  %y = grad.load %labels : memref<2x4xf32>
  // stable log-softmax: s = z - max(z); log p = s - log(sum(exp(s)))
  %m = grad.reduce max %z [1] : tensor<2x4xf32> to tensor<2xf32>
  %md = grad.detach %m : tensor<2xf32>
  %mb = grad.broadcast %md [0] : tensor<2xf32> to tensor<2x4xf32>
  %nm = grad.neg %mb : tensor<2x4xf32>
  %s = grad.add %z, %nm : tensor<2x4xf32>
  %log2e = grad.const 1.442695 : tensor<2x4xf32>
  %s2 = grad.mul %s, %log2e : tensor<2x4xf32>
  %e = grad.exp2 %s2 : tensor<2x4xf32>
  %sum = grad.reduce add %e [1] : tensor<2x4xf32> to tensor<2xf32>
  %lsum2 = grad.log2 %sum : tensor<2xf32>
  %ln2 = grad.const 0.6931472 : tensor<2xf32>
  %lsum = grad.mul %lsum2, %ln2 : tensor<2xf32>
  %lb = grad.broadcast %lsum [0] : tensor<2xf32> to tensor<2x4xf32>
  %nl = grad.neg %lb : tensor<2x4xf32>
  %logp = grad.add %s, %nl : tensor<2x4xf32>
  // loss = -sum(y * log p) / rows
  %ylogp = grad.mul %y, %logp : tensor<2x4xf32>
  %total = grad.reduce add %ylogp [0, 1] : tensor<2x4xf32> to tensor<f32>
  %scale = grad.const -0.5 : tensor<f32>
  %loss = grad.mul %total, %scale : tensor<f32>
  %g = grad.gradient %loss wrt %z : tensor<f32>, tensor<2x4xf32>
  grad.store %loss, %loss_out : memref<f32>
  grad.store %g, %grad_out : memref<2x4xf32>
  func.return
}
