// RUN: grad-opt %s --split-input-file | filecheck %s

// SPEC §10.2: the named linalg ops of MLIR (as IREE 3.13's iree-opt knows
// them) that xDSL lacks, read in their custom form and in their generic form
// and printed back as iree-opt prints them: each input is iree-opt's own
// print (custom, then `--mlir-print-op-generic`), each CHECK line its custom
// print of the op (its `#map` aliases spelled out, as xDSL prints no
// aliases). Strides 2, 1, 2 and dilations 1, 2, 2 where the op has
// them; without them, 1. tests/test_linalg_named.py compares the generic
// print with iree-opt's.

func.func @contractions(%arg0: tensor<2x3x2xf32>, %arg1: tensor<2x2xf32>, %arg2: tensor<2x3xf32>, %arg3: tensor<2x2xf32>, %arg4: tensor<2x2x3xf32>, %arg5: tensor<2x3xf32>, %arg6: tensor<2x2x3x3xf32>, %arg7: tensor<3x2x2x3xf32>, %arg8: tensor<2x3x3x2xf32>, %arg9: tensor<2x3x3x2x2xf32>, %arg10: tensor<2x2x3x3x2xf32>, %arg11: tensor<2x3x2x2x3xf32>) {
  %0 = linalg.batch_matvec ins(%arg0, %arg1 : tensor<2x3x2xf32>, tensor<2x2xf32>) outs(%arg2 : tensor<2x3xf32>) -> tensor<2x3xf32>
  %1 = linalg.batch_vecmat ins(%arg3, %arg4 : tensor<2x2xf32>, tensor<2x2x3xf32>) outs(%arg5 : tensor<2x3xf32>) -> tensor<2x3xf32>
  %2 = linalg.mmt4d ins(%arg6, %arg7 : tensor<2x2x3x3xf32>, tensor<3x2x2x3xf32>) outs(%arg8 : tensor<2x3x3x2xf32>) -> tensor<2x3x3x2xf32>
  %3 = linalg.batch_mmt4d ins(%arg9, %arg10 : tensor<2x3x3x2x2xf32>, tensor<2x2x3x3x2xf32>) outs(%arg11 : tensor<2x3x2x2x3xf32>) -> tensor<2x3x2x2x3xf32>
  return
}

// CHECK-LABEL: func.func @contractions(
// CHECK-NEXT:    %0 = linalg.batch_matvec ins(%arg0, %arg1 : tensor<2x3x2xf32>, tensor<2x2xf32>) outs(%arg2 : tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT:    %1 = linalg.batch_vecmat ins(%arg3, %arg4 : tensor<2x2xf32>, tensor<2x2x3xf32>) outs(%arg5 : tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT:    %2 = linalg.mmt4d ins(%arg6, %arg7 : tensor<2x2x3x3xf32>, tensor<3x2x2x3xf32>) outs(%arg8 : tensor<2x3x3x2xf32>) -> tensor<2x3x3x2xf32>
// CHECK-NEXT:    %3 = linalg.batch_mmt4d ins(%arg9, %arg10 : tensor<2x3x3x2x2xf32>, tensor<2x2x3x3x2xf32>) outs(%arg11 : tensor<2x3x2x2x3xf32>) -> tensor<2x3x2x2x3xf32>
// CHECK-NEXT:    func.return

// -----

#map = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#map1 = affine_map<(d0, d1, d2) -> (d0, d2)>
#map2 = affine_map<(d0, d1, d2) -> (d0, d1)>
#map3 = affine_map<(d0, d1, d2) -> (d0, d2, d1)>
#map4 = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d2, d3, d5)>
#map5 = affine_map<(d0, d1, d2, d3, d4, d5) -> (d1, d2, d4, d5)>
#map6 = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d3, d4)>
#map7 = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d3, d4, d6)>
#map8 = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d2, d3, d5, d6)>
#map9 = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d4, d5)>
"builtin.module"() ({
  "func.func"() <{function_type = (tensor<2x3x2xf32>, tensor<2x2xf32>, tensor<2x3xf32>, tensor<2x2xf32>, tensor<2x2x3xf32>, tensor<2x3xf32>, tensor<2x2x3x3xf32>, tensor<3x2x2x3xf32>, tensor<2x3x3x2xf32>, tensor<2x3x3x2x2xf32>, tensor<2x2x3x3x2xf32>, tensor<2x3x2x2x3xf32>) -> (), sym_name = "contractions_generic"}> ({
  ^bb0(%arg0: tensor<2x3x2xf32>, %arg1: tensor<2x2xf32>, %arg2: tensor<2x3xf32>, %arg3: tensor<2x2xf32>, %arg4: tensor<2x2x3xf32>, %arg5: tensor<2x3xf32>, %arg6: tensor<2x2x3x3xf32>, %arg7: tensor<3x2x2x3xf32>, %arg8: tensor<2x3x3x2xf32>, %arg9: tensor<2x3x3x2x2xf32>, %arg10: tensor<2x2x3x3x2xf32>, %arg11: tensor<2x3x2x2x3xf32>):
    %0 = "linalg.batch_matvec"(%arg0, %arg1, %arg2) <{operandSegmentSizes = array<i32: 2, 1>}> ({
    ^bb0(%arg21: f32, %arg22: f32, %arg23: f32):
      %10 = "arith.mulf"(%arg21, %arg22) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
      %11 = "arith.addf"(%arg23, %10) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
      "linalg.yield"(%11) : (f32) -> ()
    }) {linalg.memoized_indexing_maps = [#map, #map1, #map2]} : (tensor<2x3x2xf32>, tensor<2x2xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
    %1 = "linalg.batch_vecmat"(%arg3, %arg4, %arg5) <{operandSegmentSizes = array<i32: 2, 1>}> ({
    ^bb0(%arg18: f32, %arg19: f32, %arg20: f32):
      %8 = "arith.mulf"(%arg18, %arg19) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
      %9 = "arith.addf"(%arg20, %8) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
      "linalg.yield"(%9) : (f32) -> ()
    }) {linalg.memoized_indexing_maps = [#map1, #map3, #map2]} : (tensor<2x2xf32>, tensor<2x2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
    %2 = "linalg.mmt4d"(%arg6, %arg7, %arg8) <{operandSegmentSizes = array<i32: 2, 1>}> ({
    ^bb0(%arg15: f32, %arg16: f32, %arg17: f32):
      %6 = "arith.mulf"(%arg15, %arg16) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
      %7 = "arith.addf"(%arg17, %6) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
      "linalg.yield"(%7) : (f32) -> ()
    }) {linalg.memoized_indexing_maps = [#map4, #map5, #map6]} : (tensor<2x2x3x3xf32>, tensor<3x2x2x3xf32>, tensor<2x3x3x2xf32>) -> tensor<2x3x3x2xf32>
    %3 = "linalg.batch_mmt4d"(%arg9, %arg10, %arg11) <{operandSegmentSizes = array<i32: 2, 1>}> ({
    ^bb0(%arg12: f32, %arg13: f32, %arg14: f32):
      %4 = "arith.mulf"(%arg12, %arg13) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
      %5 = "arith.addf"(%arg14, %4) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
      "linalg.yield"(%5) : (f32) -> ()
    }) {linalg.memoized_indexing_maps = [#map7, #map8, #map9]} : (tensor<2x3x3x2x2xf32>, tensor<2x2x3x3x2xf32>, tensor<2x3x2x2x3xf32>) -> tensor<2x3x2x2x3xf32>
    "func.return"() : () -> ()
  }) : () -> ()
}) : () -> ()

// CHECK-LABEL: func.func @contractions_generic(
// CHECK-NEXT:    %0 = linalg.batch_matvec ins(%arg0, %arg1 : tensor<2x3x2xf32>, tensor<2x2xf32>) outs(%arg2 : tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT:    %1 = linalg.batch_vecmat ins(%arg3, %arg4 : tensor<2x2xf32>, tensor<2x2x3xf32>) outs(%arg5 : tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT:    %2 = linalg.mmt4d ins(%arg6, %arg7 : tensor<2x2x3x3xf32>, tensor<3x2x2x3xf32>) outs(%arg8 : tensor<2x3x3x2xf32>) -> tensor<2x3x3x2xf32>
// CHECK-NEXT:    %3 = linalg.batch_mmt4d ins(%arg9, %arg10 : tensor<2x3x3x2x2xf32>, tensor<2x2x3x3x2xf32>) outs(%arg11 : tensor<2x3x2x2x3xf32>) -> tensor<2x3x2x2x3xf32>
// CHECK-NEXT:    func.return

// -----

func.func @convolutions(%arg0: tensor<4x4x4xf32>, %arg1: tensor<3x2x3xf32>, %arg2: tensor<2x3x2xf32>, %arg3: tensor<2x7x4x9x2xf32>, %arg4: tensor<3x2x3x2x2xf32>, %arg5: tensor<2x3x2x3x2xf32>, %arg6: tensor<2x3x4x7x5xf32>, %arg7: tensor<3x3x2x3x2xf32>, %arg8: tensor<2x3x2x3x2xf32>) {
  %0 = linalg.conv_3d ins(%arg0, %arg1 : tensor<4x4x4xf32>, tensor<3x2x3xf32>) outs(%arg2 : tensor<2x3x2xf32>) -> tensor<2x3x2xf32>
  %1 = linalg.conv_3d_ndhwc_dhwcf {dilations = dense<[1, 2, 2]> : tensor<3xi64>, strides = dense<[2, 1, 2]> : tensor<3xi64>} ins(%arg3, %arg4 : tensor<2x7x4x9x2xf32>, tensor<3x2x3x2x2xf32>) outs(%arg5 : tensor<2x3x2x3x2xf32>) -> tensor<2x3x2x3x2xf32>
  %2 = linalg.conv_3d_ncdhw_fcdhw {dilations = dense<[1, 2, 2]> : tensor<3xi64>, strides = dense<[2, 1, 2]> : tensor<3xi64>} ins(%arg6, %arg7 : tensor<2x3x4x7x5xf32>, tensor<3x3x2x3x2xf32>) outs(%arg8 : tensor<2x3x2x3x2xf32>) -> tensor<2x3x2x3x2xf32>
  return
}

// CHECK-LABEL: func.func @convolutions(
// CHECK-NEXT:    %0 = linalg.conv_3d ins(%arg0, %arg1 : tensor<4x4x4xf32>, tensor<3x2x3xf32>) outs(%arg2 : tensor<2x3x2xf32>) -> tensor<2x3x2xf32>
// CHECK-NEXT:    %1 = linalg.conv_3d_ndhwc_dhwcf {dilations = dense<[1, 2, 2]> : tensor<3xi64>, strides = dense<[2, 1, 2]> : tensor<3xi64>} ins(%arg3, %arg4 : tensor<2x7x4x9x2xf32>, tensor<3x2x3x2x2xf32>) outs(%arg5 : tensor<2x3x2x3x2xf32>) -> tensor<2x3x2x3x2xf32>
// CHECK-NEXT:    %2 = linalg.conv_3d_ncdhw_fcdhw {dilations = dense<[1, 2, 2]> : tensor<3xi64>, strides = dense<[2, 1, 2]> : tensor<3xi64>} ins(%arg6, %arg7 : tensor<2x3x4x7x5xf32>, tensor<3x3x2x3x2xf32>) outs(%arg8 : tensor<2x3x2x3x2xf32>) -> tensor<2x3x2x3x2xf32>
// CHECK-NEXT:    func.return

// -----

#map = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0 + d3, d1 + d4, d2 + d5)>
#map1 = affine_map<(d0, d1, d2, d3, d4, d5) -> (d3, d4, d5)>
#map2 = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2)>
#map3 = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7, d8) -> (d0, d1 * 2 + d5, d2 + d6 * 2, d3 * 2 + d7 * 2, d8)>
#map4 = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7, d8) -> (d5, d6, d7, d8, d4)>
#map5 = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7, d8) -> (d0, d1, d2, d3, d4)>
#map6 = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7, d8) -> (d0, d5, d2 * 2 + d6, d3 + d7 * 2, d4 * 2 + d8 * 2)>
#map7 = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7, d8) -> (d1, d5, d6, d7, d8)>
"builtin.module"() ({
  "func.func"() <{function_type = (tensor<4x4x4xf32>, tensor<3x2x3xf32>, tensor<2x3x2xf32>, tensor<2x7x4x9x2xf32>, tensor<3x2x3x2x2xf32>, tensor<2x3x2x3x2xf32>, tensor<2x3x4x7x5xf32>, tensor<3x3x2x3x2xf32>, tensor<2x3x2x3x2xf32>) -> (), sym_name = "convolutions_generic"}> ({
  ^bb0(%arg0: tensor<4x4x4xf32>, %arg1: tensor<3x2x3xf32>, %arg2: tensor<2x3x2xf32>, %arg3: tensor<2x7x4x9x2xf32>, %arg4: tensor<3x2x3x2x2xf32>, %arg5: tensor<2x3x2x3x2xf32>, %arg6: tensor<2x3x4x7x5xf32>, %arg7: tensor<3x3x2x3x2xf32>, %arg8: tensor<2x3x2x3x2xf32>):
    %0 = "linalg.conv_3d"(%arg0, %arg1, %arg2) <{operandSegmentSizes = array<i32: 2, 1>}> ({
    ^bb0(%arg15: f32, %arg16: f32, %arg17: f32):
      %7 = "arith.mulf"(%arg15, %arg16) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
      %8 = "arith.addf"(%arg17, %7) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
      "linalg.yield"(%8) : (f32) -> ()
    }) {linalg.memoized_indexing_maps = [#map, #map1, #map2]} : (tensor<4x4x4xf32>, tensor<3x2x3xf32>, tensor<2x3x2xf32>) -> tensor<2x3x2xf32>
    %1 = "linalg.conv_3d_ndhwc_dhwcf"(%arg3, %arg4, %arg5) <{dilations = dense<[1, 2, 2]> : tensor<3xi64>, operandSegmentSizes = array<i32: 2, 1>, strides = dense<[2, 1, 2]> : tensor<3xi64>}> ({
    ^bb0(%arg12: f32, %arg13: f32, %arg14: f32):
      %5 = "arith.mulf"(%arg12, %arg13) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
      %6 = "arith.addf"(%arg14, %5) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
      "linalg.yield"(%6) : (f32) -> ()
    }) {linalg.memoized_indexing_maps = [#map3, #map4, #map5]} : (tensor<2x7x4x9x2xf32>, tensor<3x2x3x2x2xf32>, tensor<2x3x2x3x2xf32>) -> tensor<2x3x2x3x2xf32>
    %2 = "linalg.conv_3d_ncdhw_fcdhw"(%arg6, %arg7, %arg8) <{dilations = dense<[1, 2, 2]> : tensor<3xi64>, operandSegmentSizes = array<i32: 2, 1>, strides = dense<[2, 1, 2]> : tensor<3xi64>}> ({
    ^bb0(%arg9: f32, %arg10: f32, %arg11: f32):
      %3 = "arith.mulf"(%arg9, %arg10) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
      %4 = "arith.addf"(%arg11, %3) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
      "linalg.yield"(%4) : (f32) -> ()
    }) {linalg.memoized_indexing_maps = [#map6, #map7, #map5]} : (tensor<2x3x4x7x5xf32>, tensor<3x3x2x3x2xf32>, tensor<2x3x2x3x2xf32>) -> tensor<2x3x2x3x2xf32>
    "func.return"() : () -> ()
  }) : () -> ()
}) : () -> ()

// CHECK-LABEL: func.func @convolutions_generic(
// CHECK-NEXT:    %0 = linalg.conv_3d ins(%arg0, %arg1 : tensor<4x4x4xf32>, tensor<3x2x3xf32>) outs(%arg2 : tensor<2x3x2xf32>) -> tensor<2x3x2xf32>
// CHECK-NEXT:    %1 = linalg.conv_3d_ndhwc_dhwcf {dilations = dense<[1, 2, 2]> : tensor<3xi64>, strides = dense<[2, 1, 2]> : tensor<3xi64>} ins(%arg3, %arg4 : tensor<2x7x4x9x2xf32>, tensor<3x2x3x2x2xf32>) outs(%arg5 : tensor<2x3x2x3x2xf32>) -> tensor<2x3x2x3x2xf32>
// CHECK-NEXT:    %2 = linalg.conv_3d_ncdhw_fcdhw {dilations = dense<[1, 2, 2]> : tensor<3xi64>, strides = dense<[2, 1, 2]> : tensor<3xi64>} ins(%arg6, %arg7 : tensor<2x3x4x7x5xf32>, tensor<3x3x2x3x2xf32>) outs(%arg8 : tensor<2x3x2x3x2xf32>) -> tensor<2x3x2x3x2xf32>
// CHECK-NEXT:    func.return

// -----

func.func @depthwise(%arg0: tensor<2x7x2xf32>, %arg1: tensor<3x2xf32>, %arg2: tensor<2x3x2xf32>, %arg3: tensor<2x2x7xf32>, %arg4: tensor<2x3xf32>, %arg5: tensor<2x2x3xf32>, %arg6: tensor<2x6x2xf32>, %arg7: tensor<2x2x3xf32>, %arg8: tensor<2x3x2x3xf32>, %arg9: tensor<2x3x6x6xf32>, %arg10: tensor<3x2x3xf32>, %arg11: tensor<2x3x3x2xf32>, %arg12: tensor<2x7x4x3xf32>, %arg13: tensor<3x2x3x2xf32>, %arg14: tensor<2x3x2x3x2xf32>, %arg15: tensor<2x6x6x7x3xf32>, %arg16: tensor<2x3x2x3xf32>, %arg17: tensor<2x3x2x3x3xf32>, %arg18: tensor<2x3x6x6x7xf32>, %arg19: tensor<3x2x3x2xf32>, %arg20: tensor<2x3x3x2x3xf32>, %arg21: tensor<2x7x4x9x2xf32>, %arg22: tensor<3x2x3x2x2xf32>, %arg23: tensor<2x3x2x3x2x2xf32>) {
  %0 = linalg.depthwise_conv_1d_nwc_wc {dilations = dense<1> : tensor<1xi64>, strides = dense<2> : tensor<1xi64>} ins(%arg0, %arg1 : tensor<2x7x2xf32>, tensor<3x2xf32>) outs(%arg2 : tensor<2x3x2xf32>) -> tensor<2x3x2xf32>
  %1 = linalg.depthwise_conv_1d_ncw_cw {dilations = dense<1> : tensor<1xi64>, strides = dense<2> : tensor<1xi64>} ins(%arg3, %arg4 : tensor<2x2x7xf32>, tensor<2x3xf32>) outs(%arg5 : tensor<2x2x3xf32>) -> tensor<2x2x3xf32>
  %2 = linalg.depthwise_conv_1d_nwc_wcm {dilations = dense<1> : tensor<1xi64>, strides = dense<2> : tensor<1xi64>} ins(%arg6, %arg7 : tensor<2x6x2xf32>, tensor<2x2x3xf32>) outs(%arg8 : tensor<2x3x2x3xf32>) -> tensor<2x3x2x3xf32>
  %3 = linalg.depthwise_conv_2d_nchw_chw {dilations = dense<[1, 2]> : tensor<2xi64>, strides = dense<[2, 1]> : tensor<2xi64>} ins(%arg9, %arg10 : tensor<2x3x6x6xf32>, tensor<3x2x3xf32>) outs(%arg11 : tensor<2x3x3x2xf32>) -> tensor<2x3x3x2xf32>
  %4 = linalg.depthwise_conv_2d_nhwc_hwcm {dilations = dense<[1, 2]> : tensor<2xi64>, strides = dense<[2, 1]> : tensor<2xi64>} ins(%arg12, %arg13 : tensor<2x7x4x3xf32>, tensor<3x2x3x2xf32>) outs(%arg14 : tensor<2x3x2x3x2xf32>) -> tensor<2x3x2x3x2xf32>
  %5 = linalg.depthwise_conv_3d_ndhwc_dhwc {dilations = dense<[1, 2, 2]> : tensor<3xi64>, strides = dense<[2, 1, 2]> : tensor<3xi64>} ins(%arg15, %arg16 : tensor<2x6x6x7x3xf32>, tensor<2x3x2x3xf32>) outs(%arg17 : tensor<2x3x2x3x3xf32>) -> tensor<2x3x2x3x3xf32>
  %6 = linalg.depthwise_conv_3d_ncdhw_cdhw {dilations = dense<[1, 2, 2]> : tensor<3xi64>, strides = dense<[2, 1, 2]> : tensor<3xi64>} ins(%arg18, %arg19 : tensor<2x3x6x6x7xf32>, tensor<3x2x3x2xf32>) outs(%arg20 : tensor<2x3x3x2x3xf32>) -> tensor<2x3x3x2x3xf32>
  %7 = linalg.depthwise_conv_3d_ndhwc_dhwcm {dilations = dense<[1, 2, 2]> : tensor<3xi64>, strides = dense<[2, 1, 2]> : tensor<3xi64>} ins(%arg21, %arg22 : tensor<2x7x4x9x2xf32>, tensor<3x2x3x2x2xf32>) outs(%arg23 : tensor<2x3x2x3x2x2xf32>) -> tensor<2x3x2x3x2x2xf32>
  return
}

// CHECK-LABEL: func.func @depthwise(
// CHECK-NEXT:    %0 = linalg.depthwise_conv_1d_nwc_wc {dilations = dense<1> : tensor<1xi64>, strides = dense<2> : tensor<1xi64>} ins(%arg0, %arg1 : tensor<2x7x2xf32>, tensor<3x2xf32>) outs(%arg2 : tensor<2x3x2xf32>) -> tensor<2x3x2xf32>
// CHECK-NEXT:    %1 = linalg.depthwise_conv_1d_ncw_cw {dilations = dense<1> : tensor<1xi64>, strides = dense<2> : tensor<1xi64>} ins(%arg3, %arg4 : tensor<2x2x7xf32>, tensor<2x3xf32>) outs(%arg5 : tensor<2x2x3xf32>) -> tensor<2x2x3xf32>
// CHECK-NEXT:    %2 = linalg.depthwise_conv_1d_nwc_wcm {dilations = dense<1> : tensor<1xi64>, strides = dense<2> : tensor<1xi64>} ins(%arg6, %arg7 : tensor<2x6x2xf32>, tensor<2x2x3xf32>) outs(%arg8 : tensor<2x3x2x3xf32>) -> tensor<2x3x2x3xf32>
// CHECK-NEXT:    %3 = linalg.depthwise_conv_2d_nchw_chw {dilations = dense<[1, 2]> : tensor<2xi64>, strides = dense<[2, 1]> : tensor<2xi64>} ins(%arg9, %arg10 : tensor<2x3x6x6xf32>, tensor<3x2x3xf32>) outs(%arg11 : tensor<2x3x3x2xf32>) -> tensor<2x3x3x2xf32>
// CHECK-NEXT:    %4 = linalg.depthwise_conv_2d_nhwc_hwcm {dilations = dense<[1, 2]> : tensor<2xi64>, strides = dense<[2, 1]> : tensor<2xi64>} ins(%arg12, %arg13 : tensor<2x7x4x3xf32>, tensor<3x2x3x2xf32>) outs(%arg14 : tensor<2x3x2x3x2xf32>) -> tensor<2x3x2x3x2xf32>
// CHECK-NEXT:    %5 = linalg.depthwise_conv_3d_ndhwc_dhwc {dilations = dense<[1, 2, 2]> : tensor<3xi64>, strides = dense<[2, 1, 2]> : tensor<3xi64>} ins(%arg15, %arg16 : tensor<2x6x6x7x3xf32>, tensor<2x3x2x3xf32>) outs(%arg17 : tensor<2x3x2x3x3xf32>) -> tensor<2x3x2x3x3xf32>
// CHECK-NEXT:    %6 = linalg.depthwise_conv_3d_ncdhw_cdhw {dilations = dense<[1, 2, 2]> : tensor<3xi64>, strides = dense<[2, 1, 2]> : tensor<3xi64>} ins(%arg18, %arg19 : tensor<2x3x6x6x7xf32>, tensor<3x2x3x2xf32>) outs(%arg20 : tensor<2x3x3x2x3xf32>) -> tensor<2x3x3x2x3xf32>
// CHECK-NEXT:    %7 = linalg.depthwise_conv_3d_ndhwc_dhwcm {dilations = dense<[1, 2, 2]> : tensor<3xi64>, strides = dense<[2, 1, 2]> : tensor<3xi64>} ins(%arg21, %arg22 : tensor<2x7x4x9x2xf32>, tensor<3x2x3x2x2xf32>) outs(%arg23 : tensor<2x3x2x3x2x2xf32>) -> tensor<2x3x2x3x2x2xf32>
// CHECK-NEXT:    func.return

// -----

#map = affine_map<(d0, d1, d2, d3) -> (d0, d1 * 2 + d3, d2)>
#map1 = affine_map<(d0, d1, d2, d3) -> (d3, d2)>
#map2 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
#map3 = affine_map<(d0, d1, d2, d3) -> (d0, d2, d1 * 2 + d3)>
#map4 = affine_map<(d0, d1, d2, d3) -> (d2, d3)>
#map5 = affine_map<(d0, d1, d2, d3) -> (d0, d2, d1)>
#map6 = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1 * 2 + d4, d2)>
#map7 = affine_map<(d0, d1, d2, d3, d4) -> (d4, d2, d3)>
#map8 = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3)>
#map9 = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d3, d1 * 2 + d4, d2 + d5 * 2)>
#map10 = affine_map<(d0, d1, d2, d3, d4, d5) -> (d3, d4, d5)>
#map11 = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d3, d1, d2)>
#map12 = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1 * 2 + d5, d2 + d6 * 2, d3)>
#map13 = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d5, d6, d3, d4)>
#map14 = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3, d4)>
#map15 = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d1 * 2 + d4, d2 + d5 * 2, d3 * 2 + d6 * 2, d7)>
#map16 = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d4, d5, d6, d7)>
#map17 = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d1, d2, d3, d7)>
#map18 = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d7, d1 * 2 + d4, d2 + d5 * 2, d3 * 2 + d6 * 2)>
#map19 = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d7, d4, d5, d6)>
#map20 = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d7, d1, d2, d3)>
#map21 = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7, d8) -> (d0, d1 * 2 + d5, d2 + d6 * 2, d3 * 2 + d7 * 2, d8)>
#map22 = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7, d8) -> (d5, d6, d7, d8, d4)>
#map23 = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7, d8) -> (d0, d1, d2, d3, d8, d4)>
"builtin.module"() ({
  "func.func"() <{function_type = (tensor<2x7x2xf32>, tensor<3x2xf32>, tensor<2x3x2xf32>, tensor<2x2x7xf32>, tensor<2x3xf32>, tensor<2x2x3xf32>, tensor<2x6x2xf32>, tensor<2x2x3xf32>, tensor<2x3x2x3xf32>, tensor<2x3x6x6xf32>, tensor<3x2x3xf32>, tensor<2x3x3x2xf32>, tensor<2x7x4x3xf32>, tensor<3x2x3x2xf32>, tensor<2x3x2x3x2xf32>, tensor<2x6x6x7x3xf32>, tensor<2x3x2x3xf32>, tensor<2x3x2x3x3xf32>, tensor<2x3x6x6x7xf32>, tensor<3x2x3x2xf32>, tensor<2x3x3x2x3xf32>, tensor<2x7x4x9x2xf32>, tensor<3x2x3x2x2xf32>, tensor<2x3x2x3x2x2xf32>) -> (), sym_name = "depthwise_generic"}> ({
  ^bb0(%arg0: tensor<2x7x2xf32>, %arg1: tensor<3x2xf32>, %arg2: tensor<2x3x2xf32>, %arg3: tensor<2x2x7xf32>, %arg4: tensor<2x3xf32>, %arg5: tensor<2x2x3xf32>, %arg6: tensor<2x6x2xf32>, %arg7: tensor<2x2x3xf32>, %arg8: tensor<2x3x2x3xf32>, %arg9: tensor<2x3x6x6xf32>, %arg10: tensor<3x2x3xf32>, %arg11: tensor<2x3x3x2xf32>, %arg12: tensor<2x7x4x3xf32>, %arg13: tensor<3x2x3x2xf32>, %arg14: tensor<2x3x2x3x2xf32>, %arg15: tensor<2x6x6x7x3xf32>, %arg16: tensor<2x3x2x3xf32>, %arg17: tensor<2x3x2x3x3xf32>, %arg18: tensor<2x3x6x6x7xf32>, %arg19: tensor<3x2x3x2xf32>, %arg20: tensor<2x3x3x2x3xf32>, %arg21: tensor<2x7x4x9x2xf32>, %arg22: tensor<3x2x3x2x2xf32>, %arg23: tensor<2x3x2x3x2x2xf32>):
    %0 = "linalg.depthwise_conv_1d_nwc_wc"(%arg0, %arg1, %arg2) <{dilations = dense<1> : tensor<1xi64>, operandSegmentSizes = array<i32: 2, 1>, strides = dense<2> : tensor<1xi64>}> ({
    ^bb0(%arg45: f32, %arg46: f32, %arg47: f32):
      %22 = "arith.mulf"(%arg45, %arg46) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
      %23 = "arith.addf"(%arg47, %22) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
      "linalg.yield"(%23) : (f32) -> ()
    }) {linalg.memoized_indexing_maps = [#map, #map1, #map2]} : (tensor<2x7x2xf32>, tensor<3x2xf32>, tensor<2x3x2xf32>) -> tensor<2x3x2xf32>
    %1 = "linalg.depthwise_conv_1d_ncw_cw"(%arg3, %arg4, %arg5) <{dilations = dense<1> : tensor<1xi64>, operandSegmentSizes = array<i32: 2, 1>, strides = dense<2> : tensor<1xi64>}> ({
    ^bb0(%arg42: f32, %arg43: f32, %arg44: f32):
      %20 = "arith.mulf"(%arg42, %arg43) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
      %21 = "arith.addf"(%arg44, %20) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
      "linalg.yield"(%21) : (f32) -> ()
    }) {linalg.memoized_indexing_maps = [#map3, #map4, #map5]} : (tensor<2x2x7xf32>, tensor<2x3xf32>, tensor<2x2x3xf32>) -> tensor<2x2x3xf32>
    %2 = "linalg.depthwise_conv_1d_nwc_wcm"(%arg6, %arg7, %arg8) <{dilations = dense<1> : tensor<1xi64>, operandSegmentSizes = array<i32: 2, 1>, strides = dense<2> : tensor<1xi64>}> ({
    ^bb0(%arg39: f32, %arg40: f32, %arg41: f32):
      %18 = "arith.mulf"(%arg39, %arg40) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
      %19 = "arith.addf"(%arg41, %18) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
      "linalg.yield"(%19) : (f32) -> ()
    }) {linalg.memoized_indexing_maps = [#map6, #map7, #map8]} : (tensor<2x6x2xf32>, tensor<2x2x3xf32>, tensor<2x3x2x3xf32>) -> tensor<2x3x2x3xf32>
    %3 = "linalg.depthwise_conv_2d_nchw_chw"(%arg9, %arg10, %arg11) <{dilations = dense<[1, 2]> : tensor<2xi64>, operandSegmentSizes = array<i32: 2, 1>, strides = dense<[2, 1]> : tensor<2xi64>}> ({
    ^bb0(%arg36: f32, %arg37: f32, %arg38: f32):
      %16 = "arith.mulf"(%arg36, %arg37) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
      %17 = "arith.addf"(%arg38, %16) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
      "linalg.yield"(%17) : (f32) -> ()
    }) {linalg.memoized_indexing_maps = [#map9, #map10, #map11]} : (tensor<2x3x6x6xf32>, tensor<3x2x3xf32>, tensor<2x3x3x2xf32>) -> tensor<2x3x3x2xf32>
    %4 = "linalg.depthwise_conv_2d_nhwc_hwcm"(%arg12, %arg13, %arg14) <{dilations = dense<[1, 2]> : tensor<2xi64>, operandSegmentSizes = array<i32: 2, 1>, strides = dense<[2, 1]> : tensor<2xi64>}> ({
    ^bb0(%arg33: f32, %arg34: f32, %arg35: f32):
      %14 = "arith.mulf"(%arg33, %arg34) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
      %15 = "arith.addf"(%arg35, %14) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
      "linalg.yield"(%15) : (f32) -> ()
    }) {linalg.memoized_indexing_maps = [#map12, #map13, #map14]} : (tensor<2x7x4x3xf32>, tensor<3x2x3x2xf32>, tensor<2x3x2x3x2xf32>) -> tensor<2x3x2x3x2xf32>
    %5 = "linalg.depthwise_conv_3d_ndhwc_dhwc"(%arg15, %arg16, %arg17) <{dilations = dense<[1, 2, 2]> : tensor<3xi64>, operandSegmentSizes = array<i32: 2, 1>, strides = dense<[2, 1, 2]> : tensor<3xi64>}> ({
    ^bb0(%arg30: f32, %arg31: f32, %arg32: f32):
      %12 = "arith.mulf"(%arg30, %arg31) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
      %13 = "arith.addf"(%arg32, %12) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
      "linalg.yield"(%13) : (f32) -> ()
    }) {linalg.memoized_indexing_maps = [#map15, #map16, #map17]} : (tensor<2x6x6x7x3xf32>, tensor<2x3x2x3xf32>, tensor<2x3x2x3x3xf32>) -> tensor<2x3x2x3x3xf32>
    %6 = "linalg.depthwise_conv_3d_ncdhw_cdhw"(%arg18, %arg19, %arg20) <{dilations = dense<[1, 2, 2]> : tensor<3xi64>, operandSegmentSizes = array<i32: 2, 1>, strides = dense<[2, 1, 2]> : tensor<3xi64>}> ({
    ^bb0(%arg27: f32, %arg28: f32, %arg29: f32):
      %10 = "arith.mulf"(%arg27, %arg28) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
      %11 = "arith.addf"(%arg29, %10) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
      "linalg.yield"(%11) : (f32) -> ()
    }) {linalg.memoized_indexing_maps = [#map18, #map19, #map20]} : (tensor<2x3x6x6x7xf32>, tensor<3x2x3x2xf32>, tensor<2x3x3x2x3xf32>) -> tensor<2x3x3x2x3xf32>
    %7 = "linalg.depthwise_conv_3d_ndhwc_dhwcm"(%arg21, %arg22, %arg23) <{dilations = dense<[1, 2, 2]> : tensor<3xi64>, operandSegmentSizes = array<i32: 2, 1>, strides = dense<[2, 1, 2]> : tensor<3xi64>}> ({
    ^bb0(%arg24: f32, %arg25: f32, %arg26: f32):
      %8 = "arith.mulf"(%arg24, %arg25) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
      %9 = "arith.addf"(%arg26, %8) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
      "linalg.yield"(%9) : (f32) -> ()
    }) {linalg.memoized_indexing_maps = [#map21, #map22, #map23]} : (tensor<2x7x4x9x2xf32>, tensor<3x2x3x2x2xf32>, tensor<2x3x2x3x2x2xf32>) -> tensor<2x3x2x3x2x2xf32>
    "func.return"() : () -> ()
  }) : () -> ()
}) : () -> ()

// CHECK-LABEL: func.func @depthwise_generic(
// CHECK-NEXT:    %0 = linalg.depthwise_conv_1d_nwc_wc {dilations = dense<1> : tensor<1xi64>, strides = dense<2> : tensor<1xi64>} ins(%arg0, %arg1 : tensor<2x7x2xf32>, tensor<3x2xf32>) outs(%arg2 : tensor<2x3x2xf32>) -> tensor<2x3x2xf32>
// CHECK-NEXT:    %1 = linalg.depthwise_conv_1d_ncw_cw {dilations = dense<1> : tensor<1xi64>, strides = dense<2> : tensor<1xi64>} ins(%arg3, %arg4 : tensor<2x2x7xf32>, tensor<2x3xf32>) outs(%arg5 : tensor<2x2x3xf32>) -> tensor<2x2x3xf32>
// CHECK-NEXT:    %2 = linalg.depthwise_conv_1d_nwc_wcm {dilations = dense<1> : tensor<1xi64>, strides = dense<2> : tensor<1xi64>} ins(%arg6, %arg7 : tensor<2x6x2xf32>, tensor<2x2x3xf32>) outs(%arg8 : tensor<2x3x2x3xf32>) -> tensor<2x3x2x3xf32>
// CHECK-NEXT:    %3 = linalg.depthwise_conv_2d_nchw_chw {dilations = dense<[1, 2]> : tensor<2xi64>, strides = dense<[2, 1]> : tensor<2xi64>} ins(%arg9, %arg10 : tensor<2x3x6x6xf32>, tensor<3x2x3xf32>) outs(%arg11 : tensor<2x3x3x2xf32>) -> tensor<2x3x3x2xf32>
// CHECK-NEXT:    %4 = linalg.depthwise_conv_2d_nhwc_hwcm {dilations = dense<[1, 2]> : tensor<2xi64>, strides = dense<[2, 1]> : tensor<2xi64>} ins(%arg12, %arg13 : tensor<2x7x4x3xf32>, tensor<3x2x3x2xf32>) outs(%arg14 : tensor<2x3x2x3x2xf32>) -> tensor<2x3x2x3x2xf32>
// CHECK-NEXT:    %5 = linalg.depthwise_conv_3d_ndhwc_dhwc {dilations = dense<[1, 2, 2]> : tensor<3xi64>, strides = dense<[2, 1, 2]> : tensor<3xi64>} ins(%arg15, %arg16 : tensor<2x6x6x7x3xf32>, tensor<2x3x2x3xf32>) outs(%arg17 : tensor<2x3x2x3x3xf32>) -> tensor<2x3x2x3x3xf32>
// CHECK-NEXT:    %6 = linalg.depthwise_conv_3d_ncdhw_cdhw {dilations = dense<[1, 2, 2]> : tensor<3xi64>, strides = dense<[2, 1, 2]> : tensor<3xi64>} ins(%arg18, %arg19 : tensor<2x3x6x6x7xf32>, tensor<3x2x3x2xf32>) outs(%arg20 : tensor<2x3x3x2x3xf32>) -> tensor<2x3x3x2x3xf32>
// CHECK-NEXT:    %7 = linalg.depthwise_conv_3d_ndhwc_dhwcm {dilations = dense<[1, 2, 2]> : tensor<3xi64>, strides = dense<[2, 1, 2]> : tensor<3xi64>} ins(%arg21, %arg22 : tensor<2x7x4x9x2xf32>, tensor<3x2x3x2x2xf32>) outs(%arg23 : tensor<2x3x2x3x2x2xf32>) -> tensor<2x3x2x3x2x2xf32>
// CHECK-NEXT:    func.return

// -----

func.func @pooling(%arg0: tensor<2x3x4x7xf32>, %arg1: tensor<2x3xf32>, %arg2: tensor<2x3x2x3xf32>, %arg3: tensor<2x6x6x3xf32>, %arg4: tensor<2x3xf32>, %arg5: tensor<2x3x2x3xf32>, %arg6: tensor<2x7x2xf32>, %arg7: tensor<3xf32>, %arg8: tensor<2x3x2xf32>, %arg9: tensor<2x7x4x9x2xf32>, %arg10: tensor<3x2x3xf32>, %arg11: tensor<2x3x2x3x2xf32>, %arg12: tensor<2x7x4x9x2xf32>, %arg13: tensor<3x2x3xf32>, %arg14: tensor<2x3x2x3x2xf32>, %arg15: tensor<2x7x4x9x2xf32>, %arg16: tensor<3x2x3xf32>, %arg17: tensor<2x3x2x3x2xf32>) {
  %0 = linalg.pooling_nchw_max {dilations = dense<[1, 2]> : tensor<2xi64>, strides = dense<[2, 1]> : tensor<2xi64>} ins(%arg0, %arg1 : tensor<2x3x4x7xf32>, tensor<2x3xf32>) outs(%arg2 : tensor<2x3x2x3xf32>) -> tensor<2x3x2x3xf32>
  %1 = linalg.pooling_nhwc_min {dilations = dense<[1, 2]> : tensor<2xi64>, strides = dense<[2, 1]> : tensor<2xi64>} ins(%arg3, %arg4 : tensor<2x6x6x3xf32>, tensor<2x3xf32>) outs(%arg5 : tensor<2x3x2x3xf32>) -> tensor<2x3x2x3xf32>
  %2 = linalg.pooling_nwc_min {dilations = dense<1> : tensor<1xi64>, strides = dense<2> : tensor<1xi64>} ins(%arg6, %arg7 : tensor<2x7x2xf32>, tensor<3xf32>) outs(%arg8 : tensor<2x3x2xf32>) -> tensor<2x3x2xf32>
  %3 = linalg.pooling_ndhwc_sum {dilations = dense<[1, 2, 2]> : tensor<3xi64>, strides = dense<[2, 1, 2]> : tensor<3xi64>} ins(%arg9, %arg10 : tensor<2x7x4x9x2xf32>, tensor<3x2x3xf32>) outs(%arg11 : tensor<2x3x2x3x2xf32>) -> tensor<2x3x2x3x2xf32>
  %4 = linalg.pooling_ndhwc_max {dilations = dense<[1, 2, 2]> : tensor<3xi64>, strides = dense<[2, 1, 2]> : tensor<3xi64>} ins(%arg12, %arg13 : tensor<2x7x4x9x2xf32>, tensor<3x2x3xf32>) outs(%arg14 : tensor<2x3x2x3x2xf32>) -> tensor<2x3x2x3x2xf32>
  %5 = linalg.pooling_ndhwc_min {dilations = dense<[1, 2, 2]> : tensor<3xi64>, strides = dense<[2, 1, 2]> : tensor<3xi64>} ins(%arg15, %arg16 : tensor<2x7x4x9x2xf32>, tensor<3x2x3xf32>) outs(%arg17 : tensor<2x3x2x3x2xf32>) -> tensor<2x3x2x3x2xf32>
  return
}

// CHECK-LABEL: func.func @pooling(
// CHECK-NEXT:    %0 = linalg.pooling_nchw_max {dilations = dense<[1, 2]> : tensor<2xi64>, strides = dense<[2, 1]> : tensor<2xi64>} ins(%arg0, %arg1 : tensor<2x3x4x7xf32>, tensor<2x3xf32>) outs(%arg2 : tensor<2x3x2x3xf32>) -> tensor<2x3x2x3xf32>
// CHECK-NEXT:    %1 = linalg.pooling_nhwc_min {dilations = dense<[1, 2]> : tensor<2xi64>, strides = dense<[2, 1]> : tensor<2xi64>} ins(%arg3, %arg4 : tensor<2x6x6x3xf32>, tensor<2x3xf32>) outs(%arg5 : tensor<2x3x2x3xf32>) -> tensor<2x3x2x3xf32>
// CHECK-NEXT:    %2 = linalg.pooling_nwc_min {dilations = dense<1> : tensor<1xi64>, strides = dense<2> : tensor<1xi64>} ins(%arg6, %arg7 : tensor<2x7x2xf32>, tensor<3xf32>) outs(%arg8 : tensor<2x3x2xf32>) -> tensor<2x3x2xf32>
// CHECK-NEXT:    %3 = linalg.pooling_ndhwc_sum {dilations = dense<[1, 2, 2]> : tensor<3xi64>, strides = dense<[2, 1, 2]> : tensor<3xi64>} ins(%arg9, %arg10 : tensor<2x7x4x9x2xf32>, tensor<3x2x3xf32>) outs(%arg11 : tensor<2x3x2x3x2xf32>) -> tensor<2x3x2x3x2xf32>
// CHECK-NEXT:    %4 = linalg.pooling_ndhwc_max {dilations = dense<[1, 2, 2]> : tensor<3xi64>, strides = dense<[2, 1, 2]> : tensor<3xi64>} ins(%arg12, %arg13 : tensor<2x7x4x9x2xf32>, tensor<3x2x3xf32>) outs(%arg14 : tensor<2x3x2x3x2xf32>) -> tensor<2x3x2x3x2xf32>
// CHECK-NEXT:    %5 = linalg.pooling_ndhwc_min {dilations = dense<[1, 2, 2]> : tensor<3xi64>, strides = dense<[2, 1, 2]> : tensor<3xi64>} ins(%arg15, %arg16 : tensor<2x7x4x9x2xf32>, tensor<3x2x3xf32>) outs(%arg17 : tensor<2x3x2x3x2xf32>) -> tensor<2x3x2x3x2xf32>
// CHECK-NEXT:    func.return

// -----

#map = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2 * 2 + d4, d3 + d5 * 2)>
#map1 = affine_map<(d0, d1, d2, d3, d4, d5) -> (d4, d5)>
#map2 = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3)>
#map3 = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1 * 2 + d4, d2 + d5 * 2, d3)>
#map4 = affine_map<(d0, d1, d2, d3) -> (d0, d1 * 2 + d3, d2)>
#map5 = affine_map<(d0, d1, d2, d3) -> (d3)>
#map6 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
#map7 = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d1 * 2 + d5, d2 + d6 * 2, d3 * 2 + d7 * 2, d4)>
#map8 = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d5, d6, d7)>
#map9 = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d1, d2, d3, d4)>
"builtin.module"() ({
  "func.func"() <{function_type = (tensor<2x3x4x7xf32>, tensor<2x3xf32>, tensor<2x3x2x3xf32>, tensor<2x6x6x3xf32>, tensor<2x3xf32>, tensor<2x3x2x3xf32>, tensor<2x7x2xf32>, tensor<3xf32>, tensor<2x3x2xf32>, tensor<2x7x4x9x2xf32>, tensor<3x2x3xf32>, tensor<2x3x2x3x2xf32>, tensor<2x7x4x9x2xf32>, tensor<3x2x3xf32>, tensor<2x3x2x3x2xf32>, tensor<2x7x4x9x2xf32>, tensor<3x2x3xf32>, tensor<2x3x2x3x2xf32>) -> (), sym_name = "pooling_generic"}> ({
  ^bb0(%arg0: tensor<2x3x4x7xf32>, %arg1: tensor<2x3xf32>, %arg2: tensor<2x3x2x3xf32>, %arg3: tensor<2x6x6x3xf32>, %arg4: tensor<2x3xf32>, %arg5: tensor<2x3x2x3xf32>, %arg6: tensor<2x7x2xf32>, %arg7: tensor<3xf32>, %arg8: tensor<2x3x2xf32>, %arg9: tensor<2x7x4x9x2xf32>, %arg10: tensor<3x2x3xf32>, %arg11: tensor<2x3x2x3x2xf32>, %arg12: tensor<2x7x4x9x2xf32>, %arg13: tensor<3x2x3xf32>, %arg14: tensor<2x3x2x3x2xf32>, %arg15: tensor<2x7x4x9x2xf32>, %arg16: tensor<3x2x3xf32>, %arg17: tensor<2x3x2x3x2xf32>):
    %0 = "linalg.pooling_nchw_max"(%arg0, %arg1, %arg2) <{dilations = dense<[1, 2]> : tensor<2xi64>, operandSegmentSizes = array<i32: 2, 1>, strides = dense<[2, 1]> : tensor<2xi64>}> ({
    ^bb0(%arg33: f32, %arg34: f32, %arg35: f32):
      %11 = "arith.maximumf"(%arg35, %arg33) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
      "linalg.yield"(%11) : (f32) -> ()
    }) {linalg.memoized_indexing_maps = [#map, #map1, #map2]} : (tensor<2x3x4x7xf32>, tensor<2x3xf32>, tensor<2x3x2x3xf32>) -> tensor<2x3x2x3xf32>
    %1 = "linalg.pooling_nhwc_min"(%arg3, %arg4, %arg5) <{dilations = dense<[1, 2]> : tensor<2xi64>, operandSegmentSizes = array<i32: 2, 1>, strides = dense<[2, 1]> : tensor<2xi64>}> ({
    ^bb0(%arg30: f32, %arg31: f32, %arg32: f32):
      %10 = "arith.minimumf"(%arg32, %arg30) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
      "linalg.yield"(%10) : (f32) -> ()
    }) {linalg.memoized_indexing_maps = [#map3, #map1, #map2]} : (tensor<2x6x6x3xf32>, tensor<2x3xf32>, tensor<2x3x2x3xf32>) -> tensor<2x3x2x3xf32>
    %2 = "linalg.pooling_nwc_min"(%arg6, %arg7, %arg8) <{dilations = dense<1> : tensor<1xi64>, operandSegmentSizes = array<i32: 2, 1>, strides = dense<2> : tensor<1xi64>}> ({
    ^bb0(%arg27: f32, %arg28: f32, %arg29: f32):
      %9 = "arith.minimumf"(%arg29, %arg27) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
      "linalg.yield"(%9) : (f32) -> ()
    }) {linalg.memoized_indexing_maps = [#map4, #map5, #map6]} : (tensor<2x7x2xf32>, tensor<3xf32>, tensor<2x3x2xf32>) -> tensor<2x3x2xf32>
    %3 = "linalg.pooling_ndhwc_sum"(%arg9, %arg10, %arg11) <{dilations = dense<[1, 2, 2]> : tensor<3xi64>, operandSegmentSizes = array<i32: 2, 1>, strides = dense<[2, 1, 2]> : tensor<3xi64>}> ({
    ^bb0(%arg24: f32, %arg25: f32, %arg26: f32):
      %8 = "arith.addf"(%arg26, %arg24) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
      "linalg.yield"(%8) : (f32) -> ()
    }) {linalg.memoized_indexing_maps = [#map7, #map8, #map9]} : (tensor<2x7x4x9x2xf32>, tensor<3x2x3xf32>, tensor<2x3x2x3x2xf32>) -> tensor<2x3x2x3x2xf32>
    %4 = "linalg.pooling_ndhwc_max"(%arg12, %arg13, %arg14) <{dilations = dense<[1, 2, 2]> : tensor<3xi64>, operandSegmentSizes = array<i32: 2, 1>, strides = dense<[2, 1, 2]> : tensor<3xi64>}> ({
    ^bb0(%arg21: f32, %arg22: f32, %arg23: f32):
      %7 = "arith.maximumf"(%arg23, %arg21) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
      "linalg.yield"(%7) : (f32) -> ()
    }) {linalg.memoized_indexing_maps = [#map7, #map8, #map9]} : (tensor<2x7x4x9x2xf32>, tensor<3x2x3xf32>, tensor<2x3x2x3x2xf32>) -> tensor<2x3x2x3x2xf32>
    %5 = "linalg.pooling_ndhwc_min"(%arg15, %arg16, %arg17) <{dilations = dense<[1, 2, 2]> : tensor<3xi64>, operandSegmentSizes = array<i32: 2, 1>, strides = dense<[2, 1, 2]> : tensor<3xi64>}> ({
    ^bb0(%arg18: f32, %arg19: f32, %arg20: f32):
      %6 = "arith.minimumf"(%arg20, %arg18) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
      "linalg.yield"(%6) : (f32) -> ()
    }) {linalg.memoized_indexing_maps = [#map7, #map8, #map9]} : (tensor<2x7x4x9x2xf32>, tensor<3x2x3xf32>, tensor<2x3x2x3x2xf32>) -> tensor<2x3x2x3x2xf32>
    "func.return"() : () -> ()
  }) : () -> ()
}) : () -> ()

// CHECK-LABEL: func.func @pooling_generic(
// CHECK-NEXT:    %0 = linalg.pooling_nchw_max {dilations = dense<[1, 2]> : tensor<2xi64>, strides = dense<[2, 1]> : tensor<2xi64>} ins(%arg0, %arg1 : tensor<2x3x4x7xf32>, tensor<2x3xf32>) outs(%arg2 : tensor<2x3x2x3xf32>) -> tensor<2x3x2x3xf32>
// CHECK-NEXT:    %1 = linalg.pooling_nhwc_min {dilations = dense<[1, 2]> : tensor<2xi64>, strides = dense<[2, 1]> : tensor<2xi64>} ins(%arg3, %arg4 : tensor<2x6x6x3xf32>, tensor<2x3xf32>) outs(%arg5 : tensor<2x3x2x3xf32>) -> tensor<2x3x2x3xf32>
// CHECK-NEXT:    %2 = linalg.pooling_nwc_min {dilations = dense<1> : tensor<1xi64>, strides = dense<2> : tensor<1xi64>} ins(%arg6, %arg7 : tensor<2x7x2xf32>, tensor<3xf32>) outs(%arg8 : tensor<2x3x2xf32>) -> tensor<2x3x2xf32>
// CHECK-NEXT:    %3 = linalg.pooling_ndhwc_sum {dilations = dense<[1, 2, 2]> : tensor<3xi64>, strides = dense<[2, 1, 2]> : tensor<3xi64>} ins(%arg9, %arg10 : tensor<2x7x4x9x2xf32>, tensor<3x2x3xf32>) outs(%arg11 : tensor<2x3x2x3x2xf32>) -> tensor<2x3x2x3x2xf32>
// CHECK-NEXT:    %4 = linalg.pooling_ndhwc_max {dilations = dense<[1, 2, 2]> : tensor<3xi64>, strides = dense<[2, 1, 2]> : tensor<3xi64>} ins(%arg12, %arg13 : tensor<2x7x4x9x2xf32>, tensor<3x2x3xf32>) outs(%arg14 : tensor<2x3x2x3x2xf32>) -> tensor<2x3x2x3x2xf32>
// CHECK-NEXT:    %5 = linalg.pooling_ndhwc_min {dilations = dense<[1, 2, 2]> : tensor<3xi64>, strides = dense<[2, 1, 2]> : tensor<3xi64>} ins(%arg15, %arg16 : tensor<2x7x4x9x2xf32>, tensor<3x2x3xf32>) outs(%arg17 : tensor<2x3x2x3x2xf32>) -> tensor<2x3x2x3x2xf32>
// CHECK-NEXT:    func.return

// -----

func.func @default_strides(%arg0: tensor<2x5x2xf32>, %arg1: tensor<3x2xf32>, %arg2: tensor<2x3x2xf32>) {
  %0 = linalg.depthwise_conv_1d_nwc_wc ins(%arg0, %arg1 : tensor<2x5x2xf32>, tensor<3x2xf32>) outs(%arg2 : tensor<2x3x2xf32>) -> tensor<2x3x2xf32>
  return
}

// CHECK-LABEL: func.func @default_strides(
// CHECK-NEXT:    %0 = linalg.depthwise_conv_1d_nwc_wc ins(%arg0, %arg1 : tensor<2x5x2xf32>, tensor<3x2xf32>) outs(%arg2 : tensor<2x3x2xf32>) -> tensor<2x3x2xf32>
// CHECK-NEXT:    func.return

// -----

#map = affine_map<(d0, d1, d2, d3) -> (d0, d1 + d3, d2)>
#map1 = affine_map<(d0, d1, d2, d3) -> (d3, d2)>
#map2 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
"builtin.module"() ({
  "func.func"() <{function_type = (tensor<2x5x2xf32>, tensor<3x2xf32>, tensor<2x3x2xf32>) -> (), sym_name = "default_strides_generic"}> ({
  ^bb0(%arg0: tensor<2x5x2xf32>, %arg1: tensor<3x2xf32>, %arg2: tensor<2x3x2xf32>):
    %0 = "linalg.depthwise_conv_1d_nwc_wc"(%arg0, %arg1, %arg2) <{operandSegmentSizes = array<i32: 2, 1>}> ({
    ^bb0(%arg3: f32, %arg4: f32, %arg5: f32):
      %1 = "arith.mulf"(%arg3, %arg4) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
      %2 = "arith.addf"(%arg5, %1) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
      "linalg.yield"(%2) : (f32) -> ()
    }) {linalg.memoized_indexing_maps = [#map, #map1, #map2]} : (tensor<2x5x2xf32>, tensor<3x2xf32>, tensor<2x3x2xf32>) -> tensor<2x3x2xf32>
    "func.return"() : () -> ()
  }) : () -> ()
}) : () -> ()

// CHECK-LABEL: func.func @default_strides_generic(
// CHECK-NEXT:    %0 = linalg.depthwise_conv_1d_nwc_wc ins(%arg0, %arg1 : tensor<2x5x2xf32>, tensor<3x2xf32>) outs(%arg2 : tensor<2x3x2xf32>) -> tensor<2x3x2xf32>
// CHECK-NEXT:    func.return

// -----

func.func @given_maps(%arg0: tensor<4x2xf32>, %arg1: tensor<4x3xf32>, %arg2: tensor<2x3xf32>, %arg3: tensor<2x4xf32>, %arg4: tensor<3x4xf32>, %arg5: tensor<2x3xf32>, %arg6: tensor<4xf32>, %arg7: tensor<4x3xf32>, %arg8: tensor<2x3xf32>, %arg9: tensor<2x3x5xf32>, %arg10: tensor<2x4x5xf32>, %arg11: tensor<2x3x4xf32>, %arg12: tensor<2x3x5xf32>, %arg13: tensor<5x4xf32>, %arg14: tensor<2x3x4xf32>, %arg15: tensor<2x3x5xf32>, %arg16: tensor<2x5x4xf32>, %arg17: tensor<3x4xf32>, %arg18: tensor<2x5x3xf32>, %arg19: tensor<2x5x4xf32>, %arg20: tensor<3x4xf32>, %arg21: tensor<5x2x4xf32>, %arg22: tensor<5x4x3xf32>, %arg23: tensor<2x3xf32>) {
  %0 = linalg.matmul indexing_maps = [affine_map<(d0, d1, d2) -> (d2, d0)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>] ins(%arg0, %arg1 : tensor<4x2xf32>, tensor<4x3xf32>) outs(%arg2 : tensor<2x3xf32>) -> tensor<2x3xf32>
  %1 = linalg.matmul indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>] ins(%arg3, %arg4 : tensor<2x4xf32>, tensor<3x4xf32>) outs(%arg5 : tensor<2x3xf32>) -> tensor<2x3xf32>
  %2 = linalg.matmul indexing_maps = [affine_map<(d0, d1, d2) -> (d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>] ins(%arg6, %arg7 : tensor<4xf32>, tensor<4x3xf32>) outs(%arg8 : tensor<2x3xf32>) -> tensor<2x3xf32>
  %3 = linalg.batch_matmul indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>] ins(%arg9, %arg10 : tensor<2x3x5xf32>, tensor<2x4x5xf32>) outs(%arg11 : tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  %4 = linalg.batch_matmul indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>, affine_map<(d0, d1, d2, d3) -> (d3, d2)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>] ins(%arg12, %arg13 : tensor<2x3x5xf32>, tensor<5x4xf32>) outs(%arg14 : tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  %5 = linalg.batch_reduce_matmul ins(%arg15, %arg16 : tensor<2x3x5xf32>, tensor<2x5x4xf32>) outs(%arg17 : tensor<3x4xf32>) -> tensor<3x4xf32>
  %6 = linalg.batch_reduce_matmul indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d3, d1)>, affine_map<(d0, d1, d2, d3) -> (d0, d3, d2)>, affine_map<(d0, d1, d2, d3) -> (d1, d2)>] ins(%arg18, %arg19 : tensor<2x5x3xf32>, tensor<2x5x4xf32>) outs(%arg20 : tensor<3x4xf32>) -> tensor<3x4xf32>
  %7 = linalg.contract indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d3, d0, d2)>, affine_map<(d0, d1, d2, d3) -> (d3, d2, d1)>, affine_map<(d0, d1, d2, d3) -> (d0, d1)>] ins(%arg21, %arg22 : tensor<5x2x4xf32>, tensor<5x4x3xf32>) outs(%arg23 : tensor<2x3xf32>) -> tensor<2x3xf32>
  return
}

// CHECK-LABEL: func.func @given_maps(
// CHECK-NEXT:    %0 = linalg.matmul indexing_maps = [affine_map<(d0, d1, d2) -> (d2, d0)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>] ins(%arg0, %arg1 : tensor<4x2xf32>, tensor<4x3xf32>) outs(%arg2 : tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT:    %1 = linalg.matmul indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>] ins(%arg3, %arg4 : tensor<2x4xf32>, tensor<3x4xf32>) outs(%arg5 : tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT:    %2 = linalg.matmul indexing_maps = [affine_map<(d0, d1, d2) -> (d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>] ins(%arg6, %arg7 : tensor<4xf32>, tensor<4x3xf32>) outs(%arg8 : tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT:    %3 = linalg.batch_matmul indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>] ins(%arg9, %arg10 : tensor<2x3x5xf32>, tensor<2x4x5xf32>) outs(%arg11 : tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
// CHECK-NEXT:    %4 = linalg.batch_matmul indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>, affine_map<(d0, d1, d2, d3) -> (d3, d2)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>] ins(%arg12, %arg13 : tensor<2x3x5xf32>, tensor<5x4xf32>) outs(%arg14 : tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
// CHECK-NEXT:    %5 = linalg.batch_reduce_matmul ins(%arg15, %arg16 : tensor<2x3x5xf32>, tensor<2x5x4xf32>) outs(%arg17 : tensor<3x4xf32>) -> tensor<3x4xf32>
// CHECK-NEXT:    %6 = linalg.batch_reduce_matmul indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d3, d1)>, affine_map<(d0, d1, d2, d3) -> (d0, d3, d2)>, affine_map<(d0, d1, d2, d3) -> (d1, d2)>] ins(%arg18, %arg19 : tensor<2x5x3xf32>, tensor<2x5x4xf32>) outs(%arg20 : tensor<3x4xf32>) -> tensor<3x4xf32>
// CHECK-NEXT:    %7 = linalg.contract indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d3, d0, d2)>, affine_map<(d0, d1, d2, d3) -> (d3, d2, d1)>, affine_map<(d0, d1, d2, d3) -> (d0, d1)>] ins(%arg21, %arg22 : tensor<5x2x4xf32>, tensor<5x4x3xf32>) outs(%arg23 : tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT:    func.return

// -----

#map = affine_map<(d0, d1, d2) -> (d2, d0)>
#map1 = affine_map<(d0, d1, d2) -> (d2, d1)>
#map2 = affine_map<(d0, d1, d2) -> (d0, d1)>
#map3 = affine_map<(d0, d1, d2) -> (d0, d2)>
#map4 = affine_map<(d0, d1, d2) -> (d1, d2)>
#map5 = affine_map<(d0, d1, d2) -> (d2)>
#map6 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>
#map7 = affine_map<(d0, d1, d2, d3) -> (d0, d2, d3)>
#map8 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
#map9 = affine_map<(d0, d1, d2, d3) -> (d3, d2)>
#map10 = affine_map<(d0, d1, d2, d3) -> (d0, d3, d2)>
#map11 = affine_map<(d0, d1, d2, d3) -> (d1, d2)>
#map12 = affine_map<(d0, d1, d2, d3) -> (d0, d3, d1)>
#map13 = affine_map<(d0, d1, d2, d3) -> (d3, d0, d2)>
#map14 = affine_map<(d0, d1, d2, d3) -> (d3, d2, d1)>
#map15 = affine_map<(d0, d1, d2, d3) -> (d0, d1)>
"builtin.module"() ({
  "func.func"() <{function_type = (tensor<4x2xf32>, tensor<4x3xf32>, tensor<2x3xf32>, tensor<2x4xf32>, tensor<3x4xf32>, tensor<2x3xf32>, tensor<4xf32>, tensor<4x3xf32>, tensor<2x3xf32>, tensor<2x3x5xf32>, tensor<2x4x5xf32>, tensor<2x3x4xf32>, tensor<2x3x5xf32>, tensor<5x4xf32>, tensor<2x3x4xf32>, tensor<2x3x5xf32>, tensor<2x5x4xf32>, tensor<3x4xf32>, tensor<2x5x3xf32>, tensor<2x5x4xf32>, tensor<3x4xf32>, tensor<5x2x4xf32>, tensor<5x4x3xf32>, tensor<2x3xf32>) -> (), sym_name = "given_maps_generic"}> ({
  ^bb0(%arg0: tensor<4x2xf32>, %arg1: tensor<4x3xf32>, %arg2: tensor<2x3xf32>, %arg3: tensor<2x4xf32>, %arg4: tensor<3x4xf32>, %arg5: tensor<2x3xf32>, %arg6: tensor<4xf32>, %arg7: tensor<4x3xf32>, %arg8: tensor<2x3xf32>, %arg9: tensor<2x3x5xf32>, %arg10: tensor<2x4x5xf32>, %arg11: tensor<2x3x4xf32>, %arg12: tensor<2x3x5xf32>, %arg13: tensor<5x4xf32>, %arg14: tensor<2x3x4xf32>, %arg15: tensor<2x3x5xf32>, %arg16: tensor<2x5x4xf32>, %arg17: tensor<3x4xf32>, %arg18: tensor<2x5x3xf32>, %arg19: tensor<2x5x4xf32>, %arg20: tensor<3x4xf32>, %arg21: tensor<5x2x4xf32>, %arg22: tensor<5x4x3xf32>, %arg23: tensor<2x3xf32>):
    %0 = "linalg.matmul"(%arg0, %arg1, %arg2) <{indexing_maps = [#map, #map1, #map2], operandSegmentSizes = array<i32: 2, 1>}> ({
    ^bb0(%arg45: f32, %arg46: f32, %arg47: f32):
      %22 = "arith.mulf"(%arg45, %arg46) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
      %23 = "arith.addf"(%arg47, %22) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
      "linalg.yield"(%23) : (f32) -> ()
    }) : (tensor<4x2xf32>, tensor<4x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
    %1 = "linalg.matmul"(%arg3, %arg4, %arg5) <{indexing_maps = [#map3, #map4, #map2], operandSegmentSizes = array<i32: 2, 1>}> ({
    ^bb0(%arg42: f32, %arg43: f32, %arg44: f32):
      %20 = "arith.mulf"(%arg42, %arg43) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
      %21 = "arith.addf"(%arg44, %20) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
      "linalg.yield"(%21) : (f32) -> ()
    }) : (tensor<2x4xf32>, tensor<3x4xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
    %2 = "linalg.matmul"(%arg6, %arg7, %arg8) <{indexing_maps = [#map5, #map1, #map2], operandSegmentSizes = array<i32: 2, 1>}> ({
    ^bb0(%arg39: f32, %arg40: f32, %arg41: f32):
      %18 = "arith.mulf"(%arg39, %arg40) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
      %19 = "arith.addf"(%arg41, %18) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
      "linalg.yield"(%19) : (f32) -> ()
    }) : (tensor<4xf32>, tensor<4x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
    %3 = "linalg.batch_matmul"(%arg9, %arg10, %arg11) <{indexing_maps = [#map6, #map7, #map8], operandSegmentSizes = array<i32: 2, 1>}> ({
    ^bb0(%arg36: f32, %arg37: f32, %arg38: f32):
      %16 = "arith.mulf"(%arg36, %arg37) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
      %17 = "arith.addf"(%arg38, %16) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
      "linalg.yield"(%17) : (f32) -> ()
    }) : (tensor<2x3x5xf32>, tensor<2x4x5xf32>, tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
    %4 = "linalg.batch_matmul"(%arg12, %arg13, %arg14) <{indexing_maps = [#map6, #map9, #map8], operandSegmentSizes = array<i32: 2, 1>}> ({
    ^bb0(%arg33: f32, %arg34: f32, %arg35: f32):
      %14 = "arith.mulf"(%arg33, %arg34) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
      %15 = "arith.addf"(%arg35, %14) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
      "linalg.yield"(%15) : (f32) -> ()
    }) : (tensor<2x3x5xf32>, tensor<5x4xf32>, tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
    %5 = "linalg.batch_reduce_matmul"(%arg15, %arg16, %arg17) <{indexing_maps = [#map6, #map10, #map11], operandSegmentSizes = array<i32: 2, 1>}> ({
    ^bb0(%arg30: f32, %arg31: f32, %arg32: f32):
      %12 = "arith.mulf"(%arg30, %arg31) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
      %13 = "arith.addf"(%arg32, %12) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
      "linalg.yield"(%13) : (f32) -> ()
    }) : (tensor<2x3x5xf32>, tensor<2x5x4xf32>, tensor<3x4xf32>) -> tensor<3x4xf32>
    %6 = "linalg.batch_reduce_matmul"(%arg18, %arg19, %arg20) <{indexing_maps = [#map12, #map10, #map11], operandSegmentSizes = array<i32: 2, 1>}> ({
    ^bb0(%arg27: f32, %arg28: f32, %arg29: f32):
      %10 = "arith.mulf"(%arg27, %arg28) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
      %11 = "arith.addf"(%arg29, %10) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
      "linalg.yield"(%11) : (f32) -> ()
    }) : (tensor<2x5x3xf32>, tensor<2x5x4xf32>, tensor<3x4xf32>) -> tensor<3x4xf32>
    %7 = "linalg.contract"(%arg21, %arg22, %arg23) <{indexing_maps = [#map13, #map14, #map15], operandSegmentSizes = array<i32: 2, 1>}> ({
    ^bb0(%arg24: f32, %arg25: f32, %arg26: f32):
      %8 = "arith.mulf"(%arg24, %arg25) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
      %9 = "arith.addf"(%arg26, %8) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
      "linalg.yield"(%9) : (f32) -> ()
    }) : (tensor<5x2x4xf32>, tensor<5x4x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
    "func.return"() : () -> ()
  }) : () -> ()
}) : () -> ()

// CHECK-LABEL: func.func @given_maps_generic(
// CHECK-NEXT:    %0 = linalg.matmul indexing_maps = [affine_map<(d0, d1, d2) -> (d2, d0)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>] ins(%arg0, %arg1 : tensor<4x2xf32>, tensor<4x3xf32>) outs(%arg2 : tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT:    %1 = linalg.matmul indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>] ins(%arg3, %arg4 : tensor<2x4xf32>, tensor<3x4xf32>) outs(%arg5 : tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT:    %2 = linalg.matmul indexing_maps = [affine_map<(d0, d1, d2) -> (d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>] ins(%arg6, %arg7 : tensor<4xf32>, tensor<4x3xf32>) outs(%arg8 : tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT:    %3 = linalg.batch_matmul indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>] ins(%arg9, %arg10 : tensor<2x3x5xf32>, tensor<2x4x5xf32>) outs(%arg11 : tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
// CHECK-NEXT:    %4 = linalg.batch_matmul indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>, affine_map<(d0, d1, d2, d3) -> (d3, d2)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>] ins(%arg12, %arg13 : tensor<2x3x5xf32>, tensor<5x4xf32>) outs(%arg14 : tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
// CHECK-NEXT:    %5 = linalg.batch_reduce_matmul ins(%arg15, %arg16 : tensor<2x3x5xf32>, tensor<2x5x4xf32>) outs(%arg17 : tensor<3x4xf32>) -> tensor<3x4xf32>
// CHECK-NEXT:    %6 = linalg.batch_reduce_matmul indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d3, d1)>, affine_map<(d0, d1, d2, d3) -> (d0, d3, d2)>, affine_map<(d0, d1, d2, d3) -> (d1, d2)>] ins(%arg18, %arg19 : tensor<2x5x3xf32>, tensor<2x5x4xf32>) outs(%arg20 : tensor<3x4xf32>) -> tensor<3x4xf32>
// CHECK-NEXT:    %7 = linalg.contract indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d3, d0, d2)>, affine_map<(d0, d1, d2, d3) -> (d3, d2, d1)>, affine_map<(d0, d1, d2, d3) -> (d0, d1)>] ins(%arg21, %arg22 : tensor<5x2x4xf32>, tensor<5x4x3xf32>) outs(%arg23 : tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT:    func.return

// -----

func.func @elementwise(%arg0: tensor<2x3xf32>, %arg1: tensor<2x3xf32>, %arg2: tensor<2x3xf32>, %arg3: tensor<2x3xf32>, %arg4: tensor<2x3xf32>, %arg5: tensor<2x3xf32>, %arg6: tensor<2x3xf32>, %arg7: tensor<2x3xf32>, %arg8: tensor<2x3xf32>, %arg9: tensor<3xf32>, %arg10: tensor<2x3xf32>, %arg11: tensor<2x3xf32>, %arg12: tensor<2x3xi1>, %arg13: tensor<2x3xf32>, %arg14: tensor<2x3xf32>, %arg15: tensor<2x3xf32>) {
  %0 = linalg.elementwise <exp> ins(%arg0 : tensor<2x3xf32>) outs(%arg1 : tensor<2x3xf32>) -> tensor<2x3xf32>
  %1 = linalg.elementwise <reciprocal> ins(%arg2 : tensor<2x3xf32>) outs(%arg3 : tensor<2x3xf32>) -> tensor<2x3xf32>
  %2 = linalg.elementwise <log1p> ins(%arg4 : tensor<2x3xf32>) outs(%arg5 : tensor<2x3xf32>) -> tensor<2x3xf32>
  %3 = linalg.elementwise <max_signed> ins(%arg6, %arg7 : tensor<2x3xf32>, tensor<2x3xf32>) outs(%arg8 : tensor<2x3xf32>) -> tensor<2x3xf32>
  %4 = linalg.elementwise <add> indexing_maps = [affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>] ins(%arg9, %arg10 : tensor<3xf32>, tensor<2x3xf32>) outs(%arg11 : tensor<2x3xf32>) -> tensor<2x3xf32>
  %5 = linalg.elementwise <select> ins(%arg12, %arg13, %arg14 : tensor<2x3xi1>, tensor<2x3xf32>, tensor<2x3xf32>) outs(%arg15 : tensor<2x3xf32>) -> tensor<2x3xf32>
  return
}

// CHECK-LABEL: func.func @elementwise(
// CHECK-NEXT:    %0 = linalg.elementwise <exp> ins(%arg0 : tensor<2x3xf32>) outs(%arg1 : tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT:    %1 = linalg.elementwise <reciprocal> ins(%arg2 : tensor<2x3xf32>) outs(%arg3 : tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT:    %2 = linalg.elementwise <log1p> ins(%arg4 : tensor<2x3xf32>) outs(%arg5 : tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT:    %3 = linalg.elementwise <max_signed> ins(%arg6, %arg7 : tensor<2x3xf32>, tensor<2x3xf32>) outs(%arg8 : tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT:    %4 = linalg.elementwise <add> indexing_maps = [affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>] ins(%arg9, %arg10 : tensor<3xf32>, tensor<2x3xf32>) outs(%arg11 : tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT:    %5 = linalg.elementwise <select> ins(%arg12, %arg13, %arg14 : tensor<2x3xi1>, tensor<2x3xf32>, tensor<2x3xf32>) outs(%arg15 : tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT:    func.return

// -----

#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1) -> (d1)>
"builtin.module"() ({
  "func.func"() <{function_type = (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xi1>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>) -> (), sym_name = "elementwise_generic"}> ({
  ^bb0(%arg0: tensor<2x3xf32>, %arg1: tensor<2x3xf32>, %arg2: tensor<2x3xf32>, %arg3: tensor<2x3xf32>, %arg4: tensor<2x3xf32>, %arg5: tensor<2x3xf32>, %arg6: tensor<2x3xf32>, %arg7: tensor<2x3xf32>, %arg8: tensor<2x3xf32>, %arg9: tensor<3xf32>, %arg10: tensor<2x3xf32>, %arg11: tensor<2x3xf32>, %arg12: tensor<2x3xi1>, %arg13: tensor<2x3xf32>, %arg14: tensor<2x3xf32>, %arg15: tensor<2x3xf32>):
    %0 = "linalg.elementwise"(%arg0, %arg1) <{indexing_maps = [#map, #map], kind = #linalg.elementwise_kind<exp>, operandSegmentSizes = array<i32: 1, 1>}> ({
    ^bb0(%arg30: f32, %arg31: f32):
      %12 = "math.exp"(%arg30) <{fastmath = #arith.fastmath<none>}> : (f32) -> f32
      "linalg.yield"(%12) : (f32) -> ()
    }) : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
    %1 = "linalg.elementwise"(%arg2, %arg3) <{indexing_maps = [#map, #map], kind = #linalg.elementwise_kind<reciprocal>, operandSegmentSizes = array<i32: 1, 1>}> ({
    ^bb0(%arg28: f32, %arg29: f32):
      %10 = "arith.constant"() <{value = 1.000000e+00 : f32}> : () -> f32
      %11 = "arith.divf"(%10, %arg28) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
      "linalg.yield"(%11) : (f32) -> ()
    }) : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
    %2 = "linalg.elementwise"(%arg4, %arg5) <{indexing_maps = [#map, #map], kind = #linalg.elementwise_kind<log1p>, operandSegmentSizes = array<i32: 1, 1>}> ({
    ^bb0(%arg26: f32, %arg27: f32):
      %9 = "math.log1p"(%arg26) <{fastmath = #arith.fastmath<none>}> : (f32) -> f32
      "linalg.yield"(%9) : (f32) -> ()
    }) : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
    %3 = "linalg.elementwise"(%arg6, %arg7, %arg8) <{indexing_maps = [#map, #map, #map], kind = #linalg.elementwise_kind<max_signed>, operandSegmentSizes = array<i32: 2, 1>}> ({
    ^bb0(%arg23: f32, %arg24: f32, %arg25: f32):
      %8 = "arith.maximumf"(%arg23, %arg24) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
      "linalg.yield"(%8) : (f32) -> ()
    }) : (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
    %4 = "linalg.elementwise"(%arg9, %arg10, %arg11) <{indexing_maps = [#map1, #map, #map], kind = #linalg.elementwise_kind<add>, operandSegmentSizes = array<i32: 2, 1>}> ({
    ^bb0(%arg20: f32, %arg21: f32, %arg22: f32):
      %7 = "arith.addf"(%arg20, %arg21) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
      "linalg.yield"(%7) : (f32) -> ()
    }) : (tensor<3xf32>, tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
    %5 = "linalg.elementwise"(%arg12, %arg13, %arg14, %arg15) <{indexing_maps = [#map, #map, #map, #map], kind = #linalg.elementwise_kind<select>, operandSegmentSizes = array<i32: 3, 1>}> ({
    ^bb0(%arg16: i1, %arg17: f32, %arg18: f32, %arg19: f32):
      %6 = "arith.select"(%arg16, %arg17, %arg18) : (i1, f32, f32) -> f32
      "linalg.yield"(%6) : (f32) -> ()
    }) : (tensor<2x3xi1>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
    "func.return"() : () -> ()
  }) : () -> ()
}) : () -> ()

// CHECK-LABEL: func.func @elementwise_generic(
// CHECK-NEXT:    %0 = linalg.elementwise <exp> ins(%arg0 : tensor<2x3xf32>) outs(%arg1 : tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT:    %1 = linalg.elementwise <reciprocal> ins(%arg2 : tensor<2x3xf32>) outs(%arg3 : tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT:    %2 = linalg.elementwise <log1p> ins(%arg4 : tensor<2x3xf32>) outs(%arg5 : tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT:    %3 = linalg.elementwise <max_signed> ins(%arg6, %arg7 : tensor<2x3xf32>, tensor<2x3xf32>) outs(%arg8 : tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT:    %4 = linalg.elementwise <add> indexing_maps = [affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>] ins(%arg9, %arg10 : tensor<3xf32>, tensor<2x3xf32>) outs(%arg11 : tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT:    %5 = linalg.elementwise <select> ins(%arg12, %arg13, %arg14 : tensor<2x3xi1>, tensor<2x3xf32>, tensor<2x3xf32>) outs(%arg15 : tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT:    func.return

// -----

// linalg.map in MLIR's short form: the one op its body applies to the
// inputs' elements; and its generic form, which has no operandSegmentSizes.
func.func @map_short(%arg0: tensor<2x3xf32>, %arg1: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %mapped = linalg.map { arith.mulf } ins(%arg0, %arg0 : tensor<2x3xf32>, tensor<2x3xf32>) outs(%arg1 : tensor<2x3xf32>)
  return %mapped : tensor<2x3xf32>
}

// CHECK-LABEL: func.func @map_short(
// CHECK-NEXT:    %mapped = linalg.map { arith.mulf } ins(%arg0, %arg0 : tensor<2x3xf32>, tensor<2x3xf32>) outs(%arg1 : tensor<2x3xf32>)
// CHECK-NEXT:    func.return %mapped : tensor<2x3xf32>

// -----

"builtin.module"() ({
  "func.func"() <{function_type = (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>, sym_name = "map_generic"}> ({
  ^bb0(%arg0: tensor<2x3xf32>, %arg1: tensor<2x3xf32>):
    %0 = "linalg.map"(%arg0, %arg0, %arg1) ({
    ^bb0(%arg2: f32, %arg3: f32, %arg4: f32):
      %1 = "arith.mulf"(%arg2, %arg3) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
      "linalg.yield"(%1) : (f32) -> ()
    }) : (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
    "func.return"(%0) : (tensor<2x3xf32>) -> ()
  }) : () -> ()
}) : () -> ()

// CHECK-LABEL: func.func @map_generic(
// CHECK-NEXT:    %0 = linalg.map { arith.mulf } ins(%arg0, %arg0 : tensor<2x3xf32>, tensor<2x3xf32>) outs(%arg1 : tensor<2x3xf32>)
