// RUN: grad-opt %s --split-input-file -p expand-gradient | filecheck %s

// SPEC §11: calls outside loops are differentiated by functions made once per
// callee and pattern wherever that keeps the bits of inlining every call
// first, and inlined elsewhere.

// Forward mode: the four sites of @f share two pairs of functions, one per
// pattern of arguments with a tangent (%w has none; the last site passes %r
// twice) and of results whose tangent is needed. A forward function takes
// each call's place and returns @f's results and then the values that the
// tangent function reads (the tape: %m); the jvp calls the tangent function.
func.func @f(%a: tensor<3xf32>, %b: tensor<3xf32>) -> tensor<3xf32> {
  %m = grad.mul %a, %b : tensor<3xf32>
  %s = grad.sin %m : tensor<3xf32>
  func.return %s : tensor<3xf32>
}
func.func @sites(%x: tensor<3xf32>, %w: tensor<3xf32>, %t: tensor<3xf32>) -> tensor<3xf32> {
  %p = func.call @f(%x, %w) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  %q = func.call @f(%p, %w) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  %r = func.call @f(%q, %w) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  %u = func.call @f(%r, %r) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  %j = grad.jvp %u wrt %x, %t control_flow : tensor<3xf32>, tensor<3xf32>
  func.return %j : tensor<3xf32>
}

// CHECK-LABEL: func.func private @f__fwd_11_1(%0: tensor<3xf32>, %1: tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>) attributes {grad.derivative = "forward"} {
// CHECK-NEXT:    %m = grad.mul %0, %1 : tensor<3xf32>
// CHECK-NEXT:    %s = grad.sin %m : tensor<3xf32>
// CHECK-NEXT:    func.return %s, %m : tensor<3xf32>, tensor<3xf32>
// CHECK-LABEL: func.func private @f__tan_11_1(%0: tensor<3xf32>, %1: tensor<3xf32>, %2: tensor<3xf32>, %3: tensor<3xf32>, %4: tensor<3xf32>) -> tensor<3xf32> attributes {grad.derivative = "tangent", grad.tangents = [0 : i64]} {
// CHECK-NEXT:    %5 = grad.mul %2, %1 : tensor<3xf32>
// CHECK-NEXT:    %6 = grad.mul %0, %3 : tensor<3xf32>
// CHECK-NEXT:    %7 = grad.add %5, %6 : tensor<3xf32>
// CHECK-NEXT:    %8 = grad.const 1.5707964 : tensor<3xf32>
// CHECK-NEXT:    %9 = grad.add %4, %8 : tensor<3xf32>
// CHECK-NEXT:    %10 = grad.sin %9 : tensor<3xf32>
// CHECK-NEXT:    %11 = grad.mul %7, %10 : tensor<3xf32>
// CHECK-NEXT:    func.return %11 : tensor<3xf32>
// CHECK-LABEL: func.func private @f__fwd_10_1(
// CHECK-LABEL: func.func private @f__tan_10_1(%0: tensor<3xf32>, %1: tensor<3xf32>, %2: tensor<3xf32>, %3: tensor<3xf32>) -> tensor<3xf32>
// CHECK-NEXT:    %4 = grad.mul %2, %1 : tensor<3xf32>
// CHECK-LABEL: func.func @sites(
// CHECK-NEXT:    %p, %[[P:.*]] = func.call @f__fwd_10_1(%x, %w)
// CHECK-NEXT:    %q, %[[Q:.*]] = func.call @f__fwd_10_1(%p, %w)
// CHECK-NEXT:    %r, %[[R:.*]] = func.call @f__fwd_10_1(%q, %w)
// CHECK-NEXT:    %u, %[[U:.*]] = func.call @f__fwd_11_1(%r, %r)
// CHECK-NEXT:    %[[TP:.*]] = func.call @f__tan_10_1(%x, %w, %t, %[[P]])
// CHECK-NEXT:    %[[TQ:.*]] = func.call @f__tan_10_1(%p, %w, %[[TP]], %[[Q]])
// CHECK-NEXT:    %[[TR:.*]] = func.call @f__tan_10_1(%q, %w, %[[TQ]], %[[R]])
// CHECK-NEXT:    %j = func.call @f__tan_11_1(%r, %r, %[[TR]], %[[TR]], %[[U]])
// CHECK-NEXT:    func.return %j : tensor<3xf32>

// -----

// A result that no argument with a tangent reaches (@g's second) gets none,
// not zeros that the add would add (-0.0 + 0.0 is +0.0): the jvp is the
// tangent function's result itself; @g's third result, its argument, is
// not needed.
func.func @g(%a: tensor<3xf32>, %b: tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) {
  %m = grad.mul %a, %a : tensor<3xf32>
  %n = grad.neg %b : tensor<3xf32>
  func.return %m, %n, %a : tensor<3xf32>, tensor<3xf32>, tensor<3xf32>
}
func.func @no_tangent(%x: tensor<3xf32>, %w: tensor<3xf32>, %t: tensor<3xf32>) -> tensor<3xf32> {
  %u, %v, %same = func.call @g(%x, %w) : (tensor<3xf32>, tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>, tensor<3xf32>)
  %y = grad.add %u, %v : tensor<3xf32>
  %j = grad.jvp %y wrt %x, %t control_flow : tensor<3xf32>, tensor<3xf32>
  func.return %j : tensor<3xf32>
}

