# scripts/device/rowsprof.sh - phase rowsprof of scripts/device-run.sh, which sources it (its header says what the phase does)
if has rowsprof; then # issue 36: why the long rows stop short of the copy roof on this GPU: Nsight Compute
  # over one launch of each CUDA row op's kernel at 1024 x 262144 (XPB_ROWSPROF_VARIANT, default regs)
  # and of the copy's, the same sections for each: DRAM throughput, occupancy, warp states
  ncu=$(command -v ncu || ls /usr/local/cuda/bin/ncu /opt/nvidia/nsight-compute/*/ncu /usr/local/cuda/nsight-compute*/ncu 2>/dev/null | head -1)
  if [ -n "$ncu" ]; then
    for c in "copy/n=268435456/:xpb_eltwise_kernel" "softmax/rows=1024,cols=262144/:xpb_rowop" \
             "rmsnorm/rows=1024,cols=262144/:xpb_rowop" "layernorm/rows=1024,cols=262144/:xpb_rowop"; do
      case_re=${c%%:*} kern=${c##*:} tag=${case_re%%/*}
      [ "$(left_s)" -gt 30 ] || { stamp "rowsprof: deadline, $tag not profiled"; continue; }
      stamp "rowsprof: $ncu over $tag (${XPB_ROWSPROF_VARIANT:-regs})"
      v=${XPB_ROWSPROF_VARIANT:-regs}; [ "$tag" = copy ] && v=default
      # the validated launch (--validate-only: no timed ones), replayed by ncu once a section
      # group with the memory it writes restored and the caches flushed (ncu's defaults)
      # XPB_ROWSPROF_CLOCKS (none): ncu's --clock-control; `base` locks the SM at its base clock
      # (1.5 GHz on the H200), where the row kernels read compute-bound; none keeps the boost clock
      # the timed runs have
      timeout 120 "$ncu" --kernel-name "regex:$kern" --launch-skip 0 --launch-count 1 \
          --clock-control "${XPB_ROWSPROF_CLOCKS:-none}" \
          --section SpeedOfLight --section MemoryWorkloadAnalysis --section Occupancy \
          --section LaunchStats --section WarpStateStats --section SchedulerStats \
          --section ComputeWorkloadAnalysis --section SourceCounters \
          $bin run --backend cuda --variant "$v" --workload elementwise --preset default \
          --filter "$tag/${case_re#*/}" --validate sampled --validate-only > "$out/rowsprof-$tag.txt" 2>&1 || status=1
      grep -E "^ +(SM Frequency|Duration|DRAM Throughput|Memory Throughput|L2 Cache Throughput|Compute \(SM\) Throughput|Achieved Occupancy|Theoretical Occupancy|Registers Per Thread|Block Size|Grid Size|Waves Per SM|Warp Cycles Per Issued Instruction|Avg. Active Threads Per Warp|Issue Slots Busy|One or More Eligible|No Eligible|Executed Ipc Active) " \
          "$out/rowsprof-$tag.txt" | sed "s/^ */rowsprof $tag: /" | tr -s " " | tee -a "$out/bench.txt"
    done
  else
    echo "rowsprof: no ncu (Nsight Compute) on this machine" | tee -a "$out/bench.txt"
  fi
fi
