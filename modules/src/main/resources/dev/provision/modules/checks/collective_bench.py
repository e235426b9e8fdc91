# provision's cross-node all-reduce rank launcher (the collective check). provision starts it on every
# node of a gang at the same time, over its own connections; node 0 of the gang hosts the rendezvous.
#
# Run as:  python3 -c "$(cat collective_bench.py)" BACKEND MASTER PORT NODE NODES PROCS MAX_BYTES BUDGET_S TIMEOUT_S
#   BACKEND gloo (one process, CPU tensors) or nccl (PROCS processes, one per GPU, forked: the parent
#   never touches CUDA); the world is NODES * PROCS ranks, node NODE holds ranks NODE*PROCS.. .
#   Message sizes double from the first up to MAX_BYTES while the sizes so far took less than BUDGET_S
#   (all ranks agree on every step: the slowest rank's time decides), so a slow link ends early at a
#   smaller size instead of running past the deadline. TIMEOUT_S bounds the rendezvous and every
#   collective: a peer that never joins is an error line, not a hang.
#
# Prints on node 0 (rank 0), in the benchmark's format:
#   # all_reduce bus bandwidth, world=N backend=B nodes=K
#   size=BYTES time_us=T algbw_GBps=A busbw_GBps=B      (one line per size)
#   busbw_gbps=B                                         (the largest size's busbw)
# and on any rank that fails:  error=WHAT  (exit 3)
import datetime
import fcntl
import os
import socket
import struct
import sys
import time

import torch
import torch.distributed as dist


def interface_of(address):
    """The name of the local interface that holds ADDRESS (gloo binds its pairs to it)."""
    packed = socket.inet_aton(address)
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        for _, name in socket.if_nameindex():
            try:
                info = fcntl.ioctl(s.fileno(), 0x8915, struct.pack("256s", name.encode()[:15]))  # SIOCGIFADDR
            except OSError:
                continue
            if info[20:24] == packed:
                return name
    return None


def local_address(master, port):
    """The address this node reaches MASTER from (no packet is sent)."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.connect((master, port))
        return s.getsockname()[0]


def fail(what):
    print("error=" + " ".join(str(what).split()), flush=True)
    os._exit(3)


def measure(backend, rank, world, device, max_bytes, budget, first):
    spent = 0.0
    size = first
    last = None
    while size <= max_bytes:
        # zeros stay zeros however often they are summed: no overflow, no NaN
        data = torch.zeros(size // 4, dtype=torch.float32, device=device)
        start = time.perf_counter()
        dist.all_reduce(data)  # warm-up, and the time that sets the iterations
        if backend == "nccl":
            torch.cuda.synchronize()
        warm = torch.tensor([time.perf_counter() - start], device=device)
        dist.all_reduce(warm, op=dist.ReduceOp.MAX)
        once = warm.item()
        iterations = int(max(2, min(20, (budget / 8) / max(once, 1e-6))))
        start = time.perf_counter()
        for _ in range(iterations):
            dist.all_reduce(data)
        if backend == "nccl":
            torch.cuda.synchronize()
        elapsed = torch.tensor([(time.perf_counter() - start) / iterations], device=device)
        # the slowest rank sets the pace of a collective
        dist.all_reduce(elapsed, op=dist.ReduceOp.MAX)
        seconds = elapsed.item()
        algbw = size / seconds / 1e9
        busbw = algbw * 2 * (world - 1) / world
        last = busbw
        if rank == 0:
            print("size=%d time_us=%.1f algbw_GBps=%.3f busbw_GBps=%.3f" % (size, seconds * 1e6, algbw, busbw), flush=True)
        del data
        spent += once + seconds * iterations
        # the next size takes about twice as long: stop while it still fits the budget
        if spent + 2 * (once + seconds * iterations) > budget:
            break
        size *= 2
    if rank == 0 and last is not None:
        print("busbw_gbps=%.3f" % last, flush=True)


def rank_main(local, args):
    backend, master, port, node, nodes, procs, max_bytes, budget, timeout = args
    world = nodes * procs
    rank = node * procs + local
    device = "cpu"
    if backend == "nccl":
        torch.cuda.set_device(local)
        device = "cuda"
    try:
        dist.init_process_group(backend, init_method="tcp://%s:%d" % (master, port), rank=rank, world_size=world,
                                timeout=datetime.timedelta(seconds=timeout))
    except Exception as e:  # the peer never joined, the port is blocked, the address is wrong
        fail("rendezvous at %s:%d failed after at most %ds: %s" % (master, port, timeout, e))
    try:
        measure(backend, rank, world, device, max_bytes, budget, (8 << 20) if backend == "nccl" else (256 << 10))
        dist.barrier()
        dist.destroy_process_group()
    except Exception as e:
        fail("all_reduce failed: %s" % e)


def main():
    a = sys.argv[1:]
    args = (a[0], a[1], int(a[2]), int(a[3]), int(a[4]), int(a[5]), int(a[6]), float(a[7]), int(a[8]))
    backend, master, port, node, nodes, procs = args[:6]
    timeout = args[8]
    # the whole run, rendezvous and sizes included, ends well within the controller's deadline
    import signal
    signal.signal(signal.SIGALRM, lambda *_: fail("no answer within %ds" % (2 * timeout + args[7])))
    signal.alarm(int(2 * timeout + args[7]))
    if backend == "gloo" and "GLOO_SOCKET_IFNAME" not in os.environ:
        name = interface_of(local_address(master, port))
        if name:
            os.environ["GLOO_SOCKET_IFNAME"] = name
    if node == 0:
        print("# all_reduce bus bandwidth, world=%d backend=%s nodes=%d" % (nodes * procs, backend, nodes), flush=True)
    if backend == "gloo" or procs == 1:
        rank_main(0, args)
    else:
        import torch.multiprocessing as mp
        mp.start_processes(rank_main, args=(args,), nprocs=procs, start_method="fork")


if __name__ == "__main__":
    main()
