// RUN: not grad-opt %s --split-input-file 2>&1 | filecheck %s --strict-whitespace
// RUN: grad-opt %s --split-input-file --verify-diagnostics | filecheck %s --check-prefix=HINT

// An unknown op is reported at the op. A name close to one of its dialect's
// ops gets a suggestion, and an op that users expect of a tensor dialect, but
// that `grad` composes from its primitives, says how to write it.

func.func @g(%a: tensor<5xf32>) {
  %r = grad.frobnicate %a : tensor<5xf32>
  func.return
}

// CHECK:      {{^.*}}/driver/unknown_op.mlir:9:3: error: unknown operation 'grad.frobnicate'{{$}}
// CHECK-NEXT: {{^}}  %r = grad.frobnicate %a : tensor<5xf32>{{$}}
// CHECK-NEXT: {{^}}  ^{{$}}
// HINT:       unknown_op.mlir:9:3: error: unknown operation 'grad.frobnicate'{{$}}

// -----

func.func @misspelt(%a: tensor<5xf32>) {
  %r = grad.mull %a, %a : tensor<5xf32>
  func.return
}

// HINT: unknown_op.mlir:[[# @LINE - 4]]:3: error: unknown operation 'grad.mull'; did you mean 'grad.mul'?

// -----

func.func @exp(%a: tensor<5xf32>) {
  %r = grad.exp %a : tensor<5xf32>
  func.return
}

// HINT: unknown_op.mlir:[[# @LINE - 4]]:3: error: 'grad.exp' is not an op: exp2 of x·log2(e) computes it (grad.mul by 1.442695, then grad.exp2)

// -----

func.func @sub(%a: tensor<5xf32>) {
  %r = grad.sub %a, %a : tensor<5xf32>
  func.return
}

// HINT: unknown_op.mlir:[[# @LINE - 4]]:3: error: 'grad.sub' is not an op: a + (-b) computes it (grad.neg, then grad.add)

// -----

func.func @tanh(%a: tensor<5xf32>) {
  %r = grad.tanh %a : tensor<5xf32>
  func.return
}

// HINT: unknown_op.mlir:[[# @LINE - 4]]:3: error: 'grad.tanh' is not an op: 1 - 2 · recip(exp2(2x·log2(e)) + 1) computes it

// -----

func.func @other_dialect(%a: index) {
  %r = arith.constnt 1 : index
  func.return
}

// HINT: unknown_op.mlir:[[# @LINE - 4]]:3: error: unknown operation 'arith.constnt'; did you mean 'arith.constant'?

// Every chunk's error is reported on stderr, in order.
// CHECK: unknown_op.mlir:21:3: error: unknown operation 'grad.mull'
// CHECK: unknown_op.mlir:30:3: error: 'grad.exp' is not an op
// CHECK: unknown_op.mlir:39:3: error: 'grad.sub' is not an op
// CHECK: unknown_op.mlir:48:3: error: 'grad.tanh' is not an op
// CHECK: unknown_op.mlir:57:3: error: unknown operation 'arith.constnt'
