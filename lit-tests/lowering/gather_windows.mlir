// RUN: grad-opt %s -p gather-windows --split-input-file | filecheck %s

// The im2col of a convolution (zero padding 1, a 2x2 kernel, stride 1): one
// slice of the padded input per kernel position, joined along the channels,
// becomes one linalg.generic reading the input at y + i, x + j into
// [image, i, j, channel, y, x], reshaped to the concat's type. The slices go.

func.func @stride1(%x: tensor<1x2x3x3xf32>) -> tensor<2x8x2x4xf32> {
  %xp = grad.pad %x low [0, 0, 1, 1] high [0, 0, 1, 1] interior [0, 0, 0, 0] value 0.0 : tensor<1x2x3x3xf32> to tensor<1x2x5x5xf32>
  %t00 = grad.slice %xp [0, 0, 0, 0] [1, 2, 4, 4] [1, 1, 1, 1] : tensor<1x2x5x5xf32> to tensor<1x2x4x4xf32>
  %t01 = grad.slice %xp [0, 0, 0, 1] [1, 2, 4, 5] [1, 1, 1, 1] : tensor<1x2x5x5xf32> to tensor<1x2x4x4xf32>
  %t10 = grad.slice %xp [0, 0, 1, 0] [1, 2, 5, 4] [1, 1, 1, 1] : tensor<1x2x5x5xf32> to tensor<1x2x4x4xf32>
  %t11 = grad.slice %xp [0, 0, 1, 1] [1, 2, 5, 5] [1, 1, 1, 1] : tensor<1x2x5x5xf32> to tensor<1x2x4x4xf32>
  %cat = grad.concat %t00, %t01, %t10, %t11 [1] : tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32> to tensor<1x8x4x4xf32>
  %r = grad.reshape %cat : tensor<1x8x4x4xf32> to tensor<2x8x2x4xf32>
  func.return %r : tensor<2x8x2x4xf32>
}

// CHECK-LABEL: func.func @stride1
// CHECK-NEXT:    %xp = grad.pad %x
// CHECK-NEXT:    %{{.*}} = tensor.empty() : tensor<1x2x2x2x4x4xf32>
// CHECK-NEXT:    %{{.*}} = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d3, (d4 + d1), (d5 + d2))>, affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3, d4, d5)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "parallel"], doc = "gather-windows"} ins(%xp : tensor<1x2x5x5xf32>) outs(%{{.*}} : tensor<1x2x2x2x4x4xf32>) {
// CHECK-NEXT:    ^{{.*}}(%[[IN:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT:      linalg.yield %[[IN]] : f32
// CHECK-NEXT:    } -> tensor<1x2x2x2x4x4xf32>
// CHECK-NEXT:    %[[CAT:.*]] = grad.reshape %{{.*}} : tensor<1x2x2x2x4x4xf32> to tensor<1x8x4x4xf32>
// CHECK-NEXT:    %r = grad.reshape %[[CAT]] : tensor<1x8x4x4xf32> to tensor<2x8x2x4xf32>
// CHECK-NEXT:    func.return %r

// -----

// Stride 2 in both spatial dims and several images and channels: the
// positions step by 2, the taps by 1.

func.func @stride2(%xp: tensor<2x3x5x5xf32>) -> tensor<2x12x2x2xf32> {
  %t00 = grad.slice %xp [0, 0, 0, 0] [2, 3, 3, 3] [1, 1, 2, 2] : tensor<2x3x5x5xf32> to tensor<2x3x2x2xf32>
  %t01 = grad.slice %xp [0, 0, 0, 1] [2, 3, 3, 4] [1, 1, 2, 2] : tensor<2x3x5x5xf32> to tensor<2x3x2x2xf32>
  %t10 = grad.slice %xp [0, 0, 1, 0] [2, 3, 4, 3] [1, 1, 2, 2] : tensor<2x3x5x5xf32> to tensor<2x3x2x2xf32>
  %t11 = grad.slice %xp [0, 0, 1, 1] [2, 3, 4, 4] [1, 1, 2, 2] : tensor<2x3x5x5xf32> to tensor<2x3x2x2xf32>
  %cat = grad.concat %t00, %t01, %t10, %t11 [1] : tensor<2x3x2x2xf32>, tensor<2x3x2x2xf32>, tensor<2x3x2x2xf32>, tensor<2x3x2x2xf32> to tensor<2x12x2x2xf32>
  func.return %cat : tensor<2x12x2x2xf32>
}

// CHECK-LABEL: func.func @stride2
// CHECK-NEXT:    %{{.*}} = tensor.empty() : tensor<2x2x2x3x2x2xf32>
// CHECK-NEXT:    %{{.*}} = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d3, ((d4 * 2) + d1), ((d5 * 2) + d2))>, affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3, d4, d5)>]
// CHECK:         %[[CAT:.*]] = grad.reshape %{{.*}} : tensor<2x2x2x3x2x2xf32> to tensor<2x12x2x2xf32>
// CHECK-NEXT:    func.return %[[CAT]]

// -----

// gradopt.nn's form: each slice reshaped to a unit dim at the concat's axis
// (N, C, window, W); here a 1-D window of 3 with dilation 2 whose first tap
// starts at 1 (the base is a constant of the map) and an i32 tensor.

