# scripts/device/tcncu.sh - phase tcncu of scripts/device-run.sh, which sources it (its header says what the phase does)
if has tcncu; then # issue 36: what limits the tensor-core assign (Nsight Compute over one xpb_tc_assign_kernel
  # launch at 1M x 128, m = 1024): throughput of each unit, shared-memory wavefronts, warp states
  ncu=$(command -v ncu || ls /usr/local/cuda/bin/ncu /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
  if [ -n "$ncu" ]; then
    stamp "tcncu: $ncu over xpb_tc_assign_kernel"
    timeout 240 "$ncu" --kernel-name regex:xpb_tc_assign_kernel --launch-skip 2 --launch-count 1 --clock-control none \
        --section SpeedOfLight --section MemoryWorkloadAnalysis --section MemoryWorkloadAnalysis_Tables --section Occupancy \
        --section LaunchStats --section WarpStateStats --section SchedulerStats --section ComputeWorkloadAnalysis \
        --section InstructionStats --section SourceCounters \
        $bin run --backend cuda --variant tc --workload anneal --size n=1000000,d=128,m=1024,iters=3 --validate-only \
        > "$out/tcncu.txt" 2>&1 || status=1
    grep -E "^ +(Duration|DRAM Throughput|Memory Throughput|L1/TEX Cache Throughput|L2 Cache Throughput|Compute \(SM\) Throughput|Achieved Occupancy|Theoretical Occupancy|Registers Per Thread|Block Size|Grid Size|Waves Per SM|Shared Memory Configuration Size|Dynamic Shared Memory Per Block|Warp Cycles Per Issued Instruction|Issue Slots Busy|No Eligible|Executed Ipc Active|Stall [A-Za-z ]+) " \
        "$out/tcncu.txt" | sed "s/^ */tcncu: /" | tr -s " " | tee -a "$out/bench.txt"
    grep -E "OPT|WRN|Bank|pipe" "$out/tcncu.txt" | head -20 | cut -c1-240 | sed "s/^ */tcncu: /" >> "$out/bench.txt"
  else
    echo "tcncu: no ncu (Nsight Compute) on this machine" | tee -a "$out/bench.txt"
  fi
fi
