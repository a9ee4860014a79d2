// RUN: not grad-opt %s 2>&1 | filecheck %s

// As xDSL's verifier: an op's regions are verified before the op itself, so
// of two errors, the nested one is reported (here the reshape, not the
// function whose entry block does not match its type).

"func.func"() <{sym_name = "f", function_type = (tensor<3xf32>) -> ()}> ({
^bb0(%x: tensor<2xf32>):
  %r = grad.reshape %x : tensor<2xf32> to tensor<3xf32>
  func.return
}) : () -> ()

// CHECK:     verify_order.mlir:9:3: error: 'grad.reshape' op result must have as many elements as the input (2), got 3
// CHECK-NOT: error:
