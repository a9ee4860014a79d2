// RUN: grad-opt %s -p convert-grad-to-standard --split-input-file | filecheck %s

// slice is a tensor.extract_slice at the start offsets with the strides and
// the result's sizes; a slice with no elements is a tensor.empty (MLIR
// rejects an offset equal to the dim's size even for zero elements).

func.func @slice(%a: tensor<4x5xf32>, %i: tensor<3xi32>, %b: tensor<0x5xi1>) -> (tensor<2x2xf32>, tensor<1xi32>, tensor<0x5xf32>, tensor<0x2xi1>) {
  %s = grad.slice %a [1, 0] [3, 5] [1, 3] : tensor<4x5xf32> to tensor<2x2xf32>
  %t = grad.slice %i [2] [3] [5] : tensor<3xi32> to tensor<1xi32>
  %end = grad.slice %a [4, 0] [4, 5] [1, 1] : tensor<4x5xf32> to tensor<0x5xf32>
  %none = grad.slice %b [0, 1] [0, 5] [1, 2] : tensor<0x5xi1> to tensor<0x2xi1>
  func.return %s, %t, %end, %none : tensor<2x2xf32>, tensor<1xi32>, tensor<0x5xf32>, tensor<0x2xi1>
}

// CHECK-LABEL: func.func @slice
// CHECK-NEXT:    %s = tensor.extract_slice %a[1, 0] [2, 2] [1, 3] : tensor<4x5xf32> to tensor<2x2xf32>
// CHECK-NEXT:    %t = tensor.extract_slice %i[2] [1] [5] : tensor<3xi32> to tensor<1xi32>
// CHECK-NEXT:    %end = tensor.empty() : tensor<0x5xf32>
// CHECK-NEXT:    %none = tensor.empty() : tensor<0x2xi1>
// CHECK-NEXT:    func.return %s, %t, %end, %none :


// -----

// pad is the operand inserted, at offsets low with strides interior + 1, into
// a tensor filled with the pad value (tensor.pad has no interior padding); an
// operand with no elements inserts nothing.

func.func @pad(%a: tensor<2x3xf32>, %i: tensor<3xi32>, %b: tensor<2xi1>, %e: tensor<0x3xf32>) -> (tensor<3x7xf32>, tensor<8xi32>, tensor<4xi1>, tensor<3x8xf32>) {
  %p = grad.pad %a low [1, 0] high [0, 2] interior [0, 1] value 0.0 : tensor<2x3xf32> to tensor<3x7xf32>
  %q = grad.pad %i low [1] high [2] interior [1] value -7 : tensor<3xi32> to tensor<8xi32>
  %r = grad.pad %b low [0] high [2] interior [0] value true : tensor<2xi1> to tensor<4xi1>
  %s = grad.pad %e low [1, 1] high [2, 0] interior [4, 2] value -0.0 : tensor<0x3xf32> to tensor<3x8xf32>
  func.return %p, %q, %r, %s : tensor<3x7xf32>, tensor<8xi32>, tensor<4xi1>, tensor<3x8xf32>
}

// CHECK-LABEL: func.func @pad
// CHECK-NEXT:    %p = tensor.empty() : tensor<3x7xf32>
// CHECK-NEXT:    %p_1 = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:    %p_2 = linalg.fill ins(%p_1 : f32) outs(%p : tensor<3x7xf32>) -> tensor<3x7xf32>
// CHECK-NEXT:    %p_3 = tensor.insert_slice %a into %p_2[1, 0] [2, 3] [1, 2] : tensor<2x3xf32> into tensor<3x7xf32>
// CHECK-NEXT:    %q = tensor.empty() : tensor<8xi32>
// CHECK-NEXT:    %q_1 = arith.constant -7 : i32
// CHECK-NEXT:    %q_2 = linalg.fill ins(%q_1 : i32) outs(%q : tensor<8xi32>) -> tensor<8xi32>
// CHECK-NEXT:    %q_3 = tensor.insert_slice %i into %q_2[1] [3] [2] : tensor<3xi32> into tensor<8xi32>
// CHECK-NEXT:    %r = tensor.empty() : tensor<4xi1>
// CHECK-NEXT:    %r_1 = arith.constant true
// CHECK-NEXT:    %r_2 = linalg.fill ins(%r_1 : i1) outs(%r : tensor<4xi1>) -> tensor<4xi1>
// CHECK-NEXT:    %r_3 = tensor.insert_slice %b into %r_2[0] [2] [1] : tensor<2xi1> into tensor<4xi1>
// CHECK-NEXT:    %s = tensor.empty() : tensor<3x8xf32>
// CHECK-NEXT:    %s_1 = arith.constant -0.000000e+00 : f32
// CHECK-NEXT:    %s_2 = linalg.fill ins(%s_1 : f32) outs(%s : tensor<3x8xf32>) -> tensor<3x8xf32>
// CHECK-NEXT:    func.return %p_3, %q_3, %r_3, %s_2 :


