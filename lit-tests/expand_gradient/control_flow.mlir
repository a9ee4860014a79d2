// RUN: grad-opt %s --split-input-file -p expand-gradient | filecheck %s

// SPEC §11: the expansion under `control_flow`. A call on the path is
// differentiated by an augmented function (the callee's results and the
// values its reverse reads) and a reverse function (each share to an
// argument, in the order the inlined body would send them), or replaced by
// its callee's body where that alone keeps the bits of inlining; a loop's
// gradient is a recording loop that stores each iteration's carried values,
// then a reverse loop over them, last to first, whose body recomputes the
// iteration and walks it backward, carrying the iter_args' gradient and the
// running sum of each outer value's shares; a branch's gradient is a branch.

func.func @square(%a: tensor<3xf32>) -> tensor<3xf32> {
  %m = grad.mul %a, %a : tensor<3xf32>
  func.return %m : tensor<3xf32>
}
func.func @call(%x: tensor<3xf32>) -> tensor<3xf32> {
  %c = func.call @square(%x) : (tensor<3xf32>) -> tensor<3xf32>
  %l = grad.reduce add %c [0] : tensor<3xf32> to tensor<f32>
  %g = grad.gradient %l wrt %x control_flow : tensor<f32>, tensor<3xf32>
  func.return %g : tensor<3xf32>
}

// CHECK-LABEL: func.func private @square__aug_1(%0: tensor<3xf32>) -> tensor<3xf32> attributes {grad.derivative = "augmented"} {
// CHECK-NEXT:    %m = grad.mul %0, %0 : tensor<3xf32>
// CHECK-NEXT:    func.return %m : tensor<3xf32>
// CHECK-NEXT:  }
// CHECK-NEXT:  func.func private @square__rev_1(%0: tensor<3xf32>, %1: tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>) attributes {grad.derivative = "reverse", grad.shares = [0 : i64, 0 : i64]} {
// CHECK-NEXT:    %2 = grad.mul %1, %0 : tensor<3xf32>
// CHECK-NEXT:    %3 = grad.mul %1, %0 : tensor<3xf32>
// CHECK-NEXT:    func.return %2, %3 : tensor<3xf32>, tensor<3xf32>
// CHECK-NEXT:  }
// CHECK-NEXT:  func.func @call(%x: tensor<3xf32>) -> tensor<3xf32> {
// CHECK-NEXT:    %c = func.call @square__aug_1(%x) : (tensor<3xf32>) -> tensor<3xf32>
// CHECK-NEXT:    %l = grad.reduce add %c [0] : tensor<3xf32> to tensor<f32>
// CHECK-NEXT:    %0 = grad.const 1.0 : tensor<f32>
// CHECK-NEXT:    %1 = grad.broadcast %0 [] : tensor<f32> to tensor<3xf32>
// CHECK-NEXT:    %2, %3 = func.call @square__rev_1(%x, %1) : (tensor<3xf32>, tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>)
// CHECK-NEXT:    %g = grad.add %2, %3 : tensor<3xf32>
// CHECK-NEXT:    func.return %g : tensor<3xf32>

// -----

func.func @for(%x: tensor<3xf32>, %w: tensor<3xf32>, %n: index) -> (tensor<3xf32>, tensor<3xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%h = %x) -> (tensor<3xf32>) {
    %a = grad.mul %h, %w : tensor<3xf32>
    scf.yield %a : tensor<3xf32>
  }
  %l = grad.reduce add %r [0] : tensor<3xf32> to tensor<f32>
  %gx, %gw = grad.gradient %l wrt %x, %w control_flow : tensor<f32>, tensor<3xf32>, tensor<3xf32>
  func.return %gx, %gw : tensor<3xf32>, tensor<3xf32>
}

