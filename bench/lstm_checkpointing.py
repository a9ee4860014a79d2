# ruff: noqa: E501 (MLIR text: one op a line, as MLIR prints it)
"""Peak memory of an LSTM's gradient through a long `scf.for` under the three
checkpointing policies of SPEC §11 (issue 22): the default cache (O(N) carried
states), `"periodic"` (every ⌈√N⌉-th state, then one segment's cache: O(√N))
and `"binomial"` (revolve with ⌈log2 N⌉ snapshots: O(C)).

A plain LSTM cell, hidden size H, input size D, its state (h, c) carried by
the loop, the step's input row picked by `tensor.extract_slice` at the
induction variable; the loss is the final h's squared norm, differentiated
with respect to the initial state and the weights. Each policy runs in a
subprocess of its own: the program is prepared and run once for 10 steps
(plans built), then `tracemalloc` follows the N-step run, whose peak is the
memory the gradient needs above what was there before; the process's max
RSS is printed too, and the run's time on the wall clock and in CPU time (on
a shared machine, the CPU time is what an idle one's wall clock shows). The
results of the three are checked to be bit-equal.

    python bench/lstm_checkpointing.py [N]
    python bench/lstm_checkpointing.py N POLICY [--untraced]

The second form measures one policy (`forward`, `cache`, `periodic`,
`binomial`) in this process and prints its JSON; `--untraced` runs it without
tracemalloc, which costs time per Python allocation (a schedule run one
Python call an op allocates much more than NumPy's kernels do).
"""

from __future__ import annotations

import json
import math
import resource
import subprocess
import sys
import time
import tracemalloc

import numpy as np

from gradopt import Program

HIDDEN, INPUT = 32, 8

PROGRAM = """
func.func @main(%h0: tensor<1x{h}xf32>, %c0: tensor<1x{h}xf32>, %xs: tensor<{rows}x{d}xf32>, %wx: tensor<{d}x{g}xf32>, %wh: tensor<{h}x{g}xf32>, %b: tensor<1x{g}xf32>, %n: tensor<i32>) -> ({results}) {{
  %lo = arith.constant 0 : index
  %one = arith.constant 1 : index
  %ni = tensor.extract %n[] : tensor<i32>
  %hi = arith.index_cast %ni : i32 to index
  %half = grad.const 0.5 : tensor<1x{h}xf32>
  %hs, %cs = scf.for %i = %lo to %hi step %one iter_args(%hp = %h0, %cp = %c0) -> (tensor<1x{h}xf32>, tensor<1x{h}xf32>) {{
    %x = tensor.extract_slice %xs[%i, 0] [1, {d}] [1, 1] : tensor<{rows}x{d}xf32> to tensor<1x{d}xf32>
    %gx = grad.dot %x, %wx : tensor<1x{d}xf32>, tensor<{d}x{g}xf32> to tensor<1x{g}xf32>
    %gh = grad.dot %hp, %wh : tensor<1x{h}xf32>, tensor<{h}x{g}xf32> to tensor<1x{g}xf32>
    %s = grad.add %gx, %gh : tensor<1x{g}xf32>
    %z = grad.add %s, %b : tensor<1x{g}xf32>
    %zi = grad.slice %z [0, 0] [1, {h}] [1, 1] : tensor<1x{g}xf32> to tensor<1x{h}xf32>
    %zf = grad.slice %z [0, {h}] [1, {h2}] [1, 1] : tensor<1x{g}xf32> to tensor<1x{h}xf32>
    %zo = grad.slice %z [0, {h2}] [1, {h3}] [1, 1] : tensor<1x{g}xf32> to tensor<1x{h}xf32>
    %zg = grad.slice %z [0, {h3}] [1, {g}] [1, 1] : tensor<1x{g}xf32> to tensor<1x{h}xf32>
    %ig = func.call @sigmoid(%zi, %half) : (tensor<1x{h}xf32>, tensor<1x{h}xf32>) -> tensor<1x{h}xf32>
    %fg = func.call @sigmoid(%zf, %half) : (tensor<1x{h}xf32>, tensor<1x{h}xf32>) -> tensor<1x{h}xf32>
    %og = func.call @sigmoid(%zo, %half) : (tensor<1x{h}xf32>, tensor<1x{h}xf32>) -> tensor<1x{h}xf32>
    %gg = math.tanh %zg : tensor<1x{h}xf32>
    %keep = grad.mul %fg, %cp : tensor<1x{h}xf32>
    %new = grad.mul %ig, %gg : tensor<1x{h}xf32>
    %cn = grad.add %keep, %new : tensor<1x{h}xf32>
    %tc = math.tanh %cn : tensor<1x{h}xf32>
    %hn = grad.mul %og, %tc : tensor<1x{h}xf32>
    scf.yield %hn, %cn : tensor<1x{h}xf32>, tensor<1x{h}xf32>
  }} {attributes}
  %sq = grad.mul %hs, %hs : tensor<1x{h}xf32>
  %l = grad.reduce add %sq [0, 1] : tensor<1x{h}xf32> to tensor<f32>
  {tail}
}}
func.func @sigmoid(%z: tensor<1x{h}xf32>, %half: tensor<1x{h}xf32>) -> tensor<1x{h}xf32> {{
  %a = grad.mul %z, %half : tensor<1x{h}xf32>
  %t = math.tanh %a : tensor<1x{h}xf32>
  %m = grad.mul %t, %half : tensor<1x{h}xf32>
  %s = grad.add %m, %half : tensor<1x{h}xf32>
  func.return %s : tensor<1x{h}xf32>
}}
"""

