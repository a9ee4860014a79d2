// The examples of examples/ and the README run and give the expected numbers.

// RUN: grad-run %S/../../examples/softmax_xent.mlir --slot 0=[1,2,3,4,1,1,1,1] --slot 1=[0,0,0,1,1,0,0,0] | filecheck %s --check-prefix=XENT
// The loss, and (softmax(z) - y) / 2: row 1 has equal logits, so p = 1/4.
// XENT:      slot 2 = dense<0.9132421> : memref<f32>
// XENT-NEXT: slot 3 = dense<[[0.016029302, 0.043572158, 0.118441395, -0.17804289], [-0.375, 0.125, 0.125, 0.125]]> : memref<2x4xf32>

// RUN: grad-run %S/../../examples/jacobian.mlir --arg 0=[[0.5],[-1.0]] --arg 1=[[1],[0]] --arg 2=[[1],[0],[0]] | filecheck %s --check-prefix=JAC
// Column 0 and row 0 of J = diag(cos(A x)) A share the element J[0][0].
// JAC:      result 0 = dense<{{\[}}[0.07073724], [0.15766111], [0.94596666]]> : tensor<3x1xf32>
// JAC-NEXT: result 1 = dense<{{\[}}[0.07073724], [0.14147449]]> : tensor<2x1xf32>
