// RUN: grad-opt %s -p expand-gradient --split-input-file | filecheck %s
// RUN: grad-opt %s -p expand-gradient --split-input-file | filecheck %s --check-prefix=NOGRAD

// SPEC §10.2, the math rows: each share exactly as the table writes it,
// innermost op first, left to right, shares in operand order, constants
// `arith.constant` reused per value and type. No grad op comes out.
// NOGRAD-NOT: = grad.

// rsqrt a: `mulf g (mulf (mulf u (mulf u u)) -0.5)`.
func.func @rsqrt(%a: f32) -> f32 {
  %u = math.rsqrt %a : f32
  %g = grad.gradient %u wrt %a : f32, f32
  func.return %g : f32
}

// CHECK-LABEL: func.func @rsqrt(
// CHECK-NEXT:    %u = math.rsqrt %a : f32
// CHECK-NEXT:    %0 = arith.constant 1.000000e+00 : f32
// CHECK-NEXT:    %1 = arith.mulf %u, %u : f32
// CHECK-NEXT:    %2 = arith.mulf %u, %1 : f32
// CHECK-NEXT:    %3 = arith.constant -5.000000e-01 : f32
// CHECK-NEXT:    %4 = arith.mulf %2, %3 : f32
// CHECK-NEXT:    %g = arith.mulf %0, %4 : f32
// CHECK-NEXT:    func.return %g : f32

// -----

// erf a: `mulf g (mulf (math.exp (negf (mulf a a))) 1.1283792)`.
func.func @erf(%a: f32) -> f32 {
  %u = math.erf %a : f32
  %g = grad.gradient %u wrt %a : f32, f32
  func.return %g : f32
}

// CHECK-LABEL: func.func @erf(
// CHECK-NEXT:    %u = math.erf %a : f32
// CHECK-NEXT:    %0 = arith.constant 1.000000e+00 : f32
// CHECK-NEXT:    %1 = arith.mulf %a, %a : f32
// CHECK-NEXT:    %2 = arith.negf %1 : f32
// CHECK-NEXT:    %3 = math.exp %2 : f32
// CHECK-NEXT:    %4 = arith.constant 1.12837923 : f32
// CHECK-NEXT:    %5 = arith.mulf %3, %4 : f32
// CHECK-NEXT:    %g = arith.mulf %0, %5 : f32
// CHECK-NEXT:    func.return %g : f32

// -----

// absf a: `select (cmpf ogt a 0.0) g (select (cmpf olt a 0.0) (negf g) 0.0)`.
func.func @absf(%a: f32) -> f32 {
  %u = math.absf %a : f32
  %g = grad.gradient %u wrt %a : f32, f32
  func.return %g : f32
}

// CHECK-LABEL: func.func @absf(
// CHECK-NEXT:    %u = math.absf %a : f32
// CHECK-NEXT:    %0 = arith.constant 1.000000e+00 : f32
// CHECK-NEXT:    %1 = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:    %2 = arith.cmpf ogt, %a, %1 : f32
// CHECK-NEXT:    %3 = arith.cmpf olt, %a, %1 : f32
// CHECK-NEXT:    %4 = arith.negf %0 : f32
// CHECK-NEXT:    %5 = arith.select %3, %4, %1 : f32
// CHECK-NEXT:    %g = arith.select %2, %0, %5 : f32
// CHECK-NEXT:    func.return %g : f32

// -----

// atan2 y x: d = `addf (mulf x x) (mulf y y)` once; `divf (mulf g x) d` to y,
// `negf (divf (mulf g y) d)` to x.
func.func @atan2(%y: f32, %x: f32) -> (f32, f32) {
  %u = math.atan2 %y, %x : f32
  %gy, %gx = grad.gradient %u wrt %y, %x : f32, f32, f32
  func.return %gy, %gx : f32, f32
}

