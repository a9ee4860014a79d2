// RUN: grad-opt %s -p expand-gradient --split-input-file > %t
// RUN: filecheck %s --input-file=%t
// RUN: grad-opt %s -p expand-gradient,expand-gradient --split-input-file | filecheck %s
// RUN: grad-opt --split-input-file < %t | filecheck %s
// RUN: grad-opt --split-input-file -p expand-gradient < %t | filecheck %s
// RUN: filecheck %s --input-file=%t --check-prefix=NONE

// SPEC §5: the pass leaves no differentiation op and a module that verifies.
// A second run changes nothing (same output as one run), and the output
// re-parses to the same text (with or without another run of the pass).

// reduce max, several rules in one graph.
func.func @reduce_max(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %m = grad.reduce max %x [1] : tensor<2x3xf32> to tensor<2xf32>
  %l = grad.reduce add %m [0] : tensor<2xf32> to tensor<f32>
  %g = grad.gradient %l wrt %x : tensor<f32>, tensor<2x3xf32>
  func.return %g : tensor<2x3xf32>
}

// CHECK-LABEL: func.func @reduce_max(
// CHECK-NEXT:    %m = grad.reduce max %x [1] : tensor<2x3xf32> to tensor<2xf32>
// CHECK-NEXT:    %l = grad.reduce add %m [0] : tensor<2xf32> to tensor<f32>
// CHECK-NEXT:    [[ONE:%.*]] = grad.const 1.0 : tensor<f32>
// CHECK-NEXT:    [[G:%.*]] = grad.broadcast [[ONE]] [] : tensor<f32> to tensor<2xf32>
// CHECK-NEXT:    [[B:%.*]] = grad.broadcast %m [0] : tensor<2xf32> to tensor<2x3xf32>
// CHECK-NEXT:    [[E:%.*]] = grad.cmpeq %x, [[B]] : tensor<2x3xf32>
// CHECK-NEXT:    [[BG:%.*]] = grad.broadcast [[G]] [0] : tensor<2xf32> to tensor<2x3xf32>
// CHECK-NEXT:    [[ZERO:%.*]] = grad.const 0.0 : tensor<2x3xf32>
// CHECK-NEXT:    [[SPREAD:%.*]] = grad.where [[E]], [[BG]], [[ZERO]] : tensor<2x3xf32>
// CHECK-NEXT:    [[ONES:%.*]] = grad.const 1.0 : tensor<2x3xf32>
// CHECK-NEXT:    [[HITS:%.*]] = grad.where [[E]], [[ONES]], [[ZERO]] : tensor<2x3xf32>
// CHECK-NEXT:    [[COUNT:%.*]] = grad.reduce add [[HITS]] [1] : tensor<2x3xf32> to tensor<2xf32>
// CHECK-NEXT:    [[R:%.*]] = grad.recip [[COUNT]] : tensor<2xf32>
// CHECK-NEXT:    [[BR:%.*]] = grad.broadcast [[R]] [0] : tensor<2xf32> to tensor<2x3xf32>
// CHECK-NEXT:    [[S:%.*]] = grad.mul [[SPREAD]], [[BR]] : tensor<2x3xf32>
// CHECK-NEXT:    func.return [[S]] : tensor<2x3xf32>
// CHECK-NEXT:  }

// -----

// A gradient of a gradient, a vjp and a jvp in one function.
func.func @mixed(%x: tensor<f32>, %ct: tensor<f32>, %tx: tensor<f32>) -> (tensor<f32>, tensor<f32>, tensor<f32>) {
  %y = grad.mul %x, %x : tensor<f32>
  %g = grad.gradient %y wrt %x : tensor<f32>, tensor<f32>
  %h = grad.gradient %g wrt %x : tensor<f32>, tensor<f32>
  %v = grad.vjp %y, %ct wrt %x : tensor<f32>, tensor<f32>
  %t = grad.jvp %y wrt %x, %tx : tensor<f32>, tensor<f32>
  func.return %h, %v, %t : tensor<f32>, tensor<f32>, tensor<f32>
}

// CHECK-LABEL: func.func @mixed(
// CHECK-NEXT:    %y = grad.mul %x, %x : tensor<f32>
// CHECK-NEXT:    [[ONE:%.*]] = grad.const 1.0 : tensor<f32>
// CHECK-NEXT:    [[S1:%.*]] = grad.mul [[ONE]], %x : tensor<f32>
// CHECK-NEXT:    [[S2:%.*]] = grad.mul [[ONE]], %x : tensor<f32>
// CHECK-NEXT:    [[G:%.*]] = grad.add [[S1]], [[S2]] : tensor<f32>
// CHECK-NEXT:    [[T1:%.*]] = grad.mul [[ONE]], [[ONE]] : tensor<f32>
// CHECK-NEXT:    [[T2:%.*]] = grad.mul [[ONE]], [[ONE]] : tensor<f32>
// CHECK-NEXT:    [[H:%.*]] = grad.add [[T1]], [[T2]] : tensor<f32>
// CHECK-NEXT:    [[V1:%.*]] = grad.mul %ct, %x : tensor<f32>
// CHECK-NEXT:    [[V2:%.*]] = grad.mul %ct, %x : tensor<f32>
// CHECK-NEXT:    [[V:%.*]] = grad.add [[V1]], [[V2]] : tensor<f32>
// CHECK-NEXT:    [[J1:%.*]] = grad.mul %tx, %x : tensor<f32>
// CHECK-NEXT:    [[J2:%.*]] = grad.mul %x, %tx : tensor<f32>
// CHECK-NEXT:    [[J:%.*]] = grad.add [[J1]], [[J2]] : tensor<f32>
// CHECK-NEXT:    func.return [[H]], [[V]], [[J]] : tensor<f32>, tensor<f32>, tensor<f32>
// CHECK-NEXT:  }

// -----

// No differentiation op: nothing changes.
func.func @plain(%x: tensor<3xf32>) -> tensor<3xf32> {
  %y = grad.sin %x : tensor<3xf32>
  func.return %y : tensor<3xf32>
}

// CHECK-LABEL: func.func @plain(
// CHECK-NEXT:    %y = grad.sin %x : tensor<3xf32>
// CHECK-NEXT:    func.return %y : tensor<3xf32>
// CHECK-NEXT:  }

// Nowhere in the output is there a differentiation op left.
// NONE-NOT: grad.{{(gradient|vjp|jvp)}}
