#!/usr/bin/env python3
"""Replays a burst dump (xpubench run --workload burst --dump DIR) from the dump alone.

A second implementation of docs/workloads.md section 4, in numpy, written from the contract: it
reads the network and the parameters from the sidecar's files, runs the bursts, and compares its
fired sets and final v bit for bit with the dumped reference run and with every dumped device run
(a batched run: its fired and event counts per burst, its last fired set and its final v). On a
difference it names the first burst and the neurons that differ.

Usage: burst-replay.py SIDECAR.json       exit 0: every run replays; 1: a difference; 2: bad input
"""
import json
import os
import sys

try:
    import numpy as np
except ImportError:  # a fresh machine's python3: numpy lives in the project's .venv
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    print(f"burst-replay: numpy is not installed for {sys.executable}: run {root}/scripts/replay SIDECAR.json, "
          f"which picks a Python that has it (after {root}/scripts/report-env.sh)", file=sys.stderr)
    sys.exit(2)

U32 = np.uint32


def pcg_hash(x):
    """pcg_hash on uint32 arrays, every operation mod 2^32 (the contract's pinned definition)."""
    with np.errstate(over="ignore"):
        state = x * U32(747796405) + U32(2891336453)
        word = ((state >> ((state >> U32(28)) + U32(4))) ^ state) * U32(277803737)
        return (word >> U32(22)) ^ word


def load(dirname, entry):
    return np.load(os.path.join(dirname, entry["file"]))


class Network:
    def __init__(self, dirname, sidecar):
        a = sidecar["arrays"]
        get = lambda k: load(dirname, a["net." + k])
        self.offsets = get("offsets").astype(np.int64)
        self.targets = get("targets").astype(np.int64)
        self.wp = get("weight").astype(np.int64) * get("psp").astype(np.int64)
        self.inhibitory = get("inhibitory") != 0
        self.threshold, self.threshold_limit = get("threshold"), get("threshold_limit")
        self.leak, self.excitability = get("leak"), get("excitability")
        self.refractory, self.fire_limit, self.snooze = get("refractory"), get("fire_limit"), get("snooze")
        cfg = sidecar["config"]
        self.n = int(cfg["neurons"])
        self.stim = int(cfg["stim"])
        self.stim_floor = U32(int(cfg["stim_floor"]))
        self.scale = np.frombuffer(int(cfg["scale_bits"], 16).to_bytes(4, "little"), dtype=np.float32)[0]
        self.bursts = int(cfg["bursts"])
        self.ids = np.arange(self.n, dtype=U32)
        # each synapse's signed input, and its source (for the propagation of a fired set)
        self.degree = np.diff(self.offsets)
        self.source = np.repeat(np.arange(self.n), self.degree)
        self.signed = np.where(self.inhibitory[self.source], -self.wp, self.wp)


def burst(net, b, prev, v, countdown, count):
    """Burst b from the fired set prev: returns the fired ids ascending and the events; updates
    v, countdown and count in place (steps 1-3 of section 4, in its order)."""
    # 1. propagation, int32 sums (exact in int64 here; the generator keeps them inside int32)
    rows = [np.arange(net.offsets[s], net.offsets[s + 1]) for s in prev]
    syn = np.concatenate(rows) if rows else np.zeros(0, dtype=np.int64)
    inp = np.zeros(net.n, dtype=np.int64)
    np.add.at(inp, net.targets[syn], net.signed[syn])
    # 2. stimulus
    with np.errstate(over="ignore"):
        draw = pcg_hash(net.ids * U32(3266489917) + U32(b) * U32(668265263) + U32(374761393))
    inp += np.where(draw < net.stim_floor, net.stim, 0)
    assert np.all(np.abs(inp) < 2**31)
    limit = net.fire_limit
    hit_before = (limit > 0) & (count >= limit)
    # a. refractory: count down, no integration, no leak
    refr = countdown > 0
    countdown[refr] -= 1
    count[refr & (countdown == 0) & hit_before] = 0
    act = ~refr
    # b. v += (float)input * scale, fp32, two roundings
    f = inp.astype(np.float32) * net.scale
    v2 = (v + f).astype(np.float32)
    # c. candidates; d. limit hit: no fire, count = 0; e. excitability
    cand = act & (net.threshold <= v2) & ((net.threshold_limit == 0) | (v2 <= net.threshold_limit))
    d = cand & hit_before
    count[d] = 0
    ex = net.excitability
    with np.errstate(over="ignore"):
        edraw = pcg_hash(net.ids * U32(2654435761) + U32(b) * U32(1597334677))
    fire = cand & ~d & ((ex >= np.float32(0.999)) |
                        ((ex > 0) & (edraw.astype(np.float64) < ex.astype(np.float64) * 4294967296.0)))
    # f. fire: v = 0, count += 1, countdown = refractory (+ snooze if the limit is now hit)
    count[fire] += 1
    hit_now = (limit > 0) & (count >= limit)
    countdown[fire] = net.refractory[fire] + np.where(hit_now[fire], net.snooze[fire], 0)
    v[fire] = 0
    # g. otherwise: count = 0 where a limit is set; v *= (1 - leak)
    rest = act & ~fire
    count[rest & (limit > 0)] = 0
    keep = (np.float32(1) - net.leak).astype(np.float32)
    v[rest] = (v2[rest] * keep[rest]).astype(np.float32)
    return np.nonzero(fire)[0].astype(U32), int(net.degree[prev].sum()) if len(prev) else 0


