// RUN: grad-opt %s --split-input-file --verify-diagnostics | filecheck %s

// SPEC §11: without `control_flow` a call or structured control flow on the
// path is rule 5, and the message says how to opt in; with it, what the call
// or the region runs must itself be differentiable, and a call cycle on the
// path is an error on the differentiation op that names the cycle.

func.func @if_without_opt_in(%x: tensor<f32>, %c: i1) -> tensor<f32> {
  %r = scf.if %c -> (tensor<f32>) {
    %s = grad.sin %x : tensor<f32>
    scf.yield %s : tensor<f32>
  } else {
    scf.yield %x : tensor<f32>
  }
  %g = grad.gradient %r wrt %x : tensor<f32>, tensor<f32>
  func.return %g : tensor<f32>
}

// CHECK:      control_flow_invalid.mlir:[[# @LINE - 4]]:3: error: 'grad.gradient' op 'scf.if' lies on the path from the target to the loss and has no gradient rule: a differentiation op that says 'control_flow' differentiates through calls and structured control flow
// CHECK-NEXT:   %g = grad.gradient %r wrt %x : tensor<f32>, tensor<f32>
// CHECK-NEXT:   ^
// CHECK-NEXT: control_flow_invalid.mlir:[[# @LINE - 13]]:3: note: 'scf.if' is here

// -----

func.func @square(%a: tensor<f32>) -> tensor<f32> {
  %m = grad.mul %a, %a : tensor<f32>
  func.return %m : tensor<f32>
}
func.func @call_without_opt_in(%x: tensor<f32>) -> tensor<f32> {
  %c = func.call @square(%x) : (tensor<f32>) -> tensor<f32>
  %t = grad.jvp %c wrt %x, %x : tensor<f32>, tensor<f32>
  func.return %t : tensor<f32>
}

// CHECK:      control_flow_invalid.mlir:[[# @LINE - 4]]:3: error: 'grad.jvp' op 'func.call' lies on the path from the target to the loss and has no gradient rule: a differentiation op that says 'control_flow' differentiates through calls and structured control flow
// CHECK:      control_flow_invalid.mlir:[[# @LINE - 6]]:3: note: 'func.call' is here

// -----

func.func @even(%a: tensor<f32>) -> tensor<f32> {
  %m = func.call @odd(%a) : (tensor<f32>) -> tensor<f32>
  func.return %m : tensor<f32>
}
func.func @odd(%a: tensor<f32>) -> tensor<f32> {
  %s = grad.sin %a : tensor<f32>
  %m = func.call @even(%s) : (tensor<f32>) -> tensor<f32>
  func.return %m : tensor<f32>
}
func.func @recursive(%x: tensor<f32>) -> tensor<f32> {
  %c = func.call @even(%x) : (tensor<f32>) -> tensor<f32>
  %g = grad.gradient %c wrt %x control_flow : tensor<f32>, tensor<f32>
  func.return %g : tensor<f32>
}

// CHECK:      control_flow_invalid.mlir:[[# @LINE - 4]]:3: error: 'grad.gradient' op recursive call on the path from the target to the loss: @even -> @odd -> @even
// CHECK-NEXT:   %g = grad.gradient %c wrt %x control_flow : tensor<f32>, tensor<f32>
// CHECK-NEXT:   ^
// CHECK-NEXT: control_flow_invalid.mlir:[[# @LINE - 17]]:3: note: a call of the cycle is here
// CHECK-NEXT:   %m = func.call @odd(%a) : (tensor<f32>) -> tensor<f32>
// CHECK:      control_flow_invalid.mlir:[[# @LINE - 14]]:3: note: a call of the cycle is here
// CHECK-NEXT:   %m = func.call @even(%s) : (tensor<f32>) -> tensor<f32>

// -----

func.func private @external(tensor<f32>) -> tensor<f32>
func.func @no_body(%x: tensor<f32>) -> tensor<f32> {
  %c = func.call @external(%x) : (tensor<f32>) -> tensor<f32>
  %g = grad.gradient %c wrt %x control_flow : tensor<f32>, tensor<f32>
  func.return %g : tensor<f32>
}

