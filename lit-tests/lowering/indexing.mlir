// RUN: grad-opt %s -p convert-grad-to-standard --split-input-file | filecheck %s

// SPEC §3.6's ops in upstream MLIR (`passes/lower_indexing.py`): gather is a
// linalg.generic reading the index through the result dims it spans and the
// operand with tensor.extract at the index (clamped into the axis: an index
// out of range is a run-time error of the interpreter only); scatter_add is
// one scf.for per index dim in row-major order, adding slices one position
// at a time, so repeated indices add in SPEC's order; iota yields
// linalg.index; argsort is two exact i32 reductions (ranks, then positions).

func.func @gather(%a: tensor<4x5xf32>, %i: tensor<2x3xi32>) -> tensor<2x3x5xf32> {
  %r = grad.gather %a, %i [0] : tensor<4x5xf32>, tensor<2x3xi32> to tensor<2x3x5xf32>
  func.return %r : tensor<2x3x5xf32>
}

// CHECK-LABEL: func.func @gather(
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%i : tensor<2x3xi32>)
// CHECK-NEXT:    ^{{.*}}(%[[K:.*]]: i32, %{{.*}}: f32):
// CHECK-NEXT:      %[[IX:.*]] = arith.index_cast %[[K]] : i32 to index
// CHECK:           %[[LO:.*]] = arith.maxsi %[[IX]], %{{.*}} : index
// CHECK:           %[[HI:.*]] = arith.minsi %[[LO]], %{{.*}} : index
// CHECK-NEXT:      %[[D2:.*]] = linalg.index 2 : index
// CHECK-NEXT:      %[[E:.*]] = tensor.extract %a[%[[HI]], %[[D2]]] : tensor<4x5xf32>
// CHECK-NEXT:      linalg.yield %[[E]] : f32

// -----

func.func @scatter_add(%d: tensor<3x5xf32>, %i: tensor<2x2xi32>, %u: tensor<3x2x2xf32>) -> tensor<3x5xf32> {
  %r = grad.scatter_add %d, %i, %u [1] : tensor<3x5xf32>, tensor<2x2xi32>, tensor<3x2x2xf32> to tensor<3x5xf32>
  func.return %r : tensor<3x5xf32>
}

// CHECK-LABEL: func.func @scatter_add(
// CHECK:         %[[R:.*]] = scf.for %[[P0:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[A0:.*]] = %d) -> (tensor<3x5xf32>) {
// CHECK:           %[[R1:.*]] = scf.for %[[P1:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[A1:.*]] = %[[A0]]) -> (tensor<3x5xf32>) {
// CHECK-NEXT:        %[[K:.*]] = tensor.extract %i[%[[P0]], %[[P1]]] : tensor<2x2xi32>
// CHECK:             %[[AT:.*]] = arith.minsi
// CHECK-NEXT:        %[[OLD:.*]] = tensor.extract_slice %[[A1]][0, %[[AT]]] [3, 1] [1, 1] : tensor<3x5xf32> to tensor<3xf32>
// CHECK-NEXT:        %[[UP:.*]] = tensor.extract_slice %u[0, %[[P0]], %[[P1]]] [3, 1, 1] [1, 1, 1] : tensor<3x2x2xf32> to tensor<3xf32>
// CHECK-NEXT:        %[[SUM:.*]] = arith.addf %[[OLD]], %[[UP]] : tensor<3xf32>
// CHECK-NEXT:        %[[NEW:.*]] = tensor.insert_slice %[[SUM]] into %[[A1]][0, %[[AT]]] [3, 1] [1, 1] : tensor<3xf32> into tensor<3x5xf32>
// CHECK-NEXT:        scf.yield %[[NEW]] : tensor<3x5xf32>
// CHECK-NEXT:      }
// CHECK-NEXT:      scf.yield %[[R1]] : tensor<3x5xf32>
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %[[R]] : tensor<3x5xf32>

// -----

func.func @iota() -> tensor<2x3xf32> {
  %r = grad.iota [1] : tensor<2x3xf32>
  func.return %r : tensor<2x3xf32>
}

// CHECK-LABEL: func.func @iota(
// CHECK:         linalg.generic {{.*}} outs(%{{.*}} : tensor<2x3xf32>)
// CHECK-NEXT:    ^{{.*}}(%{{.*}}: f32):
// CHECK-NEXT:      %[[D:.*]] = linalg.index 1 : index
// CHECK-NEXT:      %[[I:.*]] = arith.index_cast %[[D]] : index to i32
// CHECK-NEXT:      %[[F:.*]] = arith.sitofp %[[I]] : i32 to f32
// CHECK-NEXT:      linalg.yield %[[F]] : f32

// -----

func.func @argsort(%a: tensor<2x4xi32>) -> tensor<2x4xi32> {
  %r = grad.argsort %a [1] : tensor<2x4xi32> to tensor<2x4xi32>
  func.return %r : tensor<2x4xi32>
}

// CHECK-LABEL: func.func @argsort(
// CHECK:         %[[RANKS:.*]] = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1)>, affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%a, %a : tensor<2x4xi32>, tensor<2x4xi32>)
// CHECK:           arith.cmpi ult
// CHECK:           arith.cmpi slt
// CHECK:           arith.extui
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%[[RANKS]] : tensor<2x4xi32>)