// The trip count is known at run time only: the cache is sized then. The
// recording loop counts iterations from 0 and rebuilds the induction variable;
// it takes the loop's place and stands for it (the forward runs once).
// CHECK-LABEL: func.func @for(
// CHECK-NOT:     scf.for
// CHECK:         %[[SPAN:.*]] = arith.subi %n, %c0 : index
// CHECK-NEXT:    %[[ZERO:.*]] = arith.constant 0 : index
// CHECK-NEXT:    %[[POS:.*]] = arith.maxsi %[[SPAN]], %[[ZERO]] : index
// CHECK-NEXT:    %[[N:.*]] = arith.ceildivsi %[[POS]], %c1 : index
// CHECK:         %[[EMPTY:.*]] = tensor.empty(%[[N]]) : tensor<?x3xf32>
// CHECK:         %r, %[[CACHE:.*]] = scf.for %[[T:.*]] = %{{.*}} to %[[N]] step %{{.*}} iter_args(%[[H:.*]] = %x, %[[C:.*]] = %[[EMPTY]]) -> (tensor<3xf32>, tensor<?x3xf32>) {
// CHECK-NEXT:      %[[STORED:.*]] = tensor.insert_slice %[[H]] into %[[C]][%[[T]], 0] [1, 3] [1, 1] : tensor<3xf32> into tensor<?x3xf32>
// CHECK-NEXT:      %[[SCALED:.*]] = arith.muli %[[T]], %c1 : index
// CHECK-NEXT:      %{{.*}} = arith.addi %c0, %[[SCALED]] : index
// CHECK-NEXT:      %{{.*}} = grad.mul %[[H]], %w : tensor<3xf32>
// CHECK-NEXT:      scf.yield %{{.*}}, %[[STORED]] : tensor<3xf32>, tensor<?x3xf32>
// CHECK-NEXT:    }
// CHECK-NEXT:    %l = grad.reduce add %r [0] : tensor<3xf32> to tensor<f32>
// CHECK:         %gx, %gw = scf.for %[[J:.*]] = %{{.*}} to %[[N]] step %{{.*}} iter_args(%[[G:.*]] = %{{.*}}, %[[SUM:.*]] = %{{.*}}) -> (tensor<3xf32>, tensor<3xf32>) {
// CHECK:           %[[BACK:.*]] = arith.subi %{{.*}}, %[[J]] : index
// CHECK:           %[[HK:.*]] = tensor.extract_slice %[[CACHE]][%[[BACK]], 0] [1, 3] [1, 1] : tensor<?x3xf32> to tensor<3xf32>
// CHECK-NEXT:      %{{.*}} = grad.mul %[[HK]], %w : tensor<3xf32>
// CHECK-NEXT:      %[[GH:.*]] = grad.mul %[[G]], %w : tensor<3xf32>
// CHECK-NEXT:      %[[GW:.*]] = grad.mul %[[G]], %[[HK]] : tensor<3xf32>
// CHECK-NEXT:      %[[NEXT:.*]] = grad.add %[[SUM]], %[[GW]] : tensor<3xf32>
// CHECK-NEXT:      scf.yield %[[GH]], %[[NEXT]] : tensor<3xf32>, tensor<3xf32>
// CHECK-NEXT:    }

// -----

func.func @if(%x: tensor<f32>, %c: i1) -> tensor<f32> {
  %r = scf.if %c -> (tensor<f32>) {
    %s = grad.sin %x : tensor<f32>
    scf.yield %s : tensor<f32>
  } else {
    scf.yield %x : tensor<f32>
  }
  %g = grad.gradient %r wrt %x control_flow : tensor<f32>, tensor<f32>
  func.return %g : tensor<f32>
}

// CHECK-LABEL: func.func @if(
// CHECK:         %[[ONE:.*]] = grad.const 1.0 : tensor<f32>
// CHECK-NEXT:    %g = scf.if %c -> (tensor<f32>) {
// CHECK-NEXT:      %{{.*}} = grad.sin %x : tensor<f32>
// CHECK-NEXT:      %[[HALFPI:.*]] = grad.const 1.5707964 : tensor<f32>
// CHECK-NEXT:      %[[A:.*]] = grad.add %x, %[[HALFPI]] : tensor<f32>
// CHECK-NEXT:      %[[COS:.*]] = grad.sin %[[A]] : tensor<f32>
// CHECK-NEXT:      %[[D:.*]] = grad.mul %[[ONE]], %[[COS]] : tensor<f32>
// CHECK-NEXT:      scf.yield %[[D]] : tensor<f32>
// CHECK-NEXT:    } else {
// CHECK-NEXT:      scf.yield %[[ONE]] : tensor<f32>
// CHECK-NEXT:    }

// -----

func.func @while(%x: tensor<f32>) -> tensor<f32> {
  %r = scf.while (%a = %x) : (tensor<f32>) -> tensor<f32> {
    %lim = grad.const 10.0 : tensor<f32>
    %lt = grad.cmplt %a, %lim : tensor<f32>
    %c = tensor.extract %lt[] : tensor<i1>
    scf.condition(%c) %a : tensor<f32>
  } do {
  ^bb0(%b: tensor<f32>):
    %m = grad.mul %b, %b : tensor<f32>
    scf.yield %m : tensor<f32>
  }
  %g = grad.gradient %r wrt %x control_flow : tensor<f32>, tensor<f32>
  func.return %g : tensor<f32>
}

