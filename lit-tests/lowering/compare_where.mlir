// RUN: grad-opt %s -p convert-grad-to-standard --split-input-file | filecheck %s

// Comparisons and where are a linalg.generic of the scalar arith op (xDSL's
// arith.cmpf, arith.cmpi and arith.select take scalars only): olt, oeq and une
// for f32 (so != holds for NaN), slt, eq and ne for i32 and i1.

func.func @float_compare(%a: tensor<3xf32>, %b: tensor<3xf32>) -> (tensor<3xi1>, tensor<3xi1>, tensor<3xi1>) {
  %lt = grad.cmplt %a, %b : tensor<3xf32>
  %eq = grad.cmpeq %a, %b : tensor<3xf32>
  %ne = grad.cmpne %a, %b : tensor<3xf32>
  func.return %lt, %eq, %ne : tensor<3xi1>, tensor<3xi1>, tensor<3xi1>
}

// CHECK-LABEL: func.func @float_compare
// CHECK:         %lt = tensor.empty() : tensor<3xi1>
// CHECK-NEXT:    %lt_1 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%a, %b : tensor<3xf32>, tensor<3xf32>) outs(%lt : tensor<3xi1>) {
// CHECK-NEXT:    ^bb0(%[[A:.*]]: f32, %[[B:.*]]: f32, %{{.*}}: i1):
// CHECK-NEXT:      %[[R:.*]] = arith.cmpf olt, %[[A]], %[[B]] : f32
// CHECK-NEXT:      linalg.yield %[[R]] : i1
// CHECK-NEXT:    } -> tensor<3xi1>
// CHECK:         arith.cmpf oeq, %{{.*}}, %{{.*}} : f32
// CHECK:         arith.cmpf une, %{{.*}}, %{{.*}} : f32
// CHECK:         func.return %lt_1, %eq_1, %ne_1

// -----

func.func @integer_compare(%a: tensor<2xi32>, %b: tensor<2xi32>, %c: tensor<2xi1>, %d: tensor<2xi1>) -> (tensor<2xi1>, tensor<2xi1>, tensor<2xi1>, tensor<2xi1>) {
  %lt = grad.cmplt %a, %b : tensor<2xi32>
  %eq = grad.cmpeq %a, %b : tensor<2xi32>
  %ne = grad.cmpne %a, %b : tensor<2xi32>
  %beq = grad.cmpeq %c, %d : tensor<2xi1>
  func.return %lt, %eq, %ne, %beq : tensor<2xi1>, tensor<2xi1>, tensor<2xi1>, tensor<2xi1>
}

// CHECK-LABEL: func.func @integer_compare
// CHECK:         arith.cmpi slt, %{{.*}}, %{{.*}} : i32
// CHECK:         arith.cmpi eq, %{{.*}}, %{{.*}} : i32
// CHECK:         arith.cmpi ne, %{{.*}}, %{{.*}} : i32
// CHECK:         ins(%c, %d : tensor<2xi1>, tensor<2xi1>)
// CHECK-NEXT:    ^bb0(%{{.*}}: i1, %{{.*}}: i1, %{{.*}}: i1):
// CHECK-NEXT:      arith.cmpi eq, %{{.*}}, %{{.*}} : i1

// -----

func.func @where(%c: tensor<2x2xi1>, %a: tensor<2x2xf32>, %b: tensor<2x2xf32>) -> tensor<2x2xf32> {
  %w = grad.where %c, %a, %b : tensor<2x2xf32>
  func.return %w : tensor<2x2xf32>
}

// CHECK-LABEL: func.func @where
// CHECK-NEXT:    %w = tensor.empty() : tensor<2x2xf32>
// CHECK-NEXT:    %w_1 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%c, %a, %b : tensor<2x2xi1>, tensor<2x2xf32>, tensor<2x2xf32>) outs(%w : tensor<2x2xf32>) {
// CHECK-NEXT:    ^bb0(%[[C:.*]]: i1, %[[A:.*]]: f32, %[[B:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT:      %[[R:.*]] = arith.select %[[C]], %[[A]], %[[B]] : f32
// CHECK-NEXT:      linalg.yield %[[R]] : f32
// CHECK-NEXT:    } -> tensor<2x2xf32>
// CHECK-NEXT:    func.return %w_1 : tensor<2x2xf32>