GRADIENT = """%dh, %dc, %dwx, %dwh, %db = grad.gradient %l wrt %h0, %c0, %wx, %wh, %b control_flow : tensor<f32>, tensor<1x{h}xf32>, tensor<1x{h}xf32>, tensor<{d}x{g}xf32>, tensor<{h}x{g}xf32>, tensor<1x{g}xf32>
  func.return %dh, %dc, %dwx, %dwh, %db : tensor<1x{h}xf32>, tensor<1x{h}xf32>, tensor<{d}x{g}xf32>, tensor<{h}x{g}xf32>, tensor<1x{g}xf32>"""
GRADIENTS = "tensor<1x{h}xf32>, tensor<1x{h}xf32>, tensor<{d}x{g}xf32>, tensor<{h}x{g}xf32>, tensor<1x{g}xf32>"
FORWARD = "func.return %l : tensor<f32>"

POLICIES = {
    "forward": "",
    "cache": "",
    "periodic": '{"grad.checkpoint" = "periodic"}',
    "binomial": '{"grad.checkpoint" = "binomial"}',
}


def measure(policy: str, steps: int, traced: bool = True) -> dict[str, object]:
    """Prepare the program, run 10 steps, then the N-step run under
    tracemalloc (unless not `traced`: its time alone, peak 0): its peak above
    the memory in use before it."""
    h = HIDDEN
    sizes = {"h": h, "d": INPUT, "g": 4 * h}
    forward = policy == "forward"
    text = PROGRAM.format(
        **sizes,
        h2=2 * h,
        h3=3 * h,
        rows=steps,
        attributes=POLICIES[policy],
        tail=(FORWARD if forward else GRADIENT.format(**sizes)),
        results="tensor<f32>" if forward else GRADIENTS.format(**sizes),
    )
    rng = np.random.default_rng(0)
    args = [
        rng.uniform(-0.5, 0.5, (1, h)).astype(np.float32),
        rng.uniform(-0.5, 0.5, (1, h)).astype(np.float32),
        rng.uniform(-1, 1, (steps, INPUT)).astype(np.float32),
        rng.uniform(-0.3, 0.3, (INPUT, 4 * h)).astype(np.float32),
        rng.uniform(-0.3, 0.3, (h, 4 * h)).astype(np.float32),
        rng.uniform(-0.1, 0.1, (1, 4 * h)).astype(np.float32),
    ]
    program = Program(text)
    program.run(args=[*args, np.array(10, np.int32)])
    if traced:
        tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    start, cpu = time.perf_counter(), time.process_time()
    found = program.run(args=[*args, np.array(steps, np.int32)]).results
    seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
    peak = tracemalloc.get_traced_memory()[1] - before
    tracemalloc.stop()
    return {
        "policy": policy,
        "peak": peak,
        "rss": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024,
        "seconds": seconds,
        "cpu": cpu,
        "bits": [r.tobytes().hex() for r in found],
    }


def main(steps: int) -> None:
    state = 2 * HIDDEN * 4
    period = math.isqrt(steps - 1) + 1
    snapshots = (steps - 1).bit_length()
    predicted = {
        "forward": 0,
        "cache": steps * state,
        "periodic": (-(-steps // period) + period) * state,
        "binomial": snapshots * state,
    }
    rows = []
    for policy in POLICIES:
        out = subprocess.run(
            [sys.executable, __file__, str(steps), policy],
            check=True,
            capture_output=True,
            text=True,
        ).stdout
        rows.append(json.loads(out))
    same = all(r["bits"] == rows[1]["bits"] for r in rows[1:])
    print(f"N = {steps}, state (h, c) = {state} bytes, bit-equal results: {same}")
    print(
        "| policy | carried states kept (predicted) | tracemalloc peak | max RSS "
        "| time | CPU time |"
    )
    print("|---|---:|---:|---:|---:|---:|")
    for r in rows:
        p = str(r["policy"])
        print(
            f"| {p} | {predicted[p] / 1024:.1f} KiB | {int(r['peak']) / 1024:.1f} KiB "  # type: ignore[arg-type]
            f"| {int(r['rss']) / 2**20:.1f} MiB | {float(r['seconds']):.1f} s "  # type: ignore[arg-type]
            f"| {float(r['cpu']):.1f} s |"  # type: ignore[arg-type]
        )


if __name__ == "__main__":
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 10_000
    if len(sys.argv) > 2:
        print(json.dumps(measure(sys.argv[2], n, "--untraced" not in sys.argv)))
    else:
        main(n)
