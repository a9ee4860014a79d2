// RUN: not grad-opt %s 2>&1 | filecheck %s
// RUN: not grad-run %s 2>&1 | filecheck %s

// A loop bounded by its own induction variable: `%i` is defined only inside
// the body. xDSL's parser dropped this use from its undefined values (the
// body defines %i before the loop op exists), and its verifier then failed
// on it with a Python error (grad-run showed a traceback).

func.func @main() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %i step %c1 {
  }
  func.return
}

// CHECK:      {{^.*}}/driver/loop_bound_undefined.mlir:12:23: error: use of undefined value %i
// CHECK-NEXT: {{^}}  scf.for %i = %c0 to %i step %c1 {
// CHECK-NEXT: {{^}}                      ^
// CHECK-NOT:  error