// -----

// reverse is a linalg.generic that reads, at the result's index i, index
// size - 1 - i of each flipped dim with tensor.extract (IREE does not compile
// a generic that reads through the map d -> size - 1 - d for most shapes).

func.func @reverse(%a: tensor<3x4x2xi32>, %e: tensor<0x3xi1>) -> (tensor<3x4x2xi32>, tensor<0x3xi1>) {
  %r = grad.reverse %a [1] : tensor<3x4x2xi32>
  %s = grad.reverse %e [0, 1] : tensor<0x3xi1>
  func.return %r, %s : tensor<3x4x2xi32>, tensor<0x3xi1>
}

// CHECK-LABEL: func.func @reverse
// CHECK-NEXT:    %r = tensor.empty() : tensor<3x4x2xi32>
// CHECK-NEXT:    %r_1 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} outs(%r : tensor<3x4x2xi32>) {
// CHECK-NEXT:    ^{{.*}}(%{{.*}}: i32):
// CHECK-NEXT:      %[[I0:.*]] = linalg.index 0 : index
// CHECK-NEXT:      %[[I1:.*]] = linalg.index 1 : index
// CHECK-NEXT:      %[[LAST:.*]] = arith.constant 3 : index
// CHECK-NEXT:      %[[J1:.*]] = arith.subi %[[LAST]], %[[I1]] : index
// CHECK-NEXT:      %[[I2:.*]] = linalg.index 2 : index
// CHECK-NEXT:      %[[V:.*]] = tensor.extract %a[%[[I0]], %[[J1]], %[[I2]]] : tensor<3x4x2xi32>
// CHECK-NEXT:      linalg.yield %[[V]] : i32
// CHECK-NEXT:    } -> tensor<3x4x2xi32>
// CHECK-NEXT:    %s = tensor.empty() : tensor<0x3xi1>
// CHECK-NEXT:    %s_1 = linalg.generic
// CHECK-NEXT:    ^{{.*}}(%{{.*}}: i1):
// CHECK-NEXT:      %[[K0:.*]] = linalg.index 0 : index
// CHECK-NEXT:      %[[M1:.*]] = arith.constant -1 : index
// CHECK-NEXT:      %[[L0:.*]] = arith.subi %[[M1]], %[[K0]] : index
// CHECK-NEXT:      %[[K1:.*]] = linalg.index 1 : index
// CHECK-NEXT:      %[[TWO:.*]] = arith.constant 2 : index
// CHECK-NEXT:      %[[L1:.*]] = arith.subi %[[TWO]], %[[K1]] : index
// CHECK-NEXT:      %[[W:.*]] = tensor.extract %e[%[[L0]], %[[L1]]] : tensor<0x3xi1>
// CHECK-NEXT:      linalg.yield %[[W]] : i1
// CHECK-NEXT:    } -> tensor<0x3xi1>
// CHECK-NEXT:    func.return %r_1, %s_1 :


// -----

// concat is a tensor.concat along the same dim, of any number of operands.

func.func @concat(%a: tensor<2x3xf32>, %b: tensor<4x3xf32>, %i: tensor<2x0xi32>, %j: tensor<2x3xi32>, %k: tensor<2x1xi32>, %l: tensor<2x2xi32>, %p: tensor<1xi1>, %q: tensor<2xi1>) -> (tensor<8x3xf32>, tensor<2x6xi32>, tensor<4xi1>) {
  %c = grad.concat %a, %b, %a [0] : tensor<2x3xf32>, tensor<4x3xf32>, tensor<2x3xf32> to tensor<8x3xf32>
  %d = grad.concat %i, %j, %k, %l [1] : tensor<2x0xi32>, tensor<2x3xi32>, tensor<2x1xi32>, tensor<2x2xi32> to tensor<2x6xi32>
  %e = grad.concat %p, %q, %p [0] : tensor<1xi1>, tensor<2xi1>, tensor<1xi1> to tensor<4xi1>
  func.return %c, %d, %e : tensor<8x3xf32>, tensor<2x6xi32>, tensor<4xi1>
}

