"""Mixed graph: MultiHeadAttention graph; QKV and attention-output projections as DynamicQuantizeMatMul
(hand-quantized int8 per column), FFN up/down as MatMulNBits 8-bit (block 128, accuracy_level 4 = int8
compute with per-row, per-block activation scales).  python mixed.py [block=128]"""
import sys, onnx
sys.path.insert(0, ".")
import build_graph as bg
from onnxruntime.quantization.matmul_nbits_quantizer import MatMulNBitsQuantizer
blk = int(sys.argv[1]) if len(sys.argv) > 1 else 128
cfg, g = bg.load()
ffn = tuple(f"layer.{l}.output.dense" for l in range(6)) + ("intermediate.dense",)
m = bg.build_fused(cfg, g, int8=True, mha=True, keep_fp32=ffn)   # FFN MatMuls stay plain MatMul here
q = MatMulNBitsQuantizer(m, bits=8, block_size=blk, is_symmetric=True, accuracy_level=4, op_types_to_quantize=("MatMul",))
q.process()
q.model.save_model_to_file(f"./models/mha_mixed_b{blk}.onnx", use_external_data_format=False)
print("ok")
