// RUN: grad-opt %s --split-input-file --verify-diagnostics | filecheck %s

// The torch forms gradopt reads but does not differentiate (SPEC §4 rule 5):
// a located error on the differentiation op naming the op and the reason.

// An attention with a mask (a fifth input).
func.func @masked(%q: tensor<1x2x3xf32>, %k: tensor<1x4x3xf32>, %v: tensor<1x4x2xf32>, %m: tensor<1x2x4xf32>) -> tensor<1x2x3xf32> {
  %scale = arith.constant 0.5 : f32
  %e = tensor.empty() : tensor<1x2x2xf32>
  %o = iree_linalg_ext.attention <indexing_maps = [affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d3)>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d4, d3)>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d4, d2)>, affine_map<(d0, d1, d2, d3, d4) -> ()>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d4)>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2)>]> ins(%q, %k, %v, %scale, %m : tensor<1x2x3xf32>, tensor<1x4x3xf32>, tensor<1x4x2xf32>, f32, tensor<1x2x4xf32>) outs(%e : tensor<1x2x2xf32>) {
  ^bb0(%score: f32):
    iree_linalg_ext.yield %score : f32
  } -> tensor<1x2x2xf32>
  %g = grad.vjp %o, %o wrt %q : tensor<1x2x2xf32>, tensor<1x2x3xf32>
  func.return %g : tensor<1x2x3xf32>
}

// CHECK:      upstream_torch_invalid.mlir:[[# @LINE - 4]]:3: error: 'grad.vjp' op 'iree_linalg_ext.attention' lies on the path from the target to the loss and has no gradient rule: an attention with a mask is not supported
// CHECK:      upstream_torch_invalid.mlir:[[# @LINE - 9]]:3: note: 'iree_linalg_ext.attention' is here

// -----

// An attention whose body rewrites the scores.
func.func @rewritten(%q: tensor<1x2x3xf32>, %k: tensor<1x4x3xf32>, %v: tensor<1x4x2xf32>) -> tensor<1x2x3xf32> {
  %scale = arith.constant 0.5 : f32
  %e = tensor.empty() : tensor<1x2x2xf32>
  %o = iree_linalg_ext.attention <indexing_maps = [affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d3)>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d4, d3)>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d4, d2)>, affine_map<(d0, d1, d2, d3, d4) -> ()>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2)>]> ins(%q, %k, %v, %scale : tensor<1x2x3xf32>, tensor<1x4x3xf32>, tensor<1x4x2xf32>, f32) outs(%e : tensor<1x2x2xf32>) {
  ^bb0(%score: f32):
    %t = math.tanh %score : f32
    iree_linalg_ext.yield %t : f32
  } -> tensor<1x2x2xf32>
  %g = grad.vjp %o, %o wrt %q : tensor<1x2x2xf32>, tensor<1x2x3xf32>
  func.return %g : tensor<1x2x3xf32>
}

// CHECK:      upstream_torch_invalid.mlir:[[# @LINE - 4]]:3: error: 'grad.vjp' op 'iree_linalg_ext.attention' lies on the path from the target to the loss and has no gradient rule: an attention whose body rewrites the scores is not supported
// CHECK:      upstream_torch_invalid.mlir:[[# @LINE - 10]]:3: note: 'iree_linalg_ext.attention' is here

// -----

// Of `cf`, only `cf.assert` (as torch-mlir checks a gather's indices) is
// read: structured control flow is `scf`.
func.func @branch(%x: f32) -> f32 {
  cf.br ^bb1
^bb1:
  func.return %x : f32
}

// CHECK:      upstream_torch_invalid.mlir:[[# @LINE - 5]]:3: error: unknown operation 'cf.br'
