// RUN: grad-opt %s --split-input-file --verify-diagnostics | filecheck %s
// RUN: grad-opt %s --split-input-file --verify-diagnostics -p expand-gradient | filecheck %s

// SPEC §4 (and §5.5, §5.6 for vjp and jvp): the verifier rejects the op with a
// diagnostic on the differentiation op that names the offending op or value;
// a note points at the offending op where there is one. Each case checks the
// message and the line:column of the error and of every note. The same
// diagnostics come out whether or not expand-gradient is requested (the
// module is verified before any pass runs).

// Rule 1: the loss is not a scalar: a tensor<3xf32> loss.
func.func @loss_not_scalar(%x: tensor<3xf32>) -> tensor<3xf32> {
  %y = grad.sin %x : tensor<3xf32>
  %g = grad.gradient %y wrt %x : tensor<3xf32>, tensor<3xf32>
  func.return %g : tensor<3xf32>
}

// CHECK:      invalid.mlir:[[# @LINE - 4]]:3: error: 'grad.gradient' op loss must be a scalar f32, got tensor<3xf32>
// CHECK-NEXT:   %g = grad.gradient %y wrt %x : tensor<3xf32>, tensor<3xf32>
// CHECK-NEXT:   ^
// CHECK-NEXT: {{//}} -----

// -----

// Rule 1: the loss is a scalar, but i32.
func.func @loss_not_f32(%x: tensor<f32>) -> tensor<f32> {
  %y = grad.cast %x : tensor<f32> to tensor<i32>
  %g = grad.gradient %y wrt %x : tensor<i32>, tensor<f32>
  func.return %g : tensor<f32>
}

// CHECK:      invalid.mlir:[[# @LINE - 4]]:3: error: 'grad.gradient' op loss must be a scalar f32, got tensor<i32>
// CHECK-NEXT:   %g = grad.gradient %y wrt %x : tensor<i32>, tensor<f32>
// CHECK-NEXT:   ^
// CHECK-NEXT: {{//}} -----

// -----

// Rule 2: a memref target (a slot is not a value that carries a gradient).
func.func @target_memref(%s: memref<3xf32>) -> memref<3xf32> {
  %x = grad.load %s : memref<3xf32>
  %l = grad.reduce add %x [0] : tensor<3xf32> to tensor<f32>
  %g = grad.gradient %l wrt %s : tensor<f32>, memref<3xf32>
  func.return %g : memref<3xf32>
}

// CHECK:      invalid.mlir:[[# @LINE - 4]]:3: error: 'grad.gradient' op target must be an f32 tensor, got memref<3xf32> (target 0)
// CHECK-NEXT:   %g = grad.gradient %l wrt %s : tensor<f32>, memref<3xf32>
// CHECK-NEXT:   ^
// CHECK-NEXT: {{//}} -----

// -----

// Rule 2: an i32 target.
func.func @target_i32(%x: tensor<3xf32>, %n: tensor<3xi32>) -> tensor<3xi32> {
  %l = grad.reduce add %x [0] : tensor<3xf32> to tensor<f32>
  %g = grad.gradient %l wrt %n : tensor<f32>, tensor<3xi32>
  func.return %g : tensor<3xi32>
}

// CHECK:      invalid.mlir:[[# @LINE - 4]]:3: error: 'grad.gradient' op target must be an f32 tensor, got tensor<3xi32> (target 0)
// CHECK-NEXT:   %g = grad.gradient %l wrt %n : tensor<f32>, tensor<3xi32>
// CHECK-NEXT:   ^
// CHECK-NEXT: {{//}} -----

// -----

// Rule 2: an i1 target (a comparison), listed after a valid target.
func.func @target_i1(%x: tensor<3xf32>, %y: tensor<3xf32>) -> tensor<3xi1> {
  %c = grad.cmplt %x, %y : tensor<3xf32>
  %l = grad.reduce add %x [0] : tensor<3xf32> to tensor<f32>
  %gx, %gc = grad.gradient %l wrt %x, %c : tensor<f32>, tensor<3xf32>, tensor<3xi1>
  func.return %gc : tensor<3xi1>
}

