// Multi-head self-attention (issue 12): a sequence of 4 positions with model
// dim 8, 2 heads of dim 4. Q, K and V are projections of x by dot; reshape and
// permute split them into heads; one batched dot per step gives the scores
// q k^T / 2 of every head, a softmax over positions (stable: the row max is
// subtracted through grad.detach, since the softmax does not depend on it)
// weights the values by another batched dot; the heads are joined back and
// projected by wo. The loss is sum(y^2), and one grad.gradient gives its
// gradient w.r.t. the four projection weights (one backward walk).
// Run it with (inputs as .npy files, made by NumPy):
//   python -c "import numpy as np; r = np.random.default_rng(0); [np.save(n + '.npy', (r.standard_normal(s) * k).astype(np.float32)) for n, s, k in [('x', (4, 8), 1.0), ('wq', (8, 8), 0.5), ('wk', (8, 8), 0.5), ('wv', (8, 8), 0.5), ('wo', (8, 8), 0.5)]]"
//   grad-run examples/attention.mlir --arg 0=x.npy --arg 1=wq.npy --arg 2=wk.npy --arg 3=wv.npy --arg 4=wo.npy
// (the loss, result 0, is 25.4356 to 6 digits; results 1-4 are the gradients)
// tests/test_examples_models.py checks the loss and the four gradients against
// a float64 NumPy forward and hand-written backward pass (itself checked by
// finite differences).

func.func @main(%x: tensor<4x8xf32>, %wq: tensor<8x8xf32>, %wk: tensor<8x8xf32>, %wv: tensor<8x8xf32>, %wo: tensor<8x8xf32>) -> (tensor<f32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>) {
  // projections, split into heads: q and v as [head, position, feature],
  // k as [head, feature, position]
  %q = grad.dot %x, %wq : tensor<4x8xf32>, tensor<8x8xf32> to tensor<4x8xf32>
  %q3 = grad.reshape %q : tensor<4x8xf32> to tensor<4x2x4xf32>
  %qh = grad.permute %q3 [1, 0, 2] : tensor<4x2x4xf32> to tensor<2x4x4xf32>
  %k = grad.dot %x, %wk : tensor<4x8xf32>, tensor<8x8xf32> to tensor<4x8xf32>
  %k3 = grad.reshape %k : tensor<4x8xf32> to tensor<4x2x4xf32>
  %kh = grad.permute %k3 [1, 2, 0] : tensor<4x2x4xf32> to tensor<2x4x4xf32>
  %v = grad.dot %x, %wv : tensor<4x8xf32>, tensor<8x8xf32> to tensor<4x8xf32>
  %v3 = grad.reshape %v : tensor<4x8xf32> to tensor<4x2x4xf32>
  %vh = grad.permute %v3 [1, 0, 2] : tensor<4x2x4xf32> to tensor<2x4x4xf32>
  // scores q k^T / sqrt(4), one matrix per head
  %qk = grad.dot %qh, %kh : tensor<2x4x4xf32>, tensor<2x4x4xf32> to tensor<2x4x4xf32>
  %scale = grad.const 0.5 : tensor<2x4x4xf32>
  %scores = grad.mul %qk, %scale : tensor<2x4x4xf32>
  // softmax over the last dim; the row max is detached (the softmax does
  // not depend on it), e = 2^((s - max) log2 e)
  %m = grad.reduce max %scores [2] : tensor<2x4x4xf32> to tensor<2x4xf32>
  %md = grad.detach %m : tensor<2x4xf32>
  %mb = grad.broadcast %md [0, 1] : tensor<2x4xf32> to tensor<2x4x4xf32>
  %nm = grad.neg %mb : tensor<2x4x4xf32>
  %shifted = grad.add %scores, %nm : tensor<2x4x4xf32>
  %log2e = grad.const 1.442695 : tensor<2x4x4xf32>
  %s2 = grad.mul %shifted, %log2e : tensor<2x4x4xf32>
  %e = grad.exp2 %s2 : tensor<2x4x4xf32>
  %sum = grad.reduce add %e [2] : tensor<2x4x4xf32> to tensor<2x4xf32>
  %r = grad.recip %sum : tensor<2x4xf32>
  %rb = grad.broadcast %r [0, 1] : tensor<2x4xf32> to tensor<2x4x4xf32>
  %p = grad.mul %e, %rb : tensor<2x4x4xf32>
  // weighted values, heads joined back to [position, feature], output projection
  %ah = grad.dot %p, %vh : tensor<2x4x4xf32>, tensor<2x4x4xf32> to tensor<2x4x4xf32>
  %a3 = grad.permute %ah [1, 0, 2] : tensor<2x4x4xf32> to tensor<4x2x4xf32>
  %a = grad.reshape %a3 : tensor<4x2x4xf32> to tensor<4x8xf32>
  %y = grad.dot %a, %wo : tensor<4x8xf32>, tensor<8x8xf32> to tensor<4x8xf32>
  // loss = sum(y^2)
  %yy = grad.mul %y, %y : tensor<4x8xf32>
  %loss = grad.reduce add %yy [0, 1] : tensor<4x8xf32> to tensor<f32>
  %gq, %gk, %gv, %go = grad.gradient %loss wrt %wq, %wk, %wv, %wo
      : tensor<f32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>
  func.return %loss, %gq, %gk, %gv, %go : tensor<f32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>
}
