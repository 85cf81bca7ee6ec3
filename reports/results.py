"""Loading xpubench results files (docs/results-schema.md, schema versions 1 to 3) for the report.

Every problem with a file (missing, truncated, not JSON, another schema or version, wrong field
types) raises ResultsError with a one-line message naming the file; report.py prints it and
exits 2. Nothing here needs matplotlib.
"""

import json
import math
import os

SCHEMA = "xpubench-results"
SCHEMA_VERSION = 3  # 2 adds the stateful workloads' "run" object, 3 names its figures; 1 and 2 are read too
STATUSES = ("ok", "failed-validation", "unsupported", "error", "skipped")


class ResultsError(Exception):
    """A results file that cannot be used; str(e) is the one-line message."""


def _num(v):
    """A finite float, or None (null, missing, NaN)."""
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        return None
    v = float(v)
    return v if math.isfinite(v) else None


def _obj(parent, key, where, path):
    v = parent.get(key)
    if v is None:
        return {}
    if not isinstance(v, dict):
        raise ResultsError(f"{path}: {where}{key}: expected an object")
    return v


def _str(parent, key, where, path, required=False):
    v = parent.get(key)
    if v is None:
        if required:
            raise ResultsError(f"{path}: {where}{key}: missing (required)")
        return ""
    if not isinstance(v, str):
        raise ResultsError(f"{path}: {where}{key}: expected a string")
    return v


def _num_list(parent, key, where, path):
    """An array of numbers (nulls kept as None); [] when absent."""
    v = parent.get(key)
    if v is None:
        return []
    if not isinstance(v, list) or any(x is not None and (isinstance(x, bool) or not isinstance(x, (int, float)))
                                      for x in v):
        raise ResultsError(f"{path}: {where}{key}: expected an array of numbers")
    return [_num(x) for x in v]


class RunOp:
    """One entry of run.ops[]: an op's device time in a breakdown run (seconds: the median over
    the breakdown runs; samples: one per run, empty in files that timed one run)."""

    def __init__(self, d, where, path):
        if not isinstance(d, dict):
            raise ResultsError(f"{path}: {where}: expected an object")
        self.op = _str(d, "op", where + ".", path, True)
        self.seconds = _num(d.get("seconds"))
        self.share = _num(d.get("share"))
        self.launches = _num(d.get("launches"))
        per_run = _obj(d, "per_run", where + ".", path)
        self.samples = [x for x in _num_list(per_run, "samples_s", where + ".per_run.", path) if x is not None]


def _named(d, key, where, path):
    """run.metrics / timings / texts / series (schema 3): {name: entry}; {} when absent."""
    v = d.get(key)
    if v is None:
        return {}
    if not isinstance(v, list) or any(not isinstance(e, dict) or not isinstance(e.get("name"), str) for e in v):
        raise ResultsError(f"{path}: {where}{key}: expected an array of objects with a name")
    return {e["name"]: e for e in v}


