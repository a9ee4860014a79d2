// RUN: GRAD_ROUNDTRIP | filecheck %s
// RUN: XDSL_ROUNDTRIP | filecheck %s
// RUN: grad-opt %s --split-input-file --print-op-generic > %t.generic
// RUN: filecheck %s --input-file=%t.generic --check-prefix=CHECK-GENERIC
// RUN: grad-opt --split-input-file < %t.generic | filecheck %s

// Arithmetic and unary elementwise ops (SPEC §3.1): `%r = grad.op %a, %b : T`.

func.func @float_arith(%a: tensor<5xf32>, %b: tensor<5xf32>) -> tensor<5xf32> {
  %0 = grad.add %a, %b : tensor<5xf32>
  %1 = grad.mul %0, %b : tensor<5xf32>
  %2 = grad.max %1, %a : tensor<5xf32>
  %3 = grad.neg %2 : tensor<5xf32>
  func.return %3 : tensor<5xf32>
}

// CHECK-LABEL: func.func @float_arith(%a: tensor<5xf32>, %b: tensor<5xf32>) -> tensor<5xf32> {
// CHECK-NEXT:    %0 = grad.add %a, %b : tensor<5xf32>
// CHECK-NEXT:    %1 = grad.mul %0, %b : tensor<5xf32>
// CHECK-NEXT:    %2 = grad.max %1, %a : tensor<5xf32>
// CHECK-NEXT:    %3 = grad.neg %2 : tensor<5xf32>
// CHECK-NEXT:    func.return %3 : tensor<5xf32>
// CHECK-NEXT:  }

// CHECK-GENERIC-LABEL: "func.func"() <{sym_name = "float_arith"
// CHECK-GENERIC:         %0 = "grad.add"(%a, %b) : (tensor<5xf32>, tensor<5xf32>) -> tensor<5xf32>
// CHECK-GENERIC-NEXT:    %1 = "grad.mul"(%0, %b) : (tensor<5xf32>, tensor<5xf32>) -> tensor<5xf32>
// CHECK-GENERIC-NEXT:    %2 = "grad.max"(%1, %a) : (tensor<5xf32>, tensor<5xf32>) -> tensor<5xf32>
// CHECK-GENERIC-NEXT:    %3 = "grad.neg"(%2) : (tensor<5xf32>) -> tensor<5xf32>

// -----

func.func @integer_arith(%a: tensor<2x3xi32>, %s: tensor<i32>) {
  %0 = grad.add %a, %a : tensor<2x3xi32>
  %1 = grad.mul %0, %a : tensor<2x3xi32>
  %2 = grad.max %1, %a : tensor<2x3xi32>
  %3 = grad.neg %2 : tensor<2x3xi32>
  %4 = grad.add %s, %s : tensor<i32>
  func.return
}

// CHECK-LABEL: func.func @integer_arith(%a: tensor<2x3xi32>, %s: tensor<i32>) {
// CHECK-NEXT:    %0 = grad.add %a, %a : tensor<2x3xi32>
// CHECK-NEXT:    %1 = grad.mul %0, %a : tensor<2x3xi32>
// CHECK-NEXT:    %2 = grad.max %1, %a : tensor<2x3xi32>
// CHECK-NEXT:    %3 = grad.neg %2 : tensor<2x3xi32>
// CHECK-NEXT:    %4 = grad.add %s, %s : tensor<i32>
// CHECK-NEXT:    func.return

// -----

func.func @float_unary(%a: tensor<f32>) {
  %0 = grad.recip %a : tensor<f32>
  %1 = grad.exp2 %0 : tensor<f32>
  %2 = grad.log2 %1 : tensor<f32>
  %3 = grad.sqrt %2 : tensor<f32>
  %4 = grad.sin %3 : tensor<f32>
  func.return
}

// CHECK-LABEL: func.func @float_unary(%a: tensor<f32>) {
// CHECK-NEXT:    %0 = grad.recip %a : tensor<f32>
// CHECK-NEXT:    %1 = grad.exp2 %0 : tensor<f32>
// CHECK-NEXT:    %2 = grad.log2 %1 : tensor<f32>
// CHECK-NEXT:    %3 = grad.sqrt %2 : tensor<f32>
// CHECK-NEXT:    %4 = grad.sin %3 : tensor<f32>
// CHECK-NEXT:    func.return

// CHECK-GENERIC-LABEL: "func.func"() <{sym_name = "float_unary"
// CHECK-GENERIC:         %0 = "grad.recip"(%a) : (tensor<f32>) -> tensor<f32>
// CHECK-GENERIC-NEXT:    %1 = "grad.exp2"(%0) : (tensor<f32>) -> tensor<f32>
// CHECK-GENERIC-NEXT:    %2 = "grad.log2"(%1) : (tensor<f32>) -> tensor<f32>
// CHECK-GENERIC-NEXT:    %3 = "grad.sqrt"(%2) : (tensor<f32>) -> tensor<f32>
// CHECK-GENERIC-NEXT:    %4 = "grad.sin"(%3) : (tensor<f32>) -> tensor<f32>

// -----

// `grad.detach` takes any element type.
func.func @detach(%a: tensor<5xf32>, %b: tensor<5xi32>, %c: tensor<5xi1>) {
  %0 = grad.detach %a : tensor<5xf32>
  %1 = grad.detach %b : tensor<5xi32>
  %2 = grad.detach %c : tensor<5xi1>
  func.return
}

// CHECK-LABEL: func.func @detach(%a: tensor<5xf32>, %b: tensor<5xi32>, %c: tensor<5xi1>) {
// CHECK-NEXT:    %0 = grad.detach %a : tensor<5xf32>
// CHECK-NEXT:    %1 = grad.detach %b : tensor<5xi32>
// CHECK-NEXT:    %2 = grad.detach %c : tensor<5xi1>
// CHECK-NEXT:    func.return

// CHECK-GENERIC-LABEL: "func.func"() <{sym_name = "detach"
// CHECK-GENERIC:         %0 = "grad.detach"(%a) : (tensor<5xf32>) -> tensor<5xf32>

// -----

// Discardable attributes print between the operands and the type.
func.func @attributes(%a: tensor<5xf32>) {
  %0 = grad.add %a, %a {tag = "x"} : tensor<5xf32>
  %1 = grad.neg %0 {tag = 1 : i64} : tensor<5xf32>
  func.return
}

// CHECK-LABEL: func.func @attributes(%a: tensor<5xf32>) {
// CHECK-NEXT:    %0 = grad.add %a, %a {tag = "x"} : tensor<5xf32>
// CHECK-NEXT:    %1 = grad.neg %0 {tag = 1 : i64} : tensor<5xf32>

// CHECK-GENERIC-LABEL: "func.func"() <{sym_name = "attributes"
// CHECK-GENERIC:         %0 = "grad.add"(%a, %a) {tag = "x"} : (tensor<5xf32>, tensor<5xf32>) -> tensor<5xf32>
