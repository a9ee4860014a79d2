// RUN: grad-run %S/../../examples/cubic.mlir --slot 0=[1,2,3,4,5] | filecheck %s
// RUN: grad-run %S/../../examples/cubic.mlir --slot '0=[-1.5, 0.0, 0.1, 1e3, -0.0]' | filecheck %s --check-prefix=EDGE

// The seed exercise, examples/cubic.mlir: slot 1 receives f'(x) = 3x^2 - 2 for
// f(x) = x^3 - 2x at the five points in slot 0, through grad.gradient of the
// summed f.

// CHECK:      slot 0 = dense<[1.0, 2.0, 3.0, 4.0, 5.0]> : memref<5xf32>
// CHECK-NEXT: slot 1 = dense<[1.0, 10.0, 25.0, 46.0, 73.0]> : memref<5xf32>

// EDGE:      slot 0 = dense<[-1.5, 0.0, 0.1, 1000.0, -0.0]> : memref<5xf32>
// EDGE-NEXT: slot 1 = dense<[4.75, -2.0, -1.97, 2.999998e+06, -2.0]> : memref<5xf32>
