# scripts/device/nccllogab.sh - phase nccllogab of scripts/device-run.sh, which sources it (its header says what the phase does)
if has nccllogab; then # issue 33: does arming NCCL's INIT log (transport_reported) move the timings? The
  # collectives' XPB_NCCLLOG_PRESET (quick) on every GPU, the log armed (NCCL_DEBUG unset) and not
  # (NCCL_DEBUG=WARN), XPB_NCCLLOG_ROUNDS (2) a side alternated, each its own process; compare
  # armed against unarmed, and each side's runs against each other (A/A)
  for ((k = 1; k <= ${XPB_NCCLLOG_ROUNDS:-2}; k++)); do
    for side in armed unarmed; do
      stamp "nccllogab: round $k, $side"
      if [ $side = armed ]; then
        env -u NCCL_DEBUG -u NCCL_DEBUG_SUBSYS -u NCCL_DEBUG_FILE $bin run --backend cuda --devices all --workload collectives \
            --preset "${XPB_NCCLLOG_PRESET:-quick}" --out "$out/nccllog-$side$k.json" > "$out/nccllog-$side$k.txt" 2>&1 || status=1
      else
        NCCL_DEBUG=WARN $bin run --backend cuda --devices all --workload collectives \
            --preset "${XPB_NCCLLOG_PRESET:-quick}" --out "$out/nccllog-$side$k.json" > "$out/nccllog-$side$k.txt" 2>&1 || status=1
      fi
      python3 -c 'import json,sys; n=[d for d in json.load(open(sys.argv[1]))["system"]["devices"] if "nccl" in d][0]["nccl"]; print("nccllogab:", sys.argv[2], "transport_reported", n.get("transport_reported"), n.get("transport_reported_why",""))' \
          "$out/nccllog-$side$k.json" "$side$k" 2>&1 | tee -a "$out/bench.txt"
    done
  done
  for pair in "unarmed1 armed1" "unarmed2 armed2" "armed1 armed2" "unarmed1 unarmed2"; do
    set -- $pair
    stamp "nccllogab: compare $1 -> $2"
    $bin compare "$out/nccllog-$1.json" "$out/nccllog-$2.json" > "$out/nccllog-compare-$1-$2.txt" 2>&1
    grep -iE "verdict|slower|faster|summary|cases" "$out/nccllog-compare-$1-$2.txt" | tail -4 | tee -a "$out/bench.txt"
  done
fi
