// RUN: grad-opt %s --split-input-file --verify-diagnostics | filecheck %s

// SPEC §10.5: IREE's `iree_linalg_ext.scan`, `sort` and `scatter` print back as
// IREE prints them (`iree-opt` gives these lines; the generic form round trip is
// in tests/test_linalg_ext.py);
// every constraint is a located error.

func.func @ops(%x: tensor<3x7xf32>, %acc: tensor<3xf32>, %v: tensor<3x4xf32>, %i: tensor<3x4xi32>, %o: tensor<4x3xf32>, %u: tensor<3x3xf32>, %k: tensor<3x1xi32>) -> (tensor<3x7xf32>, tensor<3xf32>, tensor<3x4xf32>, tensor<3x4xi32>, tensor<4x3xf32>) {
  // CHECK:      %0, %1 = iree_linalg_ext.scan dimension(1) inclusive(true) ins(%x : tensor<3x7xf32>) outs(%x, %acc : tensor<3x7xf32>, tensor<3xf32>) {
  // CHECK-NEXT: ^bb0(%a: f32, %b: f32):
  // CHECK-NEXT:   %s = arith.addf %a, %b : f32
  // CHECK-NEXT:   iree_linalg_ext.yield %s : f32
  // CHECK-NEXT: } -> tensor<3x7xf32>, tensor<3xf32>
  %0:2 = iree_linalg_ext.scan dimension(1) inclusive(true) ins(%x : tensor<3x7xf32>) outs(%x, %acc : tensor<3x7xf32>, tensor<3xf32>) {
  ^bb0(%a: f32, %b: f32):
    %s = arith.addf %a, %b : f32
    iree_linalg_ext.yield %s : f32
  } -> tensor<3x7xf32>, tensor<3xf32>
  // CHECK:      %2, %3 = iree_linalg_ext.sort dimension(1) outs(%v, %i : tensor<3x4xf32>, tensor<3x4xi32>) {
  // CHECK-NEXT: ^bb0(%a_1: f32, %b_1: f32, %c: i32, %d: i32):
  // CHECK-NEXT:   %lt = arith.cmpf olt, %a_1, %b_1 : f32
  // CHECK-NEXT:   iree_linalg_ext.yield %lt : i1
  // CHECK-NEXT: } -> tensor<3x4xf32>, tensor<3x4xi32>
  %1:2 = iree_linalg_ext.sort dimension(1) outs(%v, %i : tensor<3x4xf32>, tensor<3x4xi32>) {
  ^bb0(%a: f32, %b: f32, %c: i32, %d: i32):
    %lt = arith.cmpf olt, %a, %b : f32
    iree_linalg_ext.yield %lt : i1
  } -> tensor<3x4xf32>, tensor<3x4xi32>
  // CHECK:      %4 = iree_linalg_ext.scatter dimension_map = [0] unique_indices(false) ins(%u, %k : tensor<3x3xf32>, tensor<3x1xi32>) outs(%o : tensor<4x3xf32>) {
  // CHECK-NEXT: ^bb0(%upd: f32, %cur: f32):
  // CHECK-NEXT:   %sum = arith.addf %cur, %upd : f32
  // CHECK-NEXT:   iree_linalg_ext.yield %sum : f32
  // CHECK-NEXT: } -> tensor<4x3xf32>
  %2 = iree_linalg_ext.scatter dimension_map = [0] unique_indices(false) ins(%u, %k : tensor<3x3xf32>, tensor<3x1xi32>) outs(%o : tensor<4x3xf32>) {
  ^bb0(%upd: f32, %cur: f32):
    %sum = arith.addf %cur, %upd : f32
    iree_linalg_ext.yield %sum : f32
  } -> tensor<4x3xf32>
  func.return %0#0, %0#1, %1#0, %1#1, %2 : tensor<3x7xf32>, tensor<3xf32>, tensor<3x4xf32>, tensor<3x4xi32>, tensor<4x3xf32>
}

// -----

func.func @scan_dimension(%x: tensor<3x7xf32>, %acc: tensor<3xf32>) {
  // CHECK: {{.*}}iree_linalg_ext.mlir:[[# @LINE + 1]]:3: error: 'iree_linalg_ext.scan' op dimension 2 is outside the input's rank 2
  %0:2 = iree_linalg_ext.scan dimension(2) inclusive(true) ins(%x : tensor<3x7xf32>) outs(%x, %acc : tensor<3x7xf32>, tensor<3xf32>) {
  ^bb0(%a: f32, %b: f32):
    iree_linalg_ext.yield %a : f32
  } -> tensor<3x7xf32>, tensor<3xf32>
  func.return
}

// -----

