// RUN: grad-opt %s --split-input-file --verify-diagnostics | filecheck %s

// Every constraint of `grad.slice`, `grad.pad`, `grad.reverse`, `grad.concat`
// and the batched `grad.dot` (SPEC §3.2) is a located verification error.
// Each case breaks one constraint and keeps the others.

// --- grad.slice: one start, limit and stride per dim; 0 <= start <= limit <=
// size; stride >= 1; result size ceil((limit - start) / stride).

func.func @slice_count(%a: tensor<4x4xf32>) {
  // CHECK: {{.*}}slicing_invalid.mlir:[[# @LINE + 1]]:3: error: 'grad.slice' op start, limit and stride must have one entry per input dim (2)
  %r = grad.slice %a [0] [1] [1] : tensor<4x4xf32> to tensor<1xf32>
  func.return
}

// -----

func.func @slice_stride_count(%a: tensor<4x4xf32>) {
  // CHECK: {{.*}}slicing_invalid.mlir:[[# @LINE + 1]]:3: error: 'grad.slice' op start, limit and stride must have one entry per input dim (2)
  %r = grad.slice %a [0, 0] [1, 1] [1] : tensor<4x4xf32> to tensor<1x1xf32>
  func.return
}

// -----

func.func @slice_too_many_entries(%a: tensor<4xf32>) {
  // CHECK: {{.*}}slicing_invalid.mlir:[[# @LINE + 1]]:3: error: 'grad.slice' op start, limit and stride must have one entry per input dim (1)
  %r = grad.slice %a [0, 0] [1, 1] [1, 1] : tensor<4xf32> to tensor<1xf32>
  func.return
}

// -----

// A slice past the end.
func.func @slice_past_the_end(%a: tensor<3x4xf32>) {
  // CHECK: {{.*}}slicing_invalid.mlir:[[# @LINE + 1]]:3: error: 'grad.slice' op dim 1: expected 0 <= start <= limit <= size (4), got start 2 and limit 5
  %r = grad.slice %a [0, 2] [3, 5] [1, 1] : tensor<3x4xf32> to tensor<3x3xf32>
  func.return
}

// -----

func.func @slice_start_past_the_end(%a: tensor<4xf32>) {
  // CHECK: {{.*}}slicing_invalid.mlir:[[# @LINE + 1]]:3: error: 'grad.slice' op dim 0: expected 0 <= start <= limit <= size (4), got start 5 and limit 5
  %r = grad.slice %a [5] [5] [1] : tensor<4xf32> to tensor<0xf32>
  func.return
}

// -----

func.func @slice_start_after_limit(%a: tensor<4xf32>) {
  // CHECK: {{.*}}slicing_invalid.mlir:[[# @LINE + 1]]:3: error: 'grad.slice' op dim 0: expected 0 <= start <= limit <= size (4), got start 3 and limit 2
  %r = grad.slice %a [3] [2] [1] : tensor<4xf32> to tensor<0xf32>
  func.return
}

// -----

func.func @slice_negative_start(%a: tensor<4xf32>) {
  // CHECK: {{.*}}slicing_invalid.mlir:[[# @LINE + 1]]:3: error: 'grad.slice' op dim 0: expected 0 <= start <= limit <= size (4), got start -1 and limit 2
  %r = grad.slice %a [-1] [2] [1] : tensor<4xf32> to tensor<3xf32>
  func.return
}

// -----

// Nothing can be sliced out of a size-0 dim but [0, 0).
func.func @slice_of_an_empty_dim(%a: tensor<2x0xi32>) {
  // CHECK: {{.*}}slicing_invalid.mlir:[[# @LINE + 1]]:3: error: 'grad.slice' op dim 1: expected 0 <= start <= limit <= size (0), got start 0 and limit 1
  %r = grad.slice %a [0, 0] [2, 1] [1, 1] : tensor<2x0xi32> to tensor<2x1xi32>
  func.return
}

// -----

func.func @slice_zero_stride(%a: tensor<4x4xf32>) {
  // CHECK: {{.*}}slicing_invalid.mlir:[[# @LINE + 1]]:3: error: 'grad.slice' op dim 1: stride must be at least 1, got 0
  %r = grad.slice %a [0, 0] [4, 4] [1, 0] : tensor<4x4xf32> to tensor<4x4xf32>
  func.return
}

// -----

