// RUN: grad-run %s --arg '0=[1.5, -0.0, 0.0, 4.0, Infinity, NaN]' --arg '1=[2.0, -0.0, -0.0, -3.0, 1.0, 1.0]' | filecheck %s

// f32 arithmetic is IEEE float32: signed zeros, infinities and NaN come out
// exactly; max propagates NaN; i32 add, mul and neg wrap around.

func.func @main(%a: tensor<6xf32>, %b: tensor<6xf32>) -> (tensor<6xf32>, tensor<6xf32>, tensor<6xf32>, tensor<6xf32>, tensor<6xf32>, tensor<6xf32>, tensor<3xi32>, tensor<3xi32>, tensor<3xi32>, tensor<3xi32>) {
  %add = grad.add %a, %b : tensor<6xf32>
  %mul = grad.mul %a, %b : tensor<6xf32>
  %max = grad.max %a, %b : tensor<6xf32>
  %neg = grad.neg %a : tensor<6xf32>
  %recip = grad.recip %a : tensor<6xf32>
  %sqrt = grad.sqrt %b : tensor<6xf32>
  %i = grad.const dense<[2147483647, -2147483648, -7]> : tensor<3xi32>
  %one = grad.const 1 : tensor<3xi32>
  %two = grad.const 2 : tensor<3xi32>
  %iadd = grad.add %i, %one : tensor<3xi32>
  %imul = grad.mul %i, %two : tensor<3xi32>
  %ineg = grad.neg %i : tensor<3xi32>
  %imax = grad.max %i, %one : tensor<3xi32>
  func.return %add, %mul, %max, %neg, %recip, %sqrt, %iadd, %imul, %ineg, %imax : tensor<6xf32>, tensor<6xf32>, tensor<6xf32>, tensor<6xf32>, tensor<6xf32>, tensor<6xf32>, tensor<3xi32>, tensor<3xi32>, tensor<3xi32>, tensor<3xi32>
}

// CHECK:      result 0 = dense<[3.5, -0.0, 0.0, 1.0, inf, nan]> : tensor<6xf32>
// CHECK-NEXT: result 1 = dense<[3.0, 0.0, -0.0, -12.0, inf, nan]> : tensor<6xf32>
// CHECK-NEXT: result 2 = dense<[2.0, -0.0, -0.0, 4.0, inf, nan]> : tensor<6xf32>
// CHECK-NEXT: result 3 = dense<[-1.5, 0.0, -0.0, -4.0, -inf, nan]> : tensor<6xf32>
// CHECK-NEXT: result 4 = dense<[0.6666667, -inf, inf, 0.25, 0.0, nan]> : tensor<6xf32>
// CHECK-NEXT: result 5 = dense<[1.4142135, -0.0, -0.0, nan, 1.0, 1.0]> : tensor<6xf32>
// CHECK-NEXT: result 6 = dense<[-2147483648, -2147483647, -6]> : tensor<3xi32>
// CHECK-NEXT: result 7 = dense<[-2, 0, -14]> : tensor<3xi32>
// CHECK-NEXT: result 8 = dense<[-2147483647, -2147483648, 7]> : tensor<3xi32>
// CHECK-NEXT: result 9 = dense<[2147483647, 1, 1]> : tensor<3xi32>
