#!/usr/bin/env python3
"""torch-peer-rows.py - the PyTorch peer of xpubench's row ops on the same GPU, in the same device
call: softmax, rms_norm and layer_norm at the default preset's row sizes, timed with CUDA events
(warm-up first, median of 20 timed runs of 10 launches), GB/s counted like xpubench (x read once,
out written once, plus the per-column parameters). Prints one line per (op, size)."""
import statistics
import torch

SIZES = [(4096, 1000), (4096, 4096), (32768, 4096), (4096, 32768), (1024, 262144)]
EPS = 1e-6


def time_ms(fn):
    for _ in range(5):
        fn()
    torch.cuda.synchronize()
    samples = []
    for _ in range(20):
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record()
        for _ in range(10):
            fn()
        b.record()
        b.synchronize()
        samples.append(a.elapsed_time(b) / 10)
    return statistics.median(samples)


def main():
    print(f"torch {torch.__version__} on {torch.cuda.get_device_name()}")
    for rows, cols in SIZES:
        x = torch.rand(rows, cols, device="cuda") * 2 - 1
        w = torch.rand(cols, device="cuda") + 0.5
        b = torch.rand(cols, device="cuda") - 0.5
        ops = {
            "softmax": (lambda: torch.softmax(x, dim=-1), 0),
            "rmsnorm": (lambda: torch.nn.functional.rms_norm(x, (cols,), w, EPS), 1),
            "layernorm": (lambda: torch.nn.functional.layer_norm(x, (cols,), w, b, EPS), 2),
        }
        for name, (fn, params) in ops.items():
            ms = time_ms(fn)
            gbytes = (2 * rows * cols + params * cols) * 4 / 1e9
            print(f"torch {name:9s} rows={rows},cols={cols}  {ms * 1e3:10.1f} us  {gbytes / (ms / 1e3):7.0f} GB/s")


if __name__ == "__main__":
    main()