func.func @slice_negative_stride(%a: tensor<4xf32>) {
  // CHECK: {{.*}}slicing_invalid.mlir:[[# @LINE + 1]]:3: error: 'grad.slice' op dim 0: stride must be at least 1, got -1
  %r = grad.slice %a [0] [4] [-1] : tensor<4xf32> to tensor<4xf32>
  func.return
}

// -----

func.func @slice_result_shape(%a: tensor<4x4xf32>) {
  // CHECK: {{.*}}slicing_invalid.mlir:[[# @LINE + 1]]:3: error: 'grad.slice' op result must be tensor<2x2xf32>, got tensor<2x4xf32>
  %r = grad.slice %a [1, 0] [3, 4] [1, 2] : tensor<4x4xf32> to tensor<2x4xf32>
  func.return
}

// -----

// The result size rounds up: ceil(5 / 2) = 3 elements (0, 2, 4), not 2.
func.func @slice_result_rounds_up(%a: tensor<5xf32>) {
  // CHECK: {{.*}}slicing_invalid.mlir:[[# @LINE + 1]]:3: error: 'grad.slice' op result must be tensor<3xf32>, got tensor<2xf32>
  %r = grad.slice %a [0] [5] [2] : tensor<5xf32> to tensor<2xf32>
  func.return
}

// -----

func.func @slice_result_element(%a: tensor<4xi32>) {
  // CHECK: {{.*}}slicing_invalid.mlir:[[# @LINE + 1]]:3: error: 'grad.slice' op result must be tensor<2xi32>, got tensor<2xf32>
  %r = grad.slice %a [0] [2] [1] : tensor<4xi32> to tensor<2xf32>
  func.return
}

// -----

func.func @slice_result_rank(%a: tensor<4xf32>) {
  // CHECK: {{.*}}slicing_invalid.mlir:[[# @LINE + 1]]:3: error: 'grad.slice' op result must be tensor<1xf32>, got tensor<f32>
  %r = grad.slice %a [0] [1] [1] : tensor<4xf32> to tensor<f32>
  func.return
}

// -----

// --- grad.pad: one low, high and interior per dim, none negative; the value
// a literal of the element type; result size low + size + (size - 1) *
// interior + high, or low + high for size 0.

func.func @pad_count(%a: tensor<2x3xf32>) {
  // CHECK: {{.*}}slicing_invalid.mlir:[[# @LINE + 1]]:3: error: 'grad.pad' op low, high and interior must have one entry per input dim (2)
  %r = grad.pad %a low [1] high [0] interior [0] value 0.0 : tensor<2x3xf32> to tensor<3x3xf32>
  func.return
}

// -----

func.func @pad_interior_count(%a: tensor<2x3xf32>) {
  // CHECK: {{.*}}slicing_invalid.mlir:[[# @LINE + 1]]:3: error: 'grad.pad' op low, high and interior must have one entry per input dim (2)
  %r = grad.pad %a low [0, 0] high [0, 0] interior [0, 0, 0] value 0.0 : tensor<2x3xf32> to tensor<2x3xf32>
  func.return
}

// -----

// A negative pad (stablehlo.pad would crop; grad.pad does not).
func.func @pad_negative_low(%a: tensor<2xf32>) {
  // CHECK: {{.*}}slicing_invalid.mlir:[[# @LINE + 1]]:3: error: 'grad.pad' op dim 0: pad amounts must not be negative, got low -1, high 0, interior 0
  %r = grad.pad %a low [-1] high [0] interior [0] value 0.0 : tensor<2xf32> to tensor<1xf32>
  func.return
}

// -----

func.func @pad_negative_high(%a: tensor<2x2xf32>) {
  // CHECK: {{.*}}slicing_invalid.mlir:[[# @LINE + 1]]:3: error: 'grad.pad' op dim 1: pad amounts must not be negative, got low 2, high -1, interior 0
  %r = grad.pad %a low [0, 2] high [0, -1] interior [0, 0] value 0.0 : tensor<2x2xf32> to tensor<2x3xf32>
  func.return
}

// -----

func.func @pad_negative_interior(%a: tensor<3xi32>) {
  // CHECK: {{.*}}slicing_invalid.mlir:[[# @LINE + 1]]:3: error: 'grad.pad' op dim 0: pad amounts must not be negative, got low 0, high 0, interior -1
  %r = grad.pad %a low [0] high [0] interior [-1] value 0 : tensor<3xi32> to tensor<1xi32>
  func.return
}

