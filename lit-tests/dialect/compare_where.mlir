// RUN: GRAD_ROUNDTRIP | filecheck %s
// RUN: XDSL_ROUNDTRIP | filecheck %s
// RUN: grad-opt %s --split-input-file --print-op-generic > %t.generic
// RUN: filecheck %s --input-file=%t.generic --check-prefix=CHECK-GENERIC
// RUN: grad-opt --split-input-file < %t.generic | filecheck %s

// Comparisons print the operand type; the result has its shape and element i1.

func.func @compare(%a: tensor<2x3xf32>, %b: tensor<2x3xf32>, %i: tensor<4xi32>, %c: tensor<4xi1>) {
  %0 = grad.cmplt %a, %b : tensor<2x3xf32>
  %1 = grad.cmpeq %a, %b : tensor<2x3xf32>
  %2 = grad.cmpne %a, %b : tensor<2x3xf32>
  %3 = grad.cmplt %i, %i : tensor<4xi32>
  %4 = grad.cmpeq %c, %c : tensor<4xi1>
  %5 = grad.cmpne %c, %c : tensor<4xi1>
  func.return
}

// CHECK-LABEL: func.func @compare(%a: tensor<2x3xf32>, %b: tensor<2x3xf32>, %i: tensor<4xi32>, %c: tensor<4xi1>) {
// CHECK-NEXT:    %0 = grad.cmplt %a, %b : tensor<2x3xf32>
// CHECK-NEXT:    %1 = grad.cmpeq %a, %b : tensor<2x3xf32>
// CHECK-NEXT:    %2 = grad.cmpne %a, %b : tensor<2x3xf32>
// CHECK-NEXT:    %3 = grad.cmplt %i, %i : tensor<4xi32>
// CHECK-NEXT:    %4 = grad.cmpeq %c, %c : tensor<4xi1>
// CHECK-NEXT:    %5 = grad.cmpne %c, %c : tensor<4xi1>
// CHECK-NEXT:    func.return

// CHECK-GENERIC-LABEL: "func.func"() <{sym_name = "compare"
// CHECK-GENERIC:         %0 = "grad.cmplt"(%a, %b) : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xi1>
// CHECK-GENERIC-NEXT:    %1 = "grad.cmpeq"(%a, %b) : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xi1>
// CHECK-GENERIC-NEXT:    %2 = "grad.cmpne"(%a, %b) : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xi1>
// CHECK-GENERIC-NEXT:    %3 = "grad.cmplt"(%i, %i) : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi1>
// CHECK-GENERIC-NEXT:    %4 = "grad.cmpeq"(%c, %c) : (tensor<4xi1>, tensor<4xi1>) -> tensor<4xi1>

// -----

// `grad.where` prints the result type; the condition has its shape and i1.
func.func @where(%c: tensor<3xi1>, %a: tensor<3xf32>, %b: tensor<3xf32>, %i: tensor<3xi32>, %s: tensor<i1>, %x: tensor<f32>) {
  %0 = grad.where %c, %a, %b : tensor<3xf32>
  %1 = grad.where %c, %i, %i : tensor<3xi32>
  %2 = grad.where %c, %c, %c : tensor<3xi1>
  %3 = grad.where %s, %x, %x : tensor<f32>
  %4 = grad.cmplt %a, %b : tensor<3xf32>
  %5 = grad.where %4, %a, %b : tensor<3xf32>
  func.return
}

// CHECK-LABEL: func.func @where(%c: tensor<3xi1>, %a: tensor<3xf32>, %b: tensor<3xf32>, %i: tensor<3xi32>, %s: tensor<i1>, %x: tensor<f32>) {
// CHECK-NEXT:    %0 = grad.where %c, %a, %b : tensor<3xf32>
// CHECK-NEXT:    %1 = grad.where %c, %i, %i : tensor<3xi32>
// CHECK-NEXT:    %2 = grad.where %c, %c, %c : tensor<3xi1>
// CHECK-NEXT:    %3 = grad.where %s, %x, %x : tensor<f32>
// CHECK-NEXT:    %4 = grad.cmplt %a, %b : tensor<3xf32>
// CHECK-NEXT:    %5 = grad.where %4, %a, %b : tensor<3xf32>
// CHECK-NEXT:    func.return

// CHECK-GENERIC-LABEL: "func.func"() <{sym_name = "where"
// CHECK-GENERIC:         %0 = "grad.where"(%c, %a, %b) : (tensor<3xi1>, tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
// CHECK-GENERIC-NEXT:    %1 = "grad.where"(%c, %i, %i) : (tensor<3xi1>, tensor<3xi32>, tensor<3xi32>) -> tensor<3xi32>