// CHECK:      invalid.mlir:[[# @LINE - 4]]:3: error: 'grad.gradient' op target must be an f32 tensor, got tensor<3xi1> (target 1)
// CHECK-NEXT:   %gx, %gc = grad.gradient %l wrt %x, %c : tensor<f32>, tensor<3xf32>, tensor<3xi1>
// CHECK-NEXT:   ^
// CHECK-NEXT: {{//}} -----

// -----

// Rule 3: a literal target; the note points at the `grad.const`.
func.func @target_literal() -> tensor<f32> {
  %c = grad.const 2.0 : tensor<f32>
  %l = grad.mul %c, %c : tensor<f32>
  %g = grad.gradient %l wrt %c : tensor<f32>, tensor<f32>
  func.return %g : tensor<f32>
}

// CHECK:      invalid.mlir:[[# @LINE - 4]]:3: error: 'grad.gradient' op cannot differentiate with respect to a literal
// CHECK-NEXT:   %g = grad.gradient %l wrt %c : tensor<f32>, tensor<f32>
// CHECK-NEXT:   ^
// CHECK-NEXT: invalid.mlir:[[# @LINE - 9]]:3: note: the literal is here
// CHECK-NEXT:   %c = grad.const 2.0 : tensor<f32>
// CHECK-NEXT:   ^
// CHECK-NEXT: {{//}} -----

// -----

// Rule 4: the loss depends on the induction variable of the enclosing loop
// (through the index of a load); the note points at the loop.
func.func @loop_induction_variable(%x: tensor<f32>, %s: memref<4xf32>) {
  %lb = arith.constant 0 : index
  %ub = arith.constant 4 : index
  %st = arith.constant 1 : index
  scf.for %i = %lb to %ub step %st {
    %v = grad.load %s[%i] : memref<4xf32>
    %l = grad.mul %v, %x : tensor<f32>
    %g = grad.gradient %l wrt %x : tensor<f32>, tensor<f32>
  }
  func.return
}

// CHECK:      invalid.mlir:[[# @LINE - 5]]:5: error: 'grad.gradient' op depends on an open loop range
// CHECK-NEXT:     %g = grad.gradient %l wrt %x : tensor<f32>, tensor<f32>
// CHECK-NEXT:     ^
// CHECK-NEXT: invalid.mlir:[[# @LINE - 11]]:3: note: the loop is here
// CHECK-NEXT:   scf.for %i = %lb to %ub step %st {
// CHECK-NEXT:   ^
// CHECK-NEXT: {{//}} -----

// -----

// Rule 4: the target is an iteration argument of the enclosing loop.
func.func @loop_iter_arg(%x: tensor<f32>) -> tensor<f32> {
  %lb = arith.constant 0 : index
  %ub = arith.constant 4 : index
  %st = arith.constant 1 : index
  %r = scf.for %i = %lb to %ub step %st iter_args(%acc = %x) -> (tensor<f32>) {
    %l = grad.mul %acc, %acc : tensor<f32>
    %g = grad.gradient %l wrt %acc : tensor<f32>, tensor<f32>
    scf.yield %g : tensor<f32>
  }
  func.return %r : tensor<f32>
}

// CHECK:      invalid.mlir:[[# @LINE - 6]]:5: error: 'grad.gradient' op depends on an open loop range
// CHECK-NEXT:     %g = grad.gradient %l wrt %acc : tensor<f32>, tensor<f32>
// CHECK-NEXT:     ^
// CHECK-NEXT: invalid.mlir:[[# @LINE - 11]]:3: note: the loop is here
// CHECK-NEXT:   %r = scf.for %i = %lb to %ub step %st iter_args(%acc = %x) -> (tensor<f32>) {
// CHECK-NEXT:   ^
// CHECK-NEXT: {{//}} -----

// -----

// Rule 4: the loss depends on an iteration argument, the target is outside.
func.func @loop_iter_arg_loss(%x: tensor<f32>, %w: tensor<f32>) -> tensor<f32> {
  %lb = arith.constant 0 : index
  %ub = arith.constant 4 : index
  %st = arith.constant 1 : index
  %r = scf.for %i = %lb to %ub step %st iter_args(%acc = %x) -> (tensor<f32>) {
    %l = grad.mul %acc, %w : tensor<f32>
    %g = grad.gradient %l wrt %w : tensor<f32>, tensor<f32>
    scf.yield %g : tensor<f32>
  }
  func.return %r : tensor<f32>
}