// -----

func.func @pad_float_value_for_i32(%a: tensor<2xi32>) {
  // CHECK: {{.*}}slicing_invalid.mlir:[[# @LINE + 1]]:3: error: 'grad.pad' op pad value must be a literal of the element type i32, got {{.+}}
  %r = "grad.pad"(%a) <{low = array<i64: 1>, high = array<i64: 0>, interior = array<i64: 0>, value = 0.000000e+00 : f32}> : (tensor<2xi32>) -> tensor<3xi32>
  func.return
}

// -----

func.func @pad_integer_value_for_f32(%a: tensor<2xf32>) {
  // CHECK: {{.*}}slicing_invalid.mlir:[[# @LINE + 1]]:3: error: 'grad.pad' op pad value must be a literal of the element type f32, got {{.+}}
  %r = "grad.pad"(%a) <{low = array<i64: 1>, high = array<i64: 0>, interior = array<i64: 0>, value = 0 : i32}> : (tensor<2xf32>) -> tensor<3xf32>
  func.return
}

// -----

func.func @pad_i32_value_for_i1(%a: tensor<2xi1>) {
  // CHECK: {{.*}}slicing_invalid.mlir:[[# @LINE + 1]]:3: error: 'grad.pad' op pad value must be a literal of the element type i1, got {{.+}}
  %r = "grad.pad"(%a) <{low = array<i64: 1>, high = array<i64: 0>, interior = array<i64: 0>, value = 1 : i32}> : (tensor<2xi1>) -> tensor<3xi1>
  func.return
}

// -----

func.func @pad_result_shape(%a: tensor<2x3xf32>) {
  // CHECK: {{.*}}slicing_invalid.mlir:[[# @LINE + 1]]:3: error: 'grad.pad' op result must be tensor<3x7xf32>, got tensor<3x8xf32>
  %r = grad.pad %a low [1, 0] high [0, 2] interior [0, 1] value 0.0 : tensor<2x3xf32> to tensor<3x8xf32>
  func.return
}

// -----

// Interior padding goes between elements only: 3 elements, 2 gaps of 2.
func.func @pad_interior_between_elements(%a: tensor<3xf32>) {
  // CHECK: {{.*}}slicing_invalid.mlir:[[# @LINE + 1]]:3: error: 'grad.pad' op result must be tensor<7xf32>, got tensor<9xf32>
  %r = grad.pad %a low [0] high [0] interior [2] value 0.0 : tensor<3xf32> to tensor<9xf32>
  func.return
}

// -----

// A size-0 dim gets low + high, not low + 0 + (0 - 1) * interior + high.
func.func @pad_empty_dim(%a: tensor<0xf32>) {
  // CHECK: {{.*}}slicing_invalid.mlir:[[# @LINE + 1]]:3: error: 'grad.pad' op result must be tensor<3xf32>, got tensor<0xf32>
  %r = grad.pad %a low [1] high [2] interior [5] value 0.0 : tensor<0xf32> to tensor<0xf32>
  func.return
}

// -----

func.func @pad_result_element(%a: tensor<2xi1>) {
  // CHECK: {{.*}}slicing_invalid.mlir:[[# @LINE + 1]]:3: error: 'grad.pad' op result must be tensor<3xi1>, got tensor<3xi32>
  %r = grad.pad %a low [1] high [0] interior [0] value true : tensor<2xi1> to tensor<3xi32>
  func.return
}

// -----

// --- grad.reverse: dims non-empty, in range, sorted, unique; the result has
// the input's type.

func.func @reverse_no_dims(%a: tensor<2x3xf32>) {
  // CHECK: {{.*}}slicing_invalid.mlir:[[# @LINE + 1]]:3: error: 'grad.reverse' op dims must not be empty
  %r = grad.reverse %a [] : tensor<2x3xf32>
  func.return
}

// -----

func.func @reverse_dim_out_of_range(%a: tensor<2x3xf32>) {
  // CHECK: {{.*}}slicing_invalid.mlir:[[# @LINE + 1]]:3: error: 'grad.reverse' op dims must be in range [0, 2), got [0, 2]
  %r = grad.reverse %a [0, 2] : tensor<2x3xf32>
  func.return
}

// -----