class RunOutcome:
    """The run object of a stateful workload's case (docs/results-schema.md, "run"). Schema 3
    names the workload's figures (metrics, timings, texts, series); schema 2 held them in fields
    and objects of their own (energy, trajectory, check.reference_energy, burst), read the same."""

    def __init__(self, d, where, path):
        self.iterations = _num(d.get("iterations"))
        self.converged = bool(d.get("converged", False))
        self.total_s = _num(d.get("total_s"))
        self.breakdown_runs = _num(d.get("breakdown_runs"))
        ops = d.get("ops") or []
        if not isinstance(ops, list):
            raise ResultsError(f"{path}: {where}ops: expected an array")
        self.ops = [RunOp(o, f"{where}ops[{i}]", path) for i, o in enumerate(ops)]
        t = _obj(d, "transfers", where, path)
        self.transfers = {k: _num(t.get(k)) for k in ("upload_s", "h2d_in_run_s", "d2h_in_run_s")}
        # the named figures: {name: value}, {name: {median, p05, p95, count}}, {name: text}, {name: [values]}
        self.metrics = {k: _num(e.get("value")) for k, e in _named(d, "metrics", where, path).items()}
        self.timings = {k: {q: _num(e.get(q + "_s")) for q in ("median", "p05", "p95")} | {"count": _num(e.get("count"))}
                        for k, e in _named(d, "timings", where, path).items()}
        self.texts = {k: e.get("value") if isinstance(e.get("value"), str) else ""
                      for k, e in _named(d, "texts", where, path).items()}
        self.series = {k: _num_list(e, "values", f"{where}series.{k}.", path)
                       for k, e in _named(d, "series", where, path).items()}
        named = "metrics" in d or "series" in d
        check = _obj(d, "check", where, path)
        self.run_checked = bool(check.get("run_checked", False))
        traj = _obj(d, "trajectory", where, path)
        if named:
            self.energy = self.metrics.get("energy")
            self.ratio = self.metrics.get("compression_ratio")
            self.energies = self.series.get("energy", [])
            self.reference_energy = self.metrics.get("reference_energy") if self.run_checked else None
            self.energy_rel_err = self.metrics.get("energy_rel_err")
        else:
            self.energy = _num(d.get("energy"))
            self.ratio = _num(d.get("compression_ratio"))
            self.energies = _num_list(traj, "energy", where + "trajectory.", path)
            self.reference_energy = _num(check.get("reference_energy")) if self.run_checked else None
            self.energy_rel_err = _num(check.get("energy_rel_err"))
        self.reference_iterations = _num(check.get("reference_iterations", check.get("reference_bursts"))) \
            if self.run_checked else None
        self.parted_at = _num(check.get("parted_at", check.get("first_difference_burst")))
        self.summary = _str(check, "summary", where + "check.", path)
        b = d.get("burst")  # burst propagation: schema 2's run.burst, or schema 3's named figures
        if isinstance(b, dict):
            self.burst = BurstRun(b, where + "burst.", path)
        elif named and "per_burst" in self.timings:
            self.burst = BurstRun.named(self)
        else:
            self.burst = None


class BurstRun:
    """A burst case's spikes per burst and per-burst timing: schema 2's run.burst, or (named)
    schema 3's metrics, the per_burst timing and the fired and events series."""

    def __init__(self, d, where, path):
        self.neurons = _num(d.get("neurons"))
        self.bursts = _num(d.get("bursts"))
        self.batched = bool(d.get("batched", False))
        self.events_per_burst = _num(d.get("events_per_burst"))
        self.fired_fraction = _num(d.get("fired_fraction"))
        self.events_per_s = _num(d.get("events_per_s"))
        t = _obj(d, "per_burst_s", where, path)
        self.per_burst = {k: _num(t.get(k)) for k in ("median", "p05", "p95")}
        traj = _obj(d, "trajectory", where, path)
        self.fired = _num_list(traj, "fired", where + "trajectory.", path)
        self.events = _num_list(traj, "events", where + "trajectory.", path)

    @classmethod
    def named(cls, run):
        b = cls.__new__(cls)
        m = run.metrics
        b.neurons = m.get("neurons")
        b.bursts = run.iterations
        b.batched = bool(m.get("batched"))
        b.events_per_burst = m.get("events_per_burst")
        b.fired_fraction = m.get("fired_fraction")
        b.events_per_s = m.get("events_per_s")
        t = run.timings.get("per_burst", {})
        b.per_burst = {k: t.get(k) for k in ("median", "p05", "p95")}
        b.fired = run.series.get("fired", [])
        b.events = run.series.get("events", [])
        return b


