// RUN: GRAD_ROUNDTRIP | filecheck %s
// RUN: XDSL_ROUNDTRIP | filecheck %s
// RUN: grad-opt %s --split-input-file --print-op-generic > %t.generic
// RUN: filecheck %s --input-file=%t.generic --check-prefix=CHECK-GENERIC
// RUN: grad-opt --split-input-file < %t.generic | filecheck %s

// The data-movement ops of SPEC §3.2 and the batched `grad.dot`. The generic
// form carries `start`, `limit`, `stride`, `low`, `high`, `interior` and
// `dims` (each `array<i64: ...>`), `value` (pad: a literal of the element
// type) and `dim` (concat: an i64 integer). `slice`, `pad`, `reverse` and
// `concat` take any element type.

// slice: start, limit and stride per dim, result size ceil((limit - start) / stride).
func.func @slice(%a: tensor<4x4xf32>, %v: tensor<5xf32>, %k: tensor<6x2xi32>, %b: tensor<3xi1>, %s: tensor<f32>) {
  %0 = grad.slice %a [1, 0] [3, 4] [1, 2] : tensor<4x4xf32> to tensor<2x2xf32>
  %1 = grad.slice %v [0] [5] [2] : tensor<5xf32> to tensor<3xf32>
  %2 = grad.slice %v [1] [5] [3] : tensor<5xf32> to tensor<2xf32>
  %3 = grad.slice %a [0, 0] [4, 4] [1, 1] : tensor<4x4xf32> to tensor<4x4xf32>
  %4 = grad.slice %k [5, 1] [6, 2] [4, 7] : tensor<6x2xi32> to tensor<1x1xi32>
  %5 = grad.slice %b [2] [3] [1] : tensor<3xi1> to tensor<1xi1>
  %6 = grad.slice %s [] [] [] : tensor<f32> to tensor<f32>
  func.return
}

// CHECK-LABEL: func.func @slice(%a: tensor<4x4xf32>, %v: tensor<5xf32>, %k: tensor<6x2xi32>, %b: tensor<3xi1>, %s: tensor<f32>) {
// CHECK-NEXT:    %0 = grad.slice %a [1, 0] [3, 4] [1, 2] : tensor<4x4xf32> to tensor<2x2xf32>
// CHECK-NEXT:    %1 = grad.slice %v [0] [5] [2] : tensor<5xf32> to tensor<3xf32>
// CHECK-NEXT:    %2 = grad.slice %v [1] [5] [3] : tensor<5xf32> to tensor<2xf32>
// CHECK-NEXT:    %3 = grad.slice %a [0, 0] [4, 4] [1, 1] : tensor<4x4xf32> to tensor<4x4xf32>
// CHECK-NEXT:    %4 = grad.slice %k [5, 1] [6, 2] [4, 7] : tensor<6x2xi32> to tensor<1x1xi32>
// CHECK-NEXT:    %5 = grad.slice %b [2] [3] [1] : tensor<3xi1> to tensor<1xi1>
// CHECK-NEXT:    %6 = grad.slice %s [] [] [] : tensor<f32> to tensor<f32>
// CHECK-NEXT:    func.return

// CHECK-GENERIC-LABEL: "func.func"() <{sym_name = "slice"
// CHECK-GENERIC:         %0 = "grad.slice"(%a) <{start = array<i64: 1, 0>, limit = array<i64: 3, 4>, stride = array<i64: 1, 2>}> : (tensor<4x4xf32>) -> tensor<2x2xf32>
// CHECK-GENERIC-NEXT:    %1 = "grad.slice"(%v) <{start = array<i64: 0>, limit = array<i64: 5>, stride = array<i64: 2>}> : (tensor<5xf32>) -> tensor<3xf32>
// CHECK-GENERIC:         %4 = "grad.slice"(%k) <{start = array<i64: 5, 1>, limit = array<i64: 6, 2>, stride = array<i64: 4, 7>}> : (tensor<6x2xi32>) -> tensor<1x1xi32>
// CHECK-GENERIC-NEXT:    %5 = "grad.slice"(%b) <{start = array<i64: 2>, limit = array<i64: 3>, stride = array<i64: 1>}> : (tensor<3xi1>) -> tensor<1xi1>
// CHECK-GENERIC-NEXT:    %6 = "grad.slice"(%s) <{start = array<i64>, limit = array<i64>, stride = array<i64>}> : (tensor<f32>) -> tensor<f32>

// -----

