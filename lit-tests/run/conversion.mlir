// RUN: grad-run %s --arg '0=[2.7, -2.7, 3e9, -3e9, Infinity, -Infinity, NaN, -0.0]' --arg '1=[16777217, 2147483647, -1, 0]' | filecheck %s

// cast f32 -> i32 rounds toward zero and saturates, NaN -> 0; i32 -> f32 rounds
// to nearest; to i1 is `!= 0` (NaN is true, -0.0 false); from i1 is 0 or 1.
// bitcast reinterprets the bits.

func.func @main(%f: tensor<8xf32>, %i: tensor<4xi32>) -> (tensor<8xi32>, tensor<4xf32>, tensor<8xi1>, tensor<4xi1>, tensor<8xf32>, tensor<8xi32>, tensor<8xi32>, tensor<4xf32>, tensor<8xf32>) {
  %fi = grad.cast %f : tensor<8xf32> to tensor<8xi32>
  %if = grad.cast %i : tensor<4xi32> to tensor<4xf32>
  %fb = grad.cast %f : tensor<8xf32> to tensor<8xi1>
  %ib = grad.cast %i : tensor<4xi32> to tensor<4xi1>
  %bf = grad.cast %fb : tensor<8xi1> to tensor<8xf32>
  %bi = grad.cast %fb : tensor<8xi1> to tensor<8xi32>
  %bits = grad.bitcast %f : tensor<8xf32> to tensor<8xi32>
  %back = grad.bitcast %i : tensor<4xi32> to tensor<4xf32>
  %same = grad.bitcast %f : tensor<8xf32> to tensor<8xf32>
  func.return %fi, %if, %fb, %ib, %bf, %bi, %bits, %back, %same : tensor<8xi32>, tensor<4xf32>, tensor<8xi1>, tensor<4xi1>, tensor<8xf32>, tensor<8xi32>, tensor<8xi32>, tensor<4xf32>, tensor<8xf32>
}

// CHECK:      result 0 = dense<[2, -2, 2147483647, -2147483648, 2147483647, -2147483648, 0, 0]> : tensor<8xi32>
// CHECK-NEXT: result 1 = dense<[1.6777216e+07, 2.1474836e+09, -1.0, 0.0]> : tensor<4xf32>
// CHECK-NEXT: result 2 = dense<[true, true, true, true, true, true, true, false]> : tensor<8xi1>
// CHECK-NEXT: result 3 = dense<[true, true, true, false]> : tensor<4xi1>
// CHECK-NEXT: result 4 = dense<[1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 0.0]> : tensor<8xf32>
// CHECK-NEXT: result 5 = dense<[1, 1, 1, 1, 1, 1, 1, 0]> : tensor<8xi32>
// CHECK-NEXT: result 6 = dense<[1076677837, -1070805811, 1328730206, -818753442, 2139095040, -8388608, 2143289344, -2147483648]> : tensor<8xi32>
// CHECK-NEXT: result 7 = dense<[2.350989e-38, nan, nan, 0.0]> : tensor<4xf32>
// CHECK-NEXT: result 8 = dense<[2.7, -2.7, 3e+09, -3e+09, inf, -inf, nan, -0.0]> : tensor<8xf32>