func.func @reverse_negative_dim(%a: tensor<2x3xf32>) {
  // CHECK: {{.*}}slicing_invalid.mlir:[[# @LINE + 1]]:3: error: 'grad.reverse' op dims must be in range [0, 2), got [-1]
  %r = grad.reverse %a [-1] : tensor<2x3xf32>
  func.return
}

// -----

func.func @reverse_of_a_scalar(%a: tensor<f32>) {
  // CHECK: {{.*}}slicing_invalid.mlir:[[# @LINE + 1]]:3: error: 'grad.reverse' op dims must be in range [0, 0), got [0]
  %r = grad.reverse %a [0] : tensor<f32>
  func.return
}

// -----

// Unsorted reverse dims.
func.func @reverse_unsorted(%a: tensor<2x3xf32>) {
  // CHECK: {{.*}}slicing_invalid.mlir:[[# @LINE + 1]]:3: error: 'grad.reverse' op dims must be sorted and unique, got [1, 0]
  %r = grad.reverse %a [1, 0] : tensor<2x3xf32>
  func.return
}

// -----

func.func @reverse_duplicate(%a: tensor<2x3xi1>) {
  // CHECK: {{.*}}slicing_invalid.mlir:[[# @LINE + 1]]:3: error: 'grad.reverse' op dims must be sorted and unique, got [1, 1]
  %r = grad.reverse %a [1, 1] : tensor<2x3xi1>
  func.return
}

// -----

func.func @reverse_result_type(%a: tensor<2x3xf32>) {
  // CHECK: {{.*}}slicing_invalid.mlir:[[# @LINE + 1]]:3: error: 'grad.reverse' op result must have the type of input (tensor<2x3xf32>), got tensor<3x2xf32>
  %r = "grad.reverse"(%a) <{dims = array<i64: 0>}> : (tensor<2x3xf32>) -> tensor<3x2xf32>
  func.return
}

// -----

func.func @reverse_result_element(%a: tensor<2xi32>) {
  // CHECK: {{.*}}slicing_invalid.mlir:[[# @LINE + 1]]:3: error: 'grad.reverse' op result must have the type of input (tensor<2xi32>), got tensor<2xf32>
  %r = "grad.reverse"(%a) <{dims = array<i64: 0>}> : (tensor<2xi32>) -> tensor<2xf32>
  func.return
}

// -----

// --- grad.concat: at least two operands of one element type and rank, equal
// off the joined dim; the result joins them.

func.func @concat_one_operand(%a: tensor<2x3xf32>) {
  // CHECK: {{.*}}slicing_invalid.mlir:[[# @LINE + 1]]:3: error: 'grad.concat' op expected at least two operands, got 1
  %r = "grad.concat"(%a) <{dim = 0 : i64}> : (tensor<2x3xf32>) -> tensor<2x3xf32>
  func.return
}

// -----

func.func @concat_no_operand() {
  // CHECK: {{.*}}slicing_invalid.mlir:[[# @LINE + 1]]:3: error: 'grad.concat' op expected at least two operands, got 0
  %r = "grad.concat"() <{dim = 0 : i64}> : () -> tensor<2x3xf32>
  func.return
}

// -----

func.func @concat_dim_out_of_range(%a: tensor<2x3xf32>, %b: tensor<2x3xf32>) {
  // CHECK: {{.*}}slicing_invalid.mlir:[[# @LINE + 1]]:3: error: 'grad.concat' op dim must be in range [0, 2), got 2
  %r = grad.concat %a, %b [2] : tensor<2x3xf32>, tensor<2x3xf32> to tensor<2x6xf32>
  func.return
}

// -----

func.func @concat_negative_dim(%a: tensor<2x3xf32>, %b: tensor<2x3xf32>) {
  // CHECK: {{.*}}slicing_invalid.mlir:[[# @LINE + 1]]:3: error: 'grad.concat' op dim must be in range [0, 2), got -1
  %r = "grad.concat"(%a, %b) <{dim = -1 : i64}> : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x6xf32>
  func.return
}

// -----

func.func @concat_of_scalars(%a: tensor<f32>, %b: tensor<f32>) {
  // CHECK: {{.*}}slicing_invalid.mlir:[[# @LINE + 1]]:3: error: 'grad.concat' op dim must be in range [0, 0), got 0
  %r = grad.concat %a, %b [0] : tensor<f32>, tensor<f32> to tensor<2xf32>
  func.return
}