// CHECK:      control_flow_invalid.mlir:[[# @LINE - 4]]:3: error: 'grad.gradient' op 'func.call' lies on the path from the target to the loss and has no gradient rule: @external has no body

// -----

func.func @rule_less_in_body(%x: tensor<3xf32>) -> tensor<3xf32> {
  %lb = arith.constant 0 : index
  %ub = arith.constant 4 : index
  %st = arith.constant 1 : index
  %r = scf.for %i = %lb to %ub step %st iter_args(%acc = %x) -> (tensor<3xf32>) {
    %p = grad.reduce mul %acc [0] : tensor<3xf32> to tensor<f32>
    %b = grad.broadcast %p [] : tensor<f32> to tensor<3xf32>
    scf.yield %b : tensor<3xf32>
  }
  %l = grad.reduce add %r [0] : tensor<3xf32> to tensor<f32>
  %g = grad.gradient %l wrt %x control_flow : tensor<f32>, tensor<3xf32>
  func.return %g : tensor<3xf32>
}

// CHECK:      control_flow_invalid.mlir:[[# @LINE - 4]]:3: error: 'grad.gradient' op 'grad.reduce mul' lies on the path from the target to the loss and has no gradient rule
// CHECK:      control_flow_invalid.mlir:[[# @LINE - 10]]:5: note: 'grad.reduce mul' is here

// -----

func.func @helper(%a: tensor<3xf32>, %s: memref<3xf32>) -> tensor<3xf32> {
  grad.store %a, %s : memref<3xf32>
  %v = grad.load %s : memref<3xf32>
  func.return %v : tensor<3xf32>
}
func.func @memory_in_callee(%x: tensor<3xf32>, %s: memref<3xf32>) -> tensor<3xf32> {
  %c = func.call @helper(%x, %s) : (tensor<3xf32>, memref<3xf32>) -> tensor<3xf32>
  %l = grad.reduce add %c [0] : tensor<3xf32> to tensor<f32>
  %g = grad.gradient %l wrt %x control_flow : tensor<f32>, tensor<3xf32>
  func.return %g : tensor<3xf32>
}

// CHECK:      control_flow_invalid.mlir:[[# @LINE - 4]]:3: error: 'grad.gradient' op 'grad.load' lies on the path from the target to the loss and has no gradient rule
// CHECK:      control_flow_invalid.mlir:[[# @LINE - 11]]:3: note: 'grad.load' is here
// CHECK:      control_flow_invalid.mlir:[[# @LINE - 13]]:3: note: a value on the path is stored into the slot here

// -----

// A load early in the body observes the store of the iteration before.
func.func @memory_across_iterations(%x: tensor<f32>, %s: memref<f32>) -> tensor<f32> {
  %lb = arith.constant 0 : index
  %ub = arith.constant 4 : index
  %st = arith.constant 1 : index
  %r = scf.for %i = %lb to %ub step %st iter_args(%acc = %x) -> (tensor<f32>) {
    %v = grad.load %s : memref<f32>
    %n = grad.mul %acc, %v : tensor<f32>
    grad.store %n, %s : memref<f32>
    scf.yield %n : tensor<f32>
  }
  %g = grad.gradient %r wrt %x control_flow : tensor<f32>, tensor<f32>
  func.return %g : tensor<f32>
}

// CHECK:      control_flow_invalid.mlir:[[# @LINE - 4]]:3: error: 'grad.gradient' op 'grad.load' lies on the path from the target to the loss and has no gradient rule
// CHECK:      control_flow_invalid.mlir:[[# @LINE - 10]]:5: note: 'grad.load' is here
// CHECK:      control_flow_invalid.mlir:[[# @LINE - 9]]:5: note: a value on the path is stored into the slot here

// -----

// Checkpointing attributes are checked on a loop on the path.
func.func @unknown_policy(%x: tensor<f32>) -> tensor<f32> {
  %lb = arith.constant 0 : index
  %ub = arith.constant 4 : index
  %st = arith.constant 1 : index
  %r = scf.for %i = %lb to %ub step %st iter_args(%acc = %x) -> (tensor<f32>) {
    %n = grad.mul %acc, %acc : tensor<f32>
    scf.yield %n : tensor<f32>
  } {"grad.checkpoint" = "revolve", "grad.snapshots" = 2 : i64}
  %g = grad.gradient %r wrt %x control_flow : tensor<f32>, tensor<f32>
  func.return %g : tensor<f32>
}

