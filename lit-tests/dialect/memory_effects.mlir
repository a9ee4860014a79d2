// RUN: grad-opt %s -p cse,dce | filecheck %s
// RUN: xdsl-opt %s -p cse,dce | filecheck %s

// `grad.load` and `grad.store` touch memory: cse never merges them and dce
// never removes them (SPEC §3.3). The other ops are pure: equal ones merge,
// unused ones go.

func.func @effects(%slot: memref<5xf32>, %x: tensor<5xf32>) -> tensor<5xf32> {
  %a = grad.load %slot : memref<5xf32>
  %b = grad.load %slot : memref<5xf32>
  %unused = grad.load %slot : memref<5xf32>
  %p = grad.add %a, %x : tensor<5xf32>
  %q = grad.add %a, %x : tensor<5xf32>
  %r = grad.mul %p, %q : tensor<5xf32>
  %s = grad.mul %r, %b : tensor<5xf32>
  %dead = grad.neg %s : tensor<5xf32>
  %c1 = grad.const 1.0 : tensor<5xf32>
  %c2 = grad.const 1.0 : tensor<5xf32>
  %t = grad.add %c1, %c2 : tensor<5xf32>
  grad.store %s, %slot : memref<5xf32>
  grad.store %s, %slot : memref<5xf32>
  grad.store %t, %slot : memref<5xf32>
  func.return %s : tensor<5xf32>
}

// CHECK-LABEL: func.func @effects(%slot: memref<5xf32>, %x: tensor<5xf32>) -> tensor<5xf32> {
// CHECK-NEXT:    %a = grad.load %slot : memref<5xf32>
// CHECK-NEXT:    %b = grad.load %slot : memref<5xf32>
// CHECK-NEXT:    %unused = grad.load %slot : memref<5xf32>
// CHECK-NEXT:    %p = grad.add %a, %x : tensor<5xf32>
// CHECK-NEXT:    %r = grad.mul %p, %p : tensor<5xf32>
// CHECK-NEXT:    %s = grad.mul %r, %b : tensor<5xf32>
// CHECK-NEXT:    %c1 = grad.const 1.0 : tensor<5xf32>
// CHECK-NEXT:    %t = grad.add %c1, %c1 : tensor<5xf32>
// CHECK-NEXT:    grad.store %s, %slot : memref<5xf32>
// CHECK-NEXT:    grad.store %s, %slot : memref<5xf32>
// CHECK-NEXT:    grad.store %t, %slot : memref<5xf32>
// CHECK-NEXT:    func.return %s : tensor<5xf32>
// CHECK-NEXT:  }
