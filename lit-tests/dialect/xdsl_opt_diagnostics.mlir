// RUN: xdsl-opt %s --split-input-file --verify-diagnostics | filecheck %s

// Under plain `xdsl-opt` (which loads the grad dialect through the entry
// point), a differentiability error is reported as xDSL reports any invalid
// op: the module with the differentiation op marked. Its text names the
// notes' ops, with their locations where the source gives them (`loc(...)`:
// xDSL's parser records no other).

func.func @call_on_path(%x: tensor<f32>) -> tensor<f32> {
  %c = func.call @f(%x) : (tensor<f32>) -> tensor<f32> loc("model.py":12:4)
  %g = grad.gradient %c wrt %x : tensor<f32>, tensor<f32>
  func.return %g : tensor<f32>
}
func.func private @f(tensor<f32>) -> tensor<f32>

// CHECK:      %g = "grad.gradient"(%c, %x) : (tensor<f32>, tensor<f32>) -> tensor<f32>
// CHECK-NEXT: ^^^^^^^^^^^^^^^^^^^^{{-+}}
// CHECK-NEXT: | Operation does not verify: 'func.call' lies on the path from the target to the loss and has no gradient rule
// CHECK-NEXT: | note: 'func.call' is here (model.py:12:4)

// -----

func.func @twin(%x: tensor<f32>) -> tensor<f32> {
  %a = grad.sin %x : tensor<f32>
  %b = grad.sin %x : tensor<f32>
  %l = grad.mul %a, %b : tensor<f32>
  %g = grad.gradient %l wrt %a : tensor<f32>, tensor<f32>
  func.return %g : tensor<f32>
}

// CHECK:      | Operation does not verify: target has a structurally equal twin at 'grad.sin' %b; cse would merge them and change this gradient (target 0)
// CHECK-NEXT: | note: the twin is here ('grad.sin' %b)
// CHECK-NEXT: | note: the target is here ('grad.sin' %a)