// CHECK-LABEL: func.func @concat
// CHECK-NEXT:    %c = tensor.concat dim(0) %a, %b, %a : (tensor<2x3xf32>, tensor<4x3xf32>, tensor<2x3xf32>) -> tensor<8x3xf32>
// CHECK-NEXT:    %d = tensor.concat dim(1) %i, %j, %k, %l : (tensor<2x0xi32>, tensor<2x3xi32>, tensor<2x1xi32>, tensor<2x2xi32>) -> tensor<2x6xi32>
// CHECK-NEXT:    %e = tensor.concat dim(0) %p, %q, %p : (tensor<1xi1>, tensor<2xi1>, tensor<1xi1>) -> tensor<4xi1>
// CHECK-NEXT:    func.return %c, %d, %e :


// -----

// A batched dot is a linalg.generic with linalg.batch_matmul's indexing maps
// and body (acc + lhs * rhs) over its batch dims, into a zero-filled init:
// xDSL has no linalg.batch_matmul, and the generic takes any number of batch
// dims.

func.func @batched_dot(%a: tensor<2x3x4xf32>, %b: tensor<2x4x5xf32>, %c: tensor<2x3x4x1xf32>, %d: tensor<2x3x1x5xf32>) -> (tensor<2x3x5xf32>, tensor<2x3x4x5xf32>) {
  %one = grad.dot %a, %b : tensor<2x3x4xf32>, tensor<2x4x5xf32> to tensor<2x3x5xf32>
  %two = grad.dot %c, %d : tensor<2x3x4x1xf32>, tensor<2x3x1x5xf32> to tensor<2x3x4x5xf32>
  func.return %one, %two : tensor<2x3x5xf32>, tensor<2x3x4x5xf32>
}

// CHECK-LABEL: func.func @batched_dot
// CHECK-NEXT:    %one = tensor.empty() : tensor<2x3x5xf32>
// CHECK-NEXT:    %one_1 = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:    %one_2 = linalg.fill ins(%one_1 : f32) outs(%one : tensor<2x3x5xf32>) -> tensor<2x3x5xf32>
// CHECK-NEXT:    %one_3 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d3, d2)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%a, %b : tensor<2x3x4xf32>, tensor<2x4x5xf32>) outs(%one_2 : tensor<2x3x5xf32>) {
// CHECK-NEXT:    ^{{.*}}(%[[X:.*]]: f32, %[[Y:.*]]: f32, %[[ACC:.*]]: f32):
// CHECK-NEXT:      %[[M:.*]] = arith.mulf %[[X]], %[[Y]] : f32
// CHECK-NEXT:      %[[S:.*]] = arith.addf %[[ACC]], %[[M]] : f32
// CHECK-NEXT:      linalg.yield %[[S]] : f32
// CHECK-NEXT:    } -> tensor<2x3x5xf32>
// CHECK:         %two_3 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d4)>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d4, d3)>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%c, %d : tensor<2x3x4x1xf32>, tensor<2x3x1x5xf32>) outs(%two_2 : tensor<2x3x4x5xf32>) {
// CHECK:         func.return %one_3, %two_3 :


// -----

// A dot over an inner size of 0 is its zero-filled init alone: IREE 3.13
// crashes compiling a matmul over nothing.

func.func @empty_dot(%a: tensor<2x0xf32>, %b: tensor<0x3xf32>, %c: tensor<4x2x0xf32>, %d: tensor<4x0x3xf32>) -> (tensor<2x3xf32>, tensor<4x2x3xf32>) {
  %plain = grad.dot %a, %b : tensor<2x0xf32>, tensor<0x3xf32> to tensor<2x3xf32>
  %batched = grad.dot %c, %d : tensor<4x2x0xf32>, tensor<4x0x3xf32> to tensor<4x2x3xf32>
  func.return %plain, %batched : tensor<2x3xf32>, tensor<4x2x3xf32>
}

// CHECK-LABEL: func.func @empty_dot
// CHECK-NEXT:    %plain = tensor.empty() : tensor<2x3xf32>
// CHECK-NEXT:    %plain_1 = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:    %plain_2 = linalg.fill ins(%plain_1 : f32) outs(%plain : tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT:    %batched = tensor.empty() : tensor<4x2x3xf32>
// CHECK-NEXT:    %batched_1 = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:    %batched_2 = linalg.fill ins(%batched_1 : f32) outs(%batched : tensor<4x2x3xf32>) -> tensor<4x2x3xf32>
// CHECK-NEXT:    func.return %plain_2, %batched_2 :
