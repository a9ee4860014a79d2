// RUN: grad-run %s --arg '0=[[1, -2, 3], [-4, 5, -6]]' --arg '1=[10, 20, 30]' | filecheck %s
// RUN: grad-run %s --entry named --arg '0=[[1, 2], [3, 4]]' --arg '1=[1, -1]' | filecheck %s --check-prefix=NAMED
// RUN: grad-run %s --entry window --arg '0=[[0, 1, 2, 3, 4, 5]]' | filecheck %s --check-prefix=WINDOW
// RUN: grad-run %s --entry map --arg '0=[1, 2, 3]' | filecheck %s --check-prefix=MAP

// linalg.generic runs as NumPy expressions over its iteration space: maps
// that broadcast, transpose and read index 0; a body of scalar ops with
// comparisons, selects and casts; reductions by addf and maximumf; two
// results; linalg.index and tensor.extract at computed indices (a flip).

#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d1)>
#t = affine_map<(d0, d1) -> (d1, d0)>
#first = affine_map<(d0, d1) -> (d0)>

func.func @main(%a: tensor<2x3xf32>, %b: tensor<3xf32>) -> (tensor<2x3xf32>, tensor<3x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2x3xi32>, tensor<2x3xf32>) {
  %e = tensor.empty() : tensor<2x3xf32>
  %zero = arith.constant 0.0 : f32
  %relu_plus_b, %as_int = linalg.generic {indexing_maps = [#id, #row, #id, #id], iterator_types = ["parallel", "parallel"]} ins(%a, %b : tensor<2x3xf32>, tensor<3xf32>) outs(%e, %e : tensor<2x3xf32>, tensor<2x3xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32, %p: f32):
    %pos = arith.cmpf ogt, %x, %zero : f32
    %r = arith.select %pos, %x, %zero : f32
    %s = arith.addf %r, %y : f32
    %n = arith.fptosi %x : f32 to i32
    %m = arith.sitofp %n : i32 to f32
    linalg.yield %s, %m : f32, f32
  } -> (tensor<2x3xf32>, tensor<2x3xf32>)
  %et = tensor.empty() : tensor<3x2xf32>
  %tr = linalg.generic {indexing_maps = [#t, #id], iterator_types = ["parallel", "parallel"]} ins(%a : tensor<2x3xf32>) outs(%et : tensor<3x2xf32>) {
  ^bb0(%x: f32, %o: f32):
    linalg.yield %x : f32
  } -> tensor<3x2xf32>
  %e2 = tensor.empty() : tensor<2xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e2 : tensor<2xf32>) -> tensor<2xf32>
  %sum = linalg.generic {indexing_maps = [#id, #first], iterator_types = ["parallel", "reduction"]} ins(%a : tensor<2x3xf32>) outs(%init : tensor<2xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %s = arith.addf %acc, %x : f32
    linalg.yield %s : f32
  } -> tensor<2xf32>
  %ninf = arith.constant 0xFF800000 : f32
  %init2 = linalg.fill ins(%ninf : f32) outs(%e2 : tensor<2xf32>) -> tensor<2xf32>
  %max = linalg.generic {indexing_maps = [#id, #first], iterator_types = ["parallel", "reduction"]} ins(%a : tensor<2x3xf32>) outs(%init2 : tensor<2xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %s = arith.maximumf %acc, %x : f32
    linalg.yield %s : f32
  } -> tensor<2xf32>
  %ei = tensor.empty() : tensor<2x3xi32>
  %idx = linalg.generic {indexing_maps = [#id], iterator_types = ["parallel", "parallel"]} outs(%ei : tensor<2x3xi32>) {
  ^bb0(%o: i32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %c3 = arith.constant 3 : index
    %k = arith.muli %i, %c3 : index
    %l = arith.addi %k, %j : index
    %n = arith.index_cast %l : index to i32
    linalg.yield %n : i32
  } -> tensor<2x3xi32>
  %c2 = arith.constant 2 : index
  %flip = linalg.generic {indexing_maps = [#id], iterator_types = ["parallel", "parallel"]} outs(%e : tensor<2x3xf32>) {
  ^bb0(%o: f32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %jj = arith.subi %c2, %j : index
    %v = tensor.extract %a[%i, %jj] : tensor<2x3xf32>
    linalg.yield %v : f32
  } -> tensor<2x3xf32>
  func.return %relu_plus_b, %tr, %sum, %max, %idx, %flip : tensor<2x3xf32>, tensor<3x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2x3xi32>, tensor<2x3xf32>
}

// CHECK:      result 0 = dense<[[11.0, 20.0, 33.0], [10.0, 25.0, 30.0]]> : tensor<2x3xf32>
// CHECK-NEXT: result 1 = dense<[[1.0, -4.0], [-2.0, 5.0], [3.0, -6.0]]> : tensor<3x2xf32>
// CHECK-NEXT: result 2 = dense<[2.0, -5.0]> : tensor<2xf32>
// CHECK-NEXT: result 3 = dense<[3.0, 5.0]> : tensor<2xf32>
// CHECK-NEXT: result 4 = dense<{{\[}}[0, 1, 2], [3, 4, 5]]> : tensor<2x3xi32>
// CHECK-NEXT: result 5 = dense<[[3.0, -2.0, 1.0], [-6.0, 5.0, -4.0]]> : tensor<2x3xf32>

// Named ops run as NumPy kernels: matmul, matvec, vecmat, dot, batch_matmul,
// transpose, broadcast, reduce and copy (the named elementwise ops, which
// IREE 3.13 no longer reads, are tested in tests/test_upstream_run.py).
func.func @named(%m: tensor<2x2xf32>, %v: tensor<2xf32>) -> (tensor<2x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<f32>, tensor<1x2x2xf32>, tensor<2x2xf32>, tensor<2x3xf32>, tensor<2xf32>, tensor<2x2xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x2xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<2x2xf32>) -> tensor<2x2xf32>
  %mm = linalg.matmul ins(%m, %m : tensor<2x2xf32>, tensor<2x2xf32>) outs(%z : tensor<2x2xf32>) -> tensor<2x2xf32>
  %e1 = tensor.empty() : tensor<2xf32>
  %z1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<2xf32>) -> tensor<2xf32>
  %mv = linalg.matvec ins(%m, %v : tensor<2x2xf32>, tensor<2xf32>) outs(%z1 : tensor<2xf32>) -> tensor<2xf32>
  %vm = linalg.vecmat ins(%v, %m : tensor<2xf32>, tensor<2x2xf32>) outs(%z1 : tensor<2xf32>) -> tensor<2xf32>
  %e0 = tensor.empty() : tensor<f32>
  %z0 = linalg.fill ins(%zero : f32) outs(%e0 : tensor<f32>) -> tensor<f32>
  %dot = linalg.dot ins(%v, %v : tensor<2xf32>, tensor<2xf32>) outs(%z0 : tensor<f32>) -> tensor<f32>
  %b = tensor.expand_shape %m [[0, 1], [2]] output_shape [1, 2, 2] : tensor<2x2xf32> into tensor<1x2x2xf32>
  %e3 = tensor.empty() : tensor<1x2x2xf32>
  %z3 = linalg.fill ins(%zero : f32) outs(%e3 : tensor<1x2x2xf32>) -> tensor<1x2x2xf32>
  %bmm = linalg.batch_matmul ins(%b, %b : tensor<1x2x2xf32>, tensor<1x2x2xf32>) outs(%z3 : tensor<1x2x2xf32>) -> tensor<1x2x2xf32>
  %tr = linalg.transpose ins(%m : tensor<2x2xf32>) outs(%e : tensor<2x2xf32>) permutation = [1, 0]
  %e4 = tensor.empty() : tensor<2x3xf32>
  %bc = linalg.broadcast ins(%v : tensor<2xf32>) outs(%e4 : tensor<2x3xf32>) dimensions = [1]
  %red = linalg.reduce ins(%m : tensor<2x2xf32>) outs(%z1 : tensor<2xf32>) dimensions = [0]
    (%x: f32, %acc: f32) {
      %s = arith.addf %x, %acc : f32
      linalg.yield %s : f32
    }
  %cp = linalg.copy ins(%m : tensor<2x2xf32>) outs(%e : tensor<2x2xf32>) -> tensor<2x2xf32>
  func.return %mm, %mv, %vm, %dot, %bmm, %tr, %bc, %red, %cp : tensor<2x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<f32>, tensor<1x2x2xf32>, tensor<2x2xf32>, tensor<2x3xf32>, tensor<2xf32>, tensor<2x2xf32>
}

// NAMED:      result 0 = dense<[[7.0, 10.0], [15.0, 22.0]]> : tensor<2x2xf32>
// NAMED-NEXT: result 1 = dense<[-1.0, -1.0]> : tensor<2xf32>
// NAMED-NEXT: result 2 = dense<[-2.0, -2.0]> : tensor<2xf32>
// NAMED-NEXT: result 3 = dense<2.0> : tensor<f32>
// NAMED-NEXT: result 4 = dense<{{\[\[\[}}7.0, 10.0], [15.0, 22.0]]]> : tensor<1x2x2xf32>
// NAMED-NEXT: result 5 = dense<[[1.0, 3.0], [2.0, 4.0]]> : tensor<2x2xf32>
// NAMED-NEXT: result 6 = dense<[[1.0, 1.0, 1.0], [-1.0, -1.0, -1.0]]> : tensor<2x3xf32>
// NAMED-NEXT: result 7 = dense<[4.0, 6.0]> : tensor<2xf32>
// NAMED-NEXT: result 8 = dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>

// Strided windows (`d0 * 2 + d1`), as IREE writes reduce_window, and the
// named pooling ops with strides and dilations.
func.func @window(%x: tensor<1x6xf32>) -> (tensor<1x3xf32>, tensor<1x1x2xf32>, tensor<1x2x1xf32>) {
  %ninf = arith.constant 0xFF800000 : f32
  %e = tensor.empty() : tensor<1x3xf32>
  %i = linalg.fill ins(%ninf : f32) outs(%e : tensor<1x3xf32>) -> tensor<1x3xf32>
  %w = tensor.empty() : tensor<2xf32>
  %max = linalg.generic {indexing_maps = [affine_map<(n, o, k) -> (n, o * 2 + k)>, affine_map<(n, o, k) -> (k)>, affine_map<(n, o, k) -> (n, o)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%x, %w : tensor<1x6xf32>, tensor<2xf32>) outs(%i : tensor<1x3xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %m = arith.maximumf %acc, %a : f32
    linalg.yield %m : f32
  } -> tensor<1x3xf32>
  %x3 = tensor.expand_shape %x [[0, 1], [2]] output_shape [1, 1, 6] : tensor<1x6xf32> into tensor<1x1x6xf32>
  %zero = arith.constant 0.0 : f32
  %e2 = tensor.empty() : tensor<1x1x2xf32>
  %z2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<1x1x2xf32>) -> tensor<1x1x2xf32>
  %k = tensor.empty() : tensor<2xf32>
  %sum = linalg.pooling_ncw_sum {strides = dense<3> : tensor<1xi64>, dilations = dense<2> : tensor<1xi64>} ins(%x3, %k : tensor<1x1x6xf32>, tensor<2xf32>) outs(%z2 : tensor<1x1x2xf32>) -> tensor<1x1x2xf32>
  %xt = tensor.expand_shape %x [[0], [1, 2]] output_shape [1, 6, 1] : tensor<1x6xf32> into tensor<1x6x1xf32>
  %e3 = tensor.empty() : tensor<1x2x1xf32>
  %n3 = linalg.fill ins(%ninf : f32) outs(%e3 : tensor<1x2x1xf32>) -> tensor<1x2x1xf32>
  %k3 = tensor.empty() : tensor<3xf32>
  %pmax = linalg.pooling_nwc_max {strides = dense<3> : tensor<1xi64>, dilations = dense<1> : tensor<1xi64>} ins(%xt, %k3 : tensor<1x6x1xf32>, tensor<3xf32>) outs(%n3 : tensor<1x2x1xf32>) -> tensor<1x2x1xf32>
  func.return %max, %sum, %pmax : tensor<1x3xf32>, tensor<1x1x2xf32>, tensor<1x2x1xf32>
}

// WINDOW:      result 0 = dense<{{\[}}[1.0, 3.0, 5.0]]> : tensor<1x3xf32>
// WINDOW-NEXT: result 1 = dense<{{\[\[\[}}2.0, 8.0]]]> : tensor<1x1x2xf32>
// WINDOW-NEXT: result 2 = dense<{{\[\[\[}}2.0], [5.0]]]> : tensor<1x2x1xf32>

// linalg.map: the body on the whole inputs; an outer value read inside.
func.func @map(%a: tensor<3xf32>) -> tensor<3xf32> {
  %e = tensor.empty() : tensor<3xf32>
  %two = arith.constant 2.0 : f32
  %r = linalg.map ins(%a, %a : tensor<3xf32>, tensor<3xf32>) outs(%e : tensor<3xf32>)
    (%x: f32, %y: f32, %o: f32) {
      %p = arith.mulf %x, %y : f32
      %q = arith.subf %p, %two : f32
      linalg.yield %q : f32
    }
  func.return %r : tensor<3xf32>
}

// MAP: result 0 = dense<[-1.0, 2.0, 7.0]> : tensor<3xf32>


