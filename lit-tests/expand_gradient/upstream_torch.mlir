// RUN: grad-opt %s -p expand-gradient --split-input-file > %t
// RUN: filecheck %s --input-file=%t
// RUN: filecheck %s --input-file=%t --check-prefix=NOGRAD

// The forms of IREE's torch input conversion (torch-mlir's lowering) that
// the JAX programs do not have (SPEC §10.2, §10.5). No grad op comes out.
// NOGRAD-NOT: = grad.

// fpowi a n (torch's `x ** 3`): `mulf g (mulf (sitofp n) (fpowi a (subi n 1)))`;
// the integer exponent is a dead end.
func.func @fpowi(%a: f32) -> f32 {
  %n = arith.constant 3 : i64
  %u = math.fpowi %a, %n : f32, i64
  %ga = grad.gradient %u wrt %a : f32, f32
  func.return %ga : f32
}


// CHECK-LABEL: func.func @fpowi(
// CHECK-NEXT:    %n = arith.constant 3 : i64
// CHECK-NEXT:    %u = math.fpowi %a, %n : f32, i64
// CHECK-NEXT:    %0 = arith.constant 1.000000e+00 : f32
// CHECK-NEXT:    %1 = arith.constant 1 : i64
// CHECK-NEXT:    %2 = arith.subi %n, %1 : i64
// CHECK-NEXT:    %3 = math.fpowi %a, %2 : f32, i64
// CHECK-NEXT:    %4 = arith.sitofp %n : i64 to f32
// CHECK-NEXT:    %5 = arith.mulf %4, %3 : f32
// CHECK-NEXT:    %ga = arith.mulf %0, %5 : f32
// CHECK-NEXT:    func.return %ga : f32

// -----

// pooling_nchw_max (xDSL's own reads the window operand in its body):
// the count of the maxima per window, then per window position the share
// of the strided slice of x, added at its place.

func.func @pool(%x: tensor<1x1x4x4xf32>) -> tensor<1x1x4x4xf32> {
  %w = tensor.empty() : tensor<2x2xf32>
  %c = arith.constant -3.40282347E+38 : f32
  %i = tensor.empty() : tensor<1x1x2x2xf32>
  %f = linalg.fill ins(%c : f32) outs(%i : tensor<1x1x2x2xf32>) -> tensor<1x1x2x2xf32>
  %m = linalg.pooling_nchw_max {dilations = dense<1> : vector<2xi64>, strides = dense<2> : vector<2xi64>} ins(%x, %w : tensor<1x1x4x4xf32>, tensor<2x2xf32>) outs(%f : tensor<1x1x2x2xf32>) -> tensor<1x1x2x2xf32>
  %z = arith.constant dense<0.0> : tensor<f32>
  %s = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> ()>], iterator_types = ["reduction", "reduction", "reduction", "reduction"]} ins(%m : tensor<1x1x2x2xf32>) outs(%z : tensor<f32>) {
  ^bb0(%in: f32, %out: f32):
    %a = arith.addf %in, %out : f32
    linalg.yield %a : f32
  } -> tensor<f32>
  %g = grad.gradient %s wrt %x : tensor<f32>, tensor<1x1x4x4xf32>
  func.return %g : tensor<1x1x4x4xf32>
}


// CHECK-LABEL: func.func @pool(
// CHECK:         %{{.*}} = arith.cmpf oeq, %{{.*}}, %{{.*}} : f32
// CHECK:         %[[COUNT:.*]] = linalg.generic {{.*}} ins(%x, %w, %m : {{.*}}) outs(%{{.*}} : tensor<1x1x2x2xf32>)
// CHECK:         %[[SCALE:.*]] = arith.divf %{{.*}}, %[[COUNT]] : tensor<1x1x2x2xf32>
// CHECK:         %[[S0:.*]] = tensor.extract_slice %x[0, 0, 0, 0] [1, 1, 2, 2] [1, 1, 2, 2]
// CHECK:         linalg.generic {{.*}} ins(%[[S0]], %{{.*}}, %[[SCALE]], %m :
// CHECK:         tensor.extract_slice %x[0, 0, 0, 1] [1, 1, 2, 2] [1, 1, 2, 2]
// CHECK:         tensor.extract_slice %x[0, 0, 1, 0] [1, 1, 2, 2] [1, 1, 2, 2]
// CHECK:         tensor.extract_slice %x[0, 0, 1, 1] [1, 1, 2, 2] [1, 1, 2, 2]
// CHECK:         %g = tensor.insert_slice %{{.*}} into %{{.*}}[0, 0, 1, 1] [1, 1, 2, 2] [1, 1, 2, 2]
// CHECK-NEXT:    func.return %g

// -----

// A gather whose body checks its index with `cf.assert` (torch's
// embedding): the assert stays in the op, the share's generic has none.

