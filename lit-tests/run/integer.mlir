// RUN: grad-run %s --arg '0=[-7, 7, -7, 7, -2147483648, 0]' --arg '1=[2, -2, -2, 2, -1, 5]' | filecheck %s

// idiv and mod round toward zero, as in C (the remainder takes the sign of the
// dividend); i32 wraps around, so -2147483648 / -1 is -2147483648. Shifts are
// arithmetic.

func.func @main(%a: tensor<6xi32>, %b: tensor<6xi32>) -> (tensor<6xi32>, tensor<6xi32>, tensor<6xi32>, tensor<6xi32>, tensor<6xi32>, tensor<4xi32>, tensor<4xi32>, tensor<2xi1>, tensor<2xi1>, tensor<2xi1>) {
  %div = grad.idiv %a, %b : tensor<6xi32>
  %mod = grad.mod %a, %b : tensor<6xi32>
  %and = grad.and %a, %b : tensor<6xi32>
  %or = grad.or %a, %b : tensor<6xi32>
  %xor = grad.xor %a, %b : tensor<6xi32>
  %x = grad.const dense<[1, -1, -8, 2147483647]> : tensor<4xi32>
  %s = grad.const dense<[31, 1, 1, 31]> : tensor<4xi32>
  %shl = grad.shl %x, %s : tensor<4xi32>
  %shr = grad.shr %x, %s : tensor<4xi32>
  %p = grad.const dense<[true, false]> : tensor<2xi1>
  %q = grad.const true : tensor<2xi1>
  %pand = grad.and %p, %q : tensor<2xi1>
  %por = grad.or %p, %q : tensor<2xi1>
  %pxor = grad.xor %p, %q : tensor<2xi1>
  func.return %div, %mod, %and, %or, %xor, %shl, %shr, %pand, %por, %pxor : tensor<6xi32>, tensor<6xi32>, tensor<6xi32>, tensor<6xi32>, tensor<6xi32>, tensor<4xi32>, tensor<4xi32>, tensor<2xi1>, tensor<2xi1>, tensor<2xi1>
}

// CHECK:      result 0 = dense<[-3, -3, 3, 3, -2147483648, 0]> : tensor<6xi32>
// CHECK-NEXT: result 1 = dense<[-1, 1, -1, 1, 0, 0]> : tensor<6xi32>
// CHECK-NEXT: result 2 = dense<[0, 6, -8, 2, -2147483648, 0]> : tensor<6xi32>
// CHECK-NEXT: result 3 = dense<[-5, -1, -1, 7, -1, 5]> : tensor<6xi32>
// CHECK-NEXT: result 4 = dense<[-5, -7, 7, 5, 2147483647, 5]> : tensor<6xi32>
// CHECK-NEXT: result 5 = dense<[-2147483648, -2, -16, -2147483648]> : tensor<4xi32>
// CHECK-NEXT: result 6 = dense<[0, -1, -4, 0]> : tensor<4xi32>
// CHECK-NEXT: result 7 = dense<[true, false]> : tensor<2xi1>
// CHECK-NEXT: result 8 = dense<[true, true]> : tensor<2xi1>
// CHECK-NEXT: result 9 = dense<[false, true]> : tensor<2xi1>
