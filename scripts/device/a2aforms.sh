# scripts/device/a2aforms.sh - phase a2aforms of scripts/device-run.sh, which sources it (its header says what the phase does)
if has a2aforms; then # issue 33: all_to_all as grouped send/recv pairs (the collectives' form) and as
  # ncclAlltoAll (NCCL 2.28), alternated rounds at XPB_A2AFORMS_MIB (16 64 256), tests/alltoall_forms.cu
  stamp "a2aforms: all_to_all's two NCCL forms on every GPU"
  timeout 200 build-device/tests/alltoall_forms "${XPB_A2AFORMS_ROUNDS:-6}" 20 ${XPB_A2AFORMS_MIB:-16 64 256} 2>&1 \
      | tee -a "$out/a2aforms.txt" "$out/bench.txt" || status=1
fi