// CHECK:      control_flow_invalid.mlir:[[# @LINE - 8]]:3: error: 'scf.for' op 'grad.checkpoint' must be "periodic" or "binomial", got "revolve"

// -----

func.func @period_zero(%x: tensor<f32>) -> tensor<f32> {
  %lb = arith.constant 0 : index
  %ub = arith.constant 4 : index
  %st = arith.constant 1 : index
  %r = scf.for %i = %lb to %ub step %st iter_args(%acc = %x) -> (tensor<f32>) {
    %n = grad.mul %acc, %acc : tensor<f32>
    scf.yield %n : tensor<f32>
  } {"grad.checkpoint" = "periodic", "grad.period" = 0 : i64}
  %g = grad.gradient %r wrt %x control_flow : tensor<f32>, tensor<f32>
  func.return %g : tensor<f32>
}

// CHECK:      control_flow_invalid.mlir:[[# @LINE - 8]]:3: error: 'scf.for' op 'grad.period' must be a positive integer, got 0 : i64

// -----

// A period without a policy would be ignored: every iteration cached.
func.func @period_without_policy(%x: tensor<f32>) -> tensor<f32> {
  %lb = arith.constant 0 : index
  %ub = arith.constant 4 : index
  %st = arith.constant 1 : index
  %r = scf.for %i = %lb to %ub step %st iter_args(%acc = %x) -> (tensor<f32>) {
    %n = grad.mul %acc, %acc : tensor<f32>
    scf.yield %n : tensor<f32>
  } {"grad.period" = 2 : i64}
  %g = grad.gradient %r wrt %x control_flow : tensor<f32>, tensor<f32>
  func.return %g : tensor<f32>
}

// CHECK:      control_flow_invalid.mlir:[[# @LINE - 8]]:3: error: 'scf.for' op 'grad.period' applies to a loop with 'grad.checkpoint' ("periodic" or "binomial"); without it every iteration is cached

// -----

func.func @snapshots_of_periodic(%x: tensor<f32>) -> tensor<f32> {
  %lb = arith.constant 0 : index
  %ub = arith.constant 4 : index
  %st = arith.constant 1 : index
  %r = scf.for %i = %lb to %ub step %st iter_args(%acc = %x) -> (tensor<f32>) {
    %n = grad.mul %acc, %acc : tensor<f32>
    scf.yield %n : tensor<f32>
  } {"grad.checkpoint" = "periodic", "grad.snapshots" = 2 : i64}
  %g = grad.gradient %r wrt %x control_flow : tensor<f32>, tensor<f32>
  func.return %g : tensor<f32>
}

// CHECK:      control_flow_invalid.mlir:[[# @LINE - 8]]:3: error: 'scf.for' op 'grad.snapshots' applies to "binomial" checkpointing, not "periodic"

// -----

// A branch that yields nothing where the op has a result (xDSL gives a block
// without a terminator an empty `scf.yield`).
func.func @if_yields_nothing(%x: tensor<f32>, %c: i1) -> tensor<f32> {
  %r = scf.if %c -> (tensor<f32>) {
    %s = grad.sin %x : tensor<f32>
  } else {
    scf.yield %x : tensor<f32>
  }
  %g = grad.gradient %r wrt %x control_flow : tensor<f32>, tensor<f32>
  func.return %g : tensor<f32>
}

// CHECK:      control_flow_invalid.mlir:[[# @LINE - 9]]:3: error: 'scf.yield' op passes on () where 'scf.if' expects (tensor<f32>)

// -----

func.func @while_yields_another_type(%x: tensor<f32>, %c: i1) -> tensor<f32> {
  %r = scf.while (%a = %x) : (tensor<f32>) -> tensor<f32> {
    scf.condition(%c) %a : tensor<f32>
  } do {
  ^bb0(%b: tensor<f32>):
    %i = grad.cast %b : tensor<f32> to tensor<i32>
    scf.yield %i : tensor<i32>
  }
  %g = grad.gradient %r wrt %x control_flow : tensor<f32>, tensor<f32>
  func.return %g : tensor<f32>
}

