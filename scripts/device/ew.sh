# scripts/device/ew.sh - phase ew of scripts/device-run.sh, which sources it (its header says what the phase does)
has ew && bench elementwise --backend cpu,cuda,vulkan --workload elementwise --preset default