// CHECK:      invalid.mlir:[[# @LINE - 6]]:5: error: 'grad.gradient' op depends on an open loop range
// CHECK-NEXT:     %g = grad.gradient %l wrt %w : tensor<f32>, tensor<f32>
// CHECK-NEXT:     ^
// CHECK-NEXT: invalid.mlir:[[# @LINE - 11]]:3: note: the loop is here
// CHECK-NEXT:   %r = scf.for %i = %lb to %ub step %st iter_args(%acc = %x) -> (tensor<f32>) {
// CHECK-NEXT:   ^
// CHECK-NEXT: {{//}} -----

// -----

// Rule 5: a `func.call` on the path.
func.func private @helper(tensor<f32>) -> tensor<f32>

func.func @call_on_path(%x: tensor<f32>) -> tensor<f32> {
  %c = func.call @helper(%x) : (tensor<f32>) -> tensor<f32>
  %l = grad.mul %c, %x : tensor<f32>
  %g = grad.gradient %l wrt %x : tensor<f32>, tensor<f32>
  func.return %g : tensor<f32>
}

// CHECK:      invalid.mlir:[[# @LINE - 4]]:3: error: 'grad.gradient' op 'func.call' lies on the path from the target to the loss and has no gradient rule
// CHECK-NEXT:   %g = grad.gradient %l wrt %x : tensor<f32>, tensor<f32>
// CHECK-NEXT:   ^
// CHECK-NEXT: invalid.mlir:[[# @LINE - 9]]:3: note: 'func.call' is here
// CHECK-NEXT:   %c = func.call @helper(%x) : (tensor<f32>) -> tensor<f32>
// CHECK-NEXT:   ^
// CHECK-NEXT: {{//}} -----

// -----

// Rule 5: a memory edge. A path value is stored into %s, and a later load of
// %s feeds the loss: the load is on the path and has no rule. Notes point at
// the load and at the store.
func.func @load_after_store(%x: tensor<3xf32>, %s: memref<3xf32>) -> tensor<3xf32> {
  %y = grad.sin %x : tensor<3xf32>
  grad.store %y, %s : memref<3xf32>
  %z = grad.load %s : memref<3xf32>
  %l = grad.reduce add %z [0] : tensor<3xf32> to tensor<f32>
  %g = grad.gradient %l wrt %x : tensor<f32>, tensor<3xf32>
  func.return %g : tensor<3xf32>
}

// CHECK:      invalid.mlir:[[# @LINE - 4]]:3: error: 'grad.gradient' op 'grad.load' lies on the path from the target to the loss and has no gradient rule
// CHECK-NEXT:   %g = grad.gradient %l wrt %x : tensor<f32>, tensor<3xf32>
// CHECK-NEXT:   ^
// CHECK-NEXT: invalid.mlir:[[# @LINE - 9]]:3: note: 'grad.load' is here
// CHECK-NEXT:   %z = grad.load %s : memref<3xf32>
// CHECK-NEXT:   ^
// CHECK-NEXT: invalid.mlir:[[# @LINE - 13]]:3: note: a value on the path is stored into the slot here
// CHECK-NEXT:   grad.store %y, %s : memref<3xf32>
// CHECK-NEXT:   ^
// CHECK-NEXT: {{//}} -----

// -----

// Rule 5: a memory edge from a store inside a loop body to a load after the
// loop (the load follows the store in the function).
func.func @load_after_store_in_loop(%x: tensor<f32>, %s: memref<f32>) -> tensor<f32> {
  %lb = arith.constant 0 : index
  %ub = arith.constant 4 : index
  %st = arith.constant 1 : index
  scf.for %i = %lb to %ub step %st {
    grad.store %x, %s : memref<f32>
  }
  %v = grad.load %s : memref<f32>
  %l = grad.mul %v, %x : tensor<f32>
  %g = grad.gradient %l wrt %x : tensor<f32>, tensor<f32>
  func.return %g : tensor<f32>
}

