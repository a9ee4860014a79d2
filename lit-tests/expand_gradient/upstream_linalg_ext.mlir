// RUN: grad-opt %s -p expand-gradient --split-input-file --verify-diagnostics | filecheck %s

// SPEC §10.5: the shares of IREE's `iree_linalg_ext` ops are built from
// `linalg`, `tensor`, `arith` and `iree_linalg_ext` ops (no `grad` op), and the
// bodies without a rule are named.

// An inclusive cumsum: g reversed along the dimension, scanned, reversed back.
// CHECK-LABEL: func.func @cumsum
// CHECK:      %[[R:.*]] = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, ((d1 * -1) + 2))>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%ct : tensor<2x3xf32>)
// CHECK:      %[[S:.*]], %{{.*}} = iree_linalg_ext.scan dimension(1) inclusive(true) ins(%[[R]] : tensor<2x3xf32>)
// CHECK:        arith.addf
// CHECK:      %g = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, ((d1 * -1) + 2))>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%[[S]] : tensor<2x3xf32>)
// CHECK-NEXT: ^bb0(%{{.*}}: f32, %{{.*}}: f32):
// CHECK-NEXT:   linalg.yield
// CHECK:      func.return %g : tensor<2x3xf32>
func.func @cumsum(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %e = tensor.empty() : tensor<2x3xf32>
  %z = arith.constant dense<0.0> : tensor<2xf32>
  %s:2 = iree_linalg_ext.scan dimension(1) inclusive(true) ins(%x : tensor<2x3xf32>) outs(%e, %z : tensor<2x3xf32>, tensor<2xf32>) {
  ^bb0(%a: f32, %b: f32):
    %t = arith.addf %a, %b : f32
    iree_linalg_ext.yield %t : f32
  } -> tensor<2x3xf32>, tensor<2xf32>
  %ct = arith.constant dense<1.0> : tensor<2x3xf32>
  %g = grad.vjp %s#0, %ct wrt %x : tensor<2x3xf32>, tensor<2x3xf32>
  func.return %g : tensor<2x3xf32>
}

// -----

// A sort: an iota sorted alongside with the same comparator gives the
// permutation, and (permutation, g) sorted by the permutation sends g back.
// CHECK-LABEL: func.func @sort
// CHECK:      %[[IOTA:.*]] = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} outs(%{{.*}} : tensor<4xi32>)
// CHECK:        linalg.index 0 : index
// CHECK:      %{{.*}}, %[[P:.*]] = iree_linalg_ext.sort dimension(0) outs(%x, %[[IOTA]] : tensor<4xf32>, tensor<4xi32>) {
// CHECK-NEXT: ^bb0(%{{.*}}: f32, %{{.*}}: f32, %{{.*}}: i32, %{{.*}}: i32):
// CHECK-NEXT:   arith.cmpf olt
// CHECK:      %{{.*}}, %g = iree_linalg_ext.sort dimension(0) outs(%[[P]], %ct : tensor<4xi32>, tensor<4xf32>) {
// CHECK-NEXT: ^bb0(%[[A:.*]]: i32, %[[B:.*]]: i32, %{{.*}}: f32, %{{.*}}: f32):
// CHECK-NEXT:   %[[LT:.*]] = arith.cmpi slt, %[[A]], %[[B]] : i32
// CHECK-NEXT:   iree_linalg_ext.yield %[[LT]] : i1
// CHECK:      func.return %g : tensor<4xf32>

func.func @sort(%x: tensor<4xf32>, %ct: tensor<4xf32>) -> tensor<4xf32> {
  %s = iree_linalg_ext.sort dimension(0) outs(%x : tensor<4xf32>) {
  ^bb0(%a: f32, %b: f32):
    %lt = arith.cmpf olt, %a, %b : f32
    iree_linalg_ext.yield %lt : i1
  } -> tensor<4xf32>
  %g = grad.vjp %s, %ct wrt %x : tensor<4xf32>, tensor<4xf32>
  func.return %g : tensor<4xf32>
}

// -----

// A scatter-add: the original gets g, each update g gathered where it landed.
// CHECK-LABEL: func.func @scatter_add
// CHECK:      %g = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} outs(%{{.*}} : tensor<3x2xf32>) {
// CHECK:        %[[K:.*]] = tensor.extract %k[%{{.*}}, %{{.*}}] : tensor<3x1xi32>
// CHECK-NEXT:   %[[I:.*]] = arith.index_cast %[[K]] : i32 to index
// CHECK-NEXT:   %[[G:.*]] = tensor.extract %ct[%[[I]], %{{.*}}] : tensor<4x2xf32>
// CHECK-NEXT:   linalg.yield %[[G]] : f32
// CHECK:      func.return %ct, %g : tensor<4x2xf32>, tensor<3x2xf32>

func.func @scatter_add(%x: tensor<4x2xf32>, %u: tensor<3x2xf32>, %ct: tensor<4x2xf32>) -> (tensor<4x2xf32>, tensor<3x2xf32>) {
  %k = arith.constant dense<[[0], [2], [2]]> : tensor<3x1xi32>
  %s = iree_linalg_ext.scatter dimension_map = [0] unique_indices(false) ins(%u, %k : tensor<3x2xf32>, tensor<3x1xi32>) outs(%x : tensor<4x2xf32>) {
  ^bb0(%upd: f32, %cur: f32):
    %t = arith.addf %cur, %upd : f32
    iree_linalg_ext.yield %t : f32
  } -> tensor<4x2xf32>
  %g:2 = grad.vjp %s, %ct wrt %x, %u : tensor<4x2xf32>, tensor<4x2xf32>, tensor<3x2xf32>
  func.return %g#0, %g#1 : tensor<4x2xf32>, tensor<3x2xf32>
}