// -----

func.func @concat_element_types(%a: tensor<2x3xf32>, %b: tensor<2x3xi32>) {
  // CHECK: {{.*}}slicing_invalid.mlir:[[# @LINE + 1]]:3: error: 'grad.concat' op operand 1 must have the element type and rank of operand 0 (tensor<2x3xf32>), got tensor<2x3xi32>
  %r = grad.concat %a, %b [0] : tensor<2x3xf32>, tensor<2x3xi32> to tensor<4x3xf32>
  func.return
}

// -----

func.func @concat_ranks(%a: tensor<2x3xf32>, %b: tensor<2x3xf32>, %c: tensor<6xf32>) {
  // CHECK: {{.*}}slicing_invalid.mlir:[[# @LINE + 1]]:3: error: 'grad.concat' op operand 2 must have the element type and rank of operand 0 (tensor<2x3xf32>), got tensor<6xf32>
  %r = grad.concat %a, %b, %c [0] : tensor<2x3xf32>, tensor<2x3xf32>, tensor<6xf32> to tensor<5x3xf32>
  func.return
}

// -----

// Concat operands that disagree off the joined dim.
func.func @concat_sizes_off_dim(%a: tensor<2x3xf32>, %b: tensor<4x5xf32>) {
  // CHECK: {{.*}}slicing_invalid.mlir:[[# @LINE + 1]]:3: error: 'grad.concat' op operand 1 must match operand 0 off dim 0: expected [2, 3] with any size at 0, got [4, 5]
  %r = grad.concat %a, %b [0] : tensor<2x3xf32>, tensor<4x5xf32> to tensor<6x3xf32>
  func.return
}

// -----

func.func @concat_sizes_off_dim_third(%a: tensor<2x3x4xi1>, %b: tensor<2x1x4xi1>, %c: tensor<2x3x5xi1>) {
  // CHECK: {{.*}}slicing_invalid.mlir:[[# @LINE + 1]]:3: error: 'grad.concat' op operand 2 must match operand 0 off dim 1: expected [2, 3, 4] with any size at 1, got [2, 3, 5]
  %r = grad.concat %a, %b, %c [1] : tensor<2x3x4xi1>, tensor<2x1x4xi1>, tensor<2x3x5xi1> to tensor<2x7x4xi1>
  func.return
}

// -----

func.func @concat_result_shape(%a: tensor<2x3xf32>, %b: tensor<4x3xf32>) {
  // CHECK: {{.*}}slicing_invalid.mlir:[[# @LINE + 1]]:3: error: 'grad.concat' op result must be tensor<6x3xf32>, got tensor<2x6xf32>
  %r = grad.concat %a, %b [0] : tensor<2x3xf32>, tensor<4x3xf32> to tensor<2x6xf32>
  func.return
}

// -----

func.func @concat_result_element(%a: tensor<2xi32>, %b: tensor<2xi32>) {
  // CHECK: {{.*}}slicing_invalid.mlir:[[# @LINE + 1]]:3: error: 'grad.concat' op result must be tensor<4xi32>, got tensor<4xf32>
  %r = grad.concat %a, %b [0] : tensor<2xi32>, tensor<2xi32> to tensor<4xf32>
  func.return
}

// -----

// --- grad.dot: f32, rank >= 2, equal ranks and batch dims, inner sizes agree.

func.func @dot_lhs_rank(%a: tensor<6xf32>, %b: tensor<6x2xf32>) {
  // CHECK: {{.*}}slicing_invalid.mlir:[[# @LINE + 1]]:3: error: 'grad.dot' op lhs must be a tensor of rank at least 2, got tensor<6xf32>
  %r = grad.dot %a, %b : tensor<6xf32>, tensor<6x2xf32> to tensor<2xf32>
  func.return
}

// -----

func.func @dot_rhs_rank(%a: tensor<2x3xf32>, %b: tensor<3xf32>) {
  // CHECK: {{.*}}slicing_invalid.mlir:[[# @LINE + 1]]:3: error: 'grad.dot' op rhs must be a tensor of rank at least 2, got tensor<3xf32>
  %r = grad.dot %a, %b : tensor<2x3xf32>, tensor<3xf32> to tensor<2xf32>
  func.return
}

// -----

