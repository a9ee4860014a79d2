// RUN: grad-opt %s -p expand-gradient,convert-grad-to-standard,canonicalize,cse | filecheck %s
// RUN: grad-opt %s -p expand-gradient,convert-grad-to-standard,canonicalize,cse | xdsl-opt -p lift-arith-to-linalg,linalg-generalize-named-ops | filecheck %s --check-prefix=LINALG

// The lowered module is ordinary upstream IR: xDSL's own passes work on it,
// inside grad-opt and in plain xdsl-opt.

func.func @main(%w: memref<2x2xf32>, %x: tensor<2x2xf32>, %grad: memref<2x2xf32>) -> tensor<f32> {
  %wv = grad.load %w : memref<2x2xf32>
  %y = grad.dot %wv, %x : tensor<2x2xf32>, tensor<2x2xf32> to tensor<2x2xf32>
  %sq = grad.mul %y, %y : tensor<2x2xf32>
  %loss = grad.reduce add %sq [0, 1] : tensor<2x2xf32> to tensor<f32>
  %g = grad.gradient %loss wrt %wv : tensor<f32>, tensor<2x2xf32>
  grad.store %g, %grad : memref<2x2xf32>
  func.return %loss : tensor<f32>
}

// canonicalize and cse work on the lowered ops: the matmuls, the transpose
// and the broadcast of the backward walk all share one tensor.empty init. The
// result is the loss, then both slots' final values (w unchanged).
// CHECK:      func.func @main(%w: tensor<2x2xf32>, %x: tensor<2x2xf32>, %grad: tensor<2x2xf32>) -> (tensor<f32>, tensor<2x2xf32>, tensor<2x2xf32>) {
// CHECK-NEXT:   %[[INIT:.*]] = tensor.empty() : tensor<2x2xf32>
// CHECK-NOT:    tensor.empty() : tensor<2x2xf32>
// CHECK:        linalg.matmul ins(%w, %x : tensor<2x2xf32>, tensor<2x2xf32>)
// CHECK:        linalg.reduce
// CHECK:        linalg.broadcast ins(%{{.*}}:tensor<f32>) outs(%[[INIT]]:tensor<2x2xf32>)
// CHECK:        linalg.transpose ins(%x:tensor<2x2xf32>) outs(%[[INIT]]:tensor<2x2xf32>) permutation = [1, 0]
// CHECK:        %[[G:.*]] = linalg.matmul
// CHECK-NEXT:   func.return %{{.*}}, %w, %[[G]] : tensor<f32>, tensor<2x2xf32>, tensor<2x2xf32>

// lift-arith-to-linalg turned the tensor mulf into a linalg.mul, and
// linalg-generalize-named-ops that and the matmuls into linalg.generic.
// LINALG:     func.func @main
// LINALG-NOT: linalg.matmul
// LINALG-NOT: arith.mulf %{{.*}}, %{{.*}} : tensor<2x2xf32>
// LINALG:     linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]}
// LINALG:     arith.mulf %{{.*}}, %{{.*}} : f32
// LINALG:     func.return