// Empty slices: start = limit gives a size-0 dim, and a size-0 input dim
// can only be sliced [0, 0).
func.func @slice_empty(%a: tensor<3x4xf32>, %z: tensor<0x2xi32>) {
  %0 = grad.slice %a [0, 2] [3, 2] [1, 1] : tensor<3x4xf32> to tensor<3x0xf32>
  %1 = grad.slice %a [3, 0] [3, 4] [2, 3] : tensor<3x4xf32> to tensor<0x2xf32>
  %2 = grad.slice %z [0, 1] [0, 2] [5, 1] : tensor<0x2xi32> to tensor<0x1xi32>
  func.return
}

// CHECK-LABEL: func.func @slice_empty(%a: tensor<3x4xf32>, %z: tensor<0x2xi32>) {
// CHECK-NEXT:    %0 = grad.slice %a [0, 2] [3, 2] [1, 1] : tensor<3x4xf32> to tensor<3x0xf32>
// CHECK-NEXT:    %1 = grad.slice %a [3, 0] [3, 4] [2, 3] : tensor<3x4xf32> to tensor<0x2xf32>
// CHECK-NEXT:    %2 = grad.slice %z [0, 1] [0, 2] [5, 1] : tensor<0x2xi32> to tensor<0x1xi32>
// CHECK-NEXT:    func.return

// CHECK-GENERIC-LABEL: "func.func"() <{sym_name = "slice_empty"
// CHECK-GENERIC:         %0 = "grad.slice"(%a) <{start = array<i64: 0, 2>, limit = array<i64: 3, 2>, stride = array<i64: 1, 1>}> : (tensor<3x4xf32>) -> tensor<3x0xf32>

// -----

// pad: result size low + size + (size - 1) * interior + high (low + high for
// size 0); the value is a literal of the element type.
func.func @pad(%a: tensor<2x3xf32>, %v: tensor<3xf32>, %k: tensor<2xi32>, %b: tensor<2xi1>, %s: tensor<f32>) {
  %0 = grad.pad %a low [1, 0] high [0, 2] interior [0, 1] value 0.0 : tensor<2x3xf32> to tensor<3x7xf32>
  %1 = grad.pad %v low [2] high [1] interior [2] value -1.5 : tensor<3xf32> to tensor<10xf32>
  %2 = grad.pad %v low [0] high [0] interior [0] value 0xFF800000 : tensor<3xf32> to tensor<3xf32>
  %3 = grad.pad %k low [1] high [2] interior [3] value -7 : tensor<2xi32> to tensor<8xi32>
  %4 = grad.pad %b low [0] high [1] interior [1] value true : tensor<2xi1> to tensor<4xi1>
  %5 = grad.pad %b low [1] high [0] interior [0] value false : tensor<2xi1> to tensor<3xi1>
  %6 = grad.pad %s low [] high [] interior [] value 2.0 : tensor<f32> to tensor<f32>
  func.return
}

// CHECK-LABEL: func.func @pad(%a: tensor<2x3xf32>, %v: tensor<3xf32>, %k: tensor<2xi32>, %b: tensor<2xi1>, %s: tensor<f32>) {
// CHECK-NEXT:    %0 = grad.pad %a low [1, 0] high [0, 2] interior [0, 1] value 0.0 : tensor<2x3xf32> to tensor<3x7xf32>
// CHECK-NEXT:    %1 = grad.pad %v low [2] high [1] interior [2] value -1.5 : tensor<3xf32> to tensor<10xf32>
// CHECK-NEXT:    %2 = grad.pad %v low [0] high [0] interior [0] value 0xFF800000 : tensor<3xf32> to tensor<3xf32>
// CHECK-NEXT:    %3 = grad.pad %k low [1] high [2] interior [3] value -7 : tensor<2xi32> to tensor<8xi32>
// CHECK-NEXT:    %4 = grad.pad %b low [0] high [1] interior [1] value true : tensor<2xi1> to tensor<4xi1>
// CHECK-NEXT:    %5 = grad.pad %b low [1] high [0] interior [0] value false : tensor<2xi1> to tensor<3xi1>
// CHECK-NEXT:    %6 = grad.pad %s low [] high [] interior [] value 2.0 : tensor<f32> to tensor<f32>
// CHECK-NEXT:    func.return

