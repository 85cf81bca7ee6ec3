# scripts/device/nettransport.sh - phase nettransport of scripts/device-run.sh, which sources it (its header says what the phase does)
if has nettransport; then # issue 33: the code that runs across nodes, on one host: NCCL's network transport forced
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
  np=$(nvidia-smi -L | grep -c "^GPU")
  # the results' nccl entry: the transport expected from the environment, and the one NCCL's own
  # log reports (transport_reported: xpubench reads NCCL's INIT log, so NCCL_DEBUG stays unset here)
  nccl_said() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1]))["system"]["devices"][0].get("nccl",{}); print("expected", d.get("transport_expected"), "| reported", d.get("transport_reported") or d.get("transport_reported_why"))' "$1" 2>&1; }
  stamp "nettransport: collectives conformance under mpirun -np $np, NCCL_P2P_DISABLE=1 NCCL_SHM_DISABLE=1 (sockets on lo)"
  timeout -s TERM "${XPB_NETTRANSPORT_LIMIT_S:-120}" mpirun ${XPB_MPIRUN_ARGS:-} -np "$np" -x NCCL_P2P_DISABLE=1 -x NCCL_SHM_DISABLE=1 -x NCCL_SOCKET_IFNAME=lo \
      $bin run --backend cuda --workload collectives --preset conformance \
      --validate-only --out "$out/nettransport.json" > "$out/nettransport.txt" 2>&1 || status=1
  echo "nettransport: $(grep 'results:' "$out/nettransport.txt" | tail -1); NCCL: $(nccl_said "$out/nettransport.json")" | tee -a "$out/bench.txt"
  # the same without forcing: NCCL's own choice on this host, in one process and under mpirun
  $bin run --backend cuda --devices all --workload collectives --preset conformance --validate-only \
      --out "$out/transport-1proc.json" > "$out/transport-1proc.txt" 2>&1 || status=1
  echo "transport, one process: $(grep 'results:' "$out/transport-1proc.txt" | tail -1); NCCL: $(nccl_said "$out/transport-1proc.json")" | tee -a "$out/bench.txt"
  timeout -s TERM "${XPB_NETTRANSPORT_LIMIT_S:-120}" mpirun ${XPB_MPIRUN_ARGS:-} -np "$np" $bin run --backend cuda --workload collectives \
      --preset conformance --validate-only --out "$out/transport-mpi.json" > "$out/transport-mpi.txt" 2>&1 || status=1
  echo "transport, mpirun: $(grep 'results:' "$out/transport-mpi.txt" | tail -1); NCCL: $(nccl_said "$out/transport-mpi.json")" | tee -a "$out/bench.txt"
fi
