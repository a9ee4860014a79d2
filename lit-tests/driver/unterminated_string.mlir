// RUN: not grad-opt %s 2>&1 | filecheck %s
// RUN: not grad-run %s 2>&1 | filecheck %s

// A string literal that is not closed on its line (here a generic op name
// missing its closing quote) is one located error, given at once: xDSL's
// lexer backtracked exponentially in the length of the rest of the line, so
// this line took hours.

func.func @main(%a: tensor<5xi32>) {
  %r = grad.cmpeq"(%a, %a) : (tensor<5xi32>, tensor<5xi32>) -> tensor<5xi1>
  func.return
}

// CHECK:      {{.*}}/driver/unterminated_string.mlir:10:18: error: End of file reached before closing string literal.
// CHECK-NEXT: {{^}}  %r = grad.cmpeq"(%a, %a)
// CHECK-NEXT: {{^}}                 ^
// CHECK-NOT:  error:
