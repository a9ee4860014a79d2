// RUN: XDSL_ROUNDTRIP | filecheck %s
// RUN: xdsl-opt %s --split-input-file --print-op-generic | xdsl-opt --split-input-file | filecheck %s
// RUN: xdsl-opt %s --split-input-file -p cse | filecheck %s --check-prefix=CSE

// Plain `xdsl-opt` knows the grad dialect through gradopt's `xdsl.universe`
// entry point: it parses and prints the custom syntax.

func.func @main(%x: tensor<3xf32>, %slot: memref<3xf32>) -> tensor<3xf32> {
  %two = grad.const 2.0 : tensor<3xf32>
  %a = grad.mul %x, %two : tensor<3xf32>
  %b = grad.mul %x, %two : tensor<3xf32>
  %s = grad.add %a, %b : tensor<3xf32>
  %y = grad.reduce add %s [0] : tensor<3xf32> to tensor<f32>
  %g = grad.gradient %y wrt %x : tensor<f32>, tensor<3xf32>
  grad.store %g, %slot : memref<3xf32>
  func.return %g : tensor<3xf32>
}

// CHECK-LABEL: func.func @main(%x: tensor<3xf32>, %slot: memref<3xf32>) -> tensor<3xf32> {
// CHECK-NEXT:    %two = grad.const 2.0 : tensor<3xf32>
// CHECK-NEXT:    %a = grad.mul %x, %two : tensor<3xf32>
// CHECK-NEXT:    %b = grad.mul %x, %two : tensor<3xf32>
// CHECK-NEXT:    %s = grad.add %a, %b : tensor<3xf32>
// CHECK-NEXT:    %y = grad.reduce add %s [0] : tensor<3xf32> to tensor<f32>
// CHECK-NEXT:    %g = grad.gradient %y wrt %x : tensor<f32>, tensor<3xf32>
// CHECK-NEXT:    grad.store %g, %slot : memref<3xf32>
// CHECK-NEXT:    func.return %g : tensor<3xf32>
// CHECK-NEXT:  }

// xDSL's own passes see the grad ops' traits: cse merges the pure `grad.mul`s.
// CSE-LABEL: func.func @main
// CSE-NEXT:    %two = grad.const 2.0 : tensor<3xf32>
// CSE-NEXT:    %a = grad.mul %x, %two : tensor<3xf32>
// CSE-NEXT:    %s = grad.add %a, %a : tensor<3xf32>