func.func @dilated(%x: tensor<2x3x9xi32>) -> tensor<2x3x3x4xi32> {
  %a = grad.slice %x [0, 0, 1] [2, 3, 5] [1, 1, 1] : tensor<2x3x9xi32> to tensor<2x3x4xi32>
  %ar = grad.reshape %a : tensor<2x3x4xi32> to tensor<2x3x1x4xi32>
  %b = grad.slice %x [0, 0, 3] [2, 3, 7] [1, 1, 1] : tensor<2x3x9xi32> to tensor<2x3x4xi32>
  %br = grad.reshape %b : tensor<2x3x4xi32> to tensor<2x3x1x4xi32>
  %c = grad.slice %x [0, 0, 5] [2, 3, 9] [1, 1, 1] : tensor<2x3x9xi32> to tensor<2x3x4xi32>
  %cr = grad.reshape %c : tensor<2x3x4xi32> to tensor<2x3x1x4xi32>
  %cat = grad.concat %ar, %br, %cr [2] : tensor<2x3x1x4xi32>, tensor<2x3x1x4xi32>, tensor<2x3x1x4xi32> to tensor<2x3x3x4xi32>
  func.return %cat : tensor<2x3x3x4xi32>
}

// CHECK-LABEL: func.func @dilated
// CHECK-NEXT:    %{{.*}} = tensor.empty() : tensor<2x3x3x4xi32>
// CHECK-NEXT:    %{{.*}} = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, ((d3 + 1) + (d2 * 2)))>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>]
// CHECK-NEXT:    ^{{.*}}(%[[IN:.*]]: i32, %{{.*}}: i32):
// CHECK-NEXT:      linalg.yield %[[IN]] : i32
// CHECK-NEXT:    } -> tensor<2x3x3x4xi32>
// CHECK-NEXT:    %[[CAT:.*]] = grad.reshape %{{.*}} : tensor<2x3x3x4xi32> to tensor<2x3x3x4xi32>
// CHECK-NEXT:    func.return %[[CAT]]

// -----

// Near misses are left as they are: a grid with a tap missing, taps in
// another order, two sources, two strides, a reshape that does not insert a
// unit dim at the axis, and a concat of one repeated window.

func.func @near_misses(%x: tensor<1x1x4x4xf32>, %y: tensor<1x1x4x4xf32>) -> (tensor<1x3x3x3xf32>, tensor<1x2x3x3xf32>, tensor<1x2x3x3xf32>, tensor<1x2x2x2xf32>, tensor<1x2x9xf32>, tensor<1x2x3x3xf32>) {
  %t00 = grad.slice %x [0, 0, 0, 0] [1, 1, 3, 3] [1, 1, 1, 1] : tensor<1x1x4x4xf32> to tensor<1x1x3x3xf32>
  %t01 = grad.slice %x [0, 0, 0, 1] [1, 1, 3, 4] [1, 1, 1, 1] : tensor<1x1x4x4xf32> to tensor<1x1x3x3xf32>
  %t10 = grad.slice %x [0, 0, 1, 0] [1, 1, 4, 3] [1, 1, 1, 1] : tensor<1x1x4x4xf32> to tensor<1x1x3x3xf32>
  %missing = grad.concat %t00, %t01, %t10 [1] : tensor<1x1x3x3xf32>, tensor<1x1x3x3xf32>, tensor<1x1x3x3xf32> to tensor<1x3x3x3xf32>
  %swapped = grad.concat %t01, %t00 [1] : tensor<1x1x3x3xf32>, tensor<1x1x3x3xf32> to tensor<1x2x3x3xf32>
  %u01 = grad.slice %y [0, 0, 0, 1] [1, 1, 3, 4] [1, 1, 1, 1] : tensor<1x1x4x4xf32> to tensor<1x1x3x3xf32>
  %two = grad.concat %t00, %u01 [1] : tensor<1x1x3x3xf32>, tensor<1x1x3x3xf32> to tensor<1x2x3x3xf32>
  %s00 = grad.slice %x [0, 0, 0, 0] [1, 1, 3, 3] [1, 1, 2, 2] : tensor<1x1x4x4xf32> to tensor<1x1x2x2xf32>
  %s01 = grad.slice %x [0, 0, 0, 1] [1, 1, 2, 4] [1, 1, 1, 2] : tensor<1x1x4x4xf32> to tensor<1x1x2x2xf32>
  %strides = grad.concat %s00, %s01 [1] : tensor<1x1x2x2xf32>, tensor<1x1x2x2xf32> to tensor<1x2x2x2xf32>
  %f00 = grad.reshape %t00 : tensor<1x1x3x3xf32> to tensor<1x1x9xf32>
  %f01 = grad.reshape %t01 : tensor<1x1x3x3xf32> to tensor<1x1x9xf32>
  %flat = grad.concat %f00, %f01 [1] : tensor<1x1x9xf32>, tensor<1x1x9xf32> to tensor<1x2x9xf32>
  %same = grad.concat %t00, %t00 [1] : tensor<1x1x3x3xf32>, tensor<1x1x3x3xf32> to tensor<1x2x3x3xf32>
  func.return %missing, %swapped, %two, %strides, %flat, %same : tensor<1x3x3x3xf32>, tensor<1x2x3x3xf32>, tensor<1x2x3x3xf32>, tensor<1x2x2x2xf32>, tensor<1x2x9xf32>, tensor<1x2x3x3xf32>
}

// CHECK-LABEL: func.func @near_misses
// CHECK-NOT:     linalg.generic
// CHECK:         %missing = grad.concat %t00, %t01, %t10 [1]
// CHECK-NEXT:    %swapped = grad.concat %t01, %t00 [1]
// CHECK:         %two = grad.concat %t00, %u01 [1]
// CHECK:         %strides = grad.concat %s00, %s01 [1]
// CHECK:         %flat = grad.concat %f00, %f01 [1]
// CHECK-NEXT:    %same = grad.concat %t00, %t00 [1]
// CHECK-NOT:     linalg.generic
