// RUN: grad-opt %s -p expand-gradient --split-input-file --verify-diagnostics | filecheck %s

// grad.custom (SPEC §3.7) on a path: reverse mode applies the vjp function
// to the operands and one cotangent per result (+0.0 zeros for a result
// whose gradient is not the one being passed back), and its results are the
// shares of the operands; forward mode applies the jvp function to the
// operands and one tangent per operand (+0.0 zeros off the path). A function
// is applied by copying its body in place (the bits of a func.call), so that
// the derivative is ordinary ops that can be differentiated again. A mode
// without its function refuses the op.

func.func @f(%x: tensor<3xf32>, %y: tensor<3xf32>) -> (tensor<3xf32>, tensor<f32>) {
  %m = grad.mul %x, %y : tensor<3xf32>
  %s = grad.reduce add %m [0] : tensor<3xf32> to tensor<f32>
  func.return %m, %s : tensor<3xf32>, tensor<f32>
}
func.func @f_vjp(%x: tensor<3xf32>, %y: tensor<3xf32>, %g: tensor<3xf32>, %h: tensor<f32>) -> (tensor<3xf32>, tensor<3xf32>) {
  %hb = grad.broadcast %h [] : tensor<f32> to tensor<3xf32>
  %c = grad.add %g, %hb : tensor<3xf32>
  %gx = grad.mul %c, %y : tensor<3xf32>
  %gy = grad.mul %c, %x : tensor<3xf32>
  func.return %gx, %gy : tensor<3xf32>, tensor<3xf32>
}
func.func @f_jvp(%x: tensor<3xf32>, %y: tensor<3xf32>, %tx: tensor<3xf32>, %ty: tensor<3xf32>) -> (tensor<3xf32>, tensor<f32>) {
  %a = grad.mul %tx, %y : tensor<3xf32>
  %b = grad.mul %x, %ty : tensor<3xf32>
  %tm = grad.add %a, %b : tensor<3xf32>
  %ts = grad.reduce add %tm [0] : tensor<3xf32> to tensor<f32>
  func.return %tm, %ts : tensor<3xf32>, tensor<f32>
}

// CHECK-LABEL: func.func @reverse
func.func @reverse(%x: tensor<3xf32>, %y: tensor<3xf32>) -> tensor<3xf32> {
  // CHECK-NEXT: %m, %s = grad.custom @f(%x, %y) vjp @f_vjp jvp @f_jvp
  // CHECK-NEXT: %0 = grad.const 1.0 : tensor<f32>
  // CHECK-NEXT: %1 = grad.const 0.0 : tensor<3xf32>
  // CHECK-NEXT: %hb = grad.broadcast %0 [] : tensor<f32> to tensor<3xf32>
  // CHECK-NEXT: %c = grad.add %1, %hb : tensor<3xf32>
  // CHECK-NEXT: %gx = grad.mul %c, %y : tensor<3xf32>
  // CHECK-NEXT: %gy = grad.mul %c, %x : tensor<3xf32>
  // CHECK-NEXT: func.return %gx
  %m, %s = grad.custom @f(%x, %y) vjp @f_vjp jvp @f_jvp : (tensor<3xf32>, tensor<3xf32>) -> (tensor<3xf32>, tensor<f32>)
  %g = grad.gradient %s wrt %x : tensor<f32>, tensor<3xf32>
  func.return %g : tensor<3xf32>
}

// CHECK-LABEL: func.func @both_results
func.func @both_results(%x: tensor<3xf32>, %y: tensor<3xf32>) -> tensor<3xf32> {
  // Each result on the path applies the vjp with its own gradient (s first:
  // the walk runs backward) and zeros for the other: x's gradient is the sum.
  // CHECK:      %[[ONE:.*]] = grad.const 1.0 : tensor<f32>
  // CHECK-NEXT: %[[Z3:.*]] = grad.const 0.0 : tensor<3xf32>
  // CHECK-NEXT: %[[HB:.*]] = grad.broadcast %[[ONE]] [] : tensor<f32> to tensor<3xf32>
  // CHECK-NEXT: %[[C:.*]] = grad.add %[[Z3]], %[[HB]] : tensor<3xf32>
  // CHECK-NEXT: %[[A:.*]] = grad.mul %[[C]], %y : tensor<3xf32>
  // CHECK-NEXT: %{{.*}} = grad.mul %[[C]], %x : tensor<3xf32>
  // CHECK-NEXT: %[[B:.*]] = grad.broadcast %[[ONE]] [] : tensor<f32> to tensor<3xf32>
  // CHECK-NEXT: %[[Z:.*]] = grad.const 0.0 : tensor<f32>
  // CHECK-NEXT: %[[HB2:.*]] = grad.broadcast %[[Z]] [] : tensor<f32> to tensor<3xf32>
  // CHECK-NEXT: %[[C2:.*]] = grad.add %[[B]], %[[HB2]] : tensor<3xf32>
  // CHECK-NEXT: %[[A2:.*]] = grad.mul %[[C2]], %y : tensor<3xf32>
  // CHECK-NEXT: %{{.*}} = grad.mul %[[C2]], %x : tensor<3xf32>
  // CHECK-NEXT: %g = grad.add %[[A]], %[[A2]] : tensor<3xf32>
  %m, %s = grad.custom @f(%x, %y) vjp @f_vjp : (tensor<3xf32>, tensor<3xf32>) -> (tensor<3xf32>, tensor<f32>)
  %t = grad.reduce add %m [0] : tensor<3xf32> to tensor<f32>
  %l = grad.add %t, %s : tensor<f32>
  %g = grad.gradient %l wrt %x : tensor<f32>, tensor<3xf32>
  func.return %g : tensor<3xf32>
}

