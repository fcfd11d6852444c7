#!/usr/bin/env bash
# One device call's worth of XLA:GPU measurements (issue 17, item 3), sized for a
# 15-minute GPU lease: kernels, zoo programs, their step profiles, and the small example
# steps with XLA's optimized HLO, each phase under its own time limit, the results
# packed into $OUT/gpu.tgz after every phase so that a cut-off run still returns them.
#
#   bash benchmarks/gpu_session.sh [SECONDS]      (on the GPU machine; default 520)
#
# Runs from the checkout on the machine's own Python (README, "Collecting on a GPU
# machine"): nothing is installed. Unpack the archive here with
# `tar xzf gpu.tgz -C /tmp` and move /tmp/gpu/data/<dataset> under data/.
set -u
total=${1:-520}
start=$(date +%s)
left() { echo $(( total - ($(date +%s) - start) )); }
export PYTHONUNBUFFERED=1 PYTHONPATH=/tmp/p
mkdir -p /tmp/p /tmp/gpu/data /tmp/gpu/steps
ln -sfn "$PWD" /tmp/p/stablecost
out=${OUT:-/tmp/out}
mkdir -p "$out"
pack() { tar czf "$out/gpu.tgz.tmp" -C /tmp gpu && mv "$out/gpu.tgz.tmp" "$out/gpu.tgz"; }

nvidia-smi --query-gpu=name,clocks.max.sm,clocks.max.mem,memory.total,driver_version \
  --format=csv | tee /tmp/gpu/nvidia-smi.csv
${PY:-python3} -c 'import jax, sys; print(sys.version.split()[0], jax.__version__, jax.devices())'

phase() {  # phase NAME SECONDS COMMAND...: run it under a limit that leaves room to pack
  local name=$1 limit=$2; shift 2
  local have=$(( $(left) - 25 ))
  (( limit > have )) && limit=$have
  if (( limit < 20 )); then echo "== $name: skipped, $(left) s left"; return; fi
  echo "== $name (limit $limit s, $(left) s left)"
  timeout -k 5 "$limit" "$@" 2>&1 | tail -n 25
  pack
}

phase kernels 100 ${PY:-python3} -m stablecost.serve.cli collect kernels --out /tmp/gpu/data --budget-minutes 1.4
phase programs 230 ${PY:-python3} -m stablecost.serve.cli collect programs --out /tmp/gpu/data --budget-minutes 3.4
phase profiles 120 ${PY:-python3} -m stablecost.serve.cli collect profiles --from-programs /tmp/gpu/data --out /tmp/gpu/data \
  --budget-minutes 1.7
phase steps 200 ${PY:-python3} benchmarks/xla_gpu.py --out /tmp/gpu/steps --budget-s 60 \
  --traces 0 --only mlp_train_step,resnet_cnn_train_step,transformer_block_train_step,llama3-100m-train,resnet18-train,resnet50-train,llama3-1b-prefill,llama3-1b-decode
echo "== done, $(left) s of $total left"
ls -la /tmp/gpu/data/* /tmp/gpu/steps
