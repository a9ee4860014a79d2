// RUN: grad-opt %s -p convert-grad-to-standard --split-input-file | filecheck %s

// Elementwise f32 and i32 arithmetic is the arith or math op of the same name
// on whole tensors; max is NumPy's maximum as a linalg.generic.

func.func @float_ops(%a: tensor<3xf32>, %b: tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) {
  %add = grad.add %a, %b : tensor<3xf32>
  %mul = grad.mul %a, %b : tensor<3xf32>
  %neg = grad.neg %a : tensor<3xf32>
  %recip = grad.recip %a : tensor<3xf32>
  %exp2 = grad.exp2 %a : tensor<3xf32>
  %log2 = grad.log2 %a : tensor<3xf32>
  %sqrt = grad.sqrt %a : tensor<3xf32>
  %sin = grad.sin %a : tensor<3xf32>
  %detach = grad.detach %a : tensor<3xf32>
  func.return %add, %mul, %neg, %recip, %exp2, %log2, %sqrt, %sin, %detach : tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>
}

// CHECK-LABEL: func.func @float_ops(%a: tensor<3xf32>, %b: tensor<3xf32>)
// CHECK-NEXT:    %add = arith.addf %a, %b : tensor<3xf32>
// CHECK-NEXT:    %mul = arith.mulf %a, %b : tensor<3xf32>
// CHECK-NEXT:    %neg = arith.negf %a : tensor<3xf32>
// CHECK-NEXT:    %recip = arith.constant dense<1.000000e+00> : tensor<3xf32>
// CHECK-NEXT:    %recip_1 = arith.divf %recip, %a : tensor<3xf32>
// CHECK-NEXT:    %exp2 = math.exp2 %a : tensor<3xf32>
// CHECK-NEXT:    %log2 = math.log2 %a : tensor<3xf32>
// CHECK-NEXT:    %sqrt = math.sqrt %a : tensor<3xf32>
// CHECK-NEXT:    %sin = math.sin %a : tensor<3xf32>
// CHECK-NEXT:    func.return %add, %mul, %neg, %recip_1, %exp2, %log2, %sqrt, %sin, %a :

// -----

// max: a if a is NaN or greater, else b (two zeros give b, as in NumPy).
func.func @float_max(%a: tensor<2x3xf32>, %b: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %max = grad.max %a, %b : tensor<2x3xf32>
  func.return %max : tensor<2x3xf32>
}

// CHECK-LABEL: func.func @float_max(%a: tensor<2x3xf32>, %b: tensor<2x3xf32>) -> tensor<2x3xf32> {
// CHECK-NEXT:    %max = tensor.empty() : tensor<2x3xf32>
// CHECK-NEXT:    %max_1 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%a, %b : tensor<2x3xf32>, tensor<2x3xf32>) outs(%max : tensor<2x3xf32>) {
// CHECK-NEXT:    ^bb0(%[[A:.*]]: f32, %[[B:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT:      %[[GT:.*]] = arith.cmpf ogt, %[[A]], %[[B]] : f32
// CHECK-NEXT:      %[[G:.*]] = arith.select %[[GT]], %[[A]], %[[B]] : f32
// CHECK-NEXT:      %[[NAN:.*]] = arith.cmpf uno, %[[A]], %[[A]] : f32
// CHECK-NEXT:      %[[R:.*]] = arith.select %[[NAN]], %[[A]], %[[G]] : f32
// CHECK-NEXT:      linalg.yield %[[R]] : f32
// CHECK-NEXT:    } -> tensor<2x3xf32>
// CHECK-NEXT:    func.return %max_1 : tensor<2x3xf32>

// -----

// i32: neg is 0 - a (arith has no integer negation); max is maxsi.
func.func @integer_ops(%a: tensor<4xi32>, %b: tensor<4xi32>) -> (tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, tensor<4xi32>) {
  %add = grad.add %a, %b : tensor<4xi32>
  %mul = grad.mul %a, %b : tensor<4xi32>
  %max = grad.max %a, %b : tensor<4xi32>
  %neg = grad.neg %a : tensor<4xi32>
  %detach = grad.detach %a : tensor<4xi32>
  func.return %add, %mul, %max, %neg, %detach : tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, tensor<4xi32>
}

// CHECK-LABEL: func.func @integer_ops(%a: tensor<4xi32>, %b: tensor<4xi32>)
// CHECK-NEXT:    %add = arith.addi %a, %b : tensor<4xi32>
// CHECK-NEXT:    %mul = arith.muli %a, %b : tensor<4xi32>
// CHECK-NEXT:    %max = arith.maxsi %a, %b : tensor<4xi32>
// CHECK-NEXT:    %neg = arith.constant dense<0> : tensor<4xi32>
// CHECK-NEXT:    %neg_1 = arith.subi %neg, %a : tensor<4xi32>
// CHECK-NEXT:    func.return %add, %mul, %max, %neg_1, %a :

// -----

// Rank 0 works like any other shape.
func.func @scalars(%a: tensor<f32>) -> tensor<f32> {
  %r = grad.mul %a, %a : tensor<f32>
  %s = grad.sqrt %r : tensor<f32>
  func.return %s : tensor<f32>
}

// CHECK-LABEL: func.func @scalars(%a: tensor<f32>) -> tensor<f32> {
// CHECK-NEXT:    %r = arith.mulf %a, %a : tensor<f32>
// CHECK-NEXT:    %s = math.sqrt %r : tensor<f32>
// CHECK-NEXT:    func.return %s : tensor<f32>