// A counting copy of the loop (its condition also passes the carried values
// on: the last ones), a recording loop of that many iterations,
// the exit through the condition's region, then the reverse loop.
// CHECK-LABEL: func.func @while(
// CHECK:         %{{.*}}, %{{.*}}, %[[N:.*]] = scf.while ({{.*}}) : (tensor<f32>, index) -> (tensor<f32>, tensor<f32>, index) {
// CHECK:           scf.condition(%{{.*}}) %{{.*}}, %{{.*}}, %{{.*}} : tensor<f32>, tensor<f32>, index
// CHECK:         } do {
// CHECK:           %[[N1:.*]] = arith.addi
// CHECK-NEXT:      scf.yield %{{.*}}, %[[N1]] : tensor<f32>, index
// CHECK:         %[[EMPTY:.*]] = tensor.empty(%[[N]]) : tensor<?xf32>
// CHECK:         %[[LAST:.*]], %[[CACHE:.*]] = scf.for %{{.*}} = %{{.*}} to %[[N]] step
// CHECK:         %[[EXIT:.*]] = scf.execute_region -> (tensor<f32>) {
// CHECK:           scf.yield %{{.*}} : tensor<f32>
// CHECK:         %g = scf.for %{{.*}} = %{{.*}} to %[[N]] step %{{.*}} iter_args(%{{.*}} = %[[EXIT]]) -> (tensor<f32>) {
// CHECK:           tensor.extract_slice %[[CACHE]]

// -----

// Forward mode through a call: a forward function in the call's place runs
// the callee and returns its result and the tape (%m), from which a tangent
// function, for the argument with a tangent and the result needed (`_1_1`),
// computes the tangent.
func.func @cube(%a: tensor<f32>) -> tensor<f32> {
  %m = grad.mul %a, %a : tensor<f32>
  %c = grad.mul %m, %a : tensor<f32>
  func.return %c : tensor<f32>
}
func.func @jvp_call(%x: tensor<f32>, %t: tensor<f32>) -> tensor<f32> {
  %c = func.call @cube(%x) : (tensor<f32>) -> tensor<f32>
  %d = grad.jvp %c wrt %x, %t control_flow : tensor<f32>, tensor<f32>
  func.return %d : tensor<f32>
}

// CHECK-LABEL: func.func private @cube__fwd_1_1(%0: tensor<f32>) -> (tensor<f32>, tensor<f32>) attributes {grad.derivative = "forward"} {
// CHECK-NEXT:    %m = grad.mul %0, %0 : tensor<f32>
// CHECK-NEXT:    %c = grad.mul %m, %0 : tensor<f32>
// CHECK-NEXT:    func.return %c, %m : tensor<f32>, tensor<f32>
// CHECK-LABEL: func.func private @cube__tan_1_1(%0: tensor<f32>, %1: tensor<f32>, %2: tensor<f32>) -> tensor<f32> attributes {grad.derivative = "tangent", grad.tangents = [0 : i64]} {
// CHECK-NEXT:    %3 = grad.mul %1, %0 : tensor<f32>
// CHECK-NEXT:    %4 = grad.mul %0, %1 : tensor<f32>
// CHECK-NEXT:    %5 = grad.add %3, %4 : tensor<f32>
// CHECK-NEXT:    %6 = grad.mul %5, %0 : tensor<f32>
// CHECK-NEXT:    %7 = grad.mul %2, %1 : tensor<f32>
// CHECK-NEXT:    %8 = grad.add %6, %7 : tensor<f32>
// CHECK-NEXT:    func.return %8 : tensor<f32>
// CHECK-LABEL: func.func @jvp_call(%x: tensor<f32>, %t: tensor<f32>) -> tensor<f32> {
// CHECK-NEXT:    %c, %[[M:.*]] = func.call @cube__fwd_1_1(%x) : (tensor<f32>) -> (tensor<f32>, tensor<f32>)
// CHECK-NEXT:    %d = func.call @cube__tan_1_1(%x, %t, %[[M]]) : (tensor<f32>, tensor<f32>, tensor<f32>) -> tensor<f32>
// CHECK-NEXT:    func.return %d : tensor<f32>

// -----

