# scripts/device/burstprof.sh - phase burstprof of scripts/device-run.sh, which sources it (its header says what the phase does)
if has burstprof; then # issue 33: where a sharded burst's device time goes: nsys's kernel summary, 5M x 100
  # batched, for each of XPB_BURSTPROF_DEVICES (default "one all": one GPU's own kernels, then the
  # group of every GPU in one process; graphs traced node by node), then the group's phase marks
  # (XPB_CUDA_SHARDED_PROFILE=1, plain launches) on XPB_BURSTPROF_PHASES (default "0,1 all")
  nsys=$(command -v nsys || ls /usr/local/cuda/bin/nsys /opt/nvidia/nsight-systems/*/bin/nsys 2>/dev/null | head -1)
  sz=${XPB_BURSTPROF_SIZE:-neurons=5000000,fanout=100,bursts=100,batched=1}
  if [ -n "$nsys" ]; then
    for devs in ${XPB_BURSTPROF_DEVICES:-one all}; do
      where="--devices $devs"; [ "$devs" = one ] && where="--backend cuda:0"
      [ "$devs" = one ] || where="--backend cuda $where"
      stamp "burstprof: $nsys over $where"
      timeout 200 "$nsys" profile --trace=cuda --cuda-graph-trace=node -f true -o "$out/burstprof-$devs" $bin run \
          $where --workload burst --min-time 0.02 --size "$sz" > "$out/burstprof-run-$devs.txt" 2>&1 || status=1
      "$nsys" stats --report cuda_gpu_kern_sum --report cuda_api_sum --format csv -o "$out/burstprof-$devs" \
          "$out/burstprof-$devs.nsys-rep" > /dev/null 2>&1 || status=1
      rm -f "$out/burstprof-$devs.nsys-rep" "$out/burstprof-$devs.sqlite"
      for f in "$out/burstprof-${devs}_cuda_gpu_kern_sum.csv" "$out/burstprof-${devs}_cuda_api_sum.csv"; do
        [ -f "$f" ] && python3 -c 'import csv,sys
r=list(csv.DictReader(open(sys.argv[1])))
for x in r[:10]: print("burstprof", sys.argv[2], x.get("Name","")[:60], "n", x.get("Instances", x.get("Num Calls")), "avg us %.1f" % (float(x.get("Avg (ns)",0))/1e3), "med us %.1f" % (float(x.get("Med (ns)",0))/1e3), "total ms %.1f" % (float(x.get("Total Time (ns)",0))/1e6))' "$f" "$devs" | tee -a "$out/bench.txt"
      done
    done
  else
    echo "burstprof: no nsys on this machine" | tee -a "$out/bench.txt"
  fi
  for devs in ${XPB_BURSTPROF_PHASES-0,1 all}; do
    stamp "burstprof: phase marks on --devices $devs (XPB_CUDA_SHARDED_PROFILE=1)"
    XPB_CUDA_SHARDED_PROFILE=1 timeout 200 $bin run --backend cuda --devices "$devs" --workload burst --min-time 0.02 \
        --size "$sz" --out "$out/burstprof-phases-${devs//,/_}.json" > "$out/burstprof-phases-${devs//,/_}.txt" 2>&1 || status=1
    grep "burst/sharded profile" "$out/burstprof-phases-${devs//,/_}.txt" | tail -8 | tee -a "$out/bench.txt"
  done
fi
