#!/bin/bash
# Runs embed.py for every variant (1 core, niced). Usage: ./run_all.sh [names...]
cd "$(dirname "$0")"
names=${@:-fused_fp32 opt_fp32 strata_i8_pc strata_i8_pc_rr strata_i8_pt strata_i8_pc_gather fused_i8_pc fused_i8_pc_rr fused_i8_pc_qatt}
for n in $names; do
  nice -n 19 taskset -c 1 venv/bin/python embed.py models/$n.onnx $n 1024 2 2>&1 | grep -v Warning
done
