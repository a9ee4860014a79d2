// RUN: grad-opt %s -p expand-gradient --split-input-file > %t
// RUN: filecheck %s --input-file=%t
// RUN: filecheck %s --input-file=%t --check-prefix=NOGRAD

// SPEC §10.2: shares of upstream values are built from arith/math ops, the
// seed is `arith.constant 1.0`, shares are added with `arith.addf`; a program
// with no grad compute op has none after expand-gradient.
// NOGRAD-NOT: = grad.

// divf a b: `divf g b` to a; `negf (mulf (divf g b) u)` to b.
func.func @divf(%a: f32, %b: f32) -> (f32, f32) {
  %u = arith.divf %a, %b : f32
  %ga, %gb = grad.gradient %u wrt %a, %b : f32, f32, f32
  func.return %ga, %gb : f32, f32
}

// CHECK-LABEL: func.func @divf(
// CHECK-NEXT:    %u = arith.divf %a, %b : f32
// CHECK-NEXT:    [[ONE:%.*]] = arith.constant 1.000000e+00 : f32
// CHECK-NEXT:    %ga = arith.divf [[ONE]], %b : f32
// CHECK-NEXT:    [[D:%.*]] = arith.divf [[ONE]], %b : f32
// CHECK-NEXT:    [[M:%.*]] = arith.mulf [[D]], %u : f32
// CHECK-NEXT:    %gb = arith.negf [[M]] : f32
// CHECK-NEXT:    func.return %ga, %gb : f32, f32

// -----

// maximumf a b: ties split `mulf g 0.5`, cmpf ogt picks the winner; x
// receives two shares, added with arith.addf in arrival order.
func.func @maximumf(%x: f32, %b: f32) -> f32 {
  %s = math.sin %x : f32
  %m = arith.maximumf %s, %x : f32
  %g = grad.gradient %m wrt %x : f32, f32
  func.return %g : f32
}

// CHECK-LABEL: func.func @maximumf(
// CHECK-NEXT:    %s = math.sin %x : f32
// CHECK-NEXT:    %m = arith.maximumf %s, %x : f32
// CHECK-NEXT:    [[ONE:%.*]] = arith.constant 1.000000e+00 : f32
// CHECK-NEXT:    [[EQ:%.*]] = arith.cmpf oeq, %s, %x : f32
// CHECK-NEXT:    [[HALF:%.*]] = arith.constant 5.000000e-01 : f32
// CHECK-NEXT:    [[H:%.*]] = arith.mulf [[ONE]], [[HALF]] : f32
// CHECK-NEXT:    [[ZERO:%.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:    [[TIE:%.*]] = arith.select [[EQ]], [[H]], [[ZERO]] : f32
// CHECK-NEXT:    [[GT:%.*]] = arith.cmpf ogt, %s, %x : f32
// CHECK-NEXT:    [[TOS:%.*]] = arith.select [[GT]], [[ONE]], [[TIE]] : f32
// CHECK-NEXT:    [[GT2:%.*]] = arith.cmpf ogt, %x, %s : f32
// CHECK-NEXT:    [[TOX:%.*]] = arith.select [[GT2]], [[ONE]], [[TIE]] : f32
// CHECK-NEXT:    [[COS:%.*]] = math.cos %x : f32
// CHECK-NEXT:    [[SX:%.*]] = arith.mulf [[TOS]], [[COS]] : f32
// CHECK-NEXT:    %g = arith.addf [[TOX]], [[SX]] : f32
// CHECK-NEXT:    func.return %g : f32

// -----

// tanh on a tensor: `mulf g (subf 1.0 (mulf u u))`, constants as dense splats.
func.func @tanh(%a: tensor<3xf32>, %ct: tensor<3xf32>) -> tensor<3xf32> {
  %u = math.tanh %a : tensor<3xf32>
  %g = grad.vjp %u, %ct wrt %a : tensor<3xf32>, tensor<3xf32>
  func.return %g : tensor<3xf32>
}

// CHECK-LABEL: func.func @tanh(
// CHECK-NEXT:    %u = math.tanh %a : tensor<3xf32>
// CHECK-NEXT:    [[UU:%.*]] = arith.mulf %u, %u : tensor<3xf32>
// CHECK-NEXT:    [[ONE:%.*]] = arith.constant dense<1.000000e+00> : tensor<3xf32>
// CHECK-NEXT:    [[S:%.*]] = arith.subf [[ONE]], [[UU]] : tensor<3xf32>
// CHECK-NEXT:    %g = arith.mulf %ct, [[S]] : tensor<3xf32>
// CHECK-NEXT:    func.return %g : tensor<3xf32>
