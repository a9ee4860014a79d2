// RUN: grad-opt %s -p expand-jvp --split-input-file | filecheck %s
// RUN: grad-opt %s -p expand-jvp --split-input-file | filecheck %s --check-prefix=NOGRAD

// SPEC §10.2 in forward mode: the tangent of each upstream op is built from
// the same family; a structured op's tangent is one linalg.generic walking its
// body forward from the operands' tangents.
// NOGRAD-NOT: = grad.

// mulf: the sum over operands of each share with the operand's tangent for g.
func.func @mulf(%a: f32, %b: f32, %ta: f32) -> f32 {
  %y = arith.mulf %a, %a : f32
  %z = arith.divf %y, %b : f32
  %t = grad.jvp %z wrt %a, %ta : f32, f32
  func.return %t : f32
}

// CHECK-LABEL: func.func @mulf(
// CHECK-NEXT:    %y = arith.mulf %a, %a : f32
// CHECK-NEXT:    %z = arith.divf %y, %b : f32
// CHECK-NEXT:    %0 = arith.mulf %ta, %a : f32
// CHECK-NEXT:    %1 = arith.mulf %ta, %a : f32
// CHECK-NEXT:    %2 = arith.addf %0, %1 : f32
// CHECK-NEXT:    %t = arith.divf %2, %b : f32
// CHECK-NEXT:    func.return %t : f32

// -----

// tanh on a tensor: a chain rule, `mulf t (subf 1.0 (mulf u u))`.
func.func @tanh(%a: tensor<3xf32>, %ta: tensor<3xf32>) -> tensor<3xf32> {
  %u = math.tanh %a : tensor<3xf32>
  %t = grad.jvp %u wrt %a, %ta : tensor<3xf32>, tensor<3xf32>
  func.return %t : tensor<3xf32>
}

// CHECK-LABEL: func.func @tanh(
// CHECK-NEXT:    %u = math.tanh %a : tensor<3xf32>
// CHECK-NEXT:    %0 = arith.mulf %u, %u : tensor<3xf32>
// CHECK-NEXT:    %1 = arith.constant dense<1.000000e+00> : tensor<3xf32>
// CHECK-NEXT:    %2 = arith.subf %1, %0 : tensor<3xf32>
// CHECK-NEXT:    %t = arith.mulf %ta, %2 : tensor<3xf32>
// CHECK-NEXT:    func.return %t : tensor<3xf32>

// -----

// extract_slice: the same op on the tangent, offsets as they are.
func.func @slice(%a: tensor<4xf32>, %i: index, %ta: tensor<4xf32>) -> tensor<2xf32> {
  %s = tensor.extract_slice %a[%i] [2] [1] : tensor<4xf32> to tensor<2xf32>
  %t = grad.jvp %s wrt %a, %ta : tensor<2xf32>, tensor<4xf32>
  func.return %t : tensor<2xf32>
}

// CHECK-LABEL: func.func @slice(
// CHECK-NEXT:    %s = tensor.extract_slice %a[%i] [2] [1] : tensor<4xf32> to tensor<2xf32>
// CHECK-NEXT:    %t = tensor.extract_slice %ta[%i] [2] [1] : tensor<4xf32> to tensor<2xf32>
// CHECK-NEXT:    func.return %t : tensor<2xf32>

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>

// An addf reduction: the init's tangent (zeros: off the path) and the body's
// tangent added per iteration.
func.func @sum_rows(%a: tensor<2x3xf32>, %init: tensor<2xf32>, %ta: tensor<2x3xf32>) -> tensor<2xf32> {
  %y = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]} ins(%a : tensor<2x3xf32>) outs(%init : tensor<2xf32>) {
  ^bb0(%x: f32, %o: f32):
    %q = math.exp %x : f32
    %r = arith.addf %o, %q : f32
    linalg.yield %r : f32
  } -> tensor<2xf32>
  %t = grad.jvp %y wrt %a, %ta : tensor<2xf32>, tensor<2x3xf32>
  func.return %t : tensor<2xf32>
}

// CHECK-LABEL: func.func @sum_rows(
// CHECK-NEXT:    %y = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%a : tensor<2x3xf32>) outs(%init : tensor<2xf32>) {
// CHECK-NEXT:    ^bb0(%x: f32, %o: f32):
// CHECK-NEXT:      %q = math.exp %x : f32
// CHECK-NEXT:      %r = arith.addf %o, %q : f32
// CHECK-NEXT:      linalg.yield %r : f32
// CHECK-NEXT:    } -> tensor<2xf32>
// CHECK-NEXT:    %0 = arith.constant dense<0.000000e+00> : tensor<2xf32>
// CHECK-NEXT:    %t = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%a, %ta : tensor<2x3xf32>, tensor<2x3xf32>) outs(%0 : tensor<2xf32>) {
// CHECK-NEXT:    ^bb0(%1: f32, %2: f32, %3: f32):
// CHECK-NEXT:      %q_1 = math.exp %1 : f32
// CHECK-NEXT:      %4 = arith.mulf %2, %q_1 : f32
// CHECK-NEXT:      %5 = arith.addf %3, %4 : f32
// CHECK-NEXT:      linalg.yield %5 : f32
// CHECK-NEXT:    } -> tensor<2xf32>
// CHECK-NEXT:    func.return %t : tensor<2xf32>

