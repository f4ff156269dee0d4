"""Make the fp32-optimized and int8 variants in ./models.
  python quant.py [names...]   (default: all)"""
import os, sys, collections
import onnx
from onnxruntime.quantization import quantize_dynamic, QuantType
from onnxruntime.transformers import optimizer

M = "./models"


def ops(path):
    m = onnx.load(path, load_external_data=False)
    return dict(collections.Counter(n.op_type for n in m.graph.node))


def opt_fp32():
    # onnxruntime.transformers BERT optimizer on strata's graph (python fusions only, opt_level 0 =
    # no ORT C++ pass baked into the file; ORT still applies Level3 at session creation).
    o = optimizer.optimize_model(f"{M}/strata_fp32.onnx", model_type="bert", num_heads=12, hidden_size=384, opt_level=0)
    print("fusion stats:", o.get_fused_operator_statistics())
    o.save_model_to_file(f"{M}/opt_fp32.onnx")


def dyn(src, dst, per_channel=True, reduce_range=False, op_types=("MatMul",), excl=None, extra=None):
    quantize_dynamic(f"{M}/{src}.onnx", f"{M}/{dst}.onnx", op_types_to_quantize=list(op_types),
                     per_channel=per_channel, reduce_range=reduce_range, weight_type=QuantType.QInt8,
                     nodes_to_exclude=excl, extra_options={"DefaultTensorType": onnx.TensorProto.FLOAT, **(extra or {})})


def nbits(src, dst, bits=8, block=32, acc=4, sym=True):
    from onnxruntime.quantization.matmul_nbits_quantizer import MatMulNBitsQuantizer
    q = MatMulNBitsQuantizer(onnx.load(f"{M}/{src}.onnx"), bits=bits, block_size=block, is_symmetric=sym,
                             accuracy_level=acc, op_types_to_quantize=("MatMul",))
    q.process()
    q.model.save_model_to_file(f"{M}/{dst}.onnx", use_external_data_format=False)


VARIANTS = {
    "opt_fp32": opt_fp32,
    # strata graph, MatMul with constant B only (default MatMulConstBOnly=True in dynamic mode)
    "strata_i8_pc": lambda: dyn("strata_fp32", "strata_i8_pc"),
    "strata_i8_pc_rr": lambda: dyn("strata_fp32", "strata_i8_pc_rr", reduce_range=True),
    "strata_i8_pt": lambda: dyn("strata_fp32", "strata_i8_pt", per_channel=False),
    "strata_i8_pc_gather": lambda: dyn("strata_fp32", "strata_i8_pc_gather", op_types=("MatMul", "Gather")),
    # hand-fused contrib graph: MatMul only (Attention stays fp32) / MatMul + Attention -> QAttention
    "fused_i8_pc": lambda: dyn("fused_fp32", "fused_i8_pc"),
    "fused_i8_pc_rr": lambda: dyn("fused_fp32", "fused_i8_pc_rr", reduce_range=True),
    "fused_i8_pc_qatt": lambda: dyn("fused_fp32", "fused_i8_pc_qatt", op_types=("MatMul", "Attention")),
    # block-wise weight quantization, int8 compute (accuracy_level 4 = int8 activations, VNNI kernels)
    "fused_nb8_b32": lambda: nbits("fused_fp32", "fused_nb8_b32", bits=8, block=32),
    "fused_nb8_b128": lambda: nbits("fused_fp32", "fused_nb8_b128", bits=8, block=128),
    "fused_nb8_b32_acc1": lambda: nbits("fused_fp32", "fused_nb8_b32_acc1", bits=8, block=32, acc=1),
    "mha_nb8_b32": lambda: nbits("mha_fp32", "mha_nb8_b32", bits=8, block=32),
    "mha_nb8_b128": lambda: nbits("mha_fp32", "mha_nb8_b128", bits=8, block=128),
    "fused_nb4_b32": lambda: nbits("fused_fp32", "fused_nb4_b32", bits=4, block=32),
}

if __name__ == "__main__":
    names = sys.argv[1:] or list(VARIANTS)
    for n in names:
        VARIANTS[n]()
        p = f"{M}/{n}.onnx"
        print(n, round(os.path.getsize(p) / 1e6, 1), "MB", ops(p), flush=True)