// The position of `value` among the properties is not fixed by the spec.
// CHECK-GENERIC-LABEL: "func.func"() <{sym_name = "pad"
// CHECK-GENERIC:         %0 = "grad.pad"(%a) <{{\{}}{{(value = 0.000000e\+00 : f32, )?}}low = array<i64: 1, 0>, high = array<i64: 0, 2>, interior = array<i64: 0, 1>{{(, value = 0.000000e\+00 : f32)?}}}> : (tensor<2x3xf32>) -> tensor<3x7xf32>
// CHECK-GENERIC-NEXT:    %1 = "grad.pad"(%v) <{{\{}}{{(value = -1.500000e\+00 : f32, )?}}low = array<i64: 2>, high = array<i64: 1>, interior = array<i64: 2>{{(, value = -1.500000e\+00 : f32)?}}}> : (tensor<3xf32>) -> tensor<10xf32>
// CHECK-GENERIC-NEXT:    %2 = "grad.pad"(%v) <{{\{}}{{.*}}value = 0xff800000 : f32{{.*}}}> : (tensor<3xf32>) -> tensor<3xf32>
// CHECK-GENERIC-NEXT:    %3 = "grad.pad"(%k) <{{\{}}{{(value = -7 : i32, )?}}low = array<i64: 1>, high = array<i64: 2>, interior = array<i64: 3>{{(, value = -7 : i32)?}}}> : (tensor<2xi32>) -> tensor<8xi32>
// CHECK-GENERIC-NEXT:    %4 = "grad.pad"(%b) <{{\{}}{{.*}}value = true{{.*}}}> : (tensor<2xi1>) -> tensor<4xi1>
// CHECK-GENERIC-NEXT:    %5 = "grad.pad"(%b) <{{\{}}{{.*}}value = false{{.*}}}> : (tensor<2xi1>) -> tensor<3xi1>
// CHECK-GENERIC-NEXT:    %6 = "grad.pad"(%s) <{{\{}}{{(value = 2.000000e\+00 : f32, )?}}low = array<i64>, high = array<i64>, interior = array<i64>{{(, value = 2.000000e\+00 : f32)?}}}> : (tensor<f32>) -> tensor<f32>

// -----

// pad of size-0 dims: only low and high count, whatever the interior.
func.func @pad_empty(%z: tensor<0x2xf32>, %e: tensor<0xi32>) {
  %0 = grad.pad %z low [1, 0] high [2, 1] interior [5, 0] value 0.0 : tensor<0x2xf32> to tensor<3x3xf32>
  %1 = grad.pad %e low [0] high [0] interior [4] value 3 : tensor<0xi32> to tensor<0xi32>
  %2 = grad.pad %z low [0, 0] high [0, 0] interior [0, 9] value 1.0 : tensor<0x2xf32> to tensor<0x11xf32>
  func.return
}

// CHECK-LABEL: func.func @pad_empty(%z: tensor<0x2xf32>, %e: tensor<0xi32>) {
// CHECK-NEXT:    %0 = grad.pad %z low [1, 0] high [2, 1] interior [5, 0] value 0.0 : tensor<0x2xf32> to tensor<3x3xf32>
// CHECK-NEXT:    %1 = grad.pad %e low [0] high [0] interior [4] value 3 : tensor<0xi32> to tensor<0xi32>
// CHECK-NEXT:    %2 = grad.pad %z low [0, 0] high [0, 0] interior [0, 9] value 1.0 : tensor<0x2xf32> to tensor<0x11xf32>
// CHECK-NEXT:    func.return

// -----

// reverse flips the listed dims (non-empty, sorted, unique); result type = input type.
func.func @reverse(%a: tensor<2x3x4xf32>, %k: tensor<5xi32>, %b: tensor<2x2xi1>, %z: tensor<0x3xf32>) {
  %0 = grad.reverse %a [1] : tensor<2x3x4xf32>
  %1 = grad.reverse %a [0, 2] : tensor<2x3x4xf32>
  %2 = grad.reverse %a [0, 1, 2] : tensor<2x3x4xf32>
  %3 = grad.reverse %k [0] : tensor<5xi32>
  %4 = grad.reverse %b [1] : tensor<2x2xi1>
  %5 = grad.reverse %z [0, 1] : tensor<0x3xf32>
  func.return
}

// CHECK-LABEL: func.func @reverse(%a: tensor<2x3x4xf32>, %k: tensor<5xi32>, %b: tensor<2x2xi1>, %z: tensor<0x3xf32>) {
// CHECK-NEXT:    %0 = grad.reverse %a [1] : tensor<2x3x4xf32>
// CHECK-NEXT:    %1 = grad.reverse %a [0, 2] : tensor<2x3x4xf32>
// CHECK-NEXT:    %2 = grad.reverse %a [0, 1, 2] : tensor<2x3x4xf32>
// CHECK-NEXT:    %3 = grad.reverse %k [0] : tensor<5xi32>
// CHECK-NEXT:    %4 = grad.reverse %b [1] : tensor<2x2xi1>
// CHECK-NEXT:    %5 = grad.reverse %z [0, 1] : tensor<0x3xf32>
// CHECK-NEXT:    func.return