// CHECK-LABEL: func.func private @g__tan_10_110(%0: tensor<3xf32>, %1: tensor<3xf32>, %2: tensor<3xf32>) -> tensor<3xf32> attributes {grad.derivative = "tangent", grad.tangents = [0 : i64]} {
// CHECK-NEXT:    %3 = grad.mul %2, %0 : tensor<3xf32>
// CHECK-NEXT:    %4 = grad.mul %0, %2 : tensor<3xf32>
// CHECK-NEXT:    %5 = grad.add %3, %4 : tensor<3xf32>
// CHECK-NEXT:    func.return %5 : tensor<3xf32>
// CHECK-LABEL: func.func @no_tangent(
// CHECK-NEXT:    %u, %v, %same = func.call @g__fwd_10_110(%x, %w)
// CHECK-NEXT:    %y = grad.add %u, %v : tensor<3xf32>
// CHECK-NEXT:    %j = func.call @g__tan_10_110(%x, %w, %t)
// CHECK-NEXT:    func.return %j : tensor<3xf32>

// -----

// A callee that reads memory runs once, as the forward function in the
// call's place; the tangent function reads the loaded value from the tape.
func.func @scaled(%a: tensor<3xf32>, %m: memref<3xf32>) -> tensor<3xf32> {
  %c = arith.constant 0 : index
  %v = grad.load %m[%c] : memref<3xf32>
  %b = grad.broadcast %v [] : tensor<f32> to tensor<3xf32>
  %r = grad.mul %a, %b : tensor<3xf32>
  func.return %r : tensor<3xf32>
}
func.func @memory(%x: tensor<3xf32>, %t: tensor<3xf32>, %m: memref<3xf32>) -> tensor<3xf32> {
  %p = func.call @scaled(%x, %m) : (tensor<3xf32>, memref<3xf32>) -> tensor<3xf32>
  %j = grad.jvp %p wrt %x, %t control_flow : tensor<3xf32>, tensor<3xf32>
  func.return %j : tensor<3xf32>
}

// CHECK-LABEL: func.func private @scaled__fwd_10_1(%0: tensor<3xf32>, %1: memref<3xf32>) -> (tensor<3xf32>, tensor<3xf32>) attributes {grad.derivative = "forward"} {
// CHECK-NEXT:    %c = arith.constant 0 : index
// CHECK-NEXT:    %v = grad.load %1[%c] : memref<3xf32>
// CHECK-NEXT:    %b = grad.broadcast %v [] : tensor<f32> to tensor<3xf32>
// CHECK-NEXT:    %r = grad.mul %0, %b : tensor<3xf32>
// CHECK-NEXT:    func.return %r, %b : tensor<3xf32>, tensor<3xf32>
// CHECK-LABEL: func.func private @scaled__tan_10_1(%0: tensor<3xf32>, %1: memref<3xf32>, %2: tensor<3xf32>, %3: tensor<3xf32>) -> tensor<3xf32> attributes {grad.derivative = "tangent", grad.tangents = [0 : i64]} {
// CHECK-NEXT:    %4 = grad.mul %2, %3 : tensor<3xf32>
// CHECK-NEXT:    func.return %4 : tensor<3xf32>
// CHECK-LABEL: func.func @memory(
// CHECK-NEXT:    %p, %[[B:.*]] = func.call @scaled__fwd_10_1(%x, %m)
// CHECK-NEXT:    %j = func.call @scaled__tan_10_1(%x, %m, %t, %[[B]])
// CHECK-NEXT:    func.return %j : tensor<3xf32>

// -----

// Reverse mode: the walk reaches @two's second result only (its first is an
// argument, which the walk does not reach), so the site keeps its call.
func.func @two(%a: tensor<3xf32>, %b: tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>) {
  %m = grad.mul %a, %b : tensor<3xf32>
  func.return %b, %m : tensor<3xf32>, tensor<3xf32>
}
func.func @one_result_reached(%x: tensor<3xf32>, %w: tensor<3xf32>) -> tensor<3xf32> {
  %u, %v = func.call @two(%x, %w) : (tensor<3xf32>, tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>)
  %l = grad.reduce add %v [0] : tensor<3xf32> to tensor<f32>
  %g = grad.gradient %l wrt %x control_flow : tensor<f32>, tensor<3xf32>
  func.return %g : tensor<3xf32>
}

// CHECK-LABEL: func.func private @two__aug_01(%0: tensor<3xf32>, %1: tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>) attributes {grad.derivative = "augmented"} {
// CHECK-NEXT:    %m = grad.mul %0, %1 : tensor<3xf32>
// CHECK-NEXT:    func.return %1, %m : tensor<3xf32>, tensor<3xf32>
// CHECK-LABEL: func.func private @two__rev_01(%0: tensor<3xf32>, %1: tensor<3xf32>, %2: tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>) attributes {grad.derivative = "reverse", grad.shares = [0 : i64, 1 : i64]} {
// CHECK-LABEL: func.func @one_result_reached(
// CHECK-NEXT:    %u, %v = func.call @two__aug_01(%x, %w)
// CHECK:         %g, %{{.*}} = func.call @two__rev_01(%x, %w, %{{.*}})
// CHECK-NEXT:    func.return %g : tensor<3xf32>