class Case:
    """One entry of cases[]: the fields the report draws, numbers as float or None."""

    def __init__(self, d, i, path, run):
        w = f"cases[{i}]."
        if not isinstance(d, dict):
            raise ResultsError(f"{path}: cases[{i}]: expected an object")
        self.run = run
        self.id = _str(d, "id", w, path, True)
        self.backend = _str(d, "backend", w, path, True)
        self.device = _str(d, "device", w, path, True)
        self.variant = _str(d, "variant", w, path, True)
        self.status = _str(d, "status", w, path, True)
        if self.status not in STATUSES:
            raise ResultsError(f"{path}: {w}status: unknown value '{self.status}'")
        parts = self.id.split("/")
        self.workload = _str(d, "workload", w, path) or parts[0]
        self.op = _str(d, "op", w, path) or (parts[1] if len(parts) > 1 else self.id)
        self.dtype = _str(d, "dtype", w, path)
        self.device_name = _str(d, "device_name", w, path)
        self.precision = _str(d, "precision", w, path)
        self.kernel_config = _str(d, "kernel_config", w, path)  # what the kernel chose by itself
        self.message = _str(d, "message", w, path)
        self.software_device = bool(d.get("software_device", False))
        params = _obj(d, "params", w, path)
        self.params = {k: v for k, v in params.items() if _num(v) is not None}
        work = _obj(d, "work", w, path)
        self.elements = _num(work.get("elements"))
        self.bytes = sum(_num(work.get(k)) or 0.0 for k in ("bytes_read", "bytes_written"))
        self.flops = _num(work.get("flops")) or 0.0
        val = _obj(d, "validation", w, path)
        self.validated = bool(val)
        self.passed = bool(val.get("passed", False))
        self.err_over_tol = _num(val.get("max_err_over_tol"))
        self.tolerance = val.get("tolerance", "") if isinstance(val.get("tolerance"), str) else ""
        kernel = _obj(_obj(d, "timing", w, path), "kernel", w + "timing.", path)
        self.median_s = _num(kernel.get("median_s"))
        samples = kernel.get("samples_s") or []
        if not isinstance(samples, list):
            raise ResultsError(f"{path}: {w}timing.kernel.samples_s: expected an array")
        self.samples = [x for x in (_num(s) for s in samples) if x is not None and x > 0]
        th = _obj(d, "throughput", w, path)
        self.gbps = _num(th.get("gbps"))
        self.gflops = _num(th.get("gflops"))
        self.busbw = _num(th.get("busbw_gbps"))  # collectives (nccl-tests' bus bandwidth)
        self.roof_gbps = _num(th.get("roof_gbps"))
        self.roof_source = th.get("roof_source", "") if isinstance(th.get("roof_source"), str) else ""
        self.pct_of_peak_fp32 = _num(th.get("pct_of_peak_fp32")) or None
        self.pct_of_library = _num(th.get("pct_of_library"))
        self.library_variant = th.get("library_variant", "") if isinstance(th.get("library_variant"), str) else ""
        # 0 % of a roof or peak that is unknown (0) means "unknown", never a measured 0
        self.pct_of_roof = _num(th.get("pct_of_roof")) if self.roof_gbps else None
        self.speedup_vs_cpu = _num(th.get("speedup_vs_cpu"))
        self.speedup_cpu_from = ""  # set by the report when the CPU result comes from another file
        self.avg_watts = _num(_obj(d, "power", w, path).get("avg_w"))
        run = _obj(d, "run", w, path)
        self.outcome = RunOutcome(run, w + "run.", path) if run else None  # stateful workloads

    @property
    def timed_ok(self):
        """Validated and timed: the only cases that have a speed."""
        return self.status == "ok" and self.median_s is not None and self.median_s > 0

    @property
    def key(self):
        """What identifies a result across files of one host: (host, case id, device, variant)."""
        return (self.run.hostname, self.id, self.device, self.variant)

    @property
    def op_key(self):
        return f"{self.workload}/{self.op}"

    @property
    def size_label(self):
        parts = self.id.split("/")
        return parts[2] if len(parts) > 2 else self.id

    @property
    def achieved_gflops(self):
        return self.flops / self.median_s / 1e9 if self.timed_ok and self.flops > 0 else None

    @property
    def intensity(self):
        """Arithmetic intensity, flops per byte moved (None when either is 0)."""
        return self.flops / self.bytes if self.flops > 0 and self.bytes > 0 else None


def _device_presets(doc, system_devices, path):
    """{device id: preset} from the devices' optional "preset" field (system.devices[], or a
    top-level devices[]); devices without one are left out."""
    top = doc.get("devices") or []
    if not isinstance(top, list) or not all(isinstance(x, dict) for x in top):
        raise ResultsError(f"{path}: devices: expected an array of objects")
    out = {}
    for where, devices in (("system.devices", system_devices), ("devices", top)):
        for i, d in enumerate(devices):
            preset = _str(d, "preset", f"{where}[{i}].", path)
            if preset:
                out.setdefault(d.get("id", "?"), preset)
    return out


