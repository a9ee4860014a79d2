// RUN: grad-opt %s -p expand-gradient --split-input-file | filecheck %s

// SPEC §5.4, §5.7: a gradient whose loss contains another `grad.gradient` is
// expanded after the inner one (program order), and the outer walk
// differentiates the inner op's expanded graph with the ordinary rules.
// Constants are one `grad.const` per value and type per block: the outer walk
// reuses the inner walk's seed and constants.

// d²(x·x)/dx²: the inner gradient is `add (mul 1 x) (mul 1 x)`; the outer walk
// sends 1 to each mul, and each mul sends `mul g a` = `mul 1 1` to x
// (the mul visited last in program order is reached first).
func.func @second_derivative_square(%x: tensor<f32>) -> tensor<f32> {
  %y = grad.mul %x, %x : tensor<f32>
  %g = grad.gradient %y wrt %x : tensor<f32>, tensor<f32>
  %h = grad.gradient %g wrt %x : tensor<f32>, tensor<f32>
  func.return %h : tensor<f32>
}

// CHECK-LABEL: func.func @second_derivative_square(
// CHECK-NEXT:    %y = grad.mul %x, %x : tensor<f32>
// CHECK-NEXT:    [[ONE:%.*]] = grad.const 1.0 : tensor<f32>
// CHECK-NEXT:    [[S1:%.*]] = grad.mul [[ONE]], %x : tensor<f32>
// CHECK-NEXT:    [[S2:%.*]] = grad.mul [[ONE]], %x : tensor<f32>
// CHECK-NEXT:    [[G:%.*]] = grad.add [[S1]], [[S2]] : tensor<f32>
// CHECK-NEXT:    [[T1:%.*]] = grad.mul [[ONE]], [[ONE]] : tensor<f32>
// CHECK-NEXT:    [[T2:%.*]] = grad.mul [[ONE]], [[ONE]] : tensor<f32>
// CHECK-NEXT:    [[H:%.*]] = grad.add [[T1]], [[T2]] : tensor<f32>
// CHECK-NEXT:    func.return [[H]] : tensor<f32>

// -----

// d²(sin x)/dx²: the inner gradient is `mul 1 (sin (add x 1.5707964))`; the
// outer walk goes through that mul (only operand 1 is on the path), the sin
// (reusing the 1.5707964 constant) and the add.
func.func @second_derivative_sin(%x: tensor<f32>) -> tensor<f32> {
  %y = grad.sin %x : tensor<f32>
  %g = grad.gradient %y wrt %x : tensor<f32>, tensor<f32>
  %h = grad.gradient %g wrt %x : tensor<f32>, tensor<f32>
  func.return %h : tensor<f32>
}

// CHECK-LABEL: func.func @second_derivative_sin(
// CHECK-NEXT:    %y = grad.sin %x : tensor<f32>
// CHECK-NEXT:    [[ONE:%.*]] = grad.const 1.0 : tensor<f32>
// CHECK-NEXT:    [[PI2:%.*]] = grad.const 1.5707964 : tensor<f32>
// CHECK-NEXT:    [[A:%.*]] = grad.add %x, [[PI2]] : tensor<f32>
// CHECK-NEXT:    [[COS:%.*]] = grad.sin [[A]] : tensor<f32>
// CHECK-NEXT:    [[G:%.*]] = grad.mul [[ONE]], [[COS]] : tensor<f32>
// CHECK-NEXT:    [[T1:%.*]] = grad.mul [[ONE]], [[ONE]] : tensor<f32>
// CHECK-NEXT:    [[A2:%.*]] = grad.add [[A]], [[PI2]] : tensor<f32>
// CHECK-NEXT:    [[SIN2:%.*]] = grad.sin [[A2]] : tensor<f32>
// CHECK-NEXT:    [[T2:%.*]] = grad.mul [[T1]], [[SIN2]] : tensor<f32>
// CHECK-NEXT:    func.return [[T2]] : tensor<f32>

// -----

// Outer gradient of a vector inner gradient, with an op between the two:
// inner ops go before the inner op, outer ops before the outer op.
func.func @gradient_of_vector_gradient(%x: tensor<3xf32>) -> tensor<3xf32> {
  %y = grad.mul %x, %x : tensor<3xf32>
  %l = grad.reduce add %y [0] : tensor<3xf32> to tensor<f32>
  %g = grad.gradient %l wrt %x : tensor<f32>, tensor<3xf32>
  %l2 = grad.reduce add %g [0] : tensor<3xf32> to tensor<f32>
  %h = grad.gradient %l2 wrt %x : tensor<f32>, tensor<3xf32>
  func.return %h : tensor<3xf32>
}

// CHECK-LABEL: func.func @gradient_of_vector_gradient(
// CHECK-NEXT:    %y = grad.mul %x, %x : tensor<3xf32>
// CHECK-NEXT:    %l = grad.reduce add %y [0] : tensor<3xf32> to tensor<f32>
// CHECK-NEXT:    [[ONE:%.*]] = grad.const 1.0 : tensor<f32>
// CHECK-NEXT:    [[B:%.*]] = grad.broadcast [[ONE]] [] : tensor<f32> to tensor<3xf32>
// CHECK-NEXT:    [[S1:%.*]] = grad.mul [[B]], %x : tensor<3xf32>
// CHECK-NEXT:    [[S2:%.*]] = grad.mul [[B]], %x : tensor<3xf32>
// CHECK-NEXT:    [[G:%.*]] = grad.add [[S1]], [[S2]] : tensor<3xf32>
// CHECK-NEXT:    %l2 = grad.reduce add [[G]] [0] : tensor<3xf32> to tensor<f32>
// CHECK-NEXT:    [[B2:%.*]] = grad.broadcast [[ONE]] [] : tensor<f32> to tensor<3xf32>
// CHECK-NEXT:    [[T1:%.*]] = grad.mul [[B2]], [[B]] : tensor<3xf32>
// CHECK-NEXT:    [[T2:%.*]] = grad.mul [[B2]], [[B]] : tensor<3xf32>
// CHECK-NEXT:    [[H:%.*]] = grad.add [[T1]], [[T2]] : tensor<3xf32>
// CHECK-NEXT:    func.return [[H]] : tensor<3xf32>
