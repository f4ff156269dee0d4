"""MatMulNBits variants of the MultiHeadAttention graph (models/mha_fp32.onnx from build_graph.py):
all 24 projections -> com.microsoft MatMulNBits (symmetric, accuracy_level 4 = int8 compute with
per-row, per-block activation scales).  python quant2.py BITS BLOCK [ACC=4] [NAME]"""
import sys, os, onnx
from onnxruntime.quantization.matmul_nbits_quantizer import MatMulNBitsQuantizer
bits, blk = int(sys.argv[1]), int(sys.argv[2])
acc = int(sys.argv[3]) if len(sys.argv) > 3 else 4
src = sys.argv[5] if len(sys.argv) > 5 else "mha_fp32"
name = sys.argv[4] if len(sys.argv) > 4 else f"mha_nb{bits}_b{blk}_a{acc}"
q = MatMulNBitsQuantizer(onnx.load(f"./models/{src}.onnx"), bits=bits, block_size=blk, is_symmetric=True,
                         accuracy_level=acc, op_types_to_quantize=("MatMul",))
q.process()
q.model.save_model_to_file(f"./models/{name}.onnx", use_external_data_format=False)
print(name, round(os.path.getsize(f"./models/{name}.onnx") / 1e6, 1), "MB")
