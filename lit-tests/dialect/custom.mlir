// RUN: GRAD_ROUNDTRIP | filecheck %s
// RUN: grad-opt %s --split-input-file --print-op-generic | filecheck %s --check-prefix=CHECK-GENERIC

// grad.custom (SPEC §3.7): a call of @f with the user's vjp and jvp
// functions, either of which may be absent; any number of operands and
// results. The generic form holds the symbols as `callee`, `vjp` and `jvp`.

func.func @f(%x: tensor<3xf32>, %n: tensor<3xi32>) -> (tensor<3xf32>, tensor<f32>) {
  %s = grad.reduce add %x [0] : tensor<3xf32> to tensor<f32>
  func.return %x, %s : tensor<3xf32>, tensor<f32>
}
func.func @f_vjp(%x: tensor<3xf32>, %n: tensor<3xi32>, %g: tensor<3xf32>, %h: tensor<f32>) -> (tensor<3xf32>, tensor<3xi32>) {
  func.return %g, %n : tensor<3xf32>, tensor<3xi32>
}
func.func @f_jvp(%x: tensor<3xf32>, %n: tensor<3xi32>, %t: tensor<3xf32>, %u: tensor<3xi32>) -> (tensor<3xf32>, tensor<f32>) {
  %s = grad.reduce add %t [0] : tensor<3xf32> to tensor<f32>
  func.return %t, %s : tensor<3xf32>, tensor<f32>
}
func.func @both(%x: tensor<3xf32>, %n: tensor<3xi32>) -> tensor<f32> {
  // CHECK: %r, %s = grad.custom @f(%x, %n) vjp @f_vjp jvp @f_jvp : (tensor<3xf32>, tensor<3xi32>) -> (tensor<3xf32>, tensor<f32>)
  // CHECK-NEXT: %t, %t_1 = grad.custom @f(%x, %n) vjp @f_vjp : (tensor<3xf32>, tensor<3xi32>) -> (tensor<3xf32>, tensor<f32>)
  // CHECK-NEXT: %u, %u_1 = grad.custom @f(%x, %n) jvp @f_jvp {note = 1 : i64} : (tensor<3xf32>, tensor<3xi32>) -> (tensor<3xf32>, tensor<f32>)
  // CHECK-GENERIC: "grad.custom"(%x, %n) <{callee = @f, vjp = @f_vjp, jvp = @f_jvp}> : (tensor<3xf32>, tensor<3xi32>) -> (tensor<3xf32>, tensor<f32>)
  // CHECK-GENERIC: "grad.custom"(%x, %n) <{callee = @f, vjp = @f_vjp}>
  %r, %s = grad.custom @f(%x, %n) vjp @f_vjp jvp @f_jvp : (tensor<3xf32>, tensor<3xi32>) -> (tensor<3xf32>, tensor<f32>)
  %t:2 = grad.custom @f(%x, %n) vjp @f_vjp : (tensor<3xf32>, tensor<3xi32>) -> (tensor<3xf32>, tensor<f32>)
  %u:2 = grad.custom @f(%x, %n) jvp @f_jvp {note = 1} : (tensor<3xf32>, tensor<3xi32>) -> (tensor<3xf32>, tensor<f32>)
  func.return %s : tensor<f32>
}

// -----

func.func @g() -> tensor<2xf32> {
  %c = grad.const 1.0 : tensor<2xf32>
  func.return %c : tensor<2xf32>
}
func.func @no_operands() -> tensor<2xf32> {
  // CHECK: %r = grad.custom @g() : () -> tensor<2xf32>
  %r = grad.custom @g() : () -> tensor<2xf32>
  func.return %r : tensor<2xf32>
}
