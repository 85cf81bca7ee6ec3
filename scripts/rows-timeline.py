#!/usr/bin/env python3
"""rows-timeline.py - where a long row's block spends its life, from the timeline that the
diagnostic scripts/patches/rows-regs-timeline.patch makes cuda/regs write (XPB_REGS_TIMELINE=PREFIX:
the 20th launch of each case, PREFIX.<kernel>.<rows>x<cols>.bin).

  python3 scripts/rows-timeline.py PREFIX.*.bin

Per block (thread 0's readings): load = start to its block reduction (its loads landed and
folded); wait = to its role (publish, arrive, poll the row's counter); merge = to the statistics'
broadcast; write = to its stores issued. The wait splits, per row, into the part spent on the row's
other chunks (the row's last block reduction minus this block's) and the signal (this block's
role minus the row's last block reduction: the last arrival's add and the poll that sees it).
Times from %globaltimer (ns, the same clock on every SM; its step is printed, as on some GPUs it
moves in microseconds) and from clock64 (the SM's cycles, converted at the clock the two give)."""
import statistics
import struct
import sys


def pct(v, q):
    v = sorted(v)
    return v[min(len(v) - 1, int(q * (len(v) - 1) + 0.5))] if v else float("nan")


def row(label, v, unit="ns", life=None):
    share = f"  {100 * statistics.fmean(v) / life:5.1f}% of a block's life" if life else ""
    print(f"  {label:34s} median {pct(v, 0.5):9.0f} {unit}  p10 {pct(v, 0.1):9.0f}  p90 {pct(v, 0.9):9.0f}{share}")


def one(path):
    with open(path, "rb") as f:
        head = struct.unpack("<8q", f.read(64))
        words, rows, cols, chunks, block, values, minb, tasks = head
        data = f.read()
    if len(data) < tasks * words * 8:
        sys.exit(f"rows-timeline: {path}: {len(data)} bytes of data, expected {tasks * words * 8}")
    w = struct.unpack(f"<{tasks * words}Q", data[: tasks * words * 8])
    T = [w[i * words:(i + 1) * words] for i in range(tasks)]
    print(f"{path}: {rows} x {cols}, {chunks} chunks a row, shape {block}x{values}x{minb}, {tasks} blocks")
    if chunks < 2:
        print("  one chunk a row: no exchange to time")
        return
    roles = [t[5] >> 8 & 3 for t in T]
    kept = [i for i in range(tasks) if roles[i] != 0]  # handed-over blocks stop at their role
    print(f"  roles: {roles.count(2)} completers, {roles.count(1)} owners, {roles.count(0)} handed over")
    g = sorted({T[i][k] for i in kept for k in range(5)})
    step = min((b - a for a, b in zip(g, g[1:])), default=0)
    print(f"  globaltimer: its smallest step between readings {step} ns" + (" (coarse: trust the clock64 rows)" if step >= 100 else ""))
    # the SM clock from the two timers over each whole life
    ghz = statistics.median((T[i][10] - T[i][6]) / (T[i][4] - T[i][0]) for i in kept if T[i][4] > T[i][0])
    print(f"  SM clock from clock64 / globaltimer: {ghz:.2f} GHz")
    life = [T[i][4] - T[i][0] for i in kept]
    mean_life = statistics.fmean(life)
    span = max(T[i][4] for i in kept) - min(t[0] for t in T)
    print(f"  kernel span (first start to last store issued) {span / 1e3:.1f} us; "
          f"blocks resident on average {sum(life) / span:.0f}")
    row("life (globaltimer)", life)
    row("load + fold (globaltimer)", [T[i][1] - T[i][0] for i in kept], life=mean_life)
    row("wait: publish to role", [T[i][2] - T[i][1] for i in kept], life=mean_life)
    row("merge and broadcast", [T[i][3] - T[i][2] for i in kept], life=mean_life)
    row("write issued", [T[i][4] - T[i][3] for i in kept], life=mean_life)
    cyc = lambda i, a, b: (T[i][6 + b] - T[i][6 + a]) / ghz  # noqa: E731
    row("load + fold (clock64)", [cyc(i, 0, 1) for i in kept], life=mean_life)
    row("wait (clock64)", [cyc(i, 1, 2) for i in kept], life=mean_life)
    row("merge (clock64)", [cyc(i, 2, 3) for i in kept], life=mean_life)
    row("write (clock64)", [cyc(i, 3, 4) for i in kept], life=mean_life)
    # per row: the wait for the other chunks against the signal
    sib, sig, start_spread, load_spread = [], [], [], []
    for r in range(rows):
        idx = range(r * chunks, (r + 1) * chunks)
        last = max(T[i][1] for i in idx)
        start_spread.append(max(T[i][0] for i in idx) - min(T[i][0] for i in idx))
        load_spread.append(last - min(T[i][1] for i in idx))
        for i in idx:
            if roles[i] == 1:  # owners: the completer's own wait is its add
                sib.append(last - T[i][1])
                sig.append(T[i][2] - last)
    row("owners: for the row's other chunks", sib, life=mean_life)
    row("owners: signal after the last", sig, life=mean_life)
    row("a row's chunks: spread of starts", start_spread)
    row("a row's chunks: spread of reductions", load_spread)


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    for p in sys.argv[1:]:
        one(p)
