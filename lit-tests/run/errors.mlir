// RUN: not grad-run %s --entry divide > %t.divide.out 2> %t.divide.err
// RUN: filecheck %s --input-file=%t.divide.err --check-prefix=DIVIDE
// RUN: filecheck %s --input-file=%t.divide.out --allow-empty --check-prefix=QUIET
// RUN: not grad-run %s --entry index 2>&1 | filecheck %s --check-prefix=INDEX
// RUN: not grad-run %s --entry shift 2>&1 | filecheck %s --check-prefix=SHIFT
// RUN: not grad-run %s --entry nested 2>&1 | filecheck %s --check-prefix=NESTED
// RUN: not grad-run %s --entry missing 2>&1 | filecheck %s --check-prefix=ENTRY
// RUN: not grad-run %s --entry index --slot 0=[1,2] 2>&1 | filecheck %s --check-prefix=COUNT
// RUN: not grad-run %s --entry index --slot 1=zeros 2>&1 | filecheck %s --check-prefix=SLOT
// RUN: not grad-run %s --entry index --slot 0=%t.missing.npy 2>&1 | filecheck %s --check-prefix=FILE

// A run-time error names the op and its source line, prints nothing else and
// exits with status 1.

func.func @divide() -> tensor<2xi32> {
  %a = grad.const 7 : tensor<2xi32>
  %b = grad.const dense<[1, 0]> : tensor<2xi32>
  %q = grad.idiv %a, %b : tensor<2xi32>
  func.return %q : tensor<2xi32>
}

// DIVIDE:      errors.mlir:18:3: error: 'grad.idiv' divides by zero
// DIVIDE-NEXT: %q = grad.idiv %a, %b : tensor<2xi32>
// DIVIDE-NEXT: {{^  \^$}}
// QUIET-NOT: {{.}}

func.func @index(%xs: memref<3xf32>) -> tensor<f32> {
  %c3 = arith.constant 3 : index
  %x = grad.load %xs[%c3] : memref<3xf32>
  func.return %x : tensor<f32>
}

// INDEX: errors.mlir:29:3: error: 'grad.load' index [3] is out of range for a slot of shape [3]
// COUNT: --slot 0: error: expected 3 values for memref<3xf32>, got 2
// SLOT: --slot 1: error: no such slot: the entry function has 1 slot
// FILE: --slot 0: error: cannot read {{.*}}missing.npy: No such file or directory

func.func @shift() -> tensor<i32> {
  %a = grad.const 1 : tensor<i32>
  %b = grad.const 32 : tensor<i32>
  %s = grad.shl %a, %b : tensor<i32>
  func.return %s : tensor<i32>
}

// SHIFT: errors.mlir:41:3: error: 'grad.shl' shift amount outside 0..31

func.func @nested() {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %c2 step %c1 {
    %q = func.call @divide() : () -> tensor<2xi32>
    scf.yield
  }
  func.return
}

// NESTED: errors.mlir:18:3: error: 'grad.idiv' divides by zero
// ENTRY: errors.mlir: error: no function @missing to run
