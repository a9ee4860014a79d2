// REQUIRES: iree
// RUN: grad-run %S/../run/custom.mlir --backend iree --arg '0=[1.0, -2.0, 3.0]' | filecheck %S/../run/custom.mlir

// grad.custom lowers to func.call, which IREE compiles and runs with the
// same results as the interpreter (the CHECK lines of run/custom.mlir).
