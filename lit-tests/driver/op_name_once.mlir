// RUN: not grad-opt %s 2>&1 | filecheck %s

// xDSL writes some messages as `Operation NAME ...`; the report names the op
// once, at its start.

func.func @f() {
  "test.op"() ({
    "test.op"() : () -> ()
  }) : () -> ()
  func.return
}

// CHECK:     op_name_once.mlir:8:5: error: 'test.op' op terminates block in single-block region but is not a terminator
// CHECK-NOT: Operation test.op
