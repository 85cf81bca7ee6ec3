#!/usr/bin/env python3
"""torch-peer-burst.py - the PyTorch peer of the burst workload on the same GPU, in the same device
call (docs/performance.md): the synaptic propagation alone, as PyTorch would do it.

For each size (neurons N, fan-out F, 1% fired), a random CSR-like synapse table (targets int64,
signed weight*psp int32) and a fired list of N/100 sources: the events are the fired sources'
synapses (gathered once, outside the timing), then input.index_add_(0, targets[events], w[events])
on int32: what one burst's propagate does, with no neuron dynamics, no stimulus and no compaction.
Also the "1M weighted events" figure the issue quotes: index_add_ of 1e6 events into 5M neurons.
Timed with CUDA events after warm-up, median of 20; prints events/s per size."""
import statistics

import torch


def time_us(fn, reps=20):
    for _ in range(5):
        fn()
    torch.cuda.synchronize()
    samples = []
    for _ in range(reps):
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record()
        fn()
        b.record()
        b.synchronize()
        samples.append(a.elapsed_time(b) * 1e3)
    return statistics.median(samples), min(samples), max(samples)


def case(n, f, g):
    fired = torch.randperm(n, device="cuda", generator=g)[: max(1, n // 100)]
    events = (fired.unsqueeze(1) * f + torch.arange(f, device="cuda")).reshape(-1)  # synapse ids
    targets = torch.randint(0, n, (n * f,), device="cuda", generator=g)[events]
    w = torch.randint(-65025, 65026, (n * f,), device="cuda", generator=g, dtype=torch.int32)[events]
    inp = torch.zeros(n, dtype=torch.int32, device="cuda")
    med, lo, hi = time_us(lambda: inp.index_add_(0, targets, w))
    ev = events.numel()
    print(f"torch index_add_ neurons={n},fanout={f} ({ev} events, 1% fired): median {med:.2f} us "
          f"(min {lo:.2f}, max {hi:.2f}), {ev / (med * 1e-6):.3g} events/s")


def main():
    print(f"torch {torch.__version__} on {torch.cuda.get_device_name()}")
    g = torch.Generator(device="cuda").manual_seed(1)
    for n, f in [(100000, 100), (500000, 50), (1000000, 10), (1000000, 100), (5000000, 100)]:
        case(n, f, g)
    # the figure: 1M weighted events into 5M neurons
    targets = torch.randint(0, 5000000, (1000000,), device="cuda", generator=g)
    w = torch.randint(-65025, 65026, (1000000,), device="cuda", generator=g, dtype=torch.int32)
    inp = torch.zeros(5000000, dtype=torch.int32, device="cuda")
    med, lo, hi = time_us(lambda: inp.index_add_(0, targets, w))
    print(f"torch index_add_ 1000000 events into 5000000 neurons: median {med:.2f} us, {1e6 / (med * 1e-6):.3g} events/s")


if __name__ == "__main__":
    main()
