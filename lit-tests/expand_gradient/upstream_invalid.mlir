// RUN: grad-opt %s --split-input-file --verify-diagnostics | filecheck %s

// SPEC §10.1, §10.2: upstream programs that cannot be differentiated get a
// located error on the differentiation op naming the op and the reason.

// A product reduction reads the accumulator in a form with no rule.
func.func @product(%a: tensor<3xf32>, %init: tensor<f32>) -> tensor<3xf32> {
  %y = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> ()>], iterator_types = ["reduction"]} ins(%a : tensor<3xf32>) outs(%init : tensor<f32>) {
  ^bb0(%x: f32, %o: f32):
    %r = arith.mulf %o, %x : f32
    linalg.yield %r : f32
  } -> tensor<f32>
  %g = grad.gradient %y wrt %a : tensor<f32>, tensor<3xf32>
  func.return %g : tensor<3xf32>
}

// CHECK:      upstream_invalid.mlir:[[# @LINE - 4]]:3: error: 'grad.gradient' op 'linalg.generic' lies on the path from the target to the loss and has no gradient rule: reduction result 0 is not 'arith.addf' or a max/min of the accumulator and a value that does not read it
// CHECK-NEXT:   %g = grad.gradient %y wrt %a : tensor<f32>, tensor<3xf32>
// CHECK-NEXT:   ^
// CHECK-NEXT: upstream_invalid.mlir:[[# @LINE - 12]]:3: note: 'linalg.generic' is here
// CHECK-NEXT:   %y = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> ()>], iterator_types = ["reduction"]} ins(%a : tensor<3xf32>) outs(%init : tensor<f32>) {
// CHECK-NEXT:   ^
// CHECK-NEXT: {{//}} -----

// -----

// An input read through a map that is not a projected permutation.
func.func @reversed(%a: tensor<3xf32>, %ct: tensor<3xf32>) -> tensor<3xf32> {
  %e = tensor.empty() : tensor<3xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(d0) -> (2 - d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%a : tensor<3xf32>) outs(%e : tensor<3xf32>) {
  ^bb0(%x: f32, %o: f32):
    linalg.yield %x : f32
  } -> tensor<3xf32>
  %g = grad.vjp %y, %ct wrt %a : tensor<3xf32>, tensor<3xf32>
  func.return %g : tensor<3xf32>
}

// CHECK:      upstream_invalid.mlir:[[# @LINE - 4]]:3: error: 'grad.vjp' op 'linalg.generic' lies on the path from the target to the loss and has no gradient rule: operand 0 is read through (d0) -> (((d0 * -1) + 2)), neither a projected permutation nor a window
// CHECK-NEXT:   %g = grad.vjp %y, %ct wrt %a : tensor<3xf32>, tensor<3xf32>
// CHECK-NEXT:   ^
// CHECK-NEXT: upstream_invalid.mlir:[[# @LINE - 11]]:3: note: 'linalg.generic' is here
// CHECK-NEXT:   %y = linalg.generic {indexing_maps = [affine_map<(d0) -> (2 - d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%a : tensor<3xf32>) outs(%e : tensor<3xf32>) {
// CHECK-NEXT:   ^
// CHECK-NEXT: {{//}} -----

// -----

// A pad value on the path: tensor.pad's pad value, yielded by its region,
// gets no share.
func.func @pad_value(%a: tensor<2xf32>, %v: f32, %ct: tensor<4xf32>) -> f32 {
  %w = math.exp %v : f32
  %p = tensor.pad %a low[1] high[1] {
  ^bb0(%i: index):
    tensor.yield %w : f32
  } : tensor<2xf32> to tensor<4xf32>
  %g = grad.vjp %p, %ct wrt %v : tensor<4xf32>, f32
  func.return %g : f32
}

// CHECK:      upstream_invalid.mlir:[[# @LINE - 4]]:3: error: 'grad.vjp' op 'tensor.pad' reads a value on the path from the target to the loss inside its region ('tensor.yield'), and only its operands are differentiated
// CHECK-NEXT:   %g = grad.vjp %p, %ct wrt %v : tensor<4xf32>, f32
// CHECK-NEXT:   ^
// CHECK-NEXT: upstream_invalid.mlir:[[# @LINE - 11]]:3: note: 'tensor.pad' is here
// CHECK-NEXT:   %p = tensor.pad %a low[1] high[1] {
// CHECK-NEXT:   ^
// CHECK-NEXT: upstream_invalid.mlir:[[# @LINE - 12]]:5: note: the value is read here
// CHECK-NEXT:     tensor.yield %w : f32
// CHECK-NEXT:     ^
// CHECK-NEXT: {{//}} -----

// -----

// A dynamically shaped tensor on the path.
func.func @dynamic(%a: tensor<3xf32>) -> tensor<3xf32> {
  %c = tensor.cast %a : tensor<3xf32> to tensor<?xf32>
  %c0 = arith.constant 0 : index
  %e = tensor.extract %c[%c0] : tensor<?xf32>
  %g = grad.gradient %e wrt %a : f32, tensor<3xf32>
  func.return %g : tensor<3xf32>
}

// CHECK:      upstream_invalid.mlir:[[# @LINE - 4]]:3: error: 'grad.gradient' op dynamic shapes are not supported: tensor<?xf32> lies on the path from the target to the loss
// CHECK-NEXT:   %g = grad.gradient %e wrt %a : f32, tensor<3xf32>
// CHECK-NEXT:   ^
// CHECK-NEXT: upstream_invalid.mlir:[[# @LINE - 10]]:3: note: it is made here
// CHECK-NEXT:   %c = tensor.cast %a : tensor<3xf32> to tensor<?xf32>
// CHECK-NEXT:   ^

// -----

// A body that reads a tensor from outside by another op than tensor.extract.
func.func @slice_inside(%a: tensor<4xf32>, %table: tensor<4xf32>, %ct: tensor<4xf32>) -> tensor<4xf32> {
  %e = tensor.empty() : tensor<4xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%a : tensor<4xf32>) outs(%e : tensor<4xf32>) {
  ^bb0(%x: f32, %o: f32):
    %i = linalg.index 0 : index
    %part = tensor.extract_slice %table[%i] [1] [1] : tensor<4xf32> to tensor<1xf32>
    %c0 = arith.constant 0 : index
    %v = tensor.extract %part[%c0] : tensor<1xf32>
    %q = arith.mulf %v, %x : f32
    linalg.yield %q : f32
  } -> tensor<4xf32>
  %g = grad.vjp %y, %ct wrt %table : tensor<4xf32>, tensor<4xf32>
  func.return %g : tensor<4xf32>
}

// CHECK:      upstream_invalid.mlir:[[# @LINE - 4]]:3: error: 'grad.vjp' op 'linalg.generic' lies on the path from the target to the loss and has no gradient rule: its body reads a tensor from outside by 'tensor.extract_slice' (only 'tensor.extract' is differentiated)
// CHECK-NEXT:   %g = grad.vjp %y, %ct wrt %table : tensor<4xf32>, tensor<4xf32>
// CHECK-NEXT:   ^
// CHECK-NEXT: upstream_invalid.mlir:[[# @LINE - 16]]:3: note: 'linalg.generic' is here
