# provision's per-GPU acceptance benchmark (the gpu_acceptance check): makes every GPU of the node
# work, one after another, and prints one line per GPU. Through the node's PyTorch, nothing else.
#
# Run as:  python3 -c "$(cat gpu_acceptance.py)" SECONDS
#   SECONDS: the time each measurement may take on each GPU (the tier: quick 1, standard 3, full 20).
#
# Per GPU:
#   gemm_tflops   bf16 matmul of 8192 x 8192 matrices, 2*N^3 flops a product (dense tensor cores)
#   hbm_gbps      device-to-device copy of 1 GiB, read + write bytes per second (what DCGM and
#                 nvbandwidth count as memory bandwidth of a copy)
#   h2d_gbps, d2h_gbps   1 GiB between pinned host memory and the GPU
#   checksum      the sum of a fixed float32 product of small integers made on this GPU (TF32 off:
#                 every partial sum is exact), which every healthy GPU and the CPU (cpu_checksum) give
#                 to the last bit
#   burn_runs / burn_mismatches   the product made again for the rest of the time: a GPU that does
#                 not always give the same answer corrupts data silently
# Lines:  gpu=I name=NAME gemm_tflops=F hbm_gbps=F h2d_gbps=F d2h_gbps=F checksum=F cpu_checksum=F burn_runs=N burn_mismatches=N
#         error=WHAT (a GPU that fails) ; the exit code is 0 when every GPU answered
import sys
import time

import torch

SECONDS = float(sys.argv[1]) if len(sys.argv) > 1 else 3.0
N = 8192
COPY_BYTES = 1 << 30
CHECK_N = 1024


def timed(fn, seconds, sync):
    """Runs fn until `seconds` passed (at least 3 times after a warm-up); seconds per call."""
    fn()
    sync()
    runs = 0
    start = time.perf_counter()
    while True:
        fn()
        runs += 1
        if runs >= 3:
            sync()
            elapsed = time.perf_counter() - start
            if elapsed >= seconds:
                return elapsed / runs


def one_gpu(i, seconds, a_cpu, b_cpu, cpu_checksum):
    dev = torch.device("cuda", i)
    sync = lambda: torch.cuda.synchronize(dev)
    name = torch.cuda.get_device_name(dev).replace(" ", "_")
    x = torch.randn(N, N, device=dev, dtype=torch.bfloat16)
    y = torch.randn(N, N, device=dev, dtype=torch.bfloat16)
    t = timed(lambda: torch.matmul(x, y), seconds, sync)
    gemm = 2 * N ** 3 / t / 1e12
    del x, y
    src = torch.empty(COPY_BYTES, dtype=torch.uint8, device=dev)
    dst = torch.empty_like(src)
    t = timed(lambda: dst.copy_(src), seconds, sync)
    hbm = 2 * COPY_BYTES / t / 1e9
    del src, dst
    host = torch.empty(COPY_BYTES, dtype=torch.uint8).pin_memory()
    gpu = torch.empty(COPY_BYTES, dtype=torch.uint8, device=dev)
    h2d = COPY_BYTES / timed(lambda: gpu.copy_(host, non_blocking=True), seconds, sync) / 1e9
    d2h = COPY_BYTES / timed(lambda: host.copy_(gpu, non_blocking=True), seconds, sync) / 1e9
    del host, gpu
    a = a_cpu.to(dev)
    b = b_cpu.to(dev)
    first = torch.matmul(a, b).double().sum().item()
    runs = 0
    mismatches = 0
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        if torch.matmul(a, b).double().sum().item() != first:
            mismatches += 1
        runs += 1
    print("gpu=%d name=%s gemm_tflops=%.1f hbm_gbps=%.1f h2d_gbps=%.2f d2h_gbps=%.2f checksum=%.6f cpu_checksum=%.6f "
          "burn_runs=%d burn_mismatches=%d" % (i, name, gemm, hbm, h2d, d2h, first, cpu_checksum, runs, mismatches), flush=True)


def main():
    count = torch.cuda.device_count()
    print("# gpu acceptance, gpus=%d seconds=%s torch=%s" % (count, SECONDS, torch.__version__), flush=True)
    generator = torch.Generator().manual_seed(1234)
    # small integers in float32 with TF32 off: every product and partial sum is exact, so every GPU and
    # the CPU agree to the last bit, whatever order the kernels add in
    torch.backends.cuda.matmul.allow_tf32 = False
    a_cpu = torch.randint(-4, 5, (CHECK_N, CHECK_N), generator=generator).float()
    b_cpu = torch.randint(-4, 5, (CHECK_N, CHECK_N), generator=generator).float()
    cpu_checksum = torch.matmul(a_cpu, b_cpu).double().sum().item()
    failed = 0
    for i in range(count):
        try:
            one_gpu(i, SECONDS, a_cpu, b_cpu, cpu_checksum)
        except Exception as e:  # one GPU's failure is its line; the others still run
            failed += 1
            print("gpu=%d error=%s" % (i, " ".join(str(e).split())), flush=True)
        torch.cuda.empty_cache()
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