// CHECK:      invalid.mlir:[[# @LINE - 4]]:3: error: 'grad.gradient' op 'grad.load' lies on the path from the target to the loss and has no gradient rule
// CHECK-NEXT:   %g = grad.gradient %l wrt %x : tensor<f32>, tensor<f32>
// CHECK-NEXT:   ^
// CHECK-NEXT: invalid.mlir:[[# @LINE - 9]]:3: note: 'grad.load' is here
// CHECK-NEXT:   %v = grad.load %s : memref<f32>
// CHECK-NEXT:   ^
// CHECK-NEXT: invalid.mlir:[[# @LINE - 14]]:5: note: a value on the path is stored into the slot here
// CHECK-NEXT:     grad.store %x, %s : memref<f32>
// CHECK-NEXT:     ^
// CHECK-NEXT: {{//}} -----

// -----

// Rule 5: an `scf.for` result on the path (the target enters as an iter_arg).
func.func @for_result_on_path(%x: tensor<f32>) -> tensor<f32> {
  %lb = arith.constant 0 : index
  %ub = arith.constant 4 : index
  %st = arith.constant 1 : index
  %r = scf.for %i = %lb to %ub step %st iter_args(%acc = %x) -> (tensor<f32>) {
    %n = grad.mul %acc, %acc : tensor<f32>
    scf.yield %n : tensor<f32>
  }
  %g = grad.gradient %r wrt %x : tensor<f32>, tensor<f32>
  func.return %g : tensor<f32>
}

// CHECK:      invalid.mlir:[[# @LINE - 4]]:3: error: 'grad.gradient' op 'scf.for' lies on the path from the target to the loss and has no gradient rule
// CHECK-NEXT:   %g = grad.gradient %r wrt %x : tensor<f32>, tensor<f32>
// CHECK-NEXT:   ^
// CHECK-NEXT: invalid.mlir:[[# @LINE - 11]]:3: note: 'scf.for' is here
// CHECK-NEXT:   %r = scf.for %i = %lb to %ub step %st iter_args(%acc = %x) -> (tensor<f32>) {
// CHECK-NEXT:   ^
// CHECK-NEXT: {{//}} -----

// -----

// Rule 5: an `scf.for` result on the path because its body uses the target
// (captured from outside, not passed as an iter_arg).
func.func @for_captures_target(%x: tensor<f32>, %z: tensor<f32>) -> tensor<f32> {
  %lb = arith.constant 0 : index
  %ub = arith.constant 4 : index
  %st = arith.constant 1 : index
  %r = scf.for %i = %lb to %ub step %st iter_args(%acc = %z) -> (tensor<f32>) {
    %n = grad.add %acc, %x : tensor<f32>
    scf.yield %n : tensor<f32>
  }
  %g = grad.gradient %r wrt %x : tensor<f32>, tensor<f32>
  func.return %g : tensor<f32>
}

// CHECK:      invalid.mlir:[[# @LINE - 4]]:3: error: 'grad.gradient' op 'scf.for' lies on the path from the target to the loss and has no gradient rule
// CHECK-NEXT:   %g = grad.gradient %r wrt %x : tensor<f32>, tensor<f32>
// CHECK-NEXT:   ^
// CHECK-NEXT: invalid.mlir:[[# @LINE - 11]]:3: note: 'scf.for' is here
// CHECK-NEXT:   %r = scf.for %i = %lb to %ub step %st iter_args(%acc = %z) -> (tensor<f32>) {
// CHECK-NEXT:   ^
// CHECK-NEXT: {{//}} -----

// -----

// Rule 5: `grad.reduce mul` on the path.
func.func @reduce_mul_on_path(%x: tensor<3xf32>) -> tensor<3xf32> {
  %y = grad.sin %x : tensor<3xf32>
  %l = grad.reduce mul %y [0] : tensor<3xf32> to tensor<f32>
  %g = grad.gradient %l wrt %x : tensor<f32>, tensor<3xf32>
  func.return %g : tensor<3xf32>
}

// CHECK:      invalid.mlir:[[# @LINE - 4]]:3: error: 'grad.gradient' op 'grad.reduce mul' lies on the path from the target to the loss and has no gradient rule
// CHECK-NEXT:   %g = grad.gradient %l wrt %x : tensor<f32>, tensor<3xf32>
// CHECK-NEXT:   ^
// CHECK-NEXT: invalid.mlir:[[# @LINE - 8]]:3: note: 'grad.reduce mul' is here
// CHECK-NEXT:   %l = grad.reduce mul %y [0] : tensor<3xf32> to tensor<f32>
// CHECK-NEXT:   ^
// CHECK-NEXT: {{//}} -----