// CHECK-LABEL: func.func @forward
func.func @forward(%x: tensor<3xf32>, %y: tensor<3xf32>, %t: tensor<3xf32>) -> (tensor<f32>, tensor<3xf32>) {
  // Each jvp op is its own forward walk, which applies the jvp function
  // once for both results; y is off the path.
  // CHECK-NEXT: %m, %s = grad.custom @f(%x, %y) vjp @f_vjp jvp @f_jvp
  // CHECK-NEXT: %0 = grad.const 0.0 : tensor<3xf32>
  // CHECK-NEXT: %a = grad.mul %t, %y : tensor<3xf32>
  // CHECK-NEXT: %b = grad.mul %x, %0 : tensor<3xf32>
  // CHECK-NEXT: %tm = grad.add %a, %b : tensor<3xf32>
  // CHECK-NEXT: %ts = grad.reduce add %tm [0] : tensor<3xf32> to tensor<f32>
  // CHECK-NEXT: %a_1 = grad.mul %t, %y : tensor<3xf32>
  // CHECK-NEXT: %b_1 = grad.mul %x, %0 : tensor<3xf32>
  // CHECK-NEXT: %tm_1 = grad.add %a_1, %b_1 : tensor<3xf32>
  // CHECK-NEXT: %ts_1 = grad.reduce add %tm_1 [0] : tensor<3xf32> to tensor<f32>
  // CHECK-NEXT: func.return %ts, %tm_1
  %m, %s = grad.custom @f(%x, %y) vjp @f_vjp jvp @f_jvp : (tensor<3xf32>, tensor<3xf32>) -> (tensor<3xf32>, tensor<f32>)
  %ts = grad.jvp %s wrt %x, %t : tensor<f32>, tensor<3xf32>
  %tm = grad.jvp %m wrt %x, %t : tensor<3xf32>, tensor<3xf32>
  func.return %ts, %tm : tensor<f32>, tensor<3xf32>
}

// -----

func.func @f(%x: tensor<3xf32>) -> tensor<f32> {
  %s = grad.reduce add %x [0] : tensor<3xf32> to tensor<f32>
  func.return %s : tensor<f32>
}
func.func @f_jvp(%x: tensor<3xf32>, %t: tensor<3xf32>) -> tensor<f32> {
  %s = grad.reduce add %t [0] : tensor<3xf32> to tensor<f32>
  func.return %s : tensor<f32>
}
func.func @no_vjp(%x: tensor<3xf32>) -> tensor<3xf32> {
  %s = grad.custom @f(%x) jvp @f_jvp : (tensor<3xf32>) -> tensor<f32>
  // CHECK: {{.*}}custom.mlir:[[# @LINE + 1]]:3: error: 'grad.gradient' op 'grad.custom' has no vjp: @f lies on the path and only its jvp is given
  %g = grad.gradient %s wrt %x : tensor<f32>, tensor<3xf32>
  func.return %g : tensor<3xf32>
}

// -----

func.func @f(%x: tensor<3xf32>) -> tensor<f32> {
  %s = grad.reduce add %x [0] : tensor<3xf32> to tensor<f32>
  func.return %s : tensor<f32>
}
func.func @f_vjp(%x: tensor<3xf32>, %g: tensor<f32>) -> tensor<3xf32> {
  %b = grad.broadcast %g [] : tensor<f32> to tensor<3xf32>
  func.return %b : tensor<3xf32>
}
func.func @no_jvp(%x: tensor<3xf32>) -> tensor<f32> {
  %s = grad.custom @f(%x) vjp @f_vjp : (tensor<3xf32>) -> tensor<f32>
  // CHECK: {{.*}}custom.mlir:[[# @LINE + 1]]:3: error: 'grad.jvp' op 'grad.custom' has no jvp: @f lies on the path and only its vjp is given
  %t = grad.jvp %s wrt %x, %x : tensor<f32>, tensor<3xf32>
  func.return %t : tensor<f32>
}