func.func @gather(%t: tensor<10x4xf32>, %idx: tensor<3xi64>) -> tensor<10x4xf32> {
  %c10 = arith.constant 10 : index
  %e = tensor.empty() : tensor<3x4xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%idx : tensor<3xi64>) outs(%e : tensor<3x4xf32>) {
  ^bb0(%in: i64, %out: f32):
    %i = arith.index_cast %in : i64 to index
    %j = linalg.index 1 : index
    %ok = arith.cmpi slt, %i, %c10 : index
    cf.assert %ok, "index must be smaller than dim size"
    %x = tensor.extract %t[%i, %j] : tensor<10x4xf32>
    linalg.yield %x : f32
  } -> tensor<3x4xf32>
  %z = arith.constant dense<0.0> : tensor<f32>
  %s = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> ()>], iterator_types = ["reduction", "reduction"]} ins(%r : tensor<3x4xf32>) outs(%z : tensor<f32>) {
  ^bb0(%in: f32, %out: f32):
    %a = arith.addf %in, %out : f32
    linalg.yield %a : f32
  } -> tensor<f32>
  %g = grad.gradient %s wrt %t : tensor<f32>, tensor<10x4xf32>
  func.return %g : tensor<10x4xf32>
}

// CHECK-LABEL: func.func @gather(
// CHECK:         cf.assert %ok, "index must be smaller than dim size"
// CHECK-NOT:     cf.assert
// CHECK:         %{{.*}}, %{{.*}}, %{{.*}} = linalg.generic
// CHECK:         %g = scf.for

// -----

// iree_linalg_ext.attention (torch's scaled_dot_product_attention): its
// definition rebuilt as generics (Q Kᵀ, the scale, the row max, exp, the
// row sum, the quotient, P V), and the walk over them; the query's share
// is the contraction of the key with the scaled score gradient, and no share
// of the key, the value or the scale is built (they are not on the path).
func.func @attention(%q: tensor<1x2x3xf32>, %k: tensor<1x4x3xf32>, %v: tensor<1x4x2xf32>) -> tensor<1x2x3xf32> {
  %scale = arith.constant 0.5 : f32
  %e = tensor.empty() : tensor<1x2x2xf32>
  %o = iree_linalg_ext.attention <indexing_maps = [affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d3)>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d4, d3)>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d4, d2)>, affine_map<(d0, d1, d2, d3, d4) -> ()>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2)>]> ins(%q, %k, %v, %scale : tensor<1x2x3xf32>, tensor<1x4x3xf32>, tensor<1x4x2xf32>, f32) outs(%e : tensor<1x2x2xf32>) {
  ^bb0(%score: f32):
    iree_linalg_ext.yield %score : f32
  } -> tensor<1x2x2xf32>
  %z = arith.constant dense<0.0> : tensor<f32>
  %s = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> ()>], iterator_types = ["reduction", "reduction", "reduction"]} ins(%o : tensor<1x2x2xf32>) outs(%z : tensor<f32>) {
  ^bb0(%in: f32, %out: f32):
    %a = arith.addf %in, %out : f32
    linalg.yield %a : f32
  } -> tensor<f32>
  %g = grad.gradient %s wrt %q : tensor<f32>, tensor<1x2x3xf32>
  func.return %g : tensor<1x2x3xf32>
}

// CHECK-LABEL: func.func @attention(
// CHECK:         %o = iree_linalg_ext.attention <indexing_maps = [affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d3)>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d4, d3)>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d4, d2)>, affine_map<(d0, d1, d2, d3, d4) -> ()>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2)>]> ins(%q, %k, %v, %scale : tensor<1x2x3xf32>, tensor<1x4x3xf32>, tensor<1x4x2xf32>, f32) outs(%e : tensor<1x2x2xf32>) {
// CHECK:         %[[RAW:.*]] = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>, affine_map<(d0, d1, d2, d3) -> (d0, d3, d2)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>], iterator_types = ["parallel", "parallel", "reduction", "parallel"]} ins(%q, %k : tensor<1x2x3xf32>, tensor<1x4x3xf32>) outs(%{{.*}} : tensor<1x2x4xf32>)
// CHECK:         %[[S:.*]] = linalg.generic {{.*}} ins(%[[RAW]], %scale : tensor<1x2x4xf32>, f32)
// CHECK:         %[[MAX:.*]] = linalg.generic {{.*}} ins(%[[S]] : tensor<1x2x4xf32>) outs(%{{.*}} : tensor<1x2xf32>)
// CHECK-NEXT:    ^bb0(%{{.*}}: f32, %{{.*}}: f32):
// CHECK-NEXT:      arith.maximumf
// CHECK:         math.exp
// CHECK:         arith.divf
// CHECK-NOT:     -> tensor<1x4x2xf32>
// CHECK:         %[[DS:.*]] = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> ()>, {{.*}} ins(%scale, %{{.*}} : f32, tensor<1x2x4xf32>)
// CHECK-NOT:     -> tensor<f32>
// CHECK:         %g = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d3, d2)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%k, %[[DS]] : tensor<1x4x3xf32>, tensor<1x2x4xf32>) outs(%{{.*}} : tensor<1x2x3xf32>)
// CHECK-NOT:     linalg.generic
// CHECK:         func.return %g : tensor<1x2x3xf32>
