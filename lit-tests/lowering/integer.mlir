// RUN: grad-opt %s -p convert-grad-to-standard --split-input-file | filecheck %s

// Bitwise ops and shifts are one arith op on whole tensors (shr is the
// arithmetic shrsi); and/or/xor also on i1.

func.func @bitwise(%a: tensor<3xi32>, %b: tensor<3xi32>, %p: tensor<3xi1>, %q: tensor<3xi1>) -> (tensor<3xi32>, tensor<3xi32>, tensor<3xi32>, tensor<3xi32>, tensor<3xi32>, tensor<3xi1>) {
  %and = grad.and %a, %b : tensor<3xi32>
  %or = grad.or %a, %b : tensor<3xi32>
  %xor = grad.xor %a, %b : tensor<3xi32>
  %shl = grad.shl %a, %b : tensor<3xi32>
  %shr = grad.shr %a, %b : tensor<3xi32>
  %band = grad.and %p, %q : tensor<3xi1>
  func.return %and, %or, %xor, %shl, %shr, %band : tensor<3xi32>, tensor<3xi32>, tensor<3xi32>, tensor<3xi32>, tensor<3xi32>, tensor<3xi1>
}

// CHECK-LABEL: func.func @bitwise
// CHECK-NEXT:    %and = arith.andi %a, %b : tensor<3xi32>
// CHECK-NEXT:    %or = arith.ori %a, %b : tensor<3xi32>
// CHECK-NEXT:    %xor = arith.xori %a, %b : tensor<3xi32>
// CHECK-NEXT:    %shl = arith.shli %a, %b : tensor<3xi32>
// CHECK-NEXT:    %shr = arith.shrsi %a, %b : tensor<3xi32>
// CHECK-NEXT:    %band = arith.andi %p, %q : tensor<3xi1>

// -----

// idiv and mod are divsi and remsi (rounding toward zero, as C) in a
// linalg.generic whose divisor is 1 where it is 0 or the quotient overflows
// (INT_MIN / -1): the CPU would trap on either.

func.func @division(%a: tensor<3xi32>, %b: tensor<3xi32>) -> (tensor<3xi32>, tensor<3xi32>) {
  %q = grad.idiv %a, %b : tensor<3xi32>
  %r = grad.mod %a, %b : tensor<3xi32>
  func.return %q, %r : tensor<3xi32>, tensor<3xi32>
}

// CHECK-LABEL: func.func @division
// CHECK:         ins(%a, %b : tensor<3xi32>, tensor<3xi32>) outs(%q : tensor<3xi32>) {
// CHECK-NEXT:    ^bb0(%[[A:.*]]: i32, %[[B:.*]]: i32, %{{.*}}: i32):
// CHECK-NEXT:      %[[ZERO:.*]] = arith.constant 0 : i32
// CHECK-NEXT:      %[[IS_ZERO:.*]] = arith.cmpi eq, %[[B]], %[[ZERO]] : i32
// CHECK-NEXT:      %[[MIN:.*]] = arith.constant -2147483648 : i32
// CHECK-NEXT:      %[[IS_MIN:.*]] = arith.cmpi eq, %[[A]], %[[MIN]] : i32
// CHECK-NEXT:      %[[MINUS_ONE:.*]] = arith.constant -1 : i32
// CHECK-NEXT:      %[[IS_MINUS_ONE:.*]] = arith.cmpi eq, %[[B]], %[[MINUS_ONE]] : i32
// CHECK-NEXT:      %[[OVERFLOW:.*]] = arith.andi %[[IS_MIN]], %[[IS_MINUS_ONE]] : i1
// CHECK-NEXT:      %[[UNSAFE:.*]] = arith.ori %[[IS_ZERO]], %[[OVERFLOW]] : i1
// CHECK-NEXT:      %[[ONE:.*]] = arith.constant 1 : i32
// CHECK-NEXT:      %[[DIVISOR:.*]] = arith.select %[[UNSAFE]], %[[ONE]], %[[B]] : i32
// CHECK-NEXT:      %[[Q:.*]] = arith.divsi %[[A]], %[[DIVISOR]] : i32
// CHECK-NEXT:      linalg.yield %[[Q]] : i32
// CHECK:         arith.remsi %{{.*}}, %{{.*}} : i32
