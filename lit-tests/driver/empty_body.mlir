// RUN: not grad-opt %s 2>&1 | filecheck %s
// RUN: not grad-run %s 2>&1 | filecheck %s

// A function body without even a `func.return` is an error, as in MLIR
// ("empty block: expect at least a terminator"). xDSL checks this when it
// verifies a block, which gradopt's verifier (op by op, to locate errors)
// skipped: grad-run ran the empty body, which returned nothing, and crashed.

func.func @main(%a: tensor<5xf32>) -> tensor<5xf32> {
}

// CHECK:      {{^.*}}/driver/empty_body.mlir:9:1: error: 'func.func' op region #0 is empty: its block needs at least a terminator
// CHECK-NEXT: {{^}}func.func @main(
// CHECK-NOT:  error
