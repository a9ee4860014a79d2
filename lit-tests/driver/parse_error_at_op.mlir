// RUN: not grad-opt %s --split-input-file 2>&1 >/dev/null | filecheck %s --strict-whitespace

// An op's parser that refuses the op once it has read it reports at the
// op, not at the next token (the end of the chunk, whose split marker line
// would be shown as the source line). An error at the very end of a chunk is
// shown without the marker as its source line.

%m = "test.op"() : () -> tensor<2x3xf64>
%v = "test.op"() : () -> f64
affine.store %v, %m[0, 0] : tensor<2x3xf64>

// CHECK:      parse_error_at_op.mlir:10:1: error: Expected memref type{{$}}
// CHECK-NEXT: {{^}}affine.store %v, %m[0, 0] : tensor<2x3xf64>{{$}}
// CHECK-NEXT: {{^}}^{{$}}

// -----

%w = "test.op"() : () -> memref<2x3xf64>
%x = affine.vector_load %w[0, 0] : memref<2x3xf64>, tensor<f64>

// CHECK-NEXT: parse_error_at_op.mlir:19:1: error: Expected affine.vector_load to return a vector, but found: tensor<f64>{{$}}
// CHECK-NEXT: {{^}}%x = affine.vector_load %w[0, 0] : memref<2x3xf64>, tensor<f64>{{$}}
// CHECK-NEXT: {{^}}^{{$}}

// -----

// CHECK-NEXT: parse_error_at_op.mlir:[[# @LINE + 3]]:1: error: Expected a resource type key{{$}}
// CHECK-NOT:  -----
{-#
// -----
