// RUN: grad-opt %s -t dot | filecheck %s
// RUN: grad-opt %s -p print-op-graph 2>&1 >/dev/null | filecheck %s
// RUN: grad-opt %s -p 'print-op-graph{output="%t.dot"}' | filecheck %s --check-prefix=MODULE
// RUN: filecheck %s --input-file=%t.dot
// RUN: grad-opt %s -p expand-gradient -t dot | filecheck %s --check-prefix=EXPANDED

// Graphviz DOT of each function (`-t dot`, or the `print-op-graph` pass, which
// writes to stderr or to `output` and leaves the module as it is): a node per
// block argument and op, an edge per use. The nodes on the path of a
// differentiation op (SPEC §5.1) are filled, its targets drawn double, and
// the edges along which shares travel labelled; the detached %w and the
// edges into the gradient op carry none.

func.func @main(%x: tensor<f32>, %w: tensor<f32>) -> tensor<f32> {
  %xx = grad.mul %x, %x : tensor<f32>
  %d = grad.detach %w : tensor<f32>
  %y = grad.mul %xx, %d : tensor<f32>
  %g = grad.gradient %y wrt %x : tensor<f32>, tensor<f32>
  func.return %g : tensor<f32>
}

func.func @tangent(%x: tensor<f32>, %t: tensor<f32>) -> tensor<f32> {
  %s = grad.sin %x : tensor<f32>
  %j = grad.jvp %s wrt %x, %t : tensor<f32>, tensor<f32>
  func.return %j : tensor<f32>
}

// CHECK:      digraph gradopt {
// CHECK:        subgraph cluster_0 {
// CHECK-NEXT:     label="@main";
// CHECK-NEXT:     [[X:n[0-9]+]] [label="%x: tensor<f32>", shape=ellipse, style=filled, fillcolor=lightblue, peripheries=2];
// CHECK-NEXT:     [[W:n[0-9]+]] [label="%w: tensor<f32>", shape=ellipse];
// CHECK-NEXT:     [[XX:n[0-9]+]] [label="%xx = grad.mul\ntensor<f32>", shape=box, style=filled, fillcolor=lightblue];
// CHECK-NEXT:     [[D:n[0-9]+]] [label="%d = grad.detach\ntensor<f32>", shape=box];
// CHECK-NEXT:     [[Y:n[0-9]+]] [label="%y = grad.mul\ntensor<f32>", shape=box, style=filled, fillcolor=lightblue];
// CHECK-NEXT:     [[G:n[0-9]+]] [label="%g = grad.gradient\ntensor<f32>", shape=box, style=filled, fillcolor=lightblue, penwidth=2];
// CHECK-NEXT:     [[R:n[0-9]+]] [label="func.return", shape=box];
// CHECK-NEXT:     [[X]] -> [[XX]] [taillabel=0, label="share of %g", color=steelblue, fontcolor=steelblue, penwidth=2];
// CHECK-NEXT:     [[X]] -> [[XX]] [taillabel=1, label="share of %g", color=steelblue, fontcolor=steelblue, penwidth=2];
// CHECK-NEXT:     [[W]] -> [[D]];
// CHECK-NEXT:     [[XX]] -> [[Y]] [taillabel=0, label="share of %g", color=steelblue, fontcolor=steelblue, penwidth=2];
// CHECK-NEXT:     [[D]] -> [[Y]] [taillabel=1];
// CHECK-NEXT:     [[Y]] -> [[G]] [taillabel=0];
// CHECK-NEXT:     [[X]] -> [[G]] [taillabel=1];
// CHECK-NEXT:     [[G]] -> [[R]];
// CHECK-NEXT:   }
// CHECK-NEXT:   subgraph cluster_1 {
// CHECK-NEXT:     label="@tangent";
// CHECK:          [[S:n[0-9]+]] [label="%s = grad.sin\ntensor<f32>", shape=box, style=filled, fillcolor=lightblue];
// CHECK:          {{n[0-9]+}} -> [[S]] [label="tangent of %j", color=steelblue
// CHECK:        }
// CHECK-NEXT: }

// MODULE:     func.func @main
// MODULE:       grad.gradient

// After the expansion no path is left to mark.
// EXPANDED-NOT: fillcolor
// EXPANDED:     label="%g = grad.add\ntensor<f32>"
// EXPANDED-NOT: fillcolor
