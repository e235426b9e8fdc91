#!/usr/bin/env bash
# gpu_acceptance's baseline on a lent 1-GPU H200 (or H100) through provision itself (jlink runtime, local
# connection): an acceptance run whose --json report becomes the baseline, an idle re-run against it,
# then a re-run while another process keeps the GPU busy. Everything lands in $OUT.
set -uo pipefail
mkdir -p engine/target && cp .whl/provision.jar engine/target/ && tar -xJf .whl/jre.tar.xz
export PROVISION_JAVA=$PWD/.jre/bin/java
# the device returns only a few files: everything is written to $res and comes back as one archive
res=$(mktemp -d)
model=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1 | grep -o 'H[0-9]00' || echo H200)
nvidia-smi --query-gpu=name,memory.total --format=csv > "$res/gpu.txt" 2>&1
run() {
  local name=$1; shift
  ./provision -i localhost, playbooks/preflight.yml -e preflight_checks=gpu,gpu_acceptance \
    -e expected_gpu_count=1 -e expected_gpu_model="$model" --json "$res/$name.json" --report "$res/$name.html" "$@" > "$res/$name.txt" 2>&1
  echo "# exit=$?" >> "$res/$name.txt"
}
run baseline-acceptance
run baseline-idle-rerun -e acceptance_baseline="$res/baseline-acceptance.json"
python3 -c 'import torch,time
x=torch.randn(16384,16384,device="cuda",dtype=torch.bfloat16)
end=time.time()+120
while time.time()<end: torch.matmul(x,x)
torch.cuda.synchronize()' & busy=$!
sleep 5
run baseline-busy-rerun -e acceptance_baseline="$res/baseline-acceptance.json"
kill $busy 2>/dev/null; wait
grep -hE "gpu_acceptance|exit=|ready" "$res"/baseline-*.txt | cut -c1-220
tar -czf "$OUT/baseline-run.tgz" -C "$res" .
