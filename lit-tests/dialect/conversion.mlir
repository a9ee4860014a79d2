// RUN: GRAD_ROUNDTRIP | filecheck %s
// RUN: XDSL_ROUNDTRIP | filecheck %s
// RUN: grad-opt %s --split-input-file --print-op-generic > %t.generic
// RUN: filecheck %s --input-file=%t.generic --check-prefix=CHECK-GENERIC
// RUN: grad-opt --split-input-file < %t.generic | filecheck %s

// `grad.cast`: any of f32/i32/i1 to any, same shape.
func.func @cast(%f: tensor<5xf32>, %i: tensor<5xi32>, %b: tensor<5xi1>) {
  %0 = grad.cast %f : tensor<5xf32> to tensor<5xi32>
  %1 = grad.cast %f : tensor<5xf32> to tensor<5xi1>
  %2 = grad.cast %i : tensor<5xi32> to tensor<5xf32>
  %3 = grad.cast %i : tensor<5xi32> to tensor<5xi1>
  %4 = grad.cast %b : tensor<5xi1> to tensor<5xf32>
  %5 = grad.cast %b : tensor<5xi1> to tensor<5xi32>
  %6 = grad.cast %f : tensor<5xf32> to tensor<5xf32>
  func.return
}

// CHECK-LABEL: func.func @cast(%f: tensor<5xf32>, %i: tensor<5xi32>, %b: tensor<5xi1>) {
// CHECK-NEXT:    %0 = grad.cast %f : tensor<5xf32> to tensor<5xi32>
// CHECK-NEXT:    %1 = grad.cast %f : tensor<5xf32> to tensor<5xi1>
// CHECK-NEXT:    %2 = grad.cast %i : tensor<5xi32> to tensor<5xf32>
// CHECK-NEXT:    %3 = grad.cast %i : tensor<5xi32> to tensor<5xi1>
// CHECK-NEXT:    %4 = grad.cast %b : tensor<5xi1> to tensor<5xf32>
// CHECK-NEXT:    %5 = grad.cast %b : tensor<5xi1> to tensor<5xi32>
// CHECK-NEXT:    %6 = grad.cast %f : tensor<5xf32> to tensor<5xf32>
// CHECK-NEXT:    func.return

// CHECK-GENERIC-LABEL: "func.func"() <{sym_name = "cast"
// CHECK-GENERIC:         %0 = "grad.cast"(%f) : (tensor<5xf32>) -> tensor<5xi32>

// -----

// `grad.bitcast`: f32 and i32 either way, or to the same type.
func.func @bitcast(%f: tensor<2x2xf32>, %i: tensor<2x2xi32>, %b: tensor<i1>) {
  %0 = grad.bitcast %f : tensor<2x2xf32> to tensor<2x2xi32>
  %1 = grad.bitcast %i : tensor<2x2xi32> to tensor<2x2xf32>
  %2 = grad.bitcast %f : tensor<2x2xf32> to tensor<2x2xf32>
  %3 = grad.bitcast %b : tensor<i1> to tensor<i1>
  func.return
}

// CHECK-LABEL: func.func @bitcast(%f: tensor<2x2xf32>, %i: tensor<2x2xi32>, %b: tensor<i1>) {
// CHECK-NEXT:    %0 = grad.bitcast %f : tensor<2x2xf32> to tensor<2x2xi32>
// CHECK-NEXT:    %1 = grad.bitcast %i : tensor<2x2xi32> to tensor<2x2xf32>
// CHECK-NEXT:    %2 = grad.bitcast %f : tensor<2x2xf32> to tensor<2x2xf32>
// CHECK-NEXT:    %3 = grad.bitcast %b : tensor<i1> to tensor<i1>
// CHECK-NEXT:    func.return

// CHECK-GENERIC-LABEL: "func.func"() <{sym_name = "bitcast"
// CHECK-GENERIC:         %0 = "grad.bitcast"(%f) : (tensor<2x2xf32>) -> tensor<2x2xi32>
