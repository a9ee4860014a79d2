#!/usr/bin/env bash
# Runs GradBench's evals against gradopt's tool and, in the same run, the
# tools GradBench ships that run here: `jax` (as GradBench times it, and
# through blocking_jax.py, which waits for each result), `manual` (its
# hand-differentiated C++) and `pytorch` when torch is importable. Docker is
# not needed: run.py stands in for GradBench's intermediary.
#
# Usage: bench/gradbench/compare.sh GRADBENCH_CHECKOUT EVAL_PYTHON LOGDIR [EVAL...]
#
# GRADBENCH_CHECKOUT: a GradBench source tree with cpp/json.hpp in place;
# EVAL_PYTHON: a Python with GradBench's `gradbench` package (pip install -e
# python/gradbench), pydantic, scipy and jax; gradopt's tool runs with the
# Python of this shell. Every tool is held to one thread (the C++ tool is
# built single-threaded, GradBench's jax tool pins itself to one CPU, PyTorch
# and gradopt run with one OpenMP and BLAS thread: on this shared 2-core
# machine PyTorch's default threads made its lse 25 ms instead of 0.05 ms).
# The sizes are those below (GradBench's defaults reach further; see
# RESULTS.md). TOOLS (default: all five) picks the tools, EVAL_ARGS adds
# options to every eval (e.g. "--min-runs 3", so that JAX's compiling first
# run is not its only one). The tables: python bench/gradbench/run.py table
# LOGDIR/*.jsonl; gradopt beside the fastest peer: run.py versus LOGDIR/*.jsonl
set -euo pipefail
checkout=$(realpath "$1") eval_python=$2 logs=$(realpath -m "$3")
shift 3
here=$(dirname "$(realpath "$0")")
mkdir -p "$logs"
declare -A sizes=(
  [hello]=""
  [lse]="-n 2500 20000 160000 1280000"
  [llsq]="-n 16 256 4096 16392"
  [det]="-l 5 7 9 11"
  [kmeans]="-k 10 100 -n 1000 10000 -d 8"
  [gmm]="-d 2 10 64 -k 5 25 100"
  [ode]="-n 1000 10000 -s 1 10 100"
  [ba]="--min 1 --max 6"
  [ht]="--min 1 --max 3 --model small"
  [lstm]="-l 2 4 -c 1024 4096"
  [particle]=""
  [saddle]=""
)
single="env OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 MKL_NUM_THREADS=1"
declare -A tools=(
  [gradopt]="$single $(command -v python) $here/tool.py"
  [jax]="$eval_python python/gradbench/gradbench/tools/jax/run.py"
  [jax-blocking]="$eval_python $here/blocking_jax.py $checkout"
  [manual]="$eval_python -m gradbench.cpp manual"
  [pytorch]="$single $eval_python python/gradbench/gradbench/tools/pytorch/run.py"
)
has() { grep -qx "$2" "$checkout/tools/$1/evals.txt" 2>/dev/null; }
for name in "${@:-${!sizes[@]}}"; do
  for tool in ${TOOLS:-gradopt jax jax-blocking manual pytorch}; do
    case $tool in
      gradopt) ;;
      jax-blocking) has jax "$name" || continue ;;
      pytorch) has pytorch "$name" && "$eval_python" -c "import torch" 2>/dev/null \
                 || continue ;;
      *) has "$tool" "$name" || continue ;;
    esac
    echo "== $name: $tool" >&2
    python "$here/run.py" run --cwd "$checkout" -o "$logs/$name-$tool.jsonl" \
      --eval "$eval_python -m gradbench.evals.$name.run ${sizes[$name]} ${EVAL_ARGS:-}" \
      --tool "${tools[$tool]}" || echo "$name: $tool: the eval failed" >&2
  done
done
