// RUN: GRAD_ROUNDTRIP | filecheck %s
// RUN: XDSL_ROUNDTRIP | filecheck %s
// RUN: grad-opt %s --split-input-file --print-op-generic > %t.generic
// RUN: filecheck %s --input-file=%t.generic --check-prefix=CHECK-GENERIC
// RUN: grad-opt --split-input-file < %t.generic | filecheck %s

// Shape ops (SPEC §3.2). The generic form carries the properties `kind` (a
// string), `axes`, `dims` and `perm` (each `array<i64: ...>`).

func.func @reduce(%a: tensor<5x3xf32>, %b: tensor<2x3x4xi32>) {
  %0 = grad.reduce add %a [0] : tensor<5x3xf32> to tensor<3xf32>
  %1 = grad.reduce max %a [1] : tensor<5x3xf32> to tensor<5xf32>
  %2 = grad.reduce mul %a [0, 1] : tensor<5x3xf32> to tensor<f32>
  %3 = grad.reduce add %b [0, 2] : tensor<2x3x4xi32> to tensor<3xi32>
  %4 = grad.reduce max %b [1] {tag} : tensor<2x3x4xi32> to tensor<2x4xi32>
  func.return
}

// CHECK-LABEL: func.func @reduce(%a: tensor<5x3xf32>, %b: tensor<2x3x4xi32>) {
// CHECK-NEXT:    %0 = grad.reduce add %a [0] : tensor<5x3xf32> to tensor<3xf32>
// CHECK-NEXT:    %1 = grad.reduce max %a [1] : tensor<5x3xf32> to tensor<5xf32>
// CHECK-NEXT:    %2 = grad.reduce mul %a [0, 1] : tensor<5x3xf32> to tensor<f32>
// CHECK-NEXT:    %3 = grad.reduce add %b [0, 2] : tensor<2x3x4xi32> to tensor<3xi32>
// CHECK-NEXT:    %4 = grad.reduce max %b [1] {tag} : tensor<2x3x4xi32> to tensor<2x4xi32>
// CHECK-NEXT:    func.return

// CHECK-GENERIC-LABEL: "func.func"() <{sym_name = "reduce"
// CHECK-GENERIC:         %0 = "grad.reduce"(%a) <{kind = "add", axes = array<i64: 0>}> : (tensor<5x3xf32>) -> tensor<3xf32>
// CHECK-GENERIC-NEXT:    %1 = "grad.reduce"(%a) <{kind = "max", axes = array<i64: 1>}> : (tensor<5x3xf32>) -> tensor<5xf32>
// CHECK-GENERIC-NEXT:    %2 = "grad.reduce"(%a) <{kind = "mul", axes = array<i64: 0, 1>}> : (tensor<5x3xf32>) -> tensor<f32>
// CHECK-GENERIC-NEXT:    %3 = "grad.reduce"(%b) <{kind = "add", axes = array<i64: 0, 2>}> : (tensor<2x3x4xi32>) -> tensor<3xi32>
// CHECK-GENERIC-NEXT:    %4 = "grad.reduce"(%b) <{kind = "max", axes = array<i64: 1>}> {tag} : (tensor<2x3x4xi32>) -> tensor<2x4xi32>

// -----

// Input dim i goes to output dim dims[i]; a dim of size 1 may expand.
func.func @broadcast(%v: tensor<3xf32>, %s: tensor<f32>, %o: tensor<1x3xi1>) {
  %0 = grad.broadcast %v [1] : tensor<3xf32> to tensor<2x3xf32>
  %1 = grad.broadcast %v [0] : tensor<3xf32> to tensor<3x2xf32>
  %2 = grad.broadcast %s [] : tensor<f32> to tensor<4x5xf32>
  %3 = grad.broadcast %o [0, 2] : tensor<1x3xi1> to tensor<6x2x3xi1>
  %4 = grad.broadcast %v [0] : tensor<3xf32> to tensor<3xf32>
  func.return
}

// CHECK-LABEL: func.func @broadcast(%v: tensor<3xf32>, %s: tensor<f32>, %o: tensor<1x3xi1>) {
// CHECK-NEXT:    %0 = grad.broadcast %v [1] : tensor<3xf32> to tensor<2x3xf32>
// CHECK-NEXT:    %1 = grad.broadcast %v [0] : tensor<3xf32> to tensor<3x2xf32>
// CHECK-NEXT:    %2 = grad.broadcast %s [] : tensor<f32> to tensor<4x5xf32>
// CHECK-NEXT:    %3 = grad.broadcast %o [0, 2] : tensor<1x3xi1> to tensor<6x2x3xi1>
// CHECK-NEXT:    %4 = grad.broadcast %v [0] : tensor<3xf32> to tensor<3xf32>
// CHECK-NEXT:    func.return

