// RUN: grad-run %s --arg '0=[1.0, -0.0, 3.0, 4.0, 5.0, 6.0, NaN, 8.0, 9.0, 10.0, 11.0, 12.0]' \
// RUN:   --arg '1=[0.1, -2.5, 1e-45]' --arg '2=[1, -2, 3, 2147483647, -2147483648]' \
// RUN:   --arg '3=[true, false, false, false]' --arg '4=[1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]' \
// RUN:   --arg '5=[1, 0, -1, 2, 0, 1, 2, 1, 0, -1, 1, 1]' | filecheck %s
// RUN: grad-run %s --entry gradients --arg '0=[1, -2, 3, 0.5, 4, -1.5, 2, 6, -3, 7, 0.25, -1]' \
// RUN:   --arg '1=[2, -1, 0.5, 3, -4, 1, 1.5, -2]' --arg '2=[1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]' \
// RUN:   --arg '3=[1, 0, -1, 2, 0, 1, 2, 1, 0, -1, 1, 1]' | filecheck %s --check-prefix=GRAD

// SPEC §6: slice, pad, reverse and concat move data and compute nothing, so
// every bit survives (-0.0, NaN, the subnormal 1e-45, the i32 extremes); the
// batched dot is one matrix product per batch. Values from a NumPy reference
// (`a[s:l:k]` per dim; stablehlo-style pad; `np.flip`; `np.concatenate`;
// `np.matmul` in float32).

func.func @main(%m: tensor<3x4xf32>, %v: tensor<3xf32>, %k: tensor<5xi32>, %b: tensor<2x2xi1>, %p: tensor<2x2x3xf32>, %q: tensor<2x3x2xf32>) -> (tensor<2x2xf32>, tensor<1x2xf32>, tensor<10xf32>, tensor<6x5xf32>, tensor<3x4xf32>, tensor<3x4xf32>, tensor<3x2xf32>, tensor<9xf32>, tensor<2xi32>, tensor<10xi32>, tensor<5xi32>, tensor<7xi32>, tensor<2x2xi1>, tensor<3x3xi1>, tensor<2x1xi1>, tensor<2x4xi1>, tensor<2x2x2xf32>, tensor<0x2xf32>, tensor<1x2xf32>, tensor<2x2xf32>, tensor<2x2x2xf32>) {
  // slice: rows 0 and 2, columns 1 and 3; row 1, columns 0 and 3
  %s0 = grad.slice %m [0, 1] [3, 4] [2, 2] : tensor<3x4xf32> to tensor<2x2xf32>
  %s1 = grad.slice %m [1, 0] [2, 4] [1, 3] : tensor<3x4xf32> to tensor<1x2xf32>
  // pad: 2 + 3 + 2 * 2 + 1 = 10; rows 1 + 3 + 2 * 1 = 6, columns 4 + 1 = 5
  %p0 = grad.pad %v low [2] high [1] interior [2] value -1.5 : tensor<3xf32> to tensor<10xf32>
  %p1 = grad.pad %m low [1, 0] high [0, 1] interior [1, 0] value 0.0 : tensor<3x4xf32> to tensor<6x5xf32>
  %r0 = grad.reverse %m [1] : tensor<3x4xf32>
  %r1 = grad.reverse %m [0, 1] : tensor<3x4xf32>
  %c0 = grad.concat %s0, %s1 [0] : tensor<2x2xf32>, tensor<1x2xf32> to tensor<3x2xf32>
  %c1 = grad.concat %v, %v, %v [0] : tensor<3xf32>, tensor<3xf32>, tensor<3xf32> to tensor<9xf32>
  // i32 and i1 data move unchanged
  %ks = grad.slice %k [1] [5] [2] : tensor<5xi32> to tensor<2xi32>
  %kp = grad.pad %k low [1] high [0] interior [1] value -7 : tensor<5xi32> to tensor<10xi32>
  %kr = grad.reverse %k [0] : tensor<5xi32>
  %kc = grad.concat %k, %ks [0] : tensor<5xi32>, tensor<2xi32> to tensor<7xi32>
  %br = grad.reverse %b [0, 1] : tensor<2x2xi1>
  %bp = grad.pad %b low [0, 1] high [1, 0] interior [0, 0] value true : tensor<2x2xi1> to tensor<3x3xi1>
  %bs = grad.slice %b [0, 0] [2, 2] [1, 2] : tensor<2x2xi1> to tensor<2x1xi1>
  %bc = grad.concat %b, %br [1] : tensor<2x2xi1>, tensor<2x2xi1> to tensor<2x4xi1>
  // batched dot: one matrix product per batch
  %d = grad.dot %p, %q : tensor<2x2x3xf32>, tensor<2x3x2xf32> to tensor<2x2x2xf32>
  // size 0: an empty slice, a pad of it (low + high only), a concat with it,
  // and a dot over an empty inner dim (zeros)
  %e = grad.slice %m [1, 2] [1, 4] [1, 1] : tensor<3x4xf32> to tensor<0x2xf32>
  %ep = grad.pad %e low [1, 0] high [0, 0] interior [2, 0] value 3.0 : tensor<0x2xf32> to tensor<1x2xf32>
  %ec = grad.concat %e, %s0, %e [0] : tensor<0x2xf32>, tensor<2x2xf32>, tensor<0x2xf32> to tensor<2x2xf32>
  %pe = grad.slice %p [0, 0, 0] [2, 2, 0] [1, 1, 1] : tensor<2x2x3xf32> to tensor<2x2x0xf32>
  %qe = grad.slice %q [0, 3, 0] [2, 3, 2] [1, 1, 1] : tensor<2x3x2xf32> to tensor<2x0x2xf32>
  %de = grad.dot %pe, %qe : tensor<2x2x0xf32>, tensor<2x0x2xf32> to tensor<2x2x2xf32>
  func.return %s0, %s1, %p0, %p1, %r0, %r1, %c0, %c1, %ks, %kp, %kr, %kc, %br, %bp, %bs, %bc, %d, %e, %ep, %ec, %de : tensor<2x2xf32>, tensor<1x2xf32>, tensor<10xf32>, tensor<6x5xf32>, tensor<3x4xf32>, tensor<3x4xf32>, tensor<3x2xf32>, tensor<9xf32>, tensor<2xi32>, tensor<10xi32>, tensor<5xi32>, tensor<7xi32>, tensor<2x2xi1>, tensor<3x3xi1>, tensor<2x1xi1>, tensor<2x4xi1>, tensor<2x2x2xf32>, tensor<0x2xf32>, tensor<1x2xf32>, tensor<2x2xf32>, tensor<2x2x2xf32>
}