// A callee called twice in a loop: one augmented function (its results, then
// the tape) and one reverse function (a result per share, in arrival order)
// serve both sites; the reverse loop calls them at each site.
func.func @cell(%h: tensor<2xf32>, %w: tensor<2xf32>) -> tensor<2xf32> {
  %a = grad.mul %h, %w : tensor<2xf32>
  %b = grad.sin %a : tensor<2xf32>
  func.return %b : tensor<2xf32>
}
func.func @loop(%x: tensor<2xf32>, %w: tensor<2xf32>) -> tensor<2xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %r = scf.for %i = %c0 to %c4 step %c1 iter_args(%h = %x) -> (tensor<2xf32>) {
    %n = func.call @cell(%h, %w) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %m = func.call @cell(%n, %w) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    scf.yield %m : tensor<2xf32>
  }
  %l = grad.reduce add %r [0] : tensor<2xf32> to tensor<f32>
  %g = grad.gradient %l wrt %w control_flow : tensor<f32>, tensor<2xf32>
  func.return %g : tensor<2xf32>
}

// CHECK-LABEL: func.func private @cell__aug_1(%0: tensor<2xf32>, %1: tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>) attributes {grad.derivative = "augmented"} {
// CHECK-NEXT:    %a = grad.mul %0, %1 : tensor<2xf32>
// CHECK-NEXT:    %b = grad.sin %a : tensor<2xf32>
// CHECK-NEXT:    func.return %b, %a : tensor<2xf32>, tensor<2xf32>
// CHECK-NEXT:  }
// CHECK-NEXT:  func.func private @cell__rev_1(%0: tensor<2xf32>, %1: tensor<2xf32>, %2: tensor<2xf32>, %3: tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>) attributes {grad.derivative = "reverse", grad.shares = [0 : i64, 1 : i64]} {
// CHECK:         %[[G:.*]] = grad.mul %2, %{{.*}} : tensor<2xf32>
// CHECK-NEXT:    %[[GH:.*]] = grad.mul %[[G]], %1 : tensor<2xf32>
// CHECK-NEXT:    %[[GW:.*]] = grad.mul %[[G]], %0 : tensor<2xf32>
// CHECK-NEXT:    func.return %[[GH]], %[[GW]] : tensor<2xf32>, tensor<2xf32>
// CHECK-NEXT:  }
// CHECK-LABEL: func.func @loop(
// CHECK:         scf.for
// CHECK:           func.call @cell(
// CHECK-NEXT:      func.call @cell(
// CHECK:         %{{.*}}, %g = scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[GR:.*]] = %{{.*}}, %[[SUM:.*]] = %{{.*}}) -> (tensor<2xf32>, tensor<2xf32>) {
// CHECK:           %[[H:.*]] = tensor.extract_slice
// CHECK-NEXT:      %[[N:.*]], %[[T1:.*]] = func.call @cell__aug_1(%[[H]], %w)
// CHECK-NEXT:      %{{.*}}, %[[T2:.*]] = func.call @cell__aug_1(%[[N]], %w)
// CHECK-NEXT:      %[[GN:.*]], %[[W2:.*]] = func.call @cell__rev_1(%[[N]], %w, %[[GR]], %[[T2]])
// CHECK-NEXT:      %[[GH:.*]], %[[W1:.*]] = func.call @cell__rev_1(%[[H]], %w, %[[GN]], %[[T1]])
// CHECK-NEXT:      %[[GW:.*]] = grad.add %[[W2]], %[[W1]] : tensor<2xf32>
// CHECK-NEXT:      %[[NEXT:.*]] = grad.add %[[SUM]], %[[GW]] : tensor<2xf32>
// CHECK-NEXT:      scf.yield %[[GH]], %[[NEXT]] : tensor<2xf32>, tensor<2xf32>
// CHECK-NOT:   func.func

// -----

// Binomial checkpointing: a stack of at most C snapshots (the carried values
// and their positions, the first the loop's initial values), and a loop that
// takes the top snapshot, runs the iterations up to where revolve's rule
// says (the snapshot itself when one iteration is left; else an integer
// search for its binomial range, then the rule), and either reverses the last
// iteration left there or pushes the state reached.
func.func @binomial(%x: tensor<3xf32>, %w: tensor<3xf32>, %n: index) -> tensor<3xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%h = %x) -> (tensor<3xf32>) {
    %a = grad.mul %h, %w : tensor<3xf32>
    scf.yield %a : tensor<3xf32>
  } {"grad.checkpoint" = "binomial", "grad.snapshots" = 3 : i64}
  %l = grad.reduce add %r [0] : tensor<3xf32> to tensor<f32>
  %g = grad.gradient %l wrt %w control_flow : tensor<f32>, tensor<3xf32>
  func.return %g : tensor<3xf32>
}

