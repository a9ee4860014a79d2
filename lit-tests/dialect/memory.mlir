// RUN: GRAD_ROUNDTRIP | filecheck %s
// RUN: XDSL_ROUNDTRIP | filecheck %s
// RUN: grad-opt %s --split-input-file --print-op-generic > %t.generic
// RUN: filecheck %s --input-file=%t.generic --check-prefix=CHECK-GENERIC
// RUN: grad-opt --split-input-file < %t.generic | filecheck %s

// Memory ops (SPEC §3.3): the whole slot, or the sub-tensor at k leading
// `index` operands. The printed type is the slot's.

func.func @whole_slot(%slot: memref<5xf32>, %out: memref<5xf32>) {
  %x = grad.load %slot : memref<5xf32>
  grad.store %x, %out : memref<5xf32>
  func.return
}

// CHECK-LABEL: func.func @whole_slot(%slot: memref<5xf32>, %out: memref<5xf32>) {
// CHECK-NEXT:    %x = grad.load %slot : memref<5xf32>
// CHECK-NEXT:    grad.store %x, %out : memref<5xf32>
// CHECK-NEXT:    func.return

// CHECK-GENERIC-LABEL: "func.func"() <{sym_name = "whole_slot"
// CHECK-GENERIC:         %x = "grad.load"(%slot) : (memref<5xf32>) -> tensor<5xf32>
// CHECK-GENERIC-NEXT:    "grad.store"(%x, %out) : (tensor<5xf32>, memref<5xf32>) -> ()

// -----

func.func @indexed(%slot: memref<4x3x2xf32>, %i: index, %j: index) {
  %row = grad.load %slot[%i] : memref<4x3x2xf32>
  %pair = grad.load %slot[%i, %j] : memref<4x3x2xf32>
  %one = grad.load %slot[%i, %j, %i] : memref<4x3x2xf32>
  grad.store %row, %slot[%j] : memref<4x3x2xf32>
  grad.store %pair, %slot[%j, %i] : memref<4x3x2xf32>
  grad.store %one, %slot[%j, %i, %j] {tag} : memref<4x3x2xf32>
  func.return
}

// CHECK-LABEL: func.func @indexed(%slot: memref<4x3x2xf32>, %i: index, %j: index) {
// CHECK-NEXT:    %row = grad.load %slot[%i] : memref<4x3x2xf32>
// CHECK-NEXT:    %pair = grad.load %slot[%i, %j] : memref<4x3x2xf32>
// CHECK-NEXT:    %one = grad.load %slot[%i, %j, %i] : memref<4x3x2xf32>
// CHECK-NEXT:    grad.store %row, %slot[%j] : memref<4x3x2xf32>
// CHECK-NEXT:    grad.store %pair, %slot[%j, %i] : memref<4x3x2xf32>
// CHECK-NEXT:    grad.store %one, %slot[%j, %i, %j] {tag} : memref<4x3x2xf32>
// CHECK-NEXT:    func.return

// CHECK-GENERIC-LABEL: "func.func"() <{sym_name = "indexed"
// CHECK-GENERIC:         %row = "grad.load"(%slot, %i) : (memref<4x3x2xf32>, index) -> tensor<3x2xf32>
// CHECK-GENERIC-NEXT:    %pair = "grad.load"(%slot, %i, %j) : (memref<4x3x2xf32>, index, index) -> tensor<2xf32>
// CHECK-GENERIC-NEXT:    %one = "grad.load"(%slot, %i, %j, %i) : (memref<4x3x2xf32>, index, index, index) -> tensor<f32>
// CHECK-GENERIC-NEXT:    "grad.store"(%row, %slot, %j) : (tensor<3x2xf32>, memref<4x3x2xf32>, index) -> ()

// -----

// Slots of every element type, inside a loop as SPEC §3.5 writes them.
func.func @loop(%ints: memref<3xi32>, %flags: memref<3x2xi1>) {
  %lb = arith.constant 0 : index
  %ub = arith.constant 3 : index
  %step = arith.constant 1 : index
  scf.for %k = %lb to %ub step %step {
    %n = grad.load %ints[%k] : memref<3xi32>
    %f = grad.load %flags[%k] : memref<3x2xi1>
    grad.store %n, %ints[%k] : memref<3xi32>
    grad.store %f, %flags[%k] : memref<3x2xi1>
  }
  func.return
}

// CHECK-LABEL: func.func @loop(%ints: memref<3xi32>, %flags: memref<3x2xi1>) {
// CHECK:         scf.for %k = %lb to %ub step %step {
// CHECK-NEXT:      %n = grad.load %ints[%k] : memref<3xi32>
// CHECK-NEXT:      %f = grad.load %flags[%k] : memref<3x2xi1>
// CHECK-NEXT:      grad.store %n, %ints[%k] : memref<3xi32>
// CHECK-NEXT:      grad.store %f, %flags[%k] : memref<3x2xi1>
// CHECK-NEXT:    }

// CHECK-GENERIC-LABEL: "func.func"() <{sym_name = "loop"
// CHECK-GENERIC:         %n = "grad.load"(%ints, %k) : (memref<3xi32>, index) -> tensor<i32>