// -----

// linalg.map: its tangent is one generic over the map's iteration space.
func.func @map(%a: tensor<3xf32>, %b: tensor<3xf32>, %ta: tensor<3xf32>) -> tensor<3xf32> {
  %e = tensor.empty() : tensor<3xf32>
  %r = linalg.map ins(%a, %b : tensor<3xf32>, tensor<3xf32>) outs(%e : tensor<3xf32>) (%x: f32, %y: f32) {
    %m = arith.mulf %x, %y : f32
    %s = math.sin %m : f32
    linalg.yield %s : f32
  }
  %t = grad.jvp %r wrt %a, %ta : tensor<3xf32>, tensor<3xf32>
  func.return %t : tensor<3xf32>
}

// CHECK-LABEL: func.func @map(
// CHECK-NEXT:    %e = tensor.empty() : tensor<3xf32>
// CHECK-NEXT:    %r = linalg.map ins(%a, %b : tensor<3xf32>, tensor<3xf32>) outs(%e : tensor<3xf32>) (%x: f32, %y: f32) {
// CHECK-NEXT:      %m = arith.mulf %x, %y : f32
// CHECK-NEXT:      %s = math.sin %m : f32
// CHECK-NEXT:      linalg.yield %s : f32
// CHECK-NEXT:    }
// CHECK-NEXT:    %0 = arith.constant dense<0.000000e+00> : tensor<3xf32>
// CHECK-NEXT:    %t = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%a, %b, %ta : tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) outs(%0 : tensor<3xf32>) {
// CHECK-NEXT:    ^bb0(%1: f32, %2: f32, %3: f32, %4: f32):
// CHECK-NEXT:      %m_1 = arith.mulf %1, %2 : f32
// CHECK-NEXT:      %5 = arith.mulf %3, %2 : f32
// CHECK-NEXT:      %6 = math.cos %m_1 : f32
// CHECK-NEXT:      %7 = arith.mulf %5, %6 : f32
// CHECK-NEXT:      linalg.yield %7 : f32
// CHECK-NEXT:    } -> tensor<3xf32>
// CHECK-NEXT:    func.return %t : tensor<3xf32>

// -----

// A gather inside a body (tensor.extract of a tensor on the path at computed
// indices, as IREE writes jnp.flip and x[i]): its tangent extracts the
// tangent tensor at the same indices inside the tangent generic.
func.func @gather(%a: tensor<4xf32>, %table: tensor<4xf32>, %ct: tensor<4xf32>) -> tensor<4xf32> {
  %e = tensor.empty() : tensor<4xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%a : tensor<4xf32>) outs(%e : tensor<4xf32>) {
  ^bb0(%x: f32, %o: f32):
    %i = linalg.index 0 : index
    %c3 = arith.constant 3 : index
    %r = arith.subi %c3, %i : index
    %v = tensor.extract %table[%r] : tensor<4xf32>
    %q = arith.mulf %v, %x : f32
    linalg.yield %q : f32
  } -> tensor<4xf32>
  %g = grad.jvp %y wrt %table, %ct : tensor<4xf32>, tensor<4xf32>
  func.return %g : tensor<4xf32>
}

// CHECK-LABEL: func.func @gather(
// CHECK-NEXT:    %e = tensor.empty() : tensor<4xf32>
// CHECK-NEXT:    %y = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%a : tensor<4xf32>) outs(%e : tensor<4xf32>) {
// CHECK-NEXT:    ^bb0(%x: f32, %o: f32):
// CHECK-NEXT:      %i = linalg.index 0 : index
// CHECK-NEXT:      %c3 = arith.constant 3 : index
// CHECK-NEXT:      %r = arith.subi %c3, %i : index
// CHECK-NEXT:      %v = tensor.extract %table[%r] : tensor<4xf32>
// CHECK-NEXT:      %q = arith.mulf %v, %x : f32
// CHECK-NEXT:      linalg.yield %q : f32
// CHECK-NEXT:    } -> tensor<4xf32>
// CHECK-NEXT:    %0 = arith.constant dense<0.000000e+00> : tensor<4xf32>
// CHECK-NEXT:    %g = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%a : tensor<4xf32>) outs(%0 : tensor<4xf32>) {
// CHECK-NEXT:    ^bb0(%1: f32, %2: f32):
// CHECK-NEXT:      %i_1 = linalg.index 0 : index
// CHECK-NEXT:      %c3_1 = arith.constant 3 : index
// CHECK-NEXT:      %r_1 = arith.subi %c3_1, %i_1 : index
// CHECK-NEXT:      %3 = tensor.extract %ct[%r_1] : tensor<4xf32>
// CHECK-NEXT:      %4 = arith.mulf %3, %1 : f32
// CHECK-NEXT:      linalg.yield %4 : f32
// CHECK-NEXT:    } -> tensor<4xf32>
// CHECK-NEXT:    func.return %g : tensor<4xf32>
