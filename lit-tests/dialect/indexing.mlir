// RUN: grad-opt %s --split-input-file --print-op-generic > %t.generic
// RUN: filecheck %s --input-file=%t.generic --check-prefix=CHECK-GENERIC
// RUN: grad-opt --split-input-file < %t.generic | filecheck %s

// The indexing and sorting ops of SPEC §3.6 round-trip through the custom
// and the generic form. The generic form carries `axis` (gather,
// scatter_add) and `dim` (iota, argsort), each an i64 integer.

func.func @indexing(%a: tensor<4x5xf32>, %i: tensor<3xi32>, %j: tensor<2x3xi32>, %s: tensor<i32>, %u: tensor<4x3xf32>, %k: tensor<5xi32>, %b: tensor<5xi1>) {
  %0 = grad.gather %a, %i [1] : tensor<4x5xf32>, tensor<3xi32> to tensor<4x3xf32>
  %1 = grad.gather %a, %j [0] : tensor<4x5xf32>, tensor<2x3xi32> to tensor<2x3x5xf32>
  %2 = grad.gather %a, %s [1] : tensor<4x5xf32>, tensor<i32> to tensor<4xf32>
  %3 = grad.gather %k, %i [0] : tensor<5xi32>, tensor<3xi32> to tensor<3xi32>
  %4 = grad.gather %b, %i [0] : tensor<5xi1>, tensor<3xi32> to tensor<3xi1>
  %5 = grad.scatter_add %a, %i, %u [1] : tensor<4x5xf32>, tensor<3xi32>, tensor<4x3xf32> to tensor<4x5xf32>
  %6 = grad.scatter_add %k, %i, %3 [0] : tensor<5xi32>, tensor<3xi32>, tensor<3xi32> to tensor<5xi32>
  %7 = grad.iota [0] : tensor<4x3xi32>
  %8 = grad.iota [1] : tensor<4x3xf32>
  %9 = grad.argsort %a [1] : tensor<4x5xf32> to tensor<4x5xi32>
  %10 = grad.argsort %k [0] : tensor<5xi32> to tensor<5xi32>
  func.return
}

// CHECK-LABEL: func.func @indexing
// CHECK-NEXT:    %0 = grad.gather %a, %i [1] : tensor<4x5xf32>, tensor<3xi32> to tensor<4x3xf32>
// CHECK-NEXT:    %1 = grad.gather %a, %j [0] : tensor<4x5xf32>, tensor<2x3xi32> to tensor<2x3x5xf32>
// CHECK-NEXT:    %2 = grad.gather %a, %s [1] : tensor<4x5xf32>, tensor<i32> to tensor<4xf32>
// CHECK-NEXT:    %3 = grad.gather %k, %i [0] : tensor<5xi32>, tensor<3xi32> to tensor<3xi32>
// CHECK-NEXT:    %4 = grad.gather %b, %i [0] : tensor<5xi1>, tensor<3xi32> to tensor<3xi1>
// CHECK-NEXT:    %5 = grad.scatter_add %a, %i, %u [1] : tensor<4x5xf32>, tensor<3xi32>, tensor<4x3xf32> to tensor<4x5xf32>
// CHECK-NEXT:    %6 = grad.scatter_add %k, %i, %3 [0] : tensor<5xi32>, tensor<3xi32>, tensor<3xi32> to tensor<5xi32>
// CHECK-NEXT:    %7 = grad.iota [0] : tensor<4x3xi32>
// CHECK-NEXT:    %8 = grad.iota [1] : tensor<4x3xf32>
// CHECK-NEXT:    %9 = grad.argsort %a [1] : tensor<4x5xf32> to tensor<4x5xi32>
// CHECK-NEXT:    %10 = grad.argsort %k [0] : tensor<5xi32> to tensor<5xi32>
// CHECK-NEXT:    func.return

// CHECK-GENERIC: "grad.gather"(%a, %i) <{axis = 1 : i64}> : (tensor<4x5xf32>, tensor<3xi32>) -> tensor<4x3xf32>
// CHECK-GENERIC: "grad.scatter_add"(%a, %i, %u) <{axis = 1 : i64}> : (tensor<4x5xf32>, tensor<3xi32>, tensor<4x3xf32>) -> tensor<4x5xf32>
// CHECK-GENERIC: "grad.iota"() <{dim = 0 : i64}> : () -> tensor<4x3xi32>
// CHECK-GENERIC: "grad.argsort"(%a) <{dim = 1 : i64}> : (tensor<4x5xf32>) -> tensor<4x5xi32>
