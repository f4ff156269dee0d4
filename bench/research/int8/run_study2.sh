#!/bin/bash
# Second study (per-row activation scales): builds every variant in the README table, then cosine
# (1,024 passages) and the interleaved 1-core / 2-core speed runs.  Needs passages.json,
# models/strata_fp32.onnx + models/mha_fp32.onnx (python build_graph.py ./models) and
# out/strata_fp32.npy (python embed.py models/strata_fp32.onnx strata_fp32).
set -e
cd "$(dirname "$0")"
PY=venv/bin/python
$PY calib.py          # out/calib_chan.json (per-channel |x| max, passages[1024:1280]) for ta=...
B() { $PY build_rowq.py "$@" | cut -c1-200; }
B rq_dqmm      qkv=dqmm   o=dqmm   up=dqmm   down=dqmm                 # = first study's 1.79x graph
B rq_mi_all    qkv=rowmi  o=rowmi  up=rowmi  down=rowmi                # standard ops, int8 x int8 MatMulInteger
B rq_miu_all   qkv=rowmiu o=rowmiu up=rowmiu down=rowmiu               # standard ops, u8(zp 128) x int8
B rq_tf_all    qkv=rowtf  o=rowtf  up=rowtf  down=rowtf                # MatMulIntegerToFloat, Mul/Round/Add/Cast quantizer
B rq_tfql_all  qkv=rowtf  o=rowtf  up=rowtf  down=rowtf  quant=ql      # MatMulIntegerToFloat, blocked QuantizeLinear
B rq_tf_updown qkv=dqmm   o=dqmm   up=rowtf  down=rowtf                # per-row on the FFN only, DQMM elsewhere
B rq_tf_down   qkv=dqmm   o=dqmm   up=dqmm   down=rowtf
B s2w5  qkv=rowtf  o=rowtf up=rowtf  down=rowtfc quant=ql tw=5 ta=0 side=gemm mask=0     # recommended
B s2b   qkv=rowtf  o=rowtf up=rowtf  down=rowtfc quant=ql tw=5 ta=3 side=gemm
B s3g   qkv=rowtfc o=rowtf up=rowtfc down=rowtfc quant=ql tw=5 ta=3 side=gemm mask=qkv,up
B c53g3 qkv=rowtfc o=rowtfc up=rowtfc down=rowtfc quant=ql tw=5 ta=3 side=gemm mask=qkv,o,up
for a in "4 32" "4 64" "8 128"; do $PY quant2.py $a; done                  # MatMulNBits, accuracy_level 4
V="rq_dqmm rq_mi_all rq_miu_all rq_tf_all rq_tfql_all rq_tf_updown rq_tf_down s2w5 s2b s3g c53g3 mha_nb4_b32_a4 mha_nb4_b64_a4 mha_nb8_b128_a4"
for n in $V; do taskset -c 0 $PY cosonly.py models/$n.onnx $n; done
taskset -c 1 $PY bench.py --n 256 --reps 3 rq_dqmm rq_miu_all rq_tf_all rq_tfql_all rq_tf_updown mha_nb8_b128_a4 mha_nb4_b32_a4 mha_nb4_b64_a4
taskset -c 1 $PY bench.py --n 256 --reps 3 rq_dqmm rq_tfql_all s2w5 s2b s3g c53g3
taskset -c 0,1 $PY bench.py --threads 2 --n 256 --reps 3 rq_dqmm rq_tfql_all s2w5 s3g