def _completion(doc, path):
    """(complete, interrupted): a run cut short (Ctrl-C, SIGTERM, a time limit) writes
    "complete": false and "interrupted": {signal, cases_finished, cases_planned}; files without
    the field, older ones included, are whole runs."""
    info = _obj(doc, "interrupted", "", path)
    complete = doc.get("complete", not info)
    if not isinstance(complete, bool):
        raise ResultsError(f"{path}: complete: expected true or false")
    interrupted = {"signal": _str(info, "signal", "interrupted.", path),
                   "cases_finished": _num(info.get("cases_finished")),
                   "cases_planned": _num(info.get("cases_planned"))}
    return complete, interrupted


class Run:
    """One results file."""

    def __init__(self, doc, path):
        if not isinstance(doc, dict):
            raise ResultsError(f"{path}: not an xpubench results file (not a JSON object)")
        if doc.get("schema") != SCHEMA:
            raise ResultsError(f"{path}: not an xpubench results file (schema is '{doc.get('schema')}', "
                               f"want '{SCHEMA}')")
        if doc.get("schema_version") not in range(1, SCHEMA_VERSION + 1):
            raise ResultsError(f"{path}: results schema_version {doc.get('schema_version')} is not supported "
                               f"(this report reads versions 1 to {SCHEMA_VERSION})")
        self.path = path
        self.name = os.path.basename(path)
        self.run_id = _str(doc, "run_id", "", path)
        self.created_utc = _str(doc, "created_utc", "", path)
        xb = _obj(doc, "xpubench", "", path)
        self.version = _str(xb, "version", "xpubench.", path)
        self.git_commit = _str(xb, "git_commit", "xpubench.", path)
        self.build = {k: v for k, v in _obj(xb, "build", "xpubench.", path).items() if isinstance(v, str)}
        self.config = _obj(doc, "config", "", path)
        sysd = _obj(doc, "system", "", path)
        self.system = sysd
        self.hostname = _str(sysd, "hostname", "system.", path) or "unknown-host"
        devices = sysd.get("devices") or []
        if not isinstance(devices, list) or not all(isinstance(x, dict) for x in devices):
            raise ResultsError(f"{path}: system.devices: expected an array of objects")
        self.devices = {d.get("id", "?"): d for d in devices}
        self.presets = _device_presets(doc, devices, path)
        self.preset_note = _str(doc, "preset_note", "", path)
        self.complete, self.interrupted = _completion(doc, path)
        cases = doc.get("cases")
        if not isinstance(cases, list):
            raise ResultsError(f"{path}: cases: {'missing (required)' if cases is None else 'expected an array'}")
        self.cases = [Case(c, i, path, self) for i, c in enumerate(cases)]

    def preset_of(self, device):
        """The preset that ran on the device: its own (a file may shorten one device's, e.g. a
        software Vulkan device's), else the run's."""
        return self.presets.get(device) or str(self.config.get("preset", "") or "")

    def cache_bytes(self, device):
        """The device's last-level cache, else that of a device with the same name in the file (a
        Vulkan device reports 0; the same GPU through CUDA knows it); None when unknown."""
        info = self.devices.get(device, {})
        own = _num(info.get("cache_bytes"))
        if own:
            return own
        same = [_num(d.get("cache_bytes")) for i, d in sorted(self.devices.items())
                if i != device and info.get("name") and d.get("name") == info.get("name")]
        return next((b for b in same if b), None)

    def device_peak_gflops(self, device):
        return _num(self.devices.get(device, {}).get("peak_gflops_fp32"))

    def device_label(self, device):
        d = self.devices.get(device, {})
        return f"{device} {d.get('name', '')}".strip()


def load(path):
    """Reads and checks one results file; raises ResultsError with a one-line message."""
    try:
        with open(path, "rb") as f:
            raw = f.read()
    except OSError as e:
        raise ResultsError(f"{path}: cannot read: {e.strerror or e}") from None
    if not raw.strip():
        raise ResultsError(f"{path}: empty results file")
    try:
        doc = json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError as e:
        raise ResultsError(f"{path}: corrupt results file (not UTF-8 text at byte {e.start})") from None
    except json.JSONDecodeError as e:
        if e.pos >= len(raw.rstrip()):
            raise ResultsError(f"{path}: truncated results file (the JSON ends early, at byte {len(raw)})") from None
        raise ResultsError(f"{path}: corrupt results file (invalid JSON at line {e.lineno}, byte {e.pos}: "
                           f"{e.msg})") from None
    except RecursionError:
        raise ResultsError(f"{path}: corrupt results file (nested too deeply)") from None
    return Run(doc, path)
