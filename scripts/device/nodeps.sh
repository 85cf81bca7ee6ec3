# scripts/device/nodeps.sh - phase nodeps of scripts/device-run.sh, which sources it (its header says what the phase does)
if has nodeps; then # issue 32: a CUDA toolkit without NCCL and without MPI builds and passes conformance
  stamp "nodeps: build with -DXPB_NCCL=OFF -DXPB_MPI=OFF (sm_90), then the CUDA conformance preset"
  # shellcheck disable=SC2086
  { cmake -S . -B build-nodeps -DCMAKE_BUILD_TYPE=Release -DXPB_CUDA=ON -DXPB_VULKAN=OFF -DXPB_NCCL=OFF \
      -DXPB_MPI=OFF -DXPB_WERROR=ON -DBUILD_TESTING=OFF -DCMAKE_CUDA_ARCHITECTURES=90 ${XPB_DEVICE_CMAKE_ARGS:-} \
      && cmake --build build-nodeps -j "$(nproc)" --target xpubench; } > "$out/build-nodeps.log" 2>&1 \
    || { tail -30 "$out/build-nodeps.log"; status=1; }
  grep -E "cuda backend|mpi launch" "$out/build-nodeps.log" | tee -a "$out/bench.txt"
  build-nodeps/xpubench run --backend cuda --preset conformance --validate-only --out "$out/nodeps-conformance.json" \
      > "$out/nodeps-conformance.txt" 2>&1 || status=1
  tail -1 "$out/nodeps-conformance.txt" | sed 's/^/nodeps conformance: /' | tee -a "$out/bench.txt"
  build-nodeps/xpubench run --backend cuda --devices 0 --workload collectives --preset quick \
      > "$out/nodeps-devices.txt" 2>&1
  echo "nodeps --devices 0: exit $? ($(tail -1 "$out/nodeps-devices.txt"))" | tee -a "$out/bench.txt"
fi