// -----

// Rule 5: any other op without a rule, here an upstream `math.sinh`
// (SPEC §10.2 has no row for it).
func.func @other_op_on_path(%x: tensor<f32>) -> tensor<f32> {
  %y = math.sinh %x : tensor<f32>
  %g = grad.gradient %y wrt %x : tensor<f32>, tensor<f32>
  func.return %g : tensor<f32>
}

// CHECK:      invalid.mlir:[[# @LINE - 4]]:3: error: 'grad.gradient' op 'math.sinh' lies on the path from the target to the loss and has no gradient rule
// CHECK-NEXT:   %g = grad.gradient %y wrt %x : tensor<f32>, tensor<f32>
// CHECK-NEXT:   ^
// CHECK-NEXT: invalid.mlir:[[# @LINE - 8]]:3: note: 'math.sinh' is here
// CHECK-NEXT:   %y = math.sinh %x : tensor<f32>
// CHECK-NEXT:   ^
// CHECK-NEXT: {{//}} -----

// -----

// vjp: the cotangent must have the loss's type (only expressible in generic
// form: the custom syntax gives the cotangent the loss's type).
func.func @vjp_cotangent_type(%x: tensor<3xf32>, %ct: tensor<f32>) -> tensor<3xf32> {
  %y = grad.sin %x : tensor<3xf32>
  %g = "grad.vjp"(%y, %ct, %x) : (tensor<3xf32>, tensor<f32>, tensor<3xf32>) -> tensor<3xf32>
  func.return %g : tensor<3xf32>
}

// CHECK:      invalid.mlir:[[# @LINE - 4]]:3: error: 'grad.vjp' op cotangent must have the loss's type
// CHECK-NEXT:   %g = "grad.vjp"(%y, %ct, %x) : (tensor<3xf32>, tensor<f32>, tensor<3xf32>) -> tensor<3xf32>
// CHECK-NEXT:   ^
// CHECK-NEXT: {{//}} -----

// -----

// vjp: the loss must be an f32 tensor (any shape), here i32.
func.func @vjp_loss_not_f32(%x: tensor<3xf32>, %ct: tensor<3xi32>) -> tensor<3xf32> {
  %y = grad.cast %x : tensor<3xf32> to tensor<3xi32>
  %g = grad.vjp %y, %ct wrt %x : tensor<3xi32>, tensor<3xf32>
  func.return %g : tensor<3xf32>
}

// CHECK:      invalid.mlir:[[# @LINE - 4]]:3: error: 'grad.vjp' op loss must be an f32 tensor, got tensor<3xi32>
// CHECK-NEXT:   %g = grad.vjp %y, %ct wrt %x : tensor<3xi32>, tensor<3xf32>
// CHECK-NEXT:   ^
// CHECK-NEXT: {{//}} -----

// -----

// vjp: §4 rules 2-5 apply too, e.g. a `reduce mul` on the path.
func.func @vjp_reduce_mul(%x: tensor<2x3xf32>, %ct: tensor<2xf32>) -> tensor<2x3xf32> {
  %y = grad.reduce mul %x [1] : tensor<2x3xf32> to tensor<2xf32>
  %g = grad.vjp %y, %ct wrt %x : tensor<2xf32>, tensor<2x3xf32>
  func.return %g : tensor<2x3xf32>
}

// CHECK:      invalid.mlir:[[# @LINE - 4]]:3: error: 'grad.vjp' op 'grad.reduce mul' lies on the path from the target to the loss and has no gradient rule
// CHECK-NEXT:   %g = grad.vjp %y, %ct wrt %x : tensor<2xf32>, tensor<2x3xf32>
// CHECK-NEXT:   ^
// CHECK-NEXT: invalid.mlir:[[# @LINE - 8]]:3: note: 'grad.reduce mul' is here
// CHECK-NEXT:   %y = grad.reduce mul %x [1] : tensor<2x3xf32> to tensor<2xf32>
// CHECK-NEXT:   ^
// CHECK-NEXT: {{//}} -----

