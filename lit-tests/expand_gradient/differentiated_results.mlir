// RUN: grad-opt %s -p expand-gradient --split-input-file | filecheck %s
// RUN: grad-run %s --arg 0=3 | filecheck %s --check-prefix=VALUE
// A result that another gradient differentiates with respect to gets a node of
// its own (a `grad.cast` to its type): the value it expands to may be shared,
// here the seed literal 1.0 that the expansion of %d also reads, and a gradient
// w.r.t. a shared value would mix in its other uses (SPEC §4 rule 3).

// d(gx + d)/d(gx) is 1, whatever gx and d are.
// CHECK-LABEL: func.func @main
// CHECK-NEXT:    [[ONE:%.*]] = grad.const 1.0 : tensor<f32>
// CHECK-NEXT:    [[GX:%.*]] = grad.cast [[ONE]] : tensor<f32> to tensor<f32>
// CHECK-NEXT:    %sx = grad.mul %x, %x : tensor<f32>
// CHECK-NEXT:    [[S0:%.*]] = grad.mul [[ONE]], %x : tensor<f32>
// CHECK-NEXT:    [[S1:%.*]] = grad.mul [[ONE]], %x : tensor<f32>
// CHECK-NEXT:    %d = grad.add [[S0]], [[S1]] : tensor<f32>
// CHECK-NEXT:    %l = grad.add [[GX]], %d : tensor<f32>
// CHECK-NEXT:    func.return [[ONE]] : tensor<f32>
// VALUE: result 0 = dense<1.0> : tensor<f32>
func.func @main(%x: tensor<f32>) -> tensor<f32> {
  %gx = grad.gradient %x wrt %x : tensor<f32>, tensor<f32>
  %sx = grad.mul %x, %x : tensor<f32>
  %d = grad.gradient %sx wrt %x : tensor<f32>, tensor<f32>
  %l = grad.add %gx, %d : tensor<f32>
  %h = grad.gradient %l wrt %gx : tensor<f32>, tensor<f32>
  func.return %h : tensor<f32>
}