// CHECK-GENERIC-LABEL: "func.func"() <{sym_name = "reverse"
// CHECK-GENERIC:         %0 = "grad.reverse"(%a) <{dims = array<i64: 1>}> : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
// CHECK-GENERIC-NEXT:    %1 = "grad.reverse"(%a) <{dims = array<i64: 0, 2>}> : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
// CHECK-GENERIC:         %4 = "grad.reverse"(%b) <{dims = array<i64: 1>}> : (tensor<2x2xi1>) -> tensor<2x2xi1>

// -----

// concat: two or more operands of one element type, equal except along dim,
// joined in operand order.
func.func @concat(%a: tensor<2x3xf32>, %b: tensor<4x3xf32>, %c: tensor<2x1xf32>, %k: tensor<2xi32>, %l: tensor<3xi32>, %p: tensor<1x2xi1>, %q: tensor<1x2xi1>, %z: tensor<0x3xf32>) {
  %0 = grad.concat %a, %b [0] : tensor<2x3xf32>, tensor<4x3xf32> to tensor<6x3xf32>
  %1 = grad.concat %a, %c, %a [1] : tensor<2x3xf32>, tensor<2x1xf32>, tensor<2x3xf32> to tensor<2x7xf32>
  %2 = grad.concat %k, %l, %k, %l [0] : tensor<2xi32>, tensor<3xi32>, tensor<2xi32>, tensor<3xi32> to tensor<10xi32>
  %3 = grad.concat %p, %q [0] : tensor<1x2xi1>, tensor<1x2xi1> to tensor<2x2xi1>
  %4 = grad.concat %p, %q [1] : tensor<1x2xi1>, tensor<1x2xi1> to tensor<1x4xi1>
  %5 = grad.concat %z, %a, %z [0] : tensor<0x3xf32>, tensor<2x3xf32>, tensor<0x3xf32> to tensor<2x3xf32>
  func.return
}

// CHECK-LABEL: func.func @concat(%a: tensor<2x3xf32>, %b: tensor<4x3xf32>, %c: tensor<2x1xf32>, %k: tensor<2xi32>, %l: tensor<3xi32>, %p: tensor<1x2xi1>, %q: tensor<1x2xi1>, %z: tensor<0x3xf32>) {
// CHECK-NEXT:    %0 = grad.concat %a, %b [0] : tensor<2x3xf32>, tensor<4x3xf32> to tensor<6x3xf32>
// CHECK-NEXT:    %1 = grad.concat %a, %c, %a [1] : tensor<2x3xf32>, tensor<2x1xf32>, tensor<2x3xf32> to tensor<2x7xf32>
// CHECK-NEXT:    %2 = grad.concat %k, %l, %k, %l [0] : tensor<2xi32>, tensor<3xi32>, tensor<2xi32>, tensor<3xi32> to tensor<10xi32>
// CHECK-NEXT:    %3 = grad.concat %p, %q [0] : tensor<1x2xi1>, tensor<1x2xi1> to tensor<2x2xi1>
// CHECK-NEXT:    %4 = grad.concat %p, %q [1] : tensor<1x2xi1>, tensor<1x2xi1> to tensor<1x4xi1>
// CHECK-NEXT:    %5 = grad.concat %z, %a, %z [0] : tensor<0x3xf32>, tensor<2x3xf32>, tensor<0x3xf32> to tensor<2x3xf32>
// CHECK-NEXT:    func.return

// CHECK-GENERIC-LABEL: "func.func"() <{sym_name = "concat"
// CHECK-GENERIC:         %0 = "grad.concat"(%a, %b) <{dim = 0 : i64}> : (tensor<2x3xf32>, tensor<4x3xf32>) -> tensor<6x3xf32>
// CHECK-GENERIC-NEXT:    %1 = "grad.concat"(%a, %c, %a) <{dim = 1 : i64}> : (tensor<2x3xf32>, tensor<2x1xf32>, tensor<2x3xf32>) -> tensor<2x7xf32>
// CHECK-GENERIC-NEXT:    %2 = "grad.concat"(%k, %l, %k, %l) <{dim = 0 : i64}> : (tensor<2xi32>, tensor<3xi32>, tensor<2xi32>, tensor<3xi32>) -> tensor<10xi32>

// -----