// CHECK-GENERIC-LABEL: "func.func"() <{sym_name = "broadcast"
// CHECK-GENERIC:         %0 = "grad.broadcast"(%v) <{dims = array<i64: 1>}> : (tensor<3xf32>) -> tensor<2x3xf32>
// CHECK-GENERIC-NEXT:    %1 = "grad.broadcast"(%v) <{dims = array<i64: 0>}> : (tensor<3xf32>) -> tensor<3x2xf32>
// CHECK-GENERIC-NEXT:    %2 = "grad.broadcast"(%s) <{dims = array<i64>}> : (tensor<f32>) -> tensor<4x5xf32>
// CHECK-GENERIC-NEXT:    %3 = "grad.broadcast"(%o) <{dims = array<i64: 0, 2>}> : (tensor<1x3xi1>) -> tensor<6x2x3xi1>

// -----

func.func @reshape(%a: tensor<6xf32>, %s: tensor<1x1xi32>) {
  %0 = grad.reshape %a : tensor<6xf32> to tensor<2x3xf32>
  %1 = grad.reshape %0 : tensor<2x3xf32> to tensor<3x1x2xf32>
  %2 = grad.reshape %s : tensor<1x1xi32> to tensor<i32>
  func.return
}

// CHECK-LABEL: func.func @reshape(%a: tensor<6xf32>, %s: tensor<1x1xi32>) {
// CHECK-NEXT:    %0 = grad.reshape %a : tensor<6xf32> to tensor<2x3xf32>
// CHECK-NEXT:    %1 = grad.reshape %0 : tensor<2x3xf32> to tensor<3x1x2xf32>
// CHECK-NEXT:    %2 = grad.reshape %s : tensor<1x1xi32> to tensor<i32>
// CHECK-NEXT:    func.return

// CHECK-GENERIC-LABEL: "func.func"() <{sym_name = "reshape"
// CHECK-GENERIC:         %0 = "grad.reshape"(%a) : (tensor<6xf32>) -> tensor<2x3xf32>

// -----

// Output dim i is input dim perm[i].
func.func @permute(%a: tensor<2x3xf32>, %b: tensor<2x3x4xi32>) {
  %0 = grad.permute %a [1, 0] : tensor<2x3xf32> to tensor<3x2xf32>
  %1 = grad.permute %b [2, 0, 1] : tensor<2x3x4xi32> to tensor<4x2x3xi32>
  %2 = grad.permute %a [0, 1] : tensor<2x3xf32> to tensor<2x3xf32>
  func.return
}

// CHECK-LABEL: func.func @permute(%a: tensor<2x3xf32>, %b: tensor<2x3x4xi32>) {
// CHECK-NEXT:    %0 = grad.permute %a [1, 0] : tensor<2x3xf32> to tensor<3x2xf32>
// CHECK-NEXT:    %1 = grad.permute %b [2, 0, 1] : tensor<2x3x4xi32> to tensor<4x2x3xi32>
// CHECK-NEXT:    %2 = grad.permute %a [0, 1] : tensor<2x3xf32> to tensor<2x3xf32>
// CHECK-NEXT:    func.return

// CHECK-GENERIC-LABEL: "func.func"() <{sym_name = "permute"
// CHECK-GENERIC:         %0 = "grad.permute"(%a) <{perm = array<i64: 1, 0>}> : (tensor<2x3xf32>) -> tensor<3x2xf32>
// CHECK-GENERIC-NEXT:    %1 = "grad.permute"(%b) <{perm = array<i64: 2, 0, 1>}> : (tensor<2x3x4xi32>) -> tensor<4x2x3xi32>

// -----

func.func @dot(%a: tensor<2x3xf32>, %b: tensor<3x4xf32>, %v: tensor<1x3xf32>) {
  %0 = grad.dot %a, %b : tensor<2x3xf32>, tensor<3x4xf32> to tensor<2x4xf32>
  %1 = grad.dot %v, %b : tensor<1x3xf32>, tensor<3x4xf32> to tensor<1x4xf32>
  func.return
}

// CHECK-LABEL: func.func @dot(%a: tensor<2x3xf32>, %b: tensor<3x4xf32>, %v: tensor<1x3xf32>) {
// CHECK-NEXT:    %0 = grad.dot %a, %b : tensor<2x3xf32>, tensor<3x4xf32> to tensor<2x4xf32>
// CHECK-NEXT:    %1 = grad.dot %v, %b : tensor<1x3xf32>, tensor<3x4xf32> to tensor<1x4xf32>
// CHECK-NEXT:    func.return

// CHECK-GENERIC-LABEL: "func.func"() <{sym_name = "dot"
// CHECK-GENERIC:         %0 = "grad.dot"(%a, %b) : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