// CHECK:      result 0 = dense<{{\[\[}}-0.0, 4.0], [10.0, 12.0]]> : tensor<2x2xf32>
// CHECK-NEXT: result 1 = dense<{{\[\[}}5.0, 8.0]]> : tensor<1x2xf32>
// CHECK-NEXT: result 2 = dense<[-1.5, -1.5, 0.1, -1.5, -1.5, -2.5, -1.5, -1.5, 1e-45, -1.5]> : tensor<10xf32>
// CHECK-NEXT: result 3 = dense<{{\[\[}}0.0, 0.0, 0.0, 0.0, 0.0], [1.0, -0.0, 3.0, 4.0, 0.0], [0.0, 0.0, 0.0, 0.0, 0.0], [5.0, 6.0, nan, 8.0, 0.0], [0.0, 0.0, 0.0, 0.0, 0.0], [9.0, 10.0, 11.0, 12.0, 0.0]]> : tensor<6x5xf32>
// CHECK-NEXT: result 4 = dense<{{\[\[}}4.0, 3.0, -0.0, 1.0], [8.0, nan, 6.0, 5.0], [12.0, 11.0, 10.0, 9.0]]> : tensor<3x4xf32>
// CHECK-NEXT: result 5 = dense<{{\[\[}}12.0, 11.0, 10.0, 9.0], [8.0, nan, 6.0, 5.0], [4.0, 3.0, -0.0, 1.0]]> : tensor<3x4xf32>
// CHECK-NEXT: result 6 = dense<{{\[\[}}-0.0, 4.0], [10.0, 12.0], [5.0, 8.0]]> : tensor<3x2xf32>
// CHECK-NEXT: result 7 = dense<[0.1, -2.5, 1e-45, 0.1, -2.5, 1e-45, 0.1, -2.5, 1e-45]> : tensor<9xf32>
// CHECK-NEXT: result 8 = dense<[-2, 2147483647]> : tensor<2xi32>
// CHECK-NEXT: result 9 = dense<[-7, 1, -7, -2, -7, 3, -7, 2147483647, -7, -2147483648]> : tensor<10xi32>
// CHECK-NEXT: result 10 = dense<[-2147483648, 2147483647, 3, -2, 1]> : tensor<5xi32>
// CHECK-NEXT: result 11 = dense<[1, -2, 3, 2147483647, -2147483648, -2, 2147483647]> : tensor<7xi32>
// CHECK-NEXT: result 12 = dense<{{\[\[}}false, false], [false, true]]> : tensor<2x2xi1>
// CHECK-NEXT: result 13 = dense<{{\[\[}}true, true, false], [true, false, false], [true, true, true]]> : tensor<3x3xi1>
// CHECK-NEXT: result 14 = dense<{{\[\[}}true], [false]]> : tensor<2x1xi1>
// CHECK-NEXT: result 15 = dense<{{\[\[}}true, false, false, false], [false, false, false, true]]> : tensor<2x4xi1>
// CHECK-NEXT: result 16 = dense<{{\[\[\[}}-1.0, 7.0], [-1.0, 16.0]], {{\[\[}}23.0, 8.0], [32.0, 11.0]]]> : tensor<2x2x2xf32>
// CHECK-NEXT: result 17 = dense<[]> : tensor<0x2xf32>
// CHECK-NEXT: result 18 = dense<{{\[\[}}3.0, 3.0]]> : tensor<1x2xf32>
// CHECK-NEXT: result 19 = dense<{{\[\[}}-0.0, 4.0], [10.0, 12.0]]> : tensor<2x2xf32>
// CHECK-NEXT: result 20 = dense<{{\[\[\[}}0.0, 0.0], [0.0, 0.0]], {{\[\[}}0.0, 0.0], [0.0, 0.0]]]> : tensor<2x2x2xf32>

