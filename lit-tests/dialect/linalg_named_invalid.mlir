// RUN: EXIT_STATUS grad-opt %s --split-input-file -p expand-gradient | filecheck %s

// SPEC §10.1, §10.2: named linalg ops that cannot be read, run or
// differentiated get a located error naming the op and the reason; grad-opt
// exits with status 1 and prints no traceback.

func.func @arity(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = linalg.elementwise <add> ins(%a : tensor<4xf32>) outs(%a : tensor<4xf32>) -> tensor<4xf32>
  func.return %0 : tensor<4xf32>
}

// CHECK:      linalg_named_invalid.mlir:[[# @LINE - 4]]:33: error: 'linalg.elementwise' of kind add takes 2 inputs, got 1
// CHECK-NEXT:   %0 = linalg.elementwise <add> ins(%a : tensor<4xf32>) outs(%a : tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT:                                 ^

// -----

func.func @kind(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = linalg.elementwise <cosh> ins(%a : tensor<4xf32>) outs(%a : tensor<4xf32>) -> tensor<4xf32>
  func.return %0 : tensor<4xf32>
}

// CHECK:      linalg_named_invalid.mlir:[[# @LINE - 4]]:27: error: 'linalg.elementwise' expects its kind, one of <exp>, <log>, <abs>, <ceil>, <floor>, <negf>, <reciprocal>, <round>, <sqrt>, <rsqrt>, <square>, <tanh>, <erf>, <sin>, <cos>, <tan>, <acos>, <acosh>, <asin>, <asinh>, <atan>, <atanh>, <log10>, <log1p>, <log2>, <add>, <sub>, <mul>, <div>, <max_signed>, <min_signed>, <powf>, <select>
// CHECK-NEXT:   %0 = linalg.elementwise <cosh> ins(%a : tensor<4xf32>) outs(%a : tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT:                           ^

// -----

func.func @no_maps(%a: tensor<3x4xf32>, %b: tensor<4x5xf32>, %c: tensor<3x5xf32>) -> tensor<3x5xf32> {
  %0 = linalg.contract ins(%a, %b : tensor<3x4xf32>, tensor<4x5xf32>) outs(%c : tensor<3x5xf32>) -> tensor<3x5xf32>
  func.return %0 : tensor<3x5xf32>
}

// CHECK:      linalg_named_invalid.mlir:[[# @LINE - 4]]:3: error: 'linalg.contract' expects 'indexing_maps = [...]'
// CHECK-NEXT:   %0 = linalg.contract ins(%a, %b : tensor<3x4xf32>, tensor<4x5xf32>) outs(%c : tensor<3x5xf32>) -> tensor<3x5xf32>
// CHECK-NEXT:   ^

// -----

func.func @map_rank(%a: tensor<3x4xf32>, %b: tensor<4x5xf32>, %c: tensor<3x5xf32>) -> tensor<3x5xf32> {
  %0 = linalg.matmul indexing_maps = [affine_map<(d0, d1, d2) -> (d0)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>] ins(%a, %b : tensor<3x4xf32>, tensor<4x5xf32>) outs(%c : tensor<3x5xf32>) -> tensor<3x5xf32>
  func.return %0 : tensor<3x5xf32>
}

// CHECK:      linalg_named_invalid.mlir:[[# @LINE - 4]]:3: error: 'linalg.matmul' op expected operand #0 of rank 2 to match the result count of indexing_map #0, 1
// CHECK-NEXT:   %0 = linalg.matmul indexing_maps = [affine_map<(d0, d1, d2) -> (d0)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>] ins(%a, %b : tensor<3x4xf32>, tensor<4x5xf32>) outs(%c : tensor<3x5xf32>) -> tensor<3x5xf32>
// CHECK-NEXT:   ^

// -----

// (4 - 1) * 2 + (2 - 1) * 2 + 1 = 9 input rows are read; there are 8.
func.func @window(%x: tensor<1x8x2xf32>, %k: tensor<2x2xf32>, %o: tensor<1x4x2xf32>) -> tensor<1x4x2xf32> {
  %y = linalg.depthwise_conv_1d_nwc_wc {dilations = dense<2> : tensor<1xi64>, strides = dense<2> : tensor<1xi64>} ins(%x, %k : tensor<1x8x2xf32>, tensor<2x2xf32>) outs(%o : tensor<1x4x2xf32>) -> tensor<1x4x2xf32>
  func.return %y : tensor<1x4x2xf32>
}