def replay(net):
    v = np.zeros(net.n, dtype=np.float32)
    countdown = np.zeros(net.n, dtype=U32)
    count = np.zeros(net.n, dtype=U32)
    prev = np.zeros(0, dtype=np.int64)
    sets, events = [], []
    for b in range(net.bursts):
        fired, ev = burst(net, b, prev, v, countdown, count)
        sets.append(fired)
        events.append(ev)
        prev = fired.astype(np.int64)
    return sets, events, v


def first_difference(name, sets, v, fired, starts, final_v, last_only=False):
    """None when equal, else a line naming the first burst and up to 8 neurons that differ."""
    bursts = range(len(sets) - 1, len(sets)) if last_only else range(len(sets))
    for i, b in enumerate(bursts):
        got = fired[int(starts[i]):int(starts[i + 1])]
        if not np.array_equal(got, sets[b]):
            diff = np.setxor1d(got, sets[b])
            return f"{name}: burst {b}: fired sets differ at neurons {diff[:8].tolist()} ({len(diff)} in all)"
    bad = np.nonzero(v.view(U32) != final_v.view(U32))[0]
    if len(bad):
        return (f"{name}: final v differs at neurons {bad[:8].tolist()} ({len(bad)} in all), e.g. "
                f"{final_v[bad[0]]!r} vs the replay's {v[bad[0]]!r}")
    return None


def main():
    if len(sys.argv) != 2:
        print(__doc__.strip().splitlines()[-1], file=sys.stderr)
        return 2
    path = sys.argv[1]
    try:
        with open(path) as f:
            side = json.load(f)
        dirname = os.path.dirname(os.path.abspath(path))
        net = Network(dirname, side)
    except (OSError, ValueError, KeyError) as e:
        print(f"burst-replay: {path}: {e}", file=sys.stderr)
        return 2
    sets, events, v = replay(net)
    a = side["arrays"]
    problems = []
    ref = first_difference("reference", sets, v, load(dirname, a["ref.fired"]), load(dirname, a["ref.fired_start"]),
                           load(dirname, a["ref.final_v"]))
    if ref:
        problems.append(ref)
    for key, run in side.get("runs", {}).items():
        ra = run["arrays"]
        counts = load(dirname, ra["counts"])
        want = np.array([[len(s), e] for s, e in zip(sets, events)], dtype=np.uint64).reshape(-1, 2)
        if counts.shape != want.shape or not np.array_equal(counts.astype(np.uint64), want):
            b = int(np.nonzero(np.any(counts.astype(np.uint64) != want, axis=1))[0][0]) if counts.shape == want.shape else 0
            problems.append(f"{key}: burst {b}: fired/events {counts[b].tolist()} vs the replay's {want[b].tolist()}")
            continue
        d = first_difference(key, sets, v, load(dirname, ra["fired"]), load(dirname, ra["fired_start"]),
                             load(dirname, ra["final_v"]), last_only=run.get("batched", False))
        if d:
            problems.append(d)
    fired = sum(len(s) for s in sets)
    print(f"burst-replay: {net.n} neurons, {len(net.targets)} synapses, {net.bursts} bursts, {fired} spikes, "
          f"{sum(events)} events; reference and {len(side.get('runs', {}))} run(s): "
          + ("bit-exact" if not problems else "DIFFER"))
    for p in problems:
        print("  " + p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
