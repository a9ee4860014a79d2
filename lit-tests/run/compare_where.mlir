// RUN: grad-run %s --arg '0=[1.0, 2.0, NaN, -0.0]' --arg '1=[2.0, 2.0, NaN, 0.0]' --arg '2=[true, false, true, false]' | filecheck %s

// Comparisons are IEEE: NaN is unordered and unequal to itself, -0.0 equals
// 0.0. `where` picks from its operands bit for bit.

func.func @main(%a: tensor<4xf32>, %b: tensor<4xf32>, %c: tensor<4xi1>) -> (tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xf32>, tensor<4xi1>, tensor<3xi1>, tensor<4xi1>) {
  %lt = grad.cmplt %a, %b : tensor<4xf32>
  %eq = grad.cmpeq %a, %b : tensor<4xf32>
  %ne = grad.cmpne %a, %b : tensor<4xf32>
  %where = grad.where %c, %a, %b : tensor<4xf32>
  %t = grad.const true : tensor<4xi1>
  %ceq = grad.cmpeq %c, %t : tensor<4xi1>
  %i = grad.const dense<[-3, 0, 5]> : tensor<3xi32>
  %zero = grad.const 0 : tensor<3xi32>
  %ilt = grad.cmplt %i, %zero : tensor<3xi32>
  %cwhere = grad.where %c, %lt, %ne : tensor<4xi1>
  func.return %lt, %eq, %ne, %where, %ceq, %ilt, %cwhere : tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xf32>, tensor<4xi1>, tensor<3xi1>, tensor<4xi1>
}

// CHECK:      result 0 = dense<[true, false, false, false]> : tensor<4xi1>
// CHECK-NEXT: result 1 = dense<[false, true, false, true]> : tensor<4xi1>
// CHECK-NEXT: result 2 = dense<[true, false, true, false]> : tensor<4xi1>
// CHECK-NEXT: result 3 = dense<[1.0, 2.0, nan, 0.0]> : tensor<4xf32>
// CHECK-NEXT: result 4 = dense<[true, false, true, false]> : tensor<4xi1>
// CHECK-NEXT: result 5 = dense<[true, false, false]> : tensor<3xi1>
// CHECK-NEXT: result 6 = dense<[true, false, false, false]> : tensor<4xi1>
