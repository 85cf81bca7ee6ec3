#!/usr/bin/env python3
"""torch-peer-collectives.py [--preset quick|default|full] [--json OUT] [--ops OP,...] [XPUBENCH_RESULTS.json ...]

The peer of xpubench's collectives workload (docs/multi-gpu.md) on the same GPUs in the same
device call: torch.distributed with NCCL, one process per GPU (torch.multiprocessing), the same
ops, sizes (nccl-tests' size: the larger of a rank's send and receive buffer) and definitions:
time = the slowest rank's (CUDA events around 20 launches, median of 10 such samples after a
warm-up, then the max over ranks), algbw = size / time, busbw = algbw x nccl-tests' bus factor.
Out of place, fp32, except all_reduce, which torch does in place. With xpubench results files
(e.g. one process and mpirun, or with and without --graph), prints for each the ratio xpubench
busbw / torch busbw per op and size (a ratio from one call beats two absolute figures)."""
import argparse
import json
import os
import statistics
import sys

import torch
import torch.distributed as dist
import torch.multiprocessing as mp

OPS = ["all_reduce", "all_gather", "reduce_scatter", "broadcast", "all_to_all", "sendrecv"]
PRESETS = {"quick": (3, 4, 23), "default": (4, 2, 30), "full": (3, 1, 33)}  # 2^first, every 2^step, up to 2^top (collectives.c)


def bus_factor(op, n):
    return {"all_reduce": 2 * (n - 1) / n, "all_gather": (n - 1) / n, "reduce_scatter": (n - 1) / n,
            "all_to_all": (n - 1) / n}.get(op, 1.0)


def buffers(op, n, size):
    """send and recv element counts per rank for nccl-tests' size (bytes), or None when empty."""
    chunked = op in ("all_gather", "reduce_scatter", "all_to_all")
    c = size // 4 // n if chunked else size // 4
    if c < 1:
        return None
    send = n * c if op in ("reduce_scatter", "all_to_all") else c
    recv = n * c if op in ("all_gather", "all_to_all") else c
    return send, recv, max(send, recv) * 4


# xpubench's variant in torch's mode: torch.distributed's all_reduce and broadcast work in place.
IN_PLACE = {"all_reduce": "nccl-inplace", "broadcast": "nccl-inplace"}


def call(op, send, recv, rank, n):
    if op == "all_reduce":  # torch's is in place (nccl-tests prints in- and out-of-place times side by side)
        dist.all_reduce(recv)
    elif op == "all_gather":
        dist.all_gather_into_tensor(recv, send)
    elif op == "reduce_scatter":
        dist.reduce_scatter_tensor(recv, send)
    elif op == "broadcast":
        dist.broadcast(send if rank == 0 else recv, src=0)
    elif op == "all_to_all":
        dist.all_to_all_single(recv, send)
    else:  # a ring: send to r+1, receive from r-1
        reqs = dist.batch_isend_irecv([dist.P2POp(dist.isend, send, (rank + 1) % n),
                                       dist.P2POp(dist.irecv, recv, (rank - 1) % n)])
        for q in reqs:
            q.wait()


def worker(rank, n, preset, ops, queue):
    os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
    os.environ.setdefault("MASTER_PORT", "29517")
    torch.cuda.set_device(rank)
    dist.init_process_group("nccl", rank=rank, world_size=n, device_id=torch.device("cuda", rank))
    first, step, top = PRESETS[preset]
    rows = []
    for op in ops:
        for k in range(first, top + 1, step):
            b = buffers(op, n, 1 << k)
            if b is None:
                continue
            send = torch.ones(b[0], device="cuda")
            recv = torch.empty(b[1], device="cuda")
            iters = 20 if (1 << k) < (1 << 28) else 5
            for _ in range(5):
                call(op, send, recv, rank, n)
            torch.cuda.synchronize()
            samples = []
            for _ in range(10):
                dist.barrier()
                a, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
                a.record()
                for _ in range(iters):
                    call(op, send, recv, rank, n)
                e.record()
                e.synchronize()
                samples.append(a.elapsed_time(e) / iters / 1e3)
            t = torch.tensor([statistics.median(samples)], device="cuda")
            dist.all_reduce(t, op=dist.ReduceOp.MAX)  # the slowest rank's
            if rank == 0:
                algbw = b[2] / t.item() / 1e9
                rows.append({"op": op, "bytes": b[2], "gpus": n, "time_s": t.item(), "algbw_gbps": algbw,
                             "busbw_gbps": algbw * bus_factor(op, n)})
            del send, recv
    if rank == 0:
        queue.put(rows)
    dist.destroy_process_group()


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--preset", default="quick", choices=sorted(PRESETS))
    p.add_argument("--json")
    p.add_argument("--ops", default=",".join(OPS), help="comma list of ops to time (default: all)")
    p.add_argument("results", nargs="*", help="xpubench results files with collectives cases")
    a = p.parse_args()
    ops = a.ops.split(",")
    if any(op not in OPS for op in ops):
        p.error(f"--ops: each of {','.join(OPS)}")
    n = torch.cuda.device_count()
    print(f"torch {torch.__version__}, NCCL {torch.cuda.nccl.version()}, {n} x {torch.cuda.get_device_name(0)}")
    ctx = mp.get_context("spawn")
    queue = ctx.Queue()
    procs = [ctx.Process(target=worker, args=(r, n, a.preset, ops, queue)) for r in range(n)]
    for q in procs:
        q.start()
    rows = queue.get()
    for q in procs:
        q.join()
    if a.json:
        json.dump(rows, open(a.json, "w"), indent=1)
    ours = [read_busbw(f) for f in a.results]
    names = [os.path.basename(f).removesuffix(".json")[-12:] for f in a.results]
    print(f"{'op':15s} {'bytes':>12s} {'gpus':>4s} {'torch us':>10s} {'torch busbw':>12s}"
          + "".join(f" {x:>12s} {'ratio':>7s}" for x in names))
    for r in rows:
        # the same mode as torch's call: all_reduce and broadcast in place, the others out of place
        key = (r["op"], r["bytes"], r["gpus"])
        line = f"{r['op']:15s} {r['bytes']:12d} {r['gpus']:4d} {r['time_s'] * 1e6:10.1f} {r['busbw_gbps']:12.2f}"
        for o in ours:
            mine = o.get(key + (IN_PLACE.get(r["op"], "nccl"),)) or o.get(key + ("nccl",))
            ratio = f"{mine / r['busbw_gbps']:.3f}" if mine and r["busbw_gbps"] > 0 else "-"
            line += f" {(f'{mine:.2f}' if mine else '-'):>12s} {ratio:>7s}"
        print(line)


def read_busbw(path):
    """(op, bytes, gpus, variant) -> busbw of the validated collectives cases of a results file."""
    ours = {}
    for c in json.load(open(path))["cases"]:
        th = c.get("throughput", {})
        if c["workload"] == "collectives" and c["status"] == "ok" and "busbw_gbps" in th:
            ours[(c["op"], c["params"]["bytes"], c["params"]["gpus"], c["variant"])] = th["busbw_gbps"]
    return ours


if __name__ == "__main__":
    sys.exit(main())
