#!/usr/bin/env python3
"""torch-peer-anneal.py - the PyTorch peers of the anneal workload on the same GPU, in the same
device call (docs/performance.md):
  - a plain k-means (GEMM-form distances, argmin, scatter-add means; no trimmed statistics, no
    annealing) for 31 iterations on 10K x 128 points, m = 256: the issue's 5.7 ms figure;
  - one assign step at n = 1M, d = 128, m = 1024: torch.cdist + argmin (the issue's 18.7 ms);
  - the fp32 GEMM floor of that step: x @ a.T (2 n m d FLOP) with TF32 off, cuBLAS's fp32 rate.
Timed with CUDA events after warm-up, median of 10. Prints one line each."""
import statistics
import torch


def time_ms(fn, reps=10):
    for _ in range(3):
        fn()
    torch.cuda.synchronize()
    samples = []
    for _ in range(reps):
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record()
        fn()
        b.record()
        b.synchronize()
        samples.append(a.elapsed_time(b))
    return statistics.median(samples), min(samples), max(samples)


def kmeans(x, m, iters):
    a = x[:m].clone()
    xn = (x * x).sum(1, keepdim=True)
    for _ in range(iters):
        d = xn - 2.0 * (x @ a.T) + (a * a).sum(1)
        asg = d.argmin(1)
        sums = torch.zeros_like(a).index_add_(0, asg, x)
        cnt = torch.bincount(asg, minlength=m).clamp(min=1).unsqueeze(1).to(x.dtype)
        a = sums / cnt
    return a


def main():
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    print(f"torch {torch.__version__} on {torch.cuda.get_device_name()}")
    g = torch.Generator(device="cuda").manual_seed(1)
    x = torch.rand(10000, 128, device="cuda", generator=g) * 2 - 1
    med, lo, hi = time_ms(lambda: kmeans(x, 256, 31))
    print(f"torch kmeans n=10000,d=128,m=256 31 iterations: median {med:.3f} ms (min {lo:.3f}, max {hi:.3f})")
    x = torch.rand(1000000, 128, device="cuda", generator=g) * 2 - 1
    a = torch.rand(1024, 128, device="cuda", generator=g) * 2 - 1
    med, lo, hi = time_ms(lambda: torch.cdist(x, a).argmin(1))
    print(f"torch cdist+argmin n=1000000,d=128,m=1024: median {med:.3f} ms (min {lo:.3f}, max {hi:.3f})")
    med, lo, hi = time_ms(lambda: x @ a.T)
    flop = 2.0 * 1000000 * 1024 * 128
    print(f"torch fp32 GEMM floor x@a.T n=1000000,d=128,m=1024: median {med:.3f} ms ({flop / med / 1e9:.1f} TFLOP/s fp32, "
          f"min {lo:.3f}, max {hi:.3f})")


if __name__ == "__main__":
    main()
