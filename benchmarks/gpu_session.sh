#!/usr/bin/env bash
# One device call's worth of XLA:GPU measurements (issue 17, item 3), sized for a
# 15-minute GPU lease, each phase under its own time limit, the results packed into
# $OUT/gpu.tgz after every phase so that a cut-off run still returns them.
#
#   bash benchmarks/gpu_session.sh [SECONDS] [PHASES]   (on the GPU machine)
#
# SECONDS defaults to 520. PHASES is a comma-separated subset of these, which run in
# this order:
#   kernels   kernel templates (`collect kernels`)
#   noise     the repeat floor: 40 stored rows timed again (`dataset noise`)
#   steps     the example steps, XLA's optimized HLO and profiles (`xla_gpu.py`;
#             STEPS=a,b picks them, any workload of examples/workloads; STEPS_S
#             its limit, STEPS_BUDGET_S when the last one may start)
#   programs  zoo programs (`collect programs`; PROGRAMS_S its limit, TIER=large the
#             zoo's large tier)
#   profiles  kernels inside those steps (`collect profiles`; PROFILES_S its limit)
# (default: all but noise). Where this checkout already holds a
# dataset with this GPU's fingerprint (`data/<gpu>-<id>`) and its steps
# (`benchmarks/timings/<gpu>-<id>/steps`), the run starts from copies of them, so each
# phase resumes where the last session stopped and adds only what is missing.
#
# Runs from the checkout on the machine's own Python (README, "Collecting on a GPU
# machine"): nothing is installed. Unpack the archive here with
# `tar xzf gpu.tgz -C /tmp`; /tmp/gpu/data/<dataset> replaces data/<dataset> and
# /tmp/gpu/steps replaces benchmarks/timings/<dataset>/steps.
set -u
total=${1:-520}
phases=",${2:-kernels,steps,programs,profiles},"
start=$(date +%s)
left() { echo $(( total - ($(date +%s) - start) )); }
export PYTHONUNBUFFERED=1 PYTHONPATH=/tmp/p
PY=${PY:-python3}
mkdir -p /tmp/p /tmp/gpu/data /tmp/gpu/steps
ln -sfn "$PWD" /tmp/p/stablecost
out=${OUT:-/tmp/out}
mkdir -p "$out"
pack() { tar czf "$out/gpu.tgz.tmp" -C /tmp gpu && mv "$out/gpu.tgz.tmp" "$out/gpu.tgz"; }

nvidia-smi --query-gpu=name,clocks.max.sm,clocks.max.mem,memory.total,driver_version \
  --format=csv | tee /tmp/gpu/nvidia-smi.csv
# the dataset this machine writes to, named as the collector names it
name=$($PY -c 'from pathlib import Path
from stablecost.hardware.fingerprint import local_machine
from stablecost.datasets.store.layout import dataset_dir
m = local_machine(); print(dataset_dir(Path("."), m.hardware, m.fingerprint).name)')
echo "dataset: $name ($(left) s left)"
if [ -d "data/$name" ]; then cp -r "data/$name" /tmp/gpu/data/ && echo "resuming data/$name"; fi
if [ -d "benchmarks/timings/$name/steps" ]; then
  cp -r "benchmarks/timings/$name/steps/." /tmp/gpu/steps/ && echo "resuming its steps"
fi

phase() {  # phase NAME SECONDS COMMAND...: run it under a limit that leaves room to pack
  local name=$1 limit=$2; shift 2
  case $phases in *",$name,"*) ;; *) return ;; esac
  local have=$(( $(left) - 25 ))
  (( limit > have )) && limit=$have
  if (( limit < 20 )); then echo "== $name: skipped, $(left) s left"; return; fi
  echo "== $name (limit $limit s, $(left) s left)"
  timeout -k 5 "$limit" "$@" 2>&1 | tail -n 25
  pack
}

cli="$PY -m stablecost.serve.cli"
minutes() { awk -v s="$1" 'BEGIN { printf "%.1f", (s - 30) / 60 }'; }  # a budget inside a limit
phase kernels 100 $cli collect kernels --out /tmp/gpu/data --budget-minutes 1.4
phase noise 80 $cli dataset noise "/tmp/gpu/data/$name" --samples 40
phase steps ${STEPS_S:-200} $PY benchmarks/xla_gpu.py --out /tmp/gpu/steps --budget-s ${STEPS_BUDGET_S:-60} \
  --traces 0 --only ${STEPS:-mlp_train_step,resnet_cnn_train_step,transformer_block_train_step,llama3-100m-train,resnet18-train,resnet50-train,llama3-1b-prefill,llama3-1b-decode}
phase programs ${PROGRAMS_S:-230} $cli collect programs --out /tmp/gpu/data --tier ${TIER:-zoo} \
  --budget-minutes "$(minutes ${PROGRAMS_S:-230})"
phase profiles ${PROFILES_S:-120} $cli collect profiles --from-programs /tmp/gpu/data --out /tmp/gpu/data \
  --budget-minutes "$(minutes ${PROFILES_S:-120})"
echo "== done, $(left) s of $total left"
ls -la /tmp/gpu/data/* /tmp/gpu/steps