func.func @scan_accumulator(%x: tensor<3x7xf32>, %acc: tensor<7xf32>) {
  // CHECK: {{.*}}iree_linalg_ext.mlir:[[# @LINE + 1]]:3: error: 'iree_linalg_ext.scan' op the accumulator tensor<7xf32> must have the input's shape without dimension 1
  %0:2 = iree_linalg_ext.scan dimension(1) inclusive(true) ins(%x : tensor<3x7xf32>) outs(%x, %acc : tensor<3x7xf32>, tensor<7xf32>) {
  ^bb0(%a: f32, %b: f32):
    iree_linalg_ext.yield %a : f32
  } -> tensor<3x7xf32>, tensor<7xf32>
  func.return
}

// -----

func.func @sort_ins(%v: tensor<4xf32>) {
  // CHECK: {{.*}}iree_linalg_ext.mlir:[[# @LINE + 1]]:3: error: 'iree_linalg_ext.sort' op a sort takes no ins, only outs
  %0 = iree_linalg_ext.sort dimension(0) ins(%v : tensor<4xf32>) outs(%v : tensor<4xf32>) {
  ^bb0(%a: f32, %b: f32):
    %lt = arith.cmpf olt, %a, %b : f32
    iree_linalg_ext.yield %lt : i1
  } -> tensor<4xf32>
  func.return
}

// -----

func.func @sort_comparator(%v: tensor<4xf32>) {
  // CHECK: {{.*}}iree_linalg_ext.mlir:[[# @LINE + 1]]:3: error: 'iree_linalg_ext.sort' op the comparator must end in 'iree_linalg_ext.yield' of one i1
  %0 = iree_linalg_ext.sort dimension(0) outs(%v : tensor<4xf32>) {
  ^bb0(%a: f32, %b: f32):
    iree_linalg_ext.yield %a : f32
  } -> tensor<4xf32>
  func.return
}

// -----

func.func @sort_shapes(%v: tensor<4xf32>, %i: tensor<5xi32>) {
  // CHECK: {{.*}}iree_linalg_ext.mlir:[[# @LINE + 1]]:3: error: 'iree_linalg_ext.sort' op outs operand 1 (tensor<5xi32>) must have the shape of operand 0 (tensor<4xf32>)
  %0:2 = iree_linalg_ext.sort dimension(0) outs(%v, %i : tensor<4xf32>, tensor<5xi32>) {
  ^bb0(%a: f32, %b: f32, %c: i32, %d: i32):
    %lt = arith.cmpf olt, %a, %b : f32
    iree_linalg_ext.yield %lt : i1
  } -> tensor<4xf32>, tensor<5xi32>
  func.return
}

// -----

func.func @scatter_map(%o: tensor<4x3xf32>, %u: tensor<3x3xf32>, %k: tensor<3x1xi32>) {
  // CHECK: {{.*}}iree_linalg_ext.mlir:[[# @LINE + 1]]:3: error: 'iree_linalg_ext.scatter' op dimension_map [2] must name distinct dims of the original's rank 2
  %0 = iree_linalg_ext.scatter dimension_map = [2] unique_indices(false) ins(%u, %k : tensor<3x3xf32>, tensor<3x1xi32>) outs(%o : tensor<4x3xf32>) {
  ^bb0(%upd: f32, %cur: f32):
    iree_linalg_ext.yield %upd : f32
  } -> tensor<4x3xf32>
  func.return
}

// -----

func.func @scatter_batch(%o: tensor<4x3xf32>, %u: tensor<2x3xf32>, %k: tensor<3x1xi32>) {
  // CHECK: {{.*}}iree_linalg_ext.mlir:[[# @LINE + 1]]:3: error: 'iree_linalg_ext.scatter' op the updates tensor<2x3xf32> must start with the indices' batch dims [3]
  %0 = iree_linalg_ext.scatter dimension_map = [0] unique_indices(false) ins(%u, %k : tensor<2x3xf32>, tensor<3x1xi32>) outs(%o : tensor<4x3xf32>) {
  ^bb0(%upd: f32, %cur: f32):
    iree_linalg_ext.yield %upd : f32
  } -> tensor<4x3xf32>
  func.return
}

// -----

func.func @scatter_slice(%o: tensor<4x3xf32>, %u: tensor<3x5xf32>, %k: tensor<3x1xi32>) {
  // CHECK: {{.*}}iree_linalg_ext.mlir:[[# @LINE + 1]]:3: error: 'iree_linalg_ext.scatter' op update slice dim 0 (5) exceeds original dim 1 (3)
  %0 = iree_linalg_ext.scatter dimension_map = [0] unique_indices(false) ins(%u, %k : tensor<3x5xf32>, tensor<3x1xi32>) outs(%o : tensor<4x3xf32>) {
  ^bb0(%upd: f32, %cur: f32):
    iree_linalg_ext.yield %upd : f32
  } -> tensor<4x3xf32>
  func.return
}
