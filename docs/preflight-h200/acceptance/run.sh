#!/usr/bin/env bash
# On a lent H200: provision's gpu_acceptance benchmark by hand, at each tier, with and without a
# second process keeping the GPU busy; then nvidia-smi's view. Everything lands in $OUT.
set -uo pipefail
bench=modules/src/main/resources/dev/provision/modules/checks/gpu_acceptance.py
for s in 1 3; do
  { echo "\$ python3 -c \"\$(cat gpu_acceptance.py)\" $s"; timeout 300 python3 -c "$(cat $bench)" $s 2>&1; echo "# exit=$?"; } > "$OUT/gpu-acceptance-$s.txt"
done
# the same while another process keeps the GPU busy (a 16k bf16 matmul loop)
python3 -c 'import torch,time
x=torch.randn(16384,16384,device="cuda",dtype=torch.bfloat16)
end=time.time()+90
while time.time()<end: torch.matmul(x,x)
torch.cuda.synchronize()' & busy=$!
sleep 5
{ echo "\$ python3 -c \"\$(cat gpu_acceptance.py)\" 3   # while another process keeps GPU 0 busy"; timeout 300 python3 -c "$(cat $bench)" 3 2>&1; echo "# exit=$?"; } > "$OUT/gpu-acceptance-3-busy.txt"
kill $busy 2>/dev/null; wait
{ echo '$ nvidia-smi --query-gpu=name,pcie.link.gen.current,pcie.link.width.current,clocks.max.sm,memory.total --format=csv'; nvidia-smi --query-gpu=name,pcie.link.gen.current,pcie.link.width.current,clocks.max.sm,memory.total --format=csv 2>&1; echo "# exit=$?"; } > "$OUT/nvidia-smi-gpu.txt"
which dcgmi nvbandwidth > "$OUT/tools.txt" 2>&1
cat "$OUT"/gpu-acceptance-*.txt
