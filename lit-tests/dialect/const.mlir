// RUN: GRAD_ROUNDTRIP | filecheck %s
// RUN: XDSL_ROUNDTRIP | filecheck %s
// RUN: grad-opt %s --split-input-file --print-op-generic > %t.generic
// RUN: filecheck %s --input-file=%t.generic --check-prefix=CHECK-GENERIC
// RUN: grad-opt --split-input-file < %t.generic | filecheck %s

// Every literal form of `grad.const` (SPEC §3.1): a scalar literal is a splat,
// stored as one scalar attribute whatever the shape; `dense<[...]>` is data.

func.func @float_literals() {
  %a = grad.const 2.0 : tensor<5xf32>
  %b = grad.const -2.5 : tensor<5xf32>
  %c = grad.const 1e-3 : tensor<5xf32>
  %d = grad.const 0x7FC00000 : tensor<5xf32>
  %e = grad.const 0xFF800000 : tensor<f32>
  %f = grad.const 3 : tensor<2x3xf32>
  %g = grad.const -0.0 : tensor<f32>
  %h = grad.const 0.1 : tensor<f32>
  %i = grad.const 1.5e+38 : tensor<f32>
  func.return
}

// CHECK-LABEL: func.func @float_literals() {
// CHECK-NEXT:    %a = grad.const 2.0 : tensor<5xf32>
// CHECK-NEXT:    %b = grad.const -2.5 : tensor<5xf32>
// CHECK-NEXT:    %c = grad.const 0.001 : tensor<5xf32>
// CHECK-NEXT:    %d = grad.const 0x7FC00000 : tensor<5xf32>
// CHECK-NEXT:    %e = grad.const 0xFF800000 : tensor<f32>
// CHECK-NEXT:    %f = grad.const 3.0 : tensor<2x3xf32>
// CHECK-NEXT:    %g = grad.const -0.0 : tensor<f32>
// CHECK-NEXT:    %h = grad.const 0.1 : tensor<f32>
// CHECK-NEXT:    %i = grad.const 1.5e+38 : tensor<f32>
// CHECK-NEXT:    func.return
// CHECK-NEXT:  }

// CHECK-GENERIC-LABEL: "func.func"() <{sym_name = "float_literals"
// CHECK-GENERIC:         %a = "grad.const"() <{value = 2.000000e+00 : f32}> : () -> tensor<5xf32>
// CHECK-GENERIC-NEXT:    %b = "grad.const"() <{value = -2.500000e+00 : f32}> : () -> tensor<5xf32>
// CHECK-GENERIC-NEXT:    %c = "grad.const"() <{value = 1.000000e-03 : f32}> : () -> tensor<5xf32>
// CHECK-GENERIC-NEXT:    %d = "grad.const"() <{value = 0x7fc00000 : f32}> : () -> tensor<5xf32>

// -----

func.func @integer_and_bool_literals() {
  %a = grad.const 7 : tensor<5xi32>
  %b = grad.const -2147483648 : tensor<i32>
  %c = grad.const 2147483647 : tensor<2x2xi32>
  %d = grad.const true : tensor<5xi1>
  %e = grad.const false : tensor<i1>
  func.return
}

// CHECK-LABEL: func.func @integer_and_bool_literals() {
// CHECK-NEXT:    %a = grad.const 7 : tensor<5xi32>
// CHECK-NEXT:    %b = grad.const -2147483648 : tensor<i32>
// CHECK-NEXT:    %c = grad.const 2147483647 : tensor<2x2xi32>
// CHECK-NEXT:    %d = grad.const true : tensor<5xi1>
// CHECK-NEXT:    %e = grad.const false : tensor<i1>
// CHECK-NEXT:    func.return

// CHECK-GENERIC-LABEL: "func.func"() <{sym_name = "integer_and_bool_literals"
// CHECK-GENERIC:         %a = "grad.const"() <{value = 7 : i32}> : () -> tensor<5xi32>
// CHECK-GENERIC:         %d = "grad.const"() <{value = true}> : () -> tensor<5xi1>
// CHECK-GENERIC-NEXT:    %e = "grad.const"() <{value = false}> : () -> tensor<i1>

// -----

// A splat of a million elements is still one scalar, in both forms.
func.func @large_splat() {
  %big = grad.const 1.0 : tensor<1000x1000xf32>
  func.return
}

// CHECK-LABEL: func.func @large_splat() {
// CHECK-NEXT:    %big = grad.const 1.0 : tensor<1000x1000xf32>

// CHECK-GENERIC-LABEL: "func.func"() <{sym_name = "large_splat"
// CHECK-GENERIC:         %big = "grad.const"() <{value = 1.000000e+00 : f32}> : () -> tensor<1000x1000xf32>

// -----

func.func @dense_literals() {
  %a = grad.const dense<[1.0, -2.5, 0.001]> : tensor<3xf32>
  %b = grad.const dense<[[1, 2], [3, 4]]> : tensor<2x2xi32>
  %c = grad.const dense<[true, false]> : tensor<2xi1>
  %d = grad.const dense<[4.0, 4.0]> : tensor<2xf32>
  %e = grad.const dense<2.5> : tensor<f32>
  %f = grad.const dense<[1, 2]> : tensor<2xi32> {note = "kept"}
  func.return
}

// CHECK-LABEL: func.func @dense_literals() {
// CHECK-NEXT:    %a = grad.const dense<[1.000000e+00, -2.500000e+00, 1.000000e-03]> : tensor<3xf32>
// CHECK-NEXT:    %b = grad.const dense<{{\[}}[1, 2], [3, 4]]> : tensor<2x2xi32>
// CHECK-NEXT:    %c = grad.const dense<[true, false]> : tensor<2xi1>
// CHECK-NEXT:    %d = grad.const dense<4.000000e+00> : tensor<2xf32>
// CHECK-NEXT:    %e = grad.const dense<2.500000e+00> : tensor<f32>
// CHECK-NEXT:    %f = grad.const dense<[1, 2]> : tensor<2xi32> {note = "kept"}
// CHECK-NEXT:    func.return

// CHECK-GENERIC-LABEL: "func.func"() <{sym_name = "dense_literals"
// CHECK-GENERIC:         %a = "grad.const"() <{value = dense<[1.000000e+00, -2.500000e+00, 1.000000e-03]> : tensor<3xf32>}> : () -> tensor<3xf32>
// CHECK-GENERIC:         %f = "grad.const"() <{value = dense<[1, 2]> : tensor<2xi32>}> {note = "kept"} : () -> tensor<2xi32>

// -----

// A splat literal keeps its discardable attributes before the type.
func.func @splat_with_attributes() {
  %a = grad.const 1.0 {note = "kept"} : tensor<2xf32>
  func.return
}

// CHECK-LABEL: func.func @splat_with_attributes() {
// CHECK-NEXT:    %a = grad.const 1.0 {note = "kept"} : tensor<2xf32>
