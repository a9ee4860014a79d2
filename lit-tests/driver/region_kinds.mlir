// RUN: not grad-opt %s --split-input-file --allow-unregistered-dialect 2>/dev/null | filecheck %s
// RUN: grad-opt %s --split-input-file --allow-unregistered-dialect --verify-diagnostics | filecheck %s --check-prefix=DIAG

// Dominance holds only in SSACFG regions (MLIR's RegionKindInterface). The
// body of `builtin.module` is a graph region: its ops may use values defined
// after them, even in cycles, and so may the ops nested in them. The regions
// of an unregistered op are graph regions too (nobody knows their kind);
// those of `func.func` and `scf.for` are SSACFG (driver/dominance.mlir).

builtin.module {
  %0 = "test.op"(%1) : (i32) -> i32
  %1 = "test.op"(%0) : (i32) -> i32
}

// CHECK:      %0 = "test.op"(%1) : (i32) -> i32
// CHECK-NEXT: %1 = "test.op"(%0) : (i32) -> i32

// -----

builtin.module {
  "test.op"() ({
    "test.termop"(%c) : (i32) -> ()
  }) : () -> ()
  %c = "test.op"() : () -> i32
}

// CHECK:      "test.op"() ({
// CHECK-NEXT:   "test.termop"(%c) : (i32) -> ()
// CHECK-NEXT: }) : () -> ()
// CHECK-NEXT: %c = "test.op"() : () -> i32

// -----

func.func @in_an_unregistered_op() {
  "unknown.graph"() ({
    %a = "unknown.use"(%b) : (i32) -> i32
    %b = "unknown.def"() : () -> i32
  }) : () -> ()
  func.return
}

// CHECK-LABEL: func.func @in_an_unregistered_op
// CHECK:         %a = "unknown.use"(%b) : (i32) -> i32

// -----

// xDSL's test ops stand for any op, as unregistered ops do in MLIR.
"test.op"() ({
  %0 = "test.pureop"(%1) : (i32) -> i32
  %1 = "test.pureop"(%0) : (i32) -> i32
  "test.termop"() : () -> ()
}) : () -> ()

// CHECK:      %0 = "test.pureop"(%1) : (i32) -> i32
// CHECK-NEXT: %1 = "test.pureop"(%0) : (i32) -> i32

// -----

// A function body that holds an e-graph (xDSL's equality saturation puts
// e-classes straight in it) has cycles through its e-classes.
func.func @egraph(%a: i64) -> i64 {
  %zero = arith.constant 0 : i64
  %c_res = equivalence.class %a, %sum : i64
  %c_zero = equivalence.class %zero : i64
  %sum = arith.addi %c_res, %c_zero : i64
  func.return %c_res : i64
}

// CHECK-LABEL: func.func @egraph
// CHECK:         %c_res = equivalence.class %a, %sum : i64

// -----

// An SSACFG region inside a graph region still needs dominance.
builtin.module {
  func.func @late(%x: tensor<f32>) -> tensor<f32> {
    %a = grad.add %b, %x : tensor<f32>
    %b = grad.neg %x : tensor<f32>
    func.return %a : tensor<f32>
  }
}

// DIAG: region_kinds.mlir:[[# @LINE - 6]]:5: error: 'grad.add' op operand #0 does not dominate this use

// -----

// One bad function does not cost the others: with --verify-diagnostics each
// chunk is reported alone.
func.func @good() {
  func.return
}

// DIAG-LABEL: func.func @good
