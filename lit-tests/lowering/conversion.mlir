// RUN: grad-opt %s -p convert-grad-to-standard --split-input-file | filecheck %s

// f32 -> i32 rounds toward zero and saturates, NaN -> 0: fptosi alone is
// undefined out of range, so NaN is made 0 first, the value clamped to
// [-2^31, the largest f32 below 2^31], and values >= 2^31 give INT_MAX.

func.func @to_i32(%a: tensor<4xf32>) -> tensor<4xi32> {
  %r = grad.cast %a : tensor<4xf32> to tensor<4xi32>
  func.return %r : tensor<4xi32>
}

// CHECK-LABEL: func.func @to_i32
// CHECK-NEXT:    %r = tensor.empty() : tensor<4xi32>
// CHECK-NEXT:    %r_1 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%a : tensor<4xf32>) outs(%r : tensor<4xi32>) {
// CHECK-NEXT:    ^bb0(%[[X:.*]]: f32, %{{.*}}: i32):
// CHECK-NEXT:      %[[IS_NAN:.*]] = arith.cmpf uno, %[[X]], %[[X]] : f32
// CHECK-NEXT:      %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:      %[[NUMBER:.*]] = arith.select %[[IS_NAN]], %[[ZERO]], %[[X]] : f32
// CHECK-NEXT:      %[[LOW:.*]] = arith.constant -2.14748365e+09 : f32
// CHECK-NEXT:      %[[ABOVE:.*]] = arith.maximumf %[[NUMBER]], %[[LOW]] : f32
// CHECK-NEXT:      %[[HIGH:.*]] = arith.constant 2.14748352e+09 : f32
// CHECK-NEXT:      %[[CLAMPED:.*]] = arith.minimumf %[[ABOVE]], %[[HIGH]] : f32
// CHECK-NEXT:      %[[INT:.*]] = arith.fptosi %[[CLAMPED]] : f32 to i32
// CHECK-NEXT:      %[[LIMIT:.*]] = arith.constant 2.14748365e+09 : f32
// CHECK-NEXT:      %[[TOO_BIG:.*]] = arith.cmpf oge, %[[X]], %[[LIMIT]] : f32
// CHECK-NEXT:      %[[MAX:.*]] = arith.constant 2147483647 : i32
// CHECK-NEXT:      %[[R:.*]] = arith.select %[[TOO_BIG]], %[[MAX]], %[[INT]] : i32
// CHECK-NEXT:      linalg.yield %[[R]] : i32
// CHECK-NEXT:    } -> tensor<4xi32>

// -----

// The other conversions: sitofp (round to nearest), != 0 to i1 (une for f32,
// so NaN is true), uitofp and extui from i1; a cast to the same type is its
// operand.

func.func @others(%f: tensor<2xf32>, %i: tensor<2xi32>, %b: tensor<2xi1>) -> (tensor<2xf32>, tensor<2xi1>, tensor<2xi1>, tensor<2xf32>, tensor<2xi32>, tensor<2xf32>) {
  %i2f = grad.cast %i : tensor<2xi32> to tensor<2xf32>
  %f2b = grad.cast %f : tensor<2xf32> to tensor<2xi1>
  %i2b = grad.cast %i : tensor<2xi32> to tensor<2xi1>
  %b2f = grad.cast %b : tensor<2xi1> to tensor<2xf32>
  %b2i = grad.cast %b : tensor<2xi1> to tensor<2xi32>
  %same = grad.cast %f : tensor<2xf32> to tensor<2xf32>
  func.return %i2f, %f2b, %i2b, %b2f, %b2i, %same : tensor<2xf32>, tensor<2xi1>, tensor<2xi1>, tensor<2xf32>, tensor<2xi32>, tensor<2xf32>
}

// CHECK-LABEL: func.func @others
// CHECK:         ^bb0(%[[I:.*]]: i32, %{{.*}}: f32):
// CHECK-NEXT:      %[[R:.*]] = arith.sitofp %[[I]] : i32 to f32
// CHECK-NEXT:      linalg.yield %[[R]] : f32
// CHECK:         ^bb0(%[[F:.*]]: f32, %{{.*}}: i1):
// CHECK-NEXT:      %[[FZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:      %{{.*}} = arith.cmpf une, %[[F]], %[[FZERO]] : f32
// CHECK:         ^bb0(%[[J:.*]]: i32, %{{.*}}: i1):
// CHECK-NEXT:      %[[IZERO:.*]] = arith.constant 0 : i32
// CHECK-NEXT:      %{{.*}} = arith.cmpi ne, %[[J]], %[[IZERO]] : i32
// CHECK:         arith.uitofp %{{.*}} : i1 to f32
// CHECK:         arith.extui %{{.*}} : i1 to i32
// CHECK:         func.return %i2f_1, %f2b_1, %i2b_1, %b2f_1, %b2i_1, %f :

// -----

// bitcast reinterprets the bits: arith.bitcast on the whole tensor.

func.func @bitcast(%f: tensor<2xf32>) -> (tensor<2xi32>, tensor<2xf32>) {
  %i = grad.bitcast %f : tensor<2xf32> to tensor<2xi32>
  %back = grad.bitcast %i : tensor<2xi32> to tensor<2xf32>
  func.return %i, %back : tensor<2xi32>, tensor<2xf32>
}

// CHECK-LABEL: func.func @bitcast
// CHECK-NEXT:    %i = arith.bitcast %f : tensor<2xf32> to tensor<2xi32>
// CHECK-NEXT:    %back = arith.bitcast %i : tensor<2xi32> to tensor<2xf32>
// CHECK-NEXT:    func.return %i, %back : tensor<2xi32>, tensor<2xf32>