// dot: any number of leading batch dims, equal on both sides (no broadcasting).
func.func @batched_dot(%a: tensor<2x3x4xf32>, %b: tensor<2x4x5xf32>, %c: tensor<2x3x4x5xf32>, %d: tensor<2x3x5x1xf32>, %e: tensor<0x2x2xf32>, %k: tensor<3x2x0xf32>, %l: tensor<3x0x4xf32>) {
  %0 = grad.dot %a, %b : tensor<2x3x4xf32>, tensor<2x4x5xf32> to tensor<2x3x5xf32>
  %1 = grad.dot %c, %d : tensor<2x3x4x5xf32>, tensor<2x3x5x1xf32> to tensor<2x3x4x1xf32>
  %2 = grad.dot %e, %e : tensor<0x2x2xf32>, tensor<0x2x2xf32> to tensor<0x2x2xf32>
  %3 = grad.dot %k, %l : tensor<3x2x0xf32>, tensor<3x0x4xf32> to tensor<3x2x4xf32>
  func.return
}

// CHECK-LABEL: func.func @batched_dot(%a: tensor<2x3x4xf32>, %b: tensor<2x4x5xf32>, %c: tensor<2x3x4x5xf32>, %d: tensor<2x3x5x1xf32>, %e: tensor<0x2x2xf32>, %k: tensor<3x2x0xf32>, %l: tensor<3x0x4xf32>) {
// CHECK-NEXT:    %0 = grad.dot %a, %b : tensor<2x3x4xf32>, tensor<2x4x5xf32> to tensor<2x3x5xf32>
// CHECK-NEXT:    %1 = grad.dot %c, %d : tensor<2x3x4x5xf32>, tensor<2x3x5x1xf32> to tensor<2x3x4x1xf32>
// CHECK-NEXT:    %2 = grad.dot %e, %e : tensor<0x2x2xf32>, tensor<0x2x2xf32> to tensor<0x2x2xf32>
// CHECK-NEXT:    %3 = grad.dot %k, %l : tensor<3x2x0xf32>, tensor<3x0x4xf32> to tensor<3x2x4xf32>
// CHECK-NEXT:    func.return

// CHECK-GENERIC-LABEL: "func.func"() <{sym_name = "batched_dot"
// CHECK-GENERIC:         %0 = "grad.dot"(%a, %b) : (tensor<2x3x4xf32>, tensor<2x4x5xf32>) -> tensor<2x3x5xf32>
// CHECK-GENERIC-NEXT:    %1 = "grad.dot"(%c, %d) : (tensor<2x3x4x5xf32>, tensor<2x3x5x1xf32>) -> tensor<2x3x4x1xf32>

// -----

// Discardable attributes go before the colon, as for the other ops.
func.func @attributes(%a: tensor<4xf32>, %b: tensor<2xf32>) {
  %0 = grad.slice %a [0] [4] [2] {tag} : tensor<4xf32> to tensor<2xf32>
  %1 = grad.pad %b low [1] high [1] interior [0] value 0.0 {tag} : tensor<2xf32> to tensor<4xf32>
  %2 = grad.reverse %a [0] {tag} : tensor<4xf32>
  %3 = grad.concat %a, %b [0] {tag} : tensor<4xf32>, tensor<2xf32> to tensor<6xf32>
  func.return
}

// CHECK-LABEL: func.func @attributes(%a: tensor<4xf32>, %b: tensor<2xf32>) {
// CHECK-NEXT:    %0 = grad.slice %a [0] [4] [2] {tag} : tensor<4xf32> to tensor<2xf32>
// CHECK-NEXT:    %1 = grad.pad %b low [1] high [1] interior [0] value 0.0 {tag} : tensor<2xf32> to tensor<4xf32>
// CHECK-NEXT:    %2 = grad.reverse %a [0] {tag} : tensor<4xf32>
// CHECK-NEXT:    %3 = grad.concat %a, %b [0] {tag} : tensor<4xf32>, tensor<2xf32> to tensor<6xf32>
// CHECK-NEXT:    func.return

// CHECK-GENERIC-LABEL: "func.func"() <{sym_name = "attributes"
// CHECK-GENERIC:         %0 = "grad.slice"(%a) <{start = array<i64: 0>, limit = array<i64: 4>, stride = array<i64: 2>}> {tag} : (tensor<4xf32>) -> tensor<2xf32>
// CHECK-GENERIC:         %2 = "grad.reverse"(%a) <{dims = array<i64: 0>}> {tag} : (tensor<4xf32>) -> tensor<4xf32>
// CHECK-GENERIC-NEXT:    %3 = "grad.concat"(%a, %b) <{dim = 0 : i64}> {tag} : (tensor<4xf32>, tensor<2xf32>) -> tensor<6xf32>
