// RUN: grad-opt %s --split-input-file | filecheck %s
// RUN: printf '' | grad-opt | filecheck %s --check-prefix=EMPTY
// An empty input, or an empty chunk after a split marker, is an empty module,
// as in MLIR.

// CHECK:      builtin.module {
// CHECK-NEXT: }
// CHECK:      {{//}} -----
// CHECK-NEXT: builtin.module {
// CHECK-NEXT:   func.func @f() {

// EMPTY:      builtin.module {
// EMPTY-NEXT: }

// -----

func.func @f() {
  func.return
}
