// RUN: grad-opt %s --split-input-file --verify-diagnostics | filecheck %s
// A use before the definition is refused, as in MLIR (xDSL's parser accepts
// forward references and its verifier does not check dominance).

func.func @use_before_def(%x: tensor<f32>) -> tensor<f32> {
  %a = grad.add %b, %x : tensor<f32>
  %b = grad.neg %x : tensor<f32>
  func.return %a : tensor<f32>
}

// CHECK: dominance.mlir:[[# @LINE - 5]]:3: error: 'grad.add' op operand #0 does not dominate this use

// -----

// A value defined inside a loop body is not visible after the loop: the
// parser's scoping already says so.
func.func @escaped_from_loop(%x: tensor<f32>) -> tensor<f32> {
  %lb = arith.constant 0 : index
  %ub = arith.constant 2 : index
  %st = arith.constant 1 : index
  scf.for %i = %lb to %ub step %st {
    %inner = grad.neg %x : tensor<f32>
  }
  func.return %inner : tensor<f32>
}

// CHECK: dominance.mlir:[[# @LINE - 3]]:15: error: use of undefined value %inner