// Gradients through each op (weights are dense literals; small integers, so
// every sum is exact whatever its order).
func.func @gradients(%x: tensor<3x4xf32>, %y: tensor<2x4xf32>, %p: tensor<2x2x3xf32>, %q: tensor<2x3x2xf32>) -> (tensor<3x4xf32>, tensor<3x4xf32>, tensor<3x4xf32>, tensor<3x4xf32>, tensor<2x4xf32>, tensor<2x2x3xf32>, tensor<2x3x2xf32>, tensor<3x4xf32>) {
  // sum(slice(x)^2): 2 x at the four sliced places, 0 elsewhere
  %s = grad.slice %x [0, 1] [3, 4] [2, 2] : tensor<3x4xf32> to tensor<2x2xf32>
  %ss = grad.mul %s, %s : tensor<2x2xf32>
  %l0 = grad.reduce add %ss [0, 1] : tensor<2x2xf32> to tensor<f32>
  %g0 = grad.gradient %l0 wrt %x : tensor<f32>, tensor<3x4xf32>
  // sum(pad(x) * w): the weights at x's places in the padded tensor
  %pd = grad.pad %x low [1, 0] high [0, 1] interior [1, 0] value 5.0 : tensor<3x4xf32> to tensor<6x5xf32>
  %wp = grad.const dense<[[1.0, 2.0, 3.0, 4.0, 5.0], [6.0, 7.0, 8.0, 9.0, 10.0], [11.0, 12.0, 13.0, 14.0, 15.0], [16.0, 17.0, 18.0, 19.0, 20.0], [21.0, 22.0, 23.0, 24.0, 25.0], [26.0, 27.0, 28.0, 29.0, 30.0]]> : tensor<6x5xf32>
  %pw = grad.mul %pd, %wp : tensor<6x5xf32>
  %l1 = grad.reduce add %pw [0, 1] : tensor<6x5xf32> to tensor<f32>
  %g1 = grad.gradient %l1 wrt %x : tensor<f32>, tensor<3x4xf32>
  // sum(reverse(x) * w): w reversed
  %r = grad.reverse %x [1] : tensor<3x4xf32>
  %wr = grad.const dense<[[1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0, 8.0], [9.0, 10.0, 11.0, 12.0]]> : tensor<3x4xf32>
  %rw = grad.mul %r, %wr : tensor<3x4xf32>
  %l2 = grad.reduce add %rw [0, 1] : tensor<3x4xf32> to tensor<f32>
  %g2 = grad.gradient %l2 wrt %x : tensor<f32>, tensor<3x4xf32>
  // sum(concat(x, y, x) * w): x gets rows 0-2 plus rows 5-7 of w, y rows 3-4
  %c = grad.concat %x, %y, %x [0] : tensor<3x4xf32>, tensor<2x4xf32>, tensor<3x4xf32> to tensor<8x4xf32>
  %wc = grad.const dense<[[1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0, 8.0], [9.0, 10.0, 11.0, 12.0], [13.0, 14.0, 15.0, 16.0], [17.0, 18.0, 19.0, 20.0], [21.0, 22.0, 23.0, 24.0], [25.0, 26.0, 27.0, 28.0], [29.0, 30.0, 31.0, 32.0]]> : tensor<8x4xf32>
  %cw = grad.mul %c, %wc : tensor<8x4xf32>
  %l3 = grad.reduce add %cw [0, 1] : tensor<8x4xf32> to tensor<f32>
  %g3x, %g3y = grad.gradient %l3 wrt %x, %y : tensor<f32>, tensor<3x4xf32>, tensor<2x4xf32>
  // sum(dot(p, q) * w), batched: w q^T per batch to p, p^T w to q
  %d = grad.dot %p, %q : tensor<2x2x3xf32>, tensor<2x3x2xf32> to tensor<2x2x2xf32>
  %wd = grad.const dense<[[[1.0, 2.0], [3.0, 4.0]], [[-1.0, 0.0], [2.0, -3.0]]]> : tensor<2x2x2xf32>
  %dw = grad.mul %d, %wd : tensor<2x2x2xf32>
  %l4 = grad.reduce add %dw [0, 1, 2] : tensor<2x2x2xf32> to tensor<f32>
  %g4p, %g4q = grad.gradient %l4 wrt %p, %q : tensor<f32>, tensor<2x2x3xf32>, tensor<2x3x2xf32>
  // together: column 1 of reverse(slice(pad(x))) is column 2 of x, upside
  // down; sum((that ++ x)^2) gives 2 x, and 4 x in column 2
  %a = grad.pad %x low [1, 0] high [0, 1] interior [0, 0] value 0.0 : tensor<3x4xf32> to tensor<4x5xf32>
  %b = grad.slice %a [1, 0] [4, 5] [1, 2] : tensor<4x5xf32> to tensor<3x3xf32>
  %f = grad.reverse %b [0, 1] : tensor<3x3xf32>
  %fk = grad.slice %f [0, 1] [3, 2] [1, 1] : tensor<3x3xf32> to tensor<3x1xf32>
  %j = grad.concat %fk, %x [1] : tensor<3x1xf32>, tensor<3x4xf32> to tensor<3x5xf32>
  %jj = grad.mul %j, %j : tensor<3x5xf32>
  %l5 = grad.reduce add %jj [0, 1] : tensor<3x5xf32> to tensor<f32>
  %g5 = grad.gradient %l5 wrt %x : tensor<f32>, tensor<3x4xf32>
  func.return %g0, %g1, %g2, %g3x, %g3y, %g4p, %g4q, %g5 : tensor<3x4xf32>, tensor<3x4xf32>, tensor<3x4xf32>, tensor<3x4xf32>, tensor<2x4xf32>, tensor<2x2x3xf32>, tensor<2x3x2xf32>, tensor<3x4xf32>
}

