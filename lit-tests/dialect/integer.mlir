// RUN: GRAD_ROUNDTRIP | filecheck %s
// RUN: XDSL_ROUNDTRIP | filecheck %s
// RUN: grad-opt %s --split-input-file --print-op-generic > %t.generic
// RUN: filecheck %s --input-file=%t.generic --check-prefix=CHECK-GENERIC
// RUN: grad-opt --split-input-file < %t.generic | filecheck %s

// Integer ops (SPEC §3.1): i32, and for and/or/xor also i1.

func.func @integer_ops(%a: tensor<4xi32>, %b: tensor<4xi32>) {
  %0 = grad.idiv %a, %b : tensor<4xi32>
  %1 = grad.mod %a, %b : tensor<4xi32>
  %2 = grad.and %a, %b : tensor<4xi32>
  %3 = grad.or %a, %b : tensor<4xi32>
  %4 = grad.xor %a, %b : tensor<4xi32>
  %5 = grad.shl %a, %b : tensor<4xi32>
  %6 = grad.shr %a, %b : tensor<4xi32>
  func.return
}

// CHECK-LABEL: func.func @integer_ops(%a: tensor<4xi32>, %b: tensor<4xi32>) {
// CHECK-NEXT:    %0 = grad.idiv %a, %b : tensor<4xi32>
// CHECK-NEXT:    %1 = grad.mod %a, %b : tensor<4xi32>
// CHECK-NEXT:    %2 = grad.and %a, %b : tensor<4xi32>
// CHECK-NEXT:    %3 = grad.or %a, %b : tensor<4xi32>
// CHECK-NEXT:    %4 = grad.xor %a, %b : tensor<4xi32>
// CHECK-NEXT:    %5 = grad.shl %a, %b : tensor<4xi32>
// CHECK-NEXT:    %6 = grad.shr %a, %b : tensor<4xi32>
// CHECK-NEXT:    func.return

// CHECK-GENERIC-LABEL: "func.func"() <{sym_name = "integer_ops"
// CHECK-GENERIC:         %0 = "grad.idiv"(%a, %b) : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
// CHECK-GENERIC-NEXT:    %1 = "grad.mod"(%a, %b) : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
// CHECK-GENERIC-NEXT:    %2 = "grad.and"(%a, %b) : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
// CHECK-GENERIC-NEXT:    %3 = "grad.or"(%a, %b) : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
// CHECK-GENERIC-NEXT:    %4 = "grad.xor"(%a, %b) : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
// CHECK-GENERIC-NEXT:    %5 = "grad.shl"(%a, %b) : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
// CHECK-GENERIC-NEXT:    %6 = "grad.shr"(%a, %b) : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>

// -----

func.func @boolean_ops(%p: tensor<2x2xi1>, %q: tensor<2x2xi1>) {
  %0 = grad.and %p, %q : tensor<2x2xi1>
  %1 = grad.or %p, %q : tensor<2x2xi1>
  %2 = grad.xor %p, %q : tensor<2x2xi1>
  func.return
}

// CHECK-LABEL: func.func @boolean_ops(%p: tensor<2x2xi1>, %q: tensor<2x2xi1>) {
// CHECK-NEXT:    %0 = grad.and %p, %q : tensor<2x2xi1>
// CHECK-NEXT:    %1 = grad.or %p, %q : tensor<2x2xi1>
// CHECK-NEXT:    %2 = grad.xor %p, %q : tensor<2x2xi1>
// CHECK-NEXT:    func.return