// -----

// A scatter that sets (`.at[].set`), both updates to element 1: the ids of the
// updates scattered the same way say which wrote last; it gets the gradient,
// the other 0.0, and the original keeps g where nothing was written.
// CHECK-LABEL: func.func @scatter_set
// CHECK:      %[[W:.*]] = iree_linalg_ext.scatter dimension_map = [0] unique_indices(false) ins(%{{.*}}, %k : tensor<2xi32>, tensor<2x1xi32>) outs(%{{.*}} : tensor<4xi32>) {
// CHECK:      %g = linalg.generic
// CHECK:        %[[AT:.*]] = tensor.extract %[[W]][%{{.*}}] : tensor<4xi32>
// CHECK-NEXT:   %[[WON:.*]] = arith.cmpi eq, %[[AT]], %{{.*}} : i32
// CHECK:        arith.select %[[WON]]
// CHECK:      %g_1 = linalg.generic {{.*}} ins(%ct, %[[W]] : tensor<4xf32>, tensor<4xi32>)
// CHECK:        arith.cmpi eq, %{{.*}}, %{{.*}} : i32
// CHECK:      func.return %g_1, %g : tensor<4xf32>, tensor<2xf32>

func.func @scatter_set(%x: tensor<4xf32>, %u: tensor<2xf32>, %ct: tensor<4xf32>) -> (tensor<4xf32>, tensor<2xf32>) {
  %k = arith.constant dense<[[1], [1]]> : tensor<2x1xi32>
  %s = iree_linalg_ext.scatter dimension_map = [0] unique_indices(false) ins(%u, %k : tensor<2xf32>, tensor<2x1xi32>) outs(%x : tensor<4xf32>) {
  ^bb0(%upd: f32, %cur: f32):
    iree_linalg_ext.yield %upd : f32
  } -> tensor<4xf32>
  %g:2 = grad.vjp %s, %ct wrt %x, %u : tensor<4xf32>, tensor<4xf32>, tensor<2xf32>
  func.return %g#0, %g#1 : tensor<4xf32>, tensor<2xf32>
}

// -----

func.func @exclusive(%x: tensor<3xf32>, %z: tensor<f32>, %ct: tensor<3xf32>) -> tensor<3xf32> {
  %s:2 = iree_linalg_ext.scan dimension(0) inclusive(false) ins(%x : tensor<3xf32>) outs(%x, %z : tensor<3xf32>, tensor<f32>) {
  ^bb0(%a: f32, %b: f32):
    %t = arith.addf %a, %b : f32
    iree_linalg_ext.yield %t : f32
  } -> tensor<3xf32>, tensor<f32>
  %g = grad.vjp %s#0, %ct wrt %x : tensor<3xf32>, tensor<3xf32>
  func.return %g : tensor<3xf32>
}

// CHECK:      upstream_linalg_ext.mlir:[[# @LINE - 4]]:3: error: 'grad.vjp' op 'iree_linalg_ext.scan' lies on the path from the target to the loss and has no gradient rule: only an inclusive scan is differentiated

// -----

// A running product (`jnp.cumprod`) has no rule; the reason is a whole sentence.
func.func @cumprod(%x: tensor<3xf32>, %z: tensor<f32>, %ct: tensor<3xf32>) -> tensor<3xf32> {
  %s:2 = iree_linalg_ext.scan dimension(0) inclusive(true) ins(%x : tensor<3xf32>) outs(%x, %z : tensor<3xf32>, tensor<f32>) {
  ^bb0(%a: f32, %b: f32):
    %t = arith.mulf %a, %b : f32
    iree_linalg_ext.yield %t : f32
  } -> tensor<3xf32>, tensor<f32>
  %g = grad.vjp %s#0, %ct wrt %x : tensor<3xf32>, tensor<3xf32>
  func.return %g : tensor<3xf32>
}

// CHECK:      upstream_linalg_ext.mlir:[[# @LINE - 4]]:3: error: 'grad.vjp' op 'iree_linalg_ext.scan' lies on the path from the target to the loss and has no gradient rule: only a scan whose body is 'arith.addf' of its two arguments is differentiated{{$}}

// -----

func.func @product(%x: tensor<4xf32>, %u: tensor<2xf32>, %ct: tensor<4xf32>) -> tensor<4xf32> {
  %k = arith.constant dense<[[1], [2]]> : tensor<2x1xi32>
  %s = iree_linalg_ext.scatter dimension_map = [0] unique_indices(true) ins(%u, %k : tensor<2xf32>, tensor<2x1xi32>) outs(%x : tensor<4xf32>) {
  ^bb0(%upd: f32, %cur: f32):
    %t = arith.mulf %cur, %upd : f32
    iree_linalg_ext.yield %t : f32
  } -> tensor<4xf32>
  %g = grad.vjp %s, %ct wrt %u : tensor<4xf32>, tensor<2xf32>
  func.return %g : tensor<2xf32>
}

// CHECK:      upstream_linalg_ext.mlir:[[# @LINE - 4]]:3: error: 'grad.vjp' op 'iree_linalg_ext.scatter' lies on the path from the target to the loss and has no gradient rule: only a scatter whose body yields the update or adds it ('arith.addf') is differentiated