// CHECK:      control_flow_invalid.mlir:[[# @LINE - 6]]:5: error: 'scf.yield' op passes on (tensor<i32>) where 'scf.while' expects (tensor<f32>)

// -----

func.func @while_snapshots_zero(%x: tensor<f32>, %c: i1) -> tensor<f32> {
  %r = scf.while (%a = %x) : (tensor<f32>) -> tensor<f32> {
    scf.condition(%c) %a : tensor<f32>
  } do {
  ^bb0(%b: tensor<f32>):
    %m = grad.mul %b, %b : tensor<f32>
    scf.yield %m : tensor<f32>
  } attributes {"grad.checkpoint" = "binomial", "grad.snapshots" = 0 : i64}
  %g = grad.gradient %r wrt %x control_flow : tensor<f32>, tensor<f32>
  func.return %g : tensor<f32>
}

// CHECK:      control_flow_invalid.mlir:[[# @LINE - 11]]:3: error: 'scf.while' op 'grad.snapshots' must be a positive integer, got 0 : i64

// -----

// The reverse runs a loop's body again: a store in it would be done again.
func.func @store_in_loop(%x: tensor<f32>, %s: memref<f32>) -> tensor<f32> {
  %lb = arith.constant 0 : index
  %ub = arith.constant 4 : index
  %st = arith.constant 1 : index
  %r = scf.for %i = %lb to %ub step %st iter_args(%acc = %x) -> (tensor<f32>) {
    %n = grad.mul %acc, %acc : tensor<f32>
    %d = grad.detach %n : tensor<f32>
    grad.store %d, %s : memref<f32>
    scf.yield %n : tensor<f32>
  }
  %g = grad.gradient %r wrt %x control_flow : tensor<f32>, tensor<f32>
  func.return %g : tensor<f32>
}

// CHECK:      control_flow_invalid.mlir:[[# @LINE - 4]]:3: error: 'grad.gradient' op 'scf.for' lies on the path from the target to the loss and writes memory: its reverse runs its regions again, which would write again
// CHECK:      control_flow_invalid.mlir:[[# @LINE - 11]]:3: note: 'scf.for' is here
// CHECK:      control_flow_invalid.mlir:[[# @LINE - 9]]:5: note: the memory is written here

// -----

// A condition that depends on the target is fine (the trip count is a
// constant of the derivative); one that reads a slot written after the loop
// starts is not: the reverse counts the iterations by running it again.
func.func @while_condition_reads_memory(%x: tensor<f32>, %s: memref<f32>) -> tensor<f32> {
  %r = scf.while (%a = %x) : (tensor<f32>) -> tensor<f32> {
    %lim = grad.load %s : memref<f32>
    %lt = grad.cmplt %a, %lim : tensor<f32>
    %c = tensor.extract %lt[] : tensor<i1>
    scf.condition(%c) %a : tensor<f32>
  } do {
  ^bb0(%b: tensor<f32>):
    %m = grad.mul %b, %b : tensor<f32>
    scf.yield %m : tensor<f32>
  }
  %zero = grad.const 0.0 : tensor<f32>
  grad.store %zero, %s : memref<f32>
  %g = grad.gradient %r wrt %x control_flow : tensor<f32>, tensor<f32>
  func.return %g : tensor<f32>
}

// CHECK:      control_flow_invalid.mlir:[[# @LINE - 4]]:3: error: 'grad.gradient' op 'scf.while' lies on the path from the target to the loss and its condition reads a slot that is written after it starts: its reverse counts the iterations by running the condition again, after that write
// CHECK:      control_flow_invalid.mlir:[[# @LINE - 17]]:3: note: 'scf.while' is here
// CHECK:      control_flow_invalid.mlir:[[# @LINE - 17]]:5: note: the slot is read here
// CHECK:      control_flow_invalid.mlir:[[# @LINE - 8]]:3: note: and written here
