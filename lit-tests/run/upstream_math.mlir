// RUN: grad-run %s --arg '0=[0.5, -2.5, 1.0, 2.5, -0.0, 3.0]' | filecheck %s

// `math` on f32 tensors: NumPy's float32 functions (`rsqrt` is 1 / sqrt,
// as grad.recip of grad.sqrt); `erf`, which NumPy lacks, is computed in
// float64 and rounded; `round` rounds halfway cases away from zero,
// `roundeven` to even. NumPy's float32 `log1p` and `power` give the last bit
// by the CPU's vector code (log1p(0.5) and 1.6487212 ** 0.5 end in one digit
// or the other): those two are checked to the digit before it.

func.func @main(%x: tensor<6xf32>) -> (tensor<6xf32>, tensor<6xf32>, tensor<6xf32>, tensor<6xf32>, tensor<6xf32>, tensor<6xf32>, tensor<6xf32>, tensor<6xf32>, tensor<6xf32>, tensor<6xf32>) {
  %exp = math.exp %x : tensor<6xf32>
  %tanh = math.tanh %x : tensor<6xf32>
  %abs = math.absf %x : tensor<6xf32>
  %rsqrt = math.rsqrt %abs : tensor<6xf32>
  %log1p = math.log1p %abs : tensor<6xf32>
  %erf = math.erf %x : tensor<6xf32>
  %round = math.round %x : tensor<6xf32>
  %even = math.roundeven %x : tensor<6xf32>
  %pow = math.powf %exp, %x : tensor<6xf32>
  %fma = math.fma %x, %x, %x : tensor<6xf32>
  func.return %exp, %tanh, %abs, %rsqrt, %log1p, %erf, %round, %even, %pow, %fma : tensor<6xf32>, tensor<6xf32>, tensor<6xf32>, tensor<6xf32>, tensor<6xf32>, tensor<6xf32>, tensor<6xf32>, tensor<6xf32>, tensor<6xf32>, tensor<6xf32>
}

// CHECK:      result 0 = dense<[1.6487212, 0.082085006, 2.718282, 12.182493, 1.0, 20.085537]> : tensor<6xf32>
// CHECK-NEXT: result 1 = dense<[0.4621172, -0.9866143, 0.7615942, 0.9866143, -0.0, 0.9950548]> : tensor<6xf32>
// CHECK-NEXT: result 2 = dense<[0.5, 2.5, 1.0, 2.5, 0.0, 3.0]> : tensor<6xf32>
// CHECK-NEXT: result 3 = dense<[1.4142135, 0.6324555, 1.0, 0.6324555, inf, 0.57735026]> : tensor<6xf32>
// CHECK-NEXT: result 4 = dense<[{{0\.405465[0-9]*}}, 1.252763, 0.6931472, 1.252763, 0.0, 1.3862944]> : tensor<6xf32>
// CHECK-NEXT: result 5 = dense<[0.5204999, -0.999593, 0.8427008, 0.999593, -0.0, 0.9999779]> : tensor<6xf32>
// CHECK-NEXT: result 6 = dense<[1.0, -3.0, 1.0, 3.0, -0.0, 3.0]> : tensor<6xf32>
// CHECK-NEXT: result 7 = dense<[0.0, -2.0, 1.0, 2.0, -0.0, 3.0]> : tensor<6xf32>
// CHECK-NEXT: result 8 = dense<[{{1\.284025[0-9]*}}, 518.0127, 2.718282, 518.01276, 1.0, 8103.084]> : tensor<6xf32>
// CHECK-NEXT: result 9 = dense<[0.75, 3.75, 2.0, 8.75, 0.0, 12.0]> : tensor<6xf32>