// -----

// jvp: the tangent must have the target's type (generic form only).
func.func @jvp_tangent_type(%x: tensor<3xf32>, %tx: tensor<f32>) -> tensor<3xf32> {
  %y = grad.sin %x : tensor<3xf32>
  %t = "grad.jvp"(%y, %x, %tx) : (tensor<3xf32>, tensor<3xf32>, tensor<f32>) -> tensor<3xf32>
  func.return %t : tensor<3xf32>
}

// CHECK:      invalid.mlir:[[# @LINE - 4]]:3: error: 'grad.jvp' op tangent must have the target's type
// CHECK-NEXT:   %t = "grad.jvp"(%y, %x, %tx) : (tensor<3xf32>, tensor<3xf32>, tensor<f32>) -> tensor<3xf32>
// CHECK-NEXT:   ^
// CHECK-NEXT: {{//}} -----

// -----

// jvp: §4 rule 4 applies to the tangent too: it may not depend on an open
// loop range (here an iteration argument).
func.func @jvp_tangent_in_loop(%x: tensor<f32>) -> tensor<f32> {
  %lb = arith.constant 0 : index
  %ub = arith.constant 4 : index
  %st = arith.constant 1 : index
  %r = scf.for %i = %lb to %ub step %st iter_args(%acc = %x) -> (tensor<f32>) {
    %y = grad.sin %x : tensor<f32>
    %t = grad.jvp %y wrt %x, %acc : tensor<f32>, tensor<f32>
    scf.yield %t : tensor<f32>
  }
  func.return %r : tensor<f32>
}

// CHECK:      invalid.mlir:[[# @LINE - 6]]:5: error: 'grad.jvp' op depends on an open loop range
// CHECK-NEXT:     %t = grad.jvp %y wrt %x, %acc : tensor<f32>, tensor<f32>
// CHECK-NEXT:     ^
// CHECK-NEXT: invalid.mlir:[[# @LINE - 11]]:3: note: the loop is here
// CHECK-NEXT:   %r = scf.for %i = %lb to %ub step %st iter_args(%acc = %x) -> (tensor<f32>) {
// CHECK-NEXT:   ^
// CHECK-NEXT: {{//}} -----

// -----

// jvp: §4 rule 3 applies to its target: no literal.
func.func @jvp_literal_target(%tc: tensor<f32>) -> tensor<f32> {
  %c = grad.const 2.0 : tensor<f32>
  %y = grad.sin %c : tensor<f32>
  %t = grad.jvp %y wrt %c, %tc : tensor<f32>, tensor<f32>
  func.return %t : tensor<f32>
}

// CHECK:      invalid.mlir:[[# @LINE - 4]]:3: error: 'grad.jvp' op cannot differentiate with respect to a literal
// CHECK-NEXT:   %t = grad.jvp %y wrt %c, %tc : tensor<f32>, tensor<f32>
// CHECK-NEXT:   ^
// CHECK-NEXT: invalid.mlir:[[# @LINE - 9]]:3: note: the literal is here
// CHECK-NEXT:   %c = grad.const 2.0 : tensor<f32>
// CHECK-NEXT:   ^
// CHECK-NEXT: {{//}} -----

// -----

// Rule 6: a computed target with a structurally equal twin that the loss
// depends on. `cse` would make %b the same node as %a, and the gradient
// w.r.t. %a would be 2 sin x instead of sin x.
func.func @twin(%x: tensor<f32>) -> tensor<f32> {
  %a = grad.sin %x : tensor<f32>
  %b = grad.sin %x : tensor<f32>
  %l = grad.mul %a, %b : tensor<f32>
  %g = grad.gradient %l wrt %a : tensor<f32>, tensor<f32>
  func.return %g : tensor<f32>
}

// CHECK:      invalid.mlir:[[# @LINE - 4]]:3: error: 'grad.gradient' op target has a structurally equal twin at [[# @LINE - 6]]:3; cse would merge them and change this gradient (target 0)
// CHECK-NEXT:   %g = grad.gradient %l wrt %a : tensor<f32>, tensor<f32>
// CHECK-NEXT:   ^
// CHECK-NEXT: invalid.mlir:[[# @LINE - 9]]:3: note: the twin is here
// CHECK-NEXT:   %b = grad.sin %x : tensor<f32>
// CHECK-NEXT:   ^
// CHECK-NEXT: invalid.mlir:[[# @LINE - 13]]:3: note: the target is here
// CHECK-NEXT:   %a = grad.sin %x : tensor<f32>
// CHECK-NEXT:   ^
// CHECK-NEXT: {{//}} -----

