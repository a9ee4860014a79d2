// The Jacobian of f(x) = sin(A x), from R^2 to R^3, two ways:
// forward mode (grad.jvp) gives a column, J e_j, per tangent direction e_j;
// reverse mode (grad.vjp) gives a row, e_i^T J, per cotangent e_i.
// Both agree with the closed form J = diag(cos(A x)) A.
// Run it with:
//   grad-run examples/jacobian.mlir --arg 0=[[0.5],[-1.0]] --arg 1=[[1],[0]] --arg 2=[[1],[0],[0]]
// result 0 is column 0 of J (3x1), result 1 is row 0 of J (as a 2x1 tensor).

func.func @main(%x: tensor<2x1xf32>, %e_col: tensor<2x1xf32>, %e_row: tensor<3x1xf32>)
    -> (tensor<3x1xf32>, tensor<2x1xf32>) {
  %a = grad.const dense<[[1.0, 2.0], [0.5, -1.0], [3.0, 0.25]]> : tensor<3x2xf32>
  %ax = grad.dot %a, %x : tensor<3x2xf32>, tensor<2x1xf32> to tensor<3x1xf32>
  %f = grad.sin %ax : tensor<3x1xf32>
  %column = grad.jvp %f wrt %x, %e_col : tensor<3x1xf32>, tensor<2x1xf32>
  %row = grad.vjp %f, %e_row wrt %x : tensor<3x1xf32>, tensor<2x1xf32>
  func.return %column, %row : tensor<3x1xf32>, tensor<2x1xf32>
}