// CHECK:      linalg_named_invalid.mlir:[[# @LINE - 4]]:3: error: 'linalg.depthwise_conv_1d_nwc_wc' op inferred input/output operand #0 has shape's dimension #1 to be greater than or equal to 9, but found 8
// CHECK-NEXT:   %y = linalg.depthwise_conv_1d_nwc_wc {dilations = dense<2> : tensor<1xi64>, strides = dense<2> : tensor<1xi64>} ins(%x, %k : tensor<1x8x2xf32>, tensor<2x2xf32>) outs(%o : tensor<1x4x2xf32>) -> tensor<1x4x2xf32>
// CHECK-NEXT:   ^

// -----

func.func @dynamic(%x: tensor<?x5x2xf32>, %k: tensor<2x2xf32>, %o: tensor<?x4x2xf32>) -> tensor<2x2xf32> {
  %y = linalg.depthwise_conv_1d_nwc_wc ins(%x, %k : tensor<?x5x2xf32>, tensor<2x2xf32>) outs(%o : tensor<?x4x2xf32>) -> tensor<?x4x2xf32>
  %g = grad.vjp %y, %o wrt %k : tensor<?x4x2xf32>, tensor<2x2xf32>
  func.return %g : tensor<2x2xf32>
}

// CHECK:      linalg_named_invalid.mlir:[[# @LINE - 4]]:3: error: 'grad.vjp' op dynamic shapes are not supported: tensor<?x4x2xf32> lies on the path from the target to the loss
// CHECK-NEXT:   %g = grad.vjp %y, %o wrt %k : tensor<?x4x2xf32>, tensor<2x2xf32>
// CHECK-NEXT:   ^
// CHECK-NEXT: linalg_named_invalid.mlir:[[# @LINE - 8]]:3: note: it is made here
// CHECK-NEXT:   %y = linalg.depthwise_conv_1d_nwc_wc ins(%x, %k : tensor<?x5x2xf32>, tensor<2x2xf32>) outs(%o : tensor<?x4x2xf32>) -> tensor<?x4x2xf32>
// CHECK-NEXT:   ^

// -----

func.func @f16_loss(%x: tensor<2x3xf16>, %v: tensor<3xf16>, %o: tensor<2xf16>) -> tensor<3xf16> {
  %y = linalg.matvec ins(%x, %v : tensor<2x3xf16>, tensor<3xf16>) outs(%o : tensor<2xf16>) -> tensor<2xf16>
  %g = grad.vjp %y, %o wrt %v : tensor<2xf16>, tensor<3xf16>
  func.return %g : tensor<3xf16>
}

// CHECK:      linalg_named_invalid.mlir:[[# @LINE - 4]]:3: error: 'grad.vjp' op loss must be an f32 tensor, got tensor<2xf16>
// CHECK-NEXT:   %g = grad.vjp %y, %o wrt %v : tensor<2xf16>, tensor<3xf16>
// CHECK-NEXT:   ^

// -----

func.func @no_rule(%a: tensor<3xf32>, %o: tensor<3xf32>) -> tensor<3xf32> {
  %y = linalg.elementwise <acos> ins(%a : tensor<3xf32>) outs(%o : tensor<3xf32>) -> tensor<3xf32>
  %g = grad.vjp %y, %o wrt %a : tensor<3xf32>, tensor<3xf32>
  func.return %g : tensor<3xf32>
}

// CHECK:      linalg_named_invalid.mlir:[[# @LINE - 4]]:3: error: 'grad.vjp' op 'linalg.elementwise' lies on the path from the target to the loss and has no gradient rule: its body holds 'math.acos', which has no gradient rule
// CHECK-NEXT:   %g = grad.vjp %y, %o wrt %a : tensor<3xf32>, tensor<3xf32>
// CHECK-NEXT:   ^
// CHECK-NEXT: linalg_named_invalid.mlir:[[# @LINE - 8]]:3: note: 'linalg.elementwise' is here
// CHECK-NEXT:   %y = linalg.elementwise <acos> ins(%a : tensor<3xf32>) outs(%o : tensor<3xf32>) -> tensor<3xf32>
// CHECK-NEXT:   ^

// CHECK: exit status: 1
