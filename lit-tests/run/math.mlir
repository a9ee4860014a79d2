// RUN: grad-run %s --arg '0=[0.0, -0.0, 1.0, 3.0, -1.0, Infinity, -Infinity, NaN]' | filecheck %s

// exp2, log2 and sin are NumPy's float32 functions: sin(1.0) is 0.841471, one ulp
// from 0.84147096, the float32 nearest the exact value.

func.func @main(%a: tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) {
  %exp2 = grad.exp2 %a : tensor<8xf32>
  %log2 = grad.log2 %a : tensor<8xf32>
  %sin = grad.sin %a : tensor<8xf32>
  func.return %exp2, %log2, %sin : tensor<8xf32>, tensor<8xf32>, tensor<8xf32>
}

// CHECK:      result 0 = dense<[1.0, 1.0, 2.0, 8.0, 0.5, inf, 0.0, nan]> : tensor<8xf32>
// CHECK-NEXT: result 1 = dense<[-inf, -inf, 0.0, 1.5849625, nan, inf, nan, nan]> : tensor<8xf32>
// CHECK-NEXT: result 2 = dense<[0.0, -0.0, 0.841471, 0.14112, -0.841471, nan, nan, nan]> : tensor<8xf32>