// CHECK-LABEL: func.func @binomial(
// CHECK:         %[[STACK:.*]] = tensor.empty(%[[C:.*]]) : tensor<?x3xf32>
// CHECK-NEXT:    %[[FIRST:.*]] = tensor.insert_slice %x into %[[STACK]][%[[ZERO:.*]], 0] [1, 3] [1, 1] : tensor<3xf32> into tensor<?x3xf32>
// CHECK-NEXT:    %[[AT:.*]] = tensor.empty(%[[C]]) : tensor<?xi64>
// CHECK-NEXT:    %[[ZERO64:.*]] = arith.constant 0 : i64
// CHECK-NEXT:    %[[AT0:.*]] = tensor.insert %[[ZERO64]] into %[[AT]][%[[ZERO]]] : tensor<?xi64>
// CHECK-NEXT:    %{{.*}}, %g, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} = scf.while (%{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}, %{{.*}} = %[[ZERO]], %{{.*}} = %[[FIRST]], %{{.*}} = %[[AT0]]) : (tensor<3xf32>, tensor<3xf32>, index, index, tensor<?x3xf32>, tensor<?xi64>) -> (tensor<3xf32>, tensor<3xf32>, index, index, tensor<?x3xf32>, tensor<?xi64>) {
// CHECK:         } do {
// CHECK-NEXT:    ^bb0(%[[G:.*]]: tensor<3xf32>, %[[SUM:.*]]: tensor<3xf32>, %[[TARGET:.*]]: index, %[[TOP:.*]]: index, %[[SNAPS:.*]]: tensor<?x3xf32>, %[[WHERE:.*]]: tensor<?xi64>):
// CHECK-NEXT:      %[[P64:.*]] = tensor.extract %[[WHERE]][%[[TOP]]] : tensor<?xi64>
// CHECK-NEXT:      %[[P:.*]] = arith.index_cast %[[P64]] : i64 to index
// CHECK:           %[[LEFT:.*]] = arith.subi %[[TARGET]], %[[P]] : index
// CHECK:           %[[ALONE:.*]] = arith.cmpi eq, %[[LEFT]], %{{.*}} : index
// CHECK-NEXT:      %{{.*}} = scf.if %[[ALONE]] -> (index) {
// CHECK-NEXT:        scf.yield %[[P]] : index
// CHECK-NEXT:      } else {
// CHECK:             scf.while
// CHECK:           %[[SAVED:.*]] = tensor.extract_slice %[[SNAPS]][%[[TOP]], 0] [1, 3] [1, 1] : tensor<?x3xf32> to tensor<3xf32>
// CHECK:           %[[STATE:.*]] = scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[S:.*]] = %[[SAVED]]) -> (tensor<3xf32>) {
// CHECK:             %{{.*}} = grad.mul %[[S]], %w : tensor<3xf32>
// CHECK:           scf.if %{{.*}} -> (tensor<3xf32>, tensor<3xf32>, index, index, tensor<?x3xf32>, tensor<?xi64>) {
// CHECK:             %{{.*}} = grad.mul %[[STATE]], %w : tensor<3xf32>
// CHECK-NEXT:        %[[GH:.*]] = grad.mul %[[G]], %w : tensor<3xf32>
// CHECK-NEXT:        %[[GW:.*]] = grad.mul %[[G]], %[[STATE]] : tensor<3xf32>
// CHECK-NEXT:        %[[NEXT:.*]] = grad.add %[[SUM]], %[[GW]] : tensor<3xf32>
// CHECK-NEXT:        scf.yield %[[GH]], %[[NEXT]], %{{.*}}, %{{.*}}, %[[SNAPS]], %[[WHERE]] :
// CHECK-NEXT:      } else {
// CHECK-NEXT:        %[[PUSHED:.*]] = tensor.insert_slice %[[STATE]] into %[[SNAPS]][%[[UP:.*]], 0] [1, 3] [1, 1] : tensor<3xf32> into tensor<?x3xf32>
// CHECK-NEXT:        %[[M64:.*]] = arith.index_cast %{{.*}} : index to i64
// CHECK-NEXT:        %[[MARKED:.*]] = tensor.insert %[[M64]] into %[[WHERE]][%[[UP]]] : tensor<?xi64>
// CHECK-NEXT:        scf.yield %[[G]], %[[SUM]], %[[TARGET]], %[[UP]], %[[PUSHED]], %[[MARKED]] :
