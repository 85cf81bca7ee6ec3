# scripts/device/burstncu.sh - phase burstncu of scripts/device-run.sh, which sources it (its header says what the phase does)
if has burstncu; then # issue 33: what limits a sharded burst's per-rank kernels (Nsight Compute): propagate from
  # the bits and dynamics at XPB_BURSTPROF_SIZE (5M x 100), plain launches, on a group of one GPU (one process)
  # and on rank 0 of mpirun -np <GPUs> (the other ranks run unprofiled, so NCCL's exchange still pairs up);
  # one launch of each after XPB_BURSTNCU_SKIP (20), caches left as the run leaves them (--cache-control none)
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
  ncu=$(command -v ncu || ls /usr/local/cuda/bin/ncu /opt/nvidia/nsight-compute/*/ncu /usr/local/cuda/nsight-compute*/ncu 2>/dev/null | head -1)
  np=$(nvidia-smi -L | grep -c "^GPU")
  sz=${XPB_BURSTPROF_SIZE:-neurons=5000000,fanout=100,bursts=100,batched=1}
  if [ -n "$ncu" ]; then
    for kern in propagate_bits dynamics; do
      for where in one mpi; do
        [ "$(left_s)" -gt 60 ] || { stamp "burstncu: deadline, $kern on $where not profiled"; continue; }
        stamp "burstncu: $ncu over xpb_burst_${kern}_kernel, $where"
        nargs=("$ncu" --kernel-name "regex:xpb_burst_${kern}_kernel" --launch-skip "${XPB_BURSTNCU_SKIP:-20}" --launch-count 1
               --cache-control none --clock-control none --section SpeedOfLight --section MemoryWorkloadAnalysis
               --section Occupancy --section LaunchStats --section WarpStateStats --section SchedulerStats
               --metrics lts__t_requests_op_red.sum,lts__t_requests_op_atom.sum,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sectors_srcunit_tex_op_read.sum)
        rargs=(run --backend cuda --workload burst --size "$sz" --min-time 0.001 --rounds 1)
        if [ "$where" = one ]; then
          XPB_CUDA_SHARDED_PROPAGATE=bits XPB_CUDA_SHARDED_CAPTURE=never timeout 200 "${nargs[@]}" $bin "${rargs[@]}" \
              --devices 0 > "$out/burstncu-$kern-$where.txt" 2>&1 || status=1
        else
          # rank 0 under ncu, the rest plain: an NCCL group profiled whole would serialize its ranks
          printf '#!/bin/sh\nif [ "$OMPI_COMM_WORLD_RANK" = 0 ]; then exec "$@"; fi\nshift %d\nexec "$@"\n' "${#nargs[@]}" \
              > "$out/ncu-rank0.sh"
          XPB_CUDA_SHARDED_PROPAGATE=bits XPB_CUDA_SHARDED_CAPTURE=never timeout 200 mpirun ${XPB_MPIRUN_ARGS:-} -np "$np" \
              -x XPB_CUDA_SHARDED_PROPAGATE -x XPB_CUDA_SHARDED_CAPTURE sh "$out/ncu-rank0.sh" "${nargs[@]}" $bin "${rargs[@]}" \
              > "$out/burstncu-$kern-$where.txt" 2>&1 || status=1
        fi
        grep -E "^ +(Duration|DRAM Throughput|Memory Throughput|L2 Cache Throughput|L1/TEX Cache Throughput|Compute \(SM\) Throughput|Achieved Occupancy|Theoretical Occupancy|Registers Per Thread|Grid Size|Waves Per SM|Warp Cycles Per Issued Instruction|Issue Slots Busy|No Eligible|Stall [A-Za-z ]+|lts__t_requests_op_red.sum|lts__t_requests_op_atom.sum|dram__bytes_read.sum|dram__bytes_write.sum|lts__t_sectors_srcunit_tex_op_read.sum) " \
            "$out/burstncu-$kern-$where.txt" | sed "s/^ */burstncu $kern $where: /" | tr -s " " | tee -a "$out/bench.txt"
        grep -E "OPT|WRN" "$out/burstncu-$kern-$where.txt" | head -6 | cut -c1-240 | sed "s/^ */burstncu $kern $where: /" >> "$out/bench.txt"
      done
    done
  else
    echo "burstncu: no ncu (Nsight Compute) on this machine" | tee -a "$out/bench.txt"
  fi
fi
