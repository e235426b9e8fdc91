# provision's all-reduce bus bandwidth benchmark (the nccl_bandwidth check runs it when nccl-tests'
# all_reduce_perf is not installed). One process per local GPU, torch.distributed over NCCL.
#
# Run as:  python3 -c "$(cat allreduce_bench.py)" NGPUS
# NGPUS comes from nvidia-smi so the parent never touches CUDA: the workers are forked (the script
# arrives as -c text, so there is no file a spawned worker could re-import), and a CUDA context
# made before fork() would be unusable in the children.
#
# Prints, like nccl-tests: busbw = algbw * 2(n-1)/n, the all-reduce bus bandwidth (0 with one GPU).
#   # all_reduce bus bandwidth, world=N
#   size=BYTES time_us=T algbw_GBps=A busbw_GBps=B      (one line per size, up to 1 GiB)
#   busbw_gbps=B                                         (the largest size's busbw)
import os
import socket
import sys
import time

import torch
import torch.distributed as dist
import torch.multiprocessing as mp

SIZES = [8 << 20, 64 << 20, 256 << 20, 1 << 30]
WARMUP = 5
ITERATIONS = 20


def worker(rank, world, port):
    os.environ["MASTER_ADDR"] = "127.0.0.1"
    os.environ["MASTER_PORT"] = str(port)
    torch.cuda.set_device(rank)
    dist.init_process_group("nccl", rank=rank, world_size=world)
    largest = 0.0
    for size in SIZES:
        # zeros stay zeros however often they are summed: no overflow, no NaN
        data = torch.zeros(size // 4, dtype=torch.float32, device="cuda")
        for _ in range(WARMUP):
            dist.all_reduce(data)
        torch.cuda.synchronize()
        dist.barrier(device_ids=[rank])
        start = time.perf_counter()
        for _ in range(ITERATIONS):
            dist.all_reduce(data)
        torch.cuda.synchronize()
        elapsed = torch.tensor([(time.perf_counter() - start) / ITERATIONS], device="cuda")
        # the slowest rank sets the pace of a collective
        dist.all_reduce(elapsed, op=dist.ReduceOp.MAX)
        seconds = elapsed.item()
        algbw = size / seconds / 1e9
        busbw = algbw * 2 * (world - 1) / world
        largest = busbw
        if rank == 0:
            print("size=%d time_us=%.1f algbw_GBps=%.2f busbw_GBps=%.2f" % (size, seconds * 1e6, algbw, busbw), flush=True)
        del data
    if rank == 0:
        print("busbw_gbps=%.2f" % largest, flush=True)
    dist.barrier(device_ids=[rank])
    dist.destroy_process_group()


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


if __name__ == "__main__":
    world = int(sys.argv[1]) if len(sys.argv) > 1 else 1
    print("# all_reduce bus bandwidth, world=%d" % world, flush=True)
    mp.start_processes(worker, args=(world, free_port()), nprocs=world, start_method="fork")
