// RUN: grad-run %s --arg '0=[1.5, -0.0, 0.0, 4.0, Infinity, NaN]' --arg '1=[2.0, 0.0, -0.0, -3.0, 1.0, 1.0]' --arg 2=2.5 | filecheck %s
// RUN: grad-run %s --entry integers --arg '0=[-7, 7, -7, 7, -2147483648, 0]' --arg '1=[2, -2, -2, 2, -1, 5]' | filecheck %s --check-prefix=INT

// `arith` on f32 tensors and scalars (SPEC §10.4): NumPy's float32 functions,
// with MLIR's meanings: `maximumf` is IEEE maximum (NaN wins, +0.0 above
// -0.0), `maxnumf` ignores NaN, `remf` has the dividend's sign, `cmpf`
// predicates treat NaN as MLIR does.

func.func @main(%a: tensor<6xf32>, %b: tensor<6xf32>, %s: f32) -> (tensor<6xf32>, tensor<6xf32>, tensor<6xf32>, tensor<6xf32>, tensor<6xf32>, tensor<6xf32>, tensor<6xf32>, tensor<6xf32>, tensor<6xf32>, f32) {
  %add = arith.addf %a, %b : tensor<6xf32>
  %sub = arith.subf %a, %b : tensor<6xf32>
  %mul = arith.mulf %a, %b : tensor<6xf32>
  %div = arith.divf %a, %b : tensor<6xf32>
  %neg = arith.negf %a : tensor<6xf32>
  %max = arith.maximumf %a, %b : tensor<6xf32>
  %min = arith.minimumf %a, %b : tensor<6xf32>
  %maxnum = arith.maxnumf %a, %b : tensor<6xf32>
  %rem = arith.remf %a, %b : tensor<6xf32>
  %c = arith.constant 4.0 : f32
  %sq = arith.mulf %s, %c : f32
  func.return %add, %sub, %mul, %div, %neg, %max, %min, %maxnum, %rem, %sq : tensor<6xf32>, tensor<6xf32>, tensor<6xf32>, tensor<6xf32>, tensor<6xf32>, tensor<6xf32>, tensor<6xf32>, tensor<6xf32>, tensor<6xf32>, f32
}

// CHECK:      result 0 = dense<[3.5, 0.0, 0.0, 1.0, inf, nan]> : tensor<6xf32>
// CHECK-NEXT: result 1 = dense<[-0.5, -0.0, 0.0, 7.0, inf, nan]> : tensor<6xf32>
// CHECK-NEXT: result 2 = dense<[3.0, -0.0, -0.0, -12.0, inf, nan]> : tensor<6xf32>
// CHECK-NEXT: result 3 = dense<[0.75, nan, nan, -1.3333334, inf, nan]> : tensor<6xf32>
// CHECK-NEXT: result 4 = dense<[-1.5, 0.0, -0.0, -4.0, -inf, nan]> : tensor<6xf32>
// CHECK-NEXT: result 5 = dense<[2.0, 0.0, 0.0, 4.0, inf, nan]> : tensor<6xf32>
// CHECK-NEXT: result 6 = dense<[1.5, -0.0, -0.0, -3.0, 1.0, nan]> : tensor<6xf32>
// CHECK-NEXT: result 7 = dense<[2.0, {{-?}}0.0, {{-?}}0.0, 4.0, inf, 1.0]> : tensor<6xf32>
// CHECK-NEXT: result 8 = dense<[1.5, nan, nan, 1.0, nan, nan]> : tensor<6xf32>
// CHECK-NEXT: result 9 = 10.0 : f32

// Integers wrap; divsi and remsi round toward zero, floordivsi and
// ceildivsi as named (xDSL's comparisons, selects and casts take scalars:
// on tensors they are written in linalg.generic bodies, upstream_linalg.mlir).
func.func @integers(%a: tensor<6xi32>, %b: tensor<6xi32>) -> (tensor<6xi32>, tensor<6xi32>, tensor<6xi32>, tensor<6xi32>, tensor<6xi32>, f32, i32) {
  %add = arith.addi %a, %b : tensor<6xi32>
  %q = arith.divsi %a, %b : tensor<6xi32>
  %r = arith.remsi %a, %b : tensor<6xi32>
  %f = arith.floordivsi %a, %b : tensor<6xi32>
  %c = arith.ceildivsi %a, %b : tensor<6xi32>
  %k = arith.constant -2147483647 : i32
  %fp = arith.sitofp %k : i32 to f32
  %back = arith.fptosi %fp : f32 to i32
  func.return %add, %q, %r, %f, %c, %fp, %back : tensor<6xi32>, tensor<6xi32>, tensor<6xi32>, tensor<6xi32>, tensor<6xi32>, f32, i32
}

// INT:      result 0 = dense<[-5, 5, -9, 9, 2147483647, 5]> : tensor<6xi32>
// INT-NEXT: result 1 = dense<[-3, -3, 3, 3, -2147483648, 0]> : tensor<6xi32>
// INT-NEXT: result 2 = dense<[-1, 1, -1, 1, 0, 0]> : tensor<6xi32>
// INT-NEXT: result 3 = dense<[-4, -4, 3, 3, -2147483648, 0]> : tensor<6xi32>
// INT-NEXT: result 4 = dense<[-3, -3, 4, 4, -2147483648, 0]> : tensor<6xi32>
// INT-NEXT: result 5 = -2.1474836e+09 : f32
// INT-NEXT: result 6 = -2147483648 : i32