func.func @dot_scalar(%a: tensor<f32>, %b: tensor<f32>) {
  // CHECK: {{.*}}slicing_invalid.mlir:[[# @LINE + 1]]:3: error: 'grad.dot' op lhs must be a tensor of rank at least 2, got tensor<f32>
  %r = grad.dot %a, %b : tensor<f32>, tensor<f32> to tensor<f32>
  func.return
}

// -----

// No broadcasting of a batch dim: a 2-D rhs is not reused for every batch.
func.func @dot_ranks(%a: tensor<2x2x3xf32>, %b: tensor<3x4xf32>) {
  // CHECK: {{.*}}slicing_invalid.mlir:[[# @LINE + 1]]:3: error: 'grad.dot' op lhs and rhs must have the same rank, got 3 and 2
  %r = grad.dot %a, %b : tensor<2x2x3xf32>, tensor<3x4xf32> to tensor<2x2x4xf32>
  func.return
}

// -----

func.func @dot_ranks_other_way(%a: tensor<2x3xf32>, %b: tensor<1x3x4x5xf32>) {
  // CHECK: {{.*}}slicing_invalid.mlir:[[# @LINE + 1]]:3: error: 'grad.dot' op lhs and rhs must have the same rank, got 2 and 4
  %r = grad.dot %a, %b : tensor<2x3xf32>, tensor<1x3x4x5xf32> to tensor<1x3x2x5xf32>
  func.return
}

// -----

// Batch dims that differ.
func.func @dot_batch_dims(%a: tensor<2x2x3xf32>, %b: tensor<3x3x4xf32>) {
  // CHECK: {{.*}}slicing_invalid.mlir:[[# @LINE + 1]]:3: error: 'grad.dot' op batch dims must agree: lhs has [2], rhs has [3]
  %r = grad.dot %a, %b : tensor<2x2x3xf32>, tensor<3x3x4xf32> to tensor<2x2x4xf32>
  func.return
}

// -----

// A batch dim of size 1 does not broadcast either.
func.func @dot_batch_dims_rank_4(%a: tensor<2x3x2x3xf32>, %b: tensor<2x1x3x4xf32>) {
  // CHECK: {{.*}}slicing_invalid.mlir:[[# @LINE + 1]]:3: error: 'grad.dot' op batch dims must agree: lhs has [2, 3], rhs has [2, 1]
  %r = grad.dot %a, %b : tensor<2x3x2x3xf32>, tensor<2x1x3x4xf32> to tensor<2x3x2x4xf32>
  func.return
}

// -----

func.func @dot_batched_inner_sizes(%a: tensor<5x2x3xf32>, %b: tensor<5x2x3xf32>) {
  // CHECK: {{.*}}slicing_invalid.mlir:[[# @LINE + 1]]:3: error: 'grad.dot' op inner sizes must agree: lhs has 3 columns, rhs has 2 rows
  %r = grad.dot %a, %b : tensor<5x2x3xf32>, tensor<5x2x3xf32> to tensor<5x2x3xf32>
  func.return
}

// -----

func.func @dot_batched_result(%a: tensor<2x2x3xf32>, %b: tensor<2x3x4xf32>) {
  // CHECK: {{.*}}slicing_invalid.mlir:[[# @LINE + 1]]:3: error: 'grad.dot' op result must be tensor<2x2x4xf32>, got tensor<2x4x2xf32>
  %r = grad.dot %a, %b : tensor<2x2x3xf32>, tensor<2x3x4xf32> to tensor<2x4x2xf32>
  func.return
}

// -----

func.func @dot_batched_result_drops_batch(%a: tensor<2x2x3xf32>, %b: tensor<2x3x4xf32>) {
  // CHECK: {{.*}}slicing_invalid.mlir:[[# @LINE + 1]]:3: error: 'grad.dot' op result must be tensor<2x2x4xf32>, got tensor<2x4xf32>
  %r = grad.dot %a, %b : tensor<2x2x3xf32>, tensor<2x3x4xf32> to tensor<2x4xf32>
  func.return
}

// -----

// --- A list property of the wrong kind (array<f32: ...> where array<i64: ...>
// is due) is a verification error that names the property, never a crash.

