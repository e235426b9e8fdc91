#!/usr/bin/env bash
# Run on a lent 1-GPU H200 (no Java, no sshd): the collective check's parts that one GPU allows.
# Carried: .whl/jre.tar.xz (jlink runtime) and .whl/provision.jar. Everything lands in $OUT.
set -uo pipefail
mkdir -p engine/target && cp .whl/provision.jar engine/target/ && tar -xJf .whl/jre.tar.xz
export PROVISION_JAVA=$PWD/.jre/bin/java
py=python3
bench=modules/src/main/resources/dev/provision/modules/checks/collective_bench.py
{ date -u; nvidia-smi -L; $py -c 'import torch; print("torch", torch.__version__, "nccl", torch.cuda.nccl.version())'; } > "$OUT/host.txt" 2>&1
# 1. NCCL's own INFO lines for a 1-rank communicator (the parser's fixture), through provision's launcher
NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,NET,ENV timeout 120 $py -c "$(cat $bench)" nccl 127.0.0.1 29500 0 1 1 1073741824 5 30 \
    > "$OUT/nccl-info-1rank.txt" 2>&1; echo "# exit=$?" >> "$OUT/nccl-info-1rank.txt"
# 2. the same with NVLS asked off, as the 2-GPU runs will be
NCCL_NVLS_ENABLE=0 NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,NET,ENV timeout 120 $py -c "$(cat $bench)" nccl 127.0.0.1 29501 0 1 1 268435456 3 30 \
    > "$OUT/nccl-info-1rank-nvls-off.txt" 2>&1; echo "# exit=$?" >> "$OUT/nccl-info-1rank-nvls-off.txt"
# 3. provision's rounds over two local ranks (gloo), with the report
./provision -i docs/preflight-h200/collective/inventory-two-local.yml docs/preflight-h200/collective/collective-gloo.yml \
    --json "$OUT/collective-gloo.json" > "$OUT/collective-gloo.txt" 2>&1; echo "# exit=$?" >> "$OUT/collective-gloo.txt"
# 4. preflight.yml's GPU-side checks on this one node: the collective is skipped (one node), nccl_bandwidth too (one GPU)
./provision -i localhost, playbooks/preflight.yml -e preflight_checks=gpu,nccl_bandwidth,collective -e expected_gpu_count=1 \
    --json "$OUT/preflight-collective.json" > "$OUT/preflight-collective.txt" 2>&1; echo "# exit=$?" >> "$OUT/preflight-collective.txt"
ls -la "$OUT"
