// RUN: grad-run %s --arg '0=[1.0, 2.0, 3.0]' --arg '1=[[1, 2, 3], [4, 5, 6], [7, 8, 9]]' | filecheck %s
// RUN: grad-opt %s | filecheck %s --check-prefix=PRINT

// A program as IREE's input conversion prints it (SPEC §10.5): `util.func`,
// `util.call` and `util.return` with IREE's attributes, an `scf.for` with
// i32 bounds whose body picks its slice with a dynamic offset, and `scf.if`.

module @jit_example {
  util.func private @scale(%x: tensor<3xf32>, %k: f32) -> tensor<3xf32> {
    %e = tensor.empty() : tensor<3xf32>
    %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%x : tensor<3xf32>) outs(%e : tensor<3xf32>) {
    ^bb0(%in: f32, %out: f32):
      %m = arith.mulf %in, %k : f32
      linalg.yield %m : f32
    } -> tensor<3xf32>
    util.return %r : tensor<3xf32>
  }
  util.func public @main(%arg0: tensor<3xf32> {iree.abi.name = "x"}, %arg1: tensor<3x3xf32>) -> (tensor<3xf32>, tensor<3xf32>) attributes {iree.reflection = {iree.abi.declaration = "sync func @main"}} {
    %c0_i32 = arith.constant 0 : i32
    %c3_i32 = arith.constant 3 : i32
    %c1_i32 = arith.constant 1 : i32
    %c2 = arith.constant 2 : index
    %half = arith.constant 0.5 : f32
    %0 = scf.for %i = %c0_i32 to %c3_i32 step %c1_i32 iter_args(%acc = %arg0) -> (tensor<3xf32>)  : i32 {
      %idx = arith.index_cast %i : i32 to index
      %row = tensor.extract_slice %arg1[%idx, 0] [1, 3] [1, 1] : tensor<3x3xf32> to tensor<3xf32>
      %last = arith.cmpi eq, %idx, %c2 : index
      %next = scf.if %last -> (tensor<3xf32>) {
        %s = util.call @scale(%row, %half) : (tensor<3xf32>, f32) -> tensor<3xf32>
        scf.yield %s : tensor<3xf32>
      } else {
        scf.yield %row : tensor<3xf32>
      }
      %sum = arith.addf %acc, %next : tensor<3xf32>
      scf.yield %sum : tensor<3xf32>
    }
    %1 = util.call @scale(%arg0, %half) : (tensor<3xf32>, f32) -> tensor<3xf32>
    util.return %0, %1 : tensor<3xf32>, tensor<3xf32>
  }
}

// CHECK:      result 0 = dense<[9.5, 13.0, 16.5]> : tensor<3xf32>
// CHECK-NEXT: result 1 = dense<[0.5, 1.0, 1.5]> : tensor<3xf32>

// PRINT:      builtin.module @jit_example {
// PRINT-NEXT:   util.func private @scale(%x: tensor<3xf32>, %k: f32) -> tensor<3xf32> {
// PRINT:          util.return %r : tensor<3xf32>
// PRINT:        util.func public @main(%arg0: tensor<3xf32> {iree.abi.name = "x"}, %arg1: tensor<3x3xf32>) -> (tensor<3xf32>, tensor<3xf32>) attributes {iree.reflection = {iree.abi.declaration = "sync func @main"}} {
// PRINT:          scf.for %i = %c0_i32 to %c3_i32 step %c1_i32 iter_args(%acc = %arg0) -> (tensor<3xf32>) : i32 {
// PRINT:            %s = util.call @scale(%row, %half) : (tensor<3xf32>, f32) -> tensor<3xf32>
// PRINT:          util.return %0, %1 : tensor<3xf32>, tensor<3xf32>