// -----

// Rule 6, recursively: %a and %b read equal literals (which cse merges
// first), so they are twins too; the twin is deep in the loss's graph.
func.func @twin_through_twins(%x: tensor<3xf32>) -> tensor<f32> {
  %c = grad.const 2.0 : tensor<3xf32>
  %d = grad.const 2.0 : tensor<3xf32>
  %a = grad.mul %x, %c : tensor<3xf32>
  %b = grad.mul %x, %d : tensor<3xf32>
  %e = grad.exp2 %b : tensor<3xf32>
  %s = grad.add %a, %e : tensor<3xf32>
  %l = grad.reduce add %s [0] : tensor<3xf32> to tensor<f32>
  %g = grad.gradient %l wrt %a : tensor<f32>, tensor<3xf32>
  func.return %l : tensor<f32>
}

// CHECK:      invalid.mlir:[[# @LINE - 4]]:3: error: 'grad.gradient' op target has a structurally equal twin at [[# @LINE - 8]]:3; cse would merge them and change this gradient (target 0)
// CHECK:      invalid.mlir:[[# @LINE - 9]]:3: note: the twin is here
// CHECK-NEXT:   %b = grad.mul %x, %d : tensor<3xf32>
// CHECK:      invalid.mlir:[[# @LINE - 12]]:3: note: the target is here
// CHECK-NEXT:   %a = grad.mul %x, %c : tensor<3xf32>
// CHECK:      {{//}} -----

// -----

// Rule 6: two targets that are twins of each other; the loss depends on the
// first only, yet after cse the second would be it (its gradient, 0 here,
// would become cos x).
func.func @twin_targets(%x: tensor<f32>) -> (tensor<f32>, tensor<f32>) {
  %a = grad.sin %x : tensor<f32>
  %b = grad.sin %x : tensor<f32>
  %l = grad.neg %a : tensor<f32>
  %ga, %gb = grad.gradient %l wrt %a, %b : tensor<f32>, tensor<f32>, tensor<f32>
  func.return %ga, %gb : tensor<f32>, tensor<f32>
}

// CHECK:      invalid.mlir:[[# @LINE - 4]]:3: error: 'grad.gradient' op target has a structurally equal twin at [[# @LINE - 7]]:3; cse would merge them and change this gradient (target 1)
// CHECK:      {{//}} -----

// -----

// Rule 6 holds for jvp and vjp targets alike.
func.func @twin_jvp(%x: tensor<f32>, %t: tensor<f32>) -> tensor<f32> {
  %a = grad.neg %x : tensor<f32>
  %b = grad.neg %x : tensor<f32>
  %y = grad.mul %a, %b : tensor<f32>
  %r = grad.jvp %y wrt %a, %t : tensor<f32>, tensor<f32>
  func.return %r : tensor<f32>
}

// CHECK:      invalid.mlir:[[# @LINE - 4]]:3: error: 'grad.jvp' op target has a structurally equal twin at [[# @LINE - 6]]:3; cse would merge them and change this gradient (target 0)
// CHECK:      {{//}} -----

// -----

func.func @twin_vjp(%x: tensor<2xf32>, %ct: tensor<2xf32>) -> tensor<2xf32> {
  %a = grad.sqrt %x : tensor<2xf32>
  %b = grad.sqrt %x : tensor<2xf32>
  %y = grad.add %a, %b : tensor<2xf32>
  %r = grad.vjp %y, %ct wrt %b : tensor<2xf32>, tensor<2xf32>
  func.return %r : tensor<2xf32>
}

// CHECK:      invalid.mlir:[[# @LINE - 4]]:3: error: 'grad.vjp' op target has a structurally equal twin at [[# @LINE - 7]]:3; cse would merge them and change this gradient (target 0)
// CHECK-NEXT:   %r = grad.vjp %y, %ct wrt %b : tensor<2xf32>, tensor<2xf32>
