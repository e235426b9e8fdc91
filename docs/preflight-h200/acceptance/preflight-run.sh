#!/usr/bin/env bash
# preflight.yml's GPU checks on a lent 1-GPU H200 through provision itself (jlink runtime, local
# connection), with --json and --report; a second time while another process keeps the GPU busy.
set -uo pipefail
mkdir -p engine/target && cp .whl/provision.jar engine/target/ && tar -xJf .whl/jre.tar.xz
export PROVISION_JAVA=$PWD/.jre/bin/java
run() {
  ./provision -i localhost, playbooks/preflight.yml -e preflight_checks=gpu,gpu_acceptance,nccl_bandwidth,collective \
    -e expected_gpu_count=1 -e expected_gpu_model=H200 --json "$OUT/$1.json" --report "$OUT/$1.html" > "$OUT/$1.txt" 2>&1
  echo "# exit=$?" >> "$OUT/$1.txt"
}
run preflight-gpu
python3 -c 'import torch,time
x=torch.randn(16384,16384,device="cuda",dtype=torch.bfloat16)
end=time.time()+150
while time.time()<end: torch.matmul(x,x)
torch.cuda.synchronize()' & busy=$!
sleep 5
run preflight-gpu-busy
kill $busy 2>/dev/null; wait
grep -E "gpu_acceptance|exit=|Ready" "$OUT"/preflight-gpu*.txt