// GRAD:      result 0 = dense<{{\[\[}}0.0, -4.0, 0.0, 1.0], [0.0, 0.0, 0.0, 0.0], [0.0, 14.0, 0.0, -2.0]]> : tensor<3x4xf32>
// GRAD-NEXT: result 1 = dense<{{\[\[}}6.0, 7.0, 8.0, 9.0], [16.0, 17.0, 18.0, 19.0], [26.0, 27.0, 28.0, 29.0]]> : tensor<3x4xf32>
// GRAD-NEXT: result 2 = dense<{{\[\[}}4.0, 3.0, 2.0, 1.0], [8.0, 7.0, 6.0, 5.0], [12.0, 11.0, 10.0, 9.0]]> : tensor<3x4xf32>
// GRAD-NEXT: result 3 = dense<{{\[\[}}22.0, 24.0, 26.0, 28.0], [30.0, 32.0, 34.0, 36.0], [38.0, 40.0, 42.0, 44.0]]> : tensor<3x4xf32>
// GRAD-NEXT: result 4 = dense<{{\[\[}}13.0, 14.0, 15.0, 16.0], [17.0, 18.0, 19.0, 20.0]]> : tensor<2x4xf32>
// GRAD-NEXT: result 5 = dense<{{\[\[\[}}1.0, 3.0, 2.0], [3.0, 5.0, 4.0]], {{\[\[}}-2.0, 0.0, -1.0], [1.0, 3.0, -1.0]]]> : tensor<2x2x3xf32>
// GRAD-NEXT: result 6 = dense<{{\[\[\[}}13.0, 18.0], [17.0, 24.0], [21.0, 30.0]], {{\[\[}}13.0, -30.0], [14.0, -33.0], [15.0, -36.0]]]> : tensor<2x3x2xf32>
// GRAD-NEXT: result 7 = dense<{{\[\[}}2.0, -4.0, 12.0, 1.0], [8.0, -3.0, 8.0, 12.0], [-6.0, 14.0, 1.0, -2.0]]> : tensor<3x4xf32>
