// RUN: grad-opt %s --split-input-file --verify-diagnostics | filecheck %s

// grad.load / grad.store: at most one index per slot dim, each of type index;
// the loaded or stored tensor is the slot without its indexed dims.

func.func @load_too_many_indices(%s: memref<5xf32>, %i: index) {
  // CHECK: {{.*}}memory_invalid.mlir:[[# @LINE + 1]]:3: error: 'grad.load' op too many indices for memref<5xf32>: expected at most 1, got 2
  %x = "grad.load"(%s, %i, %i) : (memref<5xf32>, index, index) -> tensor<f32>
  func.return
}

// -----

func.func @load_index_type(%s: memref<5x2xf32>, %i: index, %n: i32) {
  // CHECK: {{.*}}memory_invalid.mlir:[[# @LINE + 1]]:3: error: 'grad.load' op index 1 must be of type index, got i32
  %x = "grad.load"(%s, %i, %n) : (memref<5x2xf32>, index, i32) -> tensor<f32>
  func.return
}

// -----

func.func @load_tensor_index(%s: memref<5xf32>, %n: tensor<i32>) {
  // CHECK: {{.*}}memory_invalid.mlir:[[# @LINE + 1]]:3: error: 'grad.load' op index 0 must be of type index, got tensor<i32>
  %x = "grad.load"(%s, %n) : (memref<5xf32>, tensor<i32>) -> tensor<f32>
  func.return
}

// -----

func.func @load_result(%s: memref<5xf32>) {
  // CHECK: {{.*}}memory_invalid.mlir:[[# @LINE + 1]]:3: error: 'grad.load' op result must be tensor<5xf32>, got tensor<4xf32>
  %x = "grad.load"(%s) : (memref<5xf32>) -> tensor<4xf32>
  func.return
}

// -----

func.func @load_indexed_result(%s: memref<4x3xi32>, %i: index) {
  // CHECK: {{.*}}memory_invalid.mlir:[[# @LINE + 1]]:3: error: 'grad.load' op result must be tensor<3xi32>, got tensor<4x3xi32>
  %x = "grad.load"(%s, %i) : (memref<4x3xi32>, index) -> tensor<4x3xi32>
  func.return
}

// -----

func.func @load_dynamic_slot(%s: memref<?xf32>) {
  // CHECK: {{.*}}memory_invalid.mlir:[[# @LINE + 1]]:3: error: 'grad.load' op slot must be a statically shaped memref of f32, i32 or i1, got memref<?xf32>
  %x = "grad.load"(%s) : (memref<?xf32>) -> tensor<?xf32>
  func.return
}

// -----

func.func @load_f64_slot(%s: memref<5xf64>) {
  // CHECK: {{.*}}memory_invalid.mlir:[[# @LINE + 1]]:3: error: 'grad.load' op slot must be a statically shaped memref of f32, i32 or i1, got memref<5xf64>
  %x = grad.load %s : memref<5xf64>
  func.return
}

// -----

func.func @store_too_many_indices(%s: memref<5xf32>, %v: tensor<f32>, %i: index) {
  // CHECK: {{.*}}memory_invalid.mlir:[[# @LINE + 1]]:3: error: 'grad.store' op too many indices for memref<5xf32>: expected at most 1, got 2
  "grad.store"(%v, %s, %i, %i) : (tensor<f32>, memref<5xf32>, index, index) -> ()
  func.return
}

// -----

func.func @store_index_type(%s: memref<5xf32>, %v: tensor<f32>, %n: i32) {
  // CHECK: {{.*}}memory_invalid.mlir:[[# @LINE + 1]]:3: error: 'grad.store' op index 0 must be of type index, got i32
  "grad.store"(%v, %s, %n) : (tensor<f32>, memref<5xf32>, i32) -> ()
  func.return
}

// -----

func.func @store_value(%s: memref<5xf32>, %v: tensor<4xf32>) {
  // CHECK: {{.*}}memory_invalid.mlir:[[# @LINE + 1]]:3: error: 'grad.store' op value must be tensor<5xf32>, got tensor<4xf32>
  "grad.store"(%v, %s) : (tensor<4xf32>, memref<5xf32>) -> ()
  func.return
}

// -----

func.func @store_indexed_value(%s: memref<4x3xf32>, %v: tensor<3xi32>, %i: index) {
  // CHECK: {{.*}}memory_invalid.mlir:[[# @LINE + 1]]:3: error: 'grad.store' op value must be tensor<3xf32>, got tensor<3xi32>
  "grad.store"(%v, %s, %i) : (tensor<3xi32>, memref<4x3xf32>, index) -> ()
  func.return
}
