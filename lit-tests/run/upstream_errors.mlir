// RUN: not grad-run %s --entry divide 2>&1 | filecheck %s --check-prefix=ZERO
// RUN: not grad-run %s --entry outside --arg 0=3 2>&1 | filecheck %s --check-prefix=RANGE
// RUN: not grad-run %s --entry dynamic 2>&1 | filecheck %s --check-prefix=DYNAMIC
// RUN: grad-run %s --entry product 2>&1 | filecheck %s --check-prefix=PRODUCT
// RUN: not grad-run %s --entry modulo 2>&1 | filecheck %s --check-prefix=MODULO

// Upstream programs that cannot run: each a located error naming the op and
// the reason, exit status 1, nothing else printed.

func.func @divide() -> i32 {
  %a = arith.constant 7 : i32
  %b = arith.constant 0 : i32
  %q = arith.divsi %a, %b : i32
  func.return %q : i32
}

// ZERO: upstream_errors.mlir:[[# @LINE - 4]]:3: error: 'arith.divsi' divides by zero

// A dynamic offset outside the tensor is a run-time error naming the op.
func.func @outside(%i: i32) -> tensor<2xf32> {
  %t = arith.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
  %at = arith.index_cast %i : i32 to index
  %s = tensor.extract_slice %t[%at] [2] [1] : tensor<4xf32> to tensor<2xf32>
  func.return %s : tensor<2xf32>
}

// RANGE: upstream_errors.mlir:[[# @LINE - 4]]:3: error: 'tensor.extract_slice' reads elements 3..4 of dim 0, of size 4

func.func @dynamic(%t: tensor<4xf32>) -> tensor<?xf32> {
  %c0 = arith.constant 0 : index
  %s = tensor.extract_slice %t[0] [%c0] [1] : tensor<4xf32> to tensor<?xf32>
  %e = tensor.empty(%c0) : tensor<?xf32>
  func.return %e : tensor<?xf32>
}

// DYNAMIC: upstream_errors.mlir:[[# @LINE - 7]]:1: error: 'func.func' op result 0 is tensor<?xf32>: dynamic shapes are not supported

// A reduction body that reads its accumulator other than as `op(acc, e)`
// cannot run as one NumPy reduction; it runs as a fold over the reduction
// loop, in order: (0 * 0 + 1) * 1 + 2 = 3 (an argmax body runs so).
func.func @product() -> tensor<f32> {
  %x = arith.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %e = arith.constant dense<0.0> : tensor<f32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> ()>], iterator_types = ["reduction"]} ins(%x : tensor<2xf32>) outs(%e : tensor<f32>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.mulf %acc, %acc : f32
    %t = arith.addf %s, %a : f32
    linalg.yield %t : f32
  } -> tensor<f32>
  func.return %r : tensor<f32>
}

// PRODUCT: result 0 = dense<3.0> : tensor<f32>

func.func @modulo() -> tensor<2xf32> {
  %x = arith.constant dense<[1.0, 2.0, 3.0]> : tensor<3xf32>
  %e = tensor.empty() : tensor<2xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0 mod 3)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%x : tensor<3xf32>) outs(%e : tensor<2xf32>) {
  ^bb0(%a: f32, %o: f32):
    linalg.yield %a : f32
  } -> tensor<2xf32>
  func.return %r : tensor<2xf32>
}

// MODULO: upstream_errors.mlir:[[# @LINE - 7]]:3: error: 'linalg.generic' op cannot be run: its indexing map (d0) -> ((d0 mod 3)) is not a projected permutation nor a sum of dims times constants