func.func @slice_start_of_floats(%a: tensor<4xf32>) {
  // CHECK: {{.*}}slicing_invalid.mlir:[[# @LINE + 1]]:3: error: {{.*}}start
  %r = "grad.slice"(%a) <{start = array<f32: 0.0>, limit = array<i64: 2>, stride = array<i64: 1>}> : (tensor<4xf32>) -> tensor<2xf32>
  func.return
}

// -----

func.func @slice_limit_of_floats(%a: tensor<4xf32>) {
  // CHECK: {{.*}}slicing_invalid.mlir:[[# @LINE + 1]]:3: error: {{.*}}limit
  %r = "grad.slice"(%a) <{start = array<i64: 0>, limit = array<f32: 2.0>, stride = array<i64: 1>}> : (tensor<4xf32>) -> tensor<2xf32>
  func.return
}

// -----

func.func @slice_stride_of_floats(%a: tensor<4xf32>) {
  // CHECK: {{.*}}slicing_invalid.mlir:[[# @LINE + 1]]:3: error: {{.*}}stride
  %r = "grad.slice"(%a) <{start = array<i64: 0>, limit = array<i64: 2>, stride = array<f32: 1.0>}> : (tensor<4xf32>) -> tensor<2xf32>
  func.return
}

// -----

func.func @pad_low_of_floats(%a: tensor<2xf32>) {
  // CHECK: {{.*}}slicing_invalid.mlir:[[# @LINE + 1]]:3: error: {{.*}}low
  %r = "grad.pad"(%a) <{low = array<f32: 1.0>, high = array<i64: 0>, interior = array<i64: 0>, value = 0.000000e+00 : f32}> : (tensor<2xf32>) -> tensor<3xf32>
  func.return
}

// -----

func.func @pad_high_of_floats(%a: tensor<2xf32>) {
  // CHECK: {{.*}}slicing_invalid.mlir:[[# @LINE + 1]]:3: error: {{.*}}high
  %r = "grad.pad"(%a) <{low = array<i64: 1>, high = array<f32: 0.0>, interior = array<i64: 0>, value = 0.000000e+00 : f32}> : (tensor<2xf32>) -> tensor<3xf32>
  func.return
}

// -----

func.func @pad_interior_of_floats(%a: tensor<2xf32>) {
  // CHECK: {{.*}}slicing_invalid.mlir:[[# @LINE + 1]]:3: error: {{.*}}interior
  %r = "grad.pad"(%a) <{low = array<i64: 1>, high = array<i64: 0>, interior = array<f32: 0.0>, value = 0.000000e+00 : f32}> : (tensor<2xf32>) -> tensor<3xf32>
  func.return
}

// -----

func.func @reverse_dims_of_floats(%a: tensor<2x3xf32>) {
  // CHECK: {{.*}}slicing_invalid.mlir:[[# @LINE + 1]]:3: error: {{.*}}dims
  %r = "grad.reverse"(%a) <{dims = array<f32: 1.0>}> : (tensor<2x3xf32>) -> tensor<2x3xf32>
  func.return
}

// -----

// `dim` is one i64 integer, not a list.
func.func @concat_dim_as_a_list(%a: tensor<2xf32>, %b: tensor<2xf32>) {
  // CHECK: {{.*}}slicing_invalid.mlir:[[# @LINE + 1]]:3: error: {{.*}}dim
  %r = "grad.concat"(%a, %b) <{dim = array<i64: 0>}> : (tensor<2xf32>, tensor<2xf32>) -> tensor<4xf32>
  func.return
}

// -----

func.func @concat_dim_as_a_float(%a: tensor<2xf32>, %b: tensor<2xf32>) {
  // CHECK: {{.*}}slicing_invalid.mlir:[[# @LINE + 1]]:3: error: {{.*}}dim
  %r = "grad.concat"(%a, %b) <{dim = 0.000000e+00 : f32}> : (tensor<2xf32>, tensor<2xf32>) -> tensor<4xf32>
  func.return
}

// -----

// The pad value is one scalar literal, not dense data.
func.func @pad_value_not_a_scalar(%a: tensor<2xf32>) {
  // CHECK: {{.*}}slicing_invalid.mlir:[[# @LINE + 1]]:3: error: {{.*}}value
  %r = "grad.pad"(%a) <{low = array<i64: 1>, high = array<i64: 0>, interior = array<i64: 0>, value = dense<[1.0, 2.0]> : tensor<2xf32>}> : (tensor<2xf32>) -> tensor<3xf32>
  func.return
}