// CHECK-LABEL: func.func @atan2(
// CHECK-NEXT:    %u = math.atan2 %y, %x : f32
// CHECK-NEXT:    %0 = arith.constant 1.000000e+00 : f32
// CHECK-NEXT:    %1 = arith.mulf %0, %x : f32
// CHECK-NEXT:    %2 = arith.mulf %x, %x : f32
// CHECK-NEXT:    %3 = arith.mulf %y, %y : f32
// CHECK-NEXT:    %4 = arith.addf %2, %3 : f32
// CHECK-NEXT:    %gy = arith.divf %1, %4 : f32
// CHECK-NEXT:    %5 = arith.mulf %0, %y : f32
// CHECK-NEXT:    %6 = arith.divf %5, %4 : f32
// CHECK-NEXT:    %gx = arith.negf %6 : f32
// CHECK-NEXT:    func.return %gy, %gx : f32, f32

// -----

// powf a b: `mulf g (mulf b (powf a (subf b 1.0)))` to a;
// `mulf g (mulf u (log (select (cmpf oeq a 0.0) 1.0 a)))` to b.
func.func @powf(%a: f32, %b: f32) -> (f32, f32) {
  %u = math.powf %a, %b : f32
  %ga, %gb = grad.gradient %u wrt %a, %b : f32, f32, f32
  func.return %ga, %gb : f32, f32
}

// CHECK-LABEL: func.func @powf(
// CHECK-NEXT:    %u = math.powf %a, %b : f32
// CHECK-NEXT:    %0 = arith.constant 1.000000e+00 : f32
// CHECK-NEXT:    %1 = arith.subf %b, %0 : f32
// CHECK-NEXT:    %2 = math.powf %a, %1 : f32
// CHECK-NEXT:    %3 = arith.mulf %b, %2 : f32
// CHECK-NEXT:    %ga = arith.mulf %0, %3 : f32
// CHECK-NEXT:    %4 = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:    %5 = arith.cmpf oeq, %a, %4 : f32
// CHECK-NEXT:    %6 = arith.select %5, %0, %a : f32
// CHECK-NEXT:    %7 = math.log %6 : f32
// CHECK-NEXT:    %8 = arith.mulf %u, %7 : f32
// CHECK-NEXT:    %gb = arith.mulf %0, %8 : f32
// CHECK-NEXT:    func.return %ga, %gb : f32, f32

// -----

// copysign a b: g times the product of the signs of a and b (of zeros too);
// b receives nothing, its gradient is zeros.
func.func @copysign(%a: f32, %b: f32) -> (f32, f32) {
  %u = math.copysign %a, %b : f32
  %ga, %gb = grad.gradient %u wrt %a, %b : f32, f32, f32
  func.return %ga, %gb : f32, f32
}

// CHECK-LABEL: func.func @copysign(
// CHECK-NEXT:    %u = math.copysign %a, %b : f32
// CHECK-NEXT:    %0 = arith.constant 1.000000e+00 : f32
// CHECK-NEXT:    %1 = math.copysign %0, %a : f32
// CHECK-NEXT:    %2 = math.copysign %0, %b : f32
// CHECK-NEXT:    %3 = arith.mulf %1, %2 : f32
// CHECK-NEXT:    %ga = arith.mulf %0, %3 : f32
// CHECK-NEXT:    %gb = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:    func.return %ga, %gb : f32, f32

// -----

// A rounding op is a dead end: the gradient through math.floor is zeros,
// and the other path (the addf) still sends g.
func.func @floor(%a: f32) -> f32 {
  %f = math.floor %a : f32
  %u = arith.addf %f, %a : f32
  %g = grad.gradient %u wrt %a : f32, f32
  func.return %g : f32
}

// CHECK-LABEL: func.func @floor(
// CHECK-NEXT:    %f = math.floor %a : f32
// CHECK-NEXT:    %u = arith.addf %f, %a : f32
// CHECK-NEXT:    %g = arith.constant 1.000000e+00 : f32
// CHECK-NEXT:    func.return %g : f32
