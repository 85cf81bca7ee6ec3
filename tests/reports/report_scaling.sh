#!/usr/bin/env bash
# report_scaling.sh XPUBENCH WORKDIR - the report's "Scaling across GPUs" section on synthetic
# multi-device results: a sharded GEMM at 1, 2 and 4 GPUs, an all_reduce at 1 and 2 and an anneal
# run (a stateful run whose group size is its device's) at 1 and 4, one file per group size as the
# device writes them; the table's speedup and efficiency are the ones the
# times imply, and a one-size file draws no scaling figure. Skipped (77) without the Python
# environment (scripts/report-env.sh).
set -u
bin=$1 work=$2
. "$(dirname "$0")/report_lib.sh"
"$py" "$here/synth_results.py" --anneal base.json || exit 1
"$py" - <<'PY' || exit 1
import copy, json
base = json.load(open("base.json"))
tmpl = next(c for c in base["cases"] if c["status"] == "ok" and c["backend"] == "cuda" and c["workload"] != "anneal")
ann = next(c for c in base["cases"] if c["workload"] == "anneal" and c["backend"] == "cuda")
def anneal(gpus, total):  # 10 iterations in total seconds; the device names the group
    c = copy.deepcopy(ann)
    c["device"] = "cuda:" + ",".join(str(i) for i in range(gpus))
    c["run"].update(iterations=10, total_s=total)
    return c
def case(workload, op, params, gpus, median, variant, flops=0.0, busbw=None):
    c = copy.deepcopy(tmpl)
    size = ",".join(f"{k}={v}" for k, v in params.items())
    c.update(id=f"{workload}/{op}/{size},gpus={gpus}/fp32", workload=workload, op=op, variant=variant,
             params=dict(params, gpus=gpus), device="cuda:" + ",".join(str(i) for i in range(gpus)))
    c["work"]["flops"] = flops
    k = c["timing"]["kernel"]
    k.update(median_s=median, samples_s=[median] * 5, n=5)
    c["throughput"]["busbw_gbps"] = busbw
    return c
for gpus, t in ((1, 0.160), (2, 0.084), (4, 0.050)):  # speedups 1.90 and 3.20: efficiencies 0.952, 0.8
    cases = [case("sharded", "gemm_sharded", {"m": 16384, "n": 16384, "k": 16384}, gpus, t, "cublas",
                  flops=2.0 * 16384 ** 3)]
    if gpus in (1, 4):  # 10 iterations in 0.2 s, then 0.08 s: 50 and 125 iterations/s, 2.5x
        cases.append(anneal(gpus, 0.2 if gpus == 1 else 0.08))
    if gpus <= 2:
        cases.append(case("collectives", "all_reduce", {"bytes": 1 << 30}, gpus, 0.01, "nccl",
                          busbw=0.0 if gpus == 1 else 360.0))
    r = copy.deepcopy(base)
    r["cases"] = cases
    r["run_id"] = f"{base['run_id']}-g{gpus}"  # one run per group size, as on the device
    json.dump(r, open(f"g{gpus}.json", "w"))
r = copy.deepcopy(base)
r["cases"] = [case("sharded", "gemm_sharded", {"m": 4096, "n": 4096, "k": 4096}, 1, 0.003, "cublas", 2.0 * 4096 ** 3)]
json.dump(r, open("one.json", "w"))
PY
"$bin" report g1.json g2.json g4.json -o rep >out.txt 2>&1 && ok || bad "report: $(tail -5 out.txt)"
html=rep/index.html
grep -q "Scaling across GPUs" $html && ok || bad "no scaling section"
grep -q "sharded/gemm_sharded: scaling across GPUs" $html && ok || bad "no sharded GEMM scaling figure"
ls rep/plots/ | grep -q "scaling_sharded" && ok || bad "no scaling plot file: $(ls rep/plots)"
grep -q ">1.9<" $html && grep -q ">0.952<" $html && ok || bad "speedup 1.9 / efficiency 0.95 at 2 GPUs not in the table"
grep -q ">3.2<" $html && grep -q ">0.8<" $html && ok || bad "speedup 3.2 / efficiency 0.8 at 4 GPUs not in the table"
grep -q "collectives/all_reduce: scaling across GPUs" $html && ok || bad "no all_reduce scaling figure"
grep -q "anneal/compress: scaling across GPUs" $html && ok || bad "no anneal run scaling figure"
grep -q ">2.5<" $html && grep -q ">0.625<" $html && ok || bad "anneal speedup 2.5 / efficiency 0.625 at 4 GPUs not in the table"
"$bin" report one.json -o rep1 >out1.txt 2>&1 && ok || bad "report of one group size: $(tail -5 out1.txt)"
! grep -q "scaling across GPUs" rep1/index.html && ok || bad "a figure drawn from one group size"
finish
