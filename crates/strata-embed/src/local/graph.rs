//! A BERT encoder as an ONNX Runtime graph, built in memory from the model's safetensors.
//!
//! There is no `.onnx` file to fetch or export: the graph is written here, node by node, with
//! ONNX Runtime's model editor API, and the weights go in as initializers. Any BERT-family
//! sentence-transformer folder (all-MiniLM, bge, e5, gte) therefore runs as it is published.
//!
//! The graph is the textbook encoder, arranged so that ONNX Runtime's optimizer finds its usual
//! fusions (residual + layer norm, bias + GELU) and so that little is computed twice:
//! - position and token-type-0 embeddings are summed once, at load (strata never feeds segment
//!   B);
//! - the query, key and value projections are one `[H, 3H]` matmul, split;
//! - the attention scale `1/√d` is folded into the query weights and bias.
//!
//! Inputs: `input_ids` and `attention_mask`, `i64[batch, seq]`. Output: `last_hidden_state`,
//! `f32[batch, seq, hidden]`; pooling happens in the caller.
//!
//! With [`Precision::Int8`] the six projections of each layer run as int8 matrix products
//! on VNNI (`MatMulIntegerToFloat`): weights per output column ([`quantize`]), activations
//! per token row, quantized in the graph as they arrive; embeddings, layer norms, softmax,
//! GELU and pooling stay f32. It is about twice as fast as f32, with a minimum cosine of
//! 0.996 to it (`bench/results/int8/`).
//!
//! With [`Head::Classifier`] the graph is `BertForSequenceClassification` instead, the layout
//! of cross-encoders such as ms-marco-MiniLM-L-6-v2: a third input `token_type_ids` (segment
//! A is the query, B the passage), the pooler (`tanh(W · h[CLS] + b)`) and the classifier
//! on top, and the output [`LOGITS`], `f32[batch, labels]`.

use std::path::Path;

use ort::editor::{Graph, Model, Node, Opset, ONNX_DOMAIN};
use ort::memory::Allocator;
use ort::operator::Attribute;
use ort::value::{
    Outlet, PrimitiveTensorElementType, Shape, SymbolicDimensions, Tensor, TensorElementType, ValueType,
};
use safetensors::{Dtype, SafeTensors};
use strata_core::{Error, Result};

use super::quantize;
use crate::folder::BertConfig;

/// Name of the encoder graph's output.
pub const OUTPUT: &str = "last_hidden_state";
/// Name of the classifier graph's output.
pub const LOGITS: &str = "logits";

/// What the graph ends in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Head {
    /// The encoder's last hidden state, for pooling (sentence-transformers).
    Encoder,
    /// Pooler and classifier over `[CLS]`, with segment ids as input (cross-encoders).
    Classifier,
}

/// `TensorProto.DataType.FLOAT` in ONNX's numbering (ort's enum has its own).
const ONNX_FLOAT: i64 = 1;

/// Opset of the f32 graph: 20 has `Gelu` and `LayerNormalization` as plain ops.
const OPSET: u32 = 20;
/// Opset of the int8 graph: 21 quantizes a row with one blocked `QuantizeLinear`.
const OPSET_INT8: u32 = 21;
/// ONNX Runtime's own operators (`MatMulIntegerToFloat`).
const MICROSOFT_DOMAIN: &str = "com.microsoft";
/// What the down projection's inputs are shifted by before quantizing: GELU's output is
/// ≥ −0.16997, so shifted inputs are ≥ 0 and use all 256 levels of u8.
const GELU_SHIFT: f32 = 0.17;

/// The arithmetic of the projections.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Precision {
    /// f32 throughout.
    #[default]
    Fp32,
    /// int8 projections (see the module docs); needs VNNI to be fast and exact (without it,
    /// u8×s8 products can saturate).
    Int8,
}

/// The version of the arithmetic this file writes, and of the pooling and normalization in
/// `local/mod.rs`: part of every local vector's cache id. Raise it by hand with any change
/// that can move a vector's bits; `tests/code_version.rs` fails when the output on a fixed
/// text changes while it stays the same.
pub const GRAPH_VERSION: u32 = 1;

/// A safetensors file mapped into memory: every graph of a model is built from these bytes,
/// and the vector cache's id hashes the same bytes, so a file changed after the load cannot
/// give old vectors a new id.
pub struct WeightsFile {
    path: std::path::PathBuf,
    map: memmap2::Mmap,
}

impl WeightsFile {
    /// Maps `path`.
    pub fn open(path: &Path) -> Result<WeightsFile> {
        let file =
            std::fs::File::open(path).map_err(|e| Error::io(format!("opening {}", path.display()), e))?;
        // SAFETY: the weights file is read-only model data; strata never writes it, and a
        // change under the map would at worst produce wrong weights, caught by the reference
        // test.
        let map = unsafe { memmap2::Mmap::map(&file) }
            .map_err(|e| Error::io(format!("mapping {}", path.display()), e))?;
        Ok(WeightsFile { path: path.to_path_buf(), map })
    }

    /// blake3 of the bytes, in hex.
    pub fn digest(&self) -> String {
        blake3::hash(&self.map).to_hex().to_string()
    }
}

/// Builds the encoder graph of `config` with the weights in the safetensors file `weights`.
pub fn build(config: &BertConfig, weights: &Path) -> Result<Model> {
    build_with(config, &WeightsFile::open(weights)?, Head::Encoder, Precision::Fp32)
}

/// Builds the graph of `config` ending in `head`, its projections in `precision`.
pub fn build_with(
    config: &BertConfig,
    weights: &WeightsFile,
    head: Head,
    precision: Precision,
) -> Result<Model> {
    let path = weights.path.as_path();
    let tensors = SafeTensors::deserialize(&weights.map)
        .map_err(|e| Error::user(format!("{}: not a safetensors file: {e}", path.display())))?;
    let w = Weights::new(&tensors, path)?;
    Builder::new(config, w, precision)?.finish(head)
}

/// Tensors of one safetensors file, by BERT parameter name, converted to f32.
struct Weights<'a> {
    tensors: &'a SafeTensors<'a>,
    prefix: &'static str,
    path: &'a Path,
}

impl<'a> Weights<'a> {
    fn new(tensors: &'a SafeTensors<'a>, path: &'a Path) -> Result<Weights<'a>> {
        // `BertModel` saves bare names; `BertFor*` heads save them under `bert.`.
        let prefix = ["", "bert.", "model."]
            .into_iter()
            .find(|p| tensors.tensor(&format!("{p}embeddings.word_embeddings.weight")).is_ok())
            .ok_or_else(|| {
                Error::user(format!(
                    "{}: no embeddings.word_embeddings.weight; is this a BERT-family model?",
                    path.display()
                ))
            })?;
        Ok(Weights { tensors, prefix, path })
    }

    /// The tensor `name` (under the model's prefix) as f32 values and its shape.
    fn get(&self, name: &str) -> Result<(Vec<usize>, Vec<f32>)> {
        self.get_full(&format!("{}{name}", self.prefix))
    }

    /// The tensor named `full` exactly (a head's weights lie outside the `bert.` prefix).
    fn get_full(&self, full: &str) -> Result<(Vec<usize>, Vec<f32>)> {
        let view = self
            .tensors
            .tensor(full)
            .map_err(|_| Error::user(format!("{}: missing tensor {full}", self.path.display())))?;
        let bytes = view.data();
        let values: Vec<f32> = match view.dtype() {
            Dtype::F32 => {
                bytes.chunks_exact(4).map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]])).collect()
            }
            Dtype::F16 => {
                bytes.chunks_exact(2).map(|b| f16_to_f32(u16::from_le_bytes([b[0], b[1]]))).collect()
            }
            Dtype::BF16 => bytes
                .chunks_exact(2)
                .map(|b| f32::from_bits((u16::from_le_bytes([b[0], b[1]]) as u32) << 16))
                .collect(),
            other => {
                return Err(Error::user(format!(
                    "{}: tensor {full} has dtype {other:?}; strata reads F32, F16 and BF16",
                    self.path.display()
                )))
            }
        };
        Ok((view.shape().to_vec(), values))
    }

    /// A tensor that must have `shape`.
    fn shaped(&self, name: &str, shape: &[usize]) -> Result<Vec<f32>> {
        let (got, values) = self.get(name)?;
        if got != shape {
            return Err(Error::user(format!(
                "{}: tensor {}{name} has shape {got:?}, config.json implies {shape:?}",
                self.path.display(),
                self.prefix
            )));
        }
        Ok(values)
    }
}

/// IEEE half to single precision.
fn f16_to_f32(h: u16) -> f32 {
    let sign = ((h >> 15) as u32) << 31;
    let exp = ((h >> 10) & 0x1f) as u32;
    let frac = (h & 0x3ff) as u32;
    let bits = match (exp, frac) {
        (0, 0) => sign,
        (0, _) => {
            // Subnormal: renormalize.
            let mut e = 127 - 15 + 1;
            let mut f = frac;
            while f & 0x400 == 0 {
                f <<= 1;
                e -= 1;
            }
            sign | (e << 23) | ((f & 0x3ff) << 13)
        }
        (0x1f, _) => sign | 0x7f80_0000 | (frac << 13),
        _ => sign | ((exp + 127 - 15) << 23) | (frac << 13),
    };
    f32::from_bits(bits)
}

/// PyTorch `Linear` weights are `[out, in]`; the graph multiplies `x · W` with `W` `[in, out]`.
fn transpose(values: &[f32], rows: usize, cols: usize) -> Vec<f32> {
    let mut out = vec![0.0; values.len()];
    for r in 0..rows {
        for c in 0..cols {
            out[c * rows + r] = values[r * cols + c];
        }
    }
    out
}

struct Builder<'a> {
    config: &'a BertConfig,
    w: Weights<'a>,
    graph: Graph,
    next: usize,
    precision: Precision,
}

/// What feeds a projection, which decides how the int8 path quantizes it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Input {
    /// A layer norm's output, of either sign: symmetric, zero point 128.
    Signed,
    /// GELU's output: shifted by [`GELU_SHIFT`] and quantized over 0..255, with the weight's
    /// outlier rows in f32.
    Gelu,
}

fn ort_err(context: &str) -> impl Fn(ort::Error) -> Error + '_ {
    move |e| Error::Internal(format!("{context}: {e}"))
}

impl<'a> Builder<'a> {
    fn new(config: &'a BertConfig, w: Weights<'a>, precision: Precision) -> Result<Builder<'a>> {
        let graph = Graph::new().map_err(ort_err("creating the encoder graph"))?;
        Ok(Builder { config, w, graph, next: 0, precision })
    }

    /// Adds a node with one output and returns the output's name.
    fn node(&mut self, op: &str, inputs: &[&str], attributes: Vec<Attribute>) -> Result<String> {
        self.node_in(ONNX_DOMAIN, op, inputs, attributes)
    }

    /// Adds a node of `domain` with one output and returns the output's name.
    fn node_in(
        &mut self,
        domain: &str,
        op: &str,
        inputs: &[&str],
        attributes: Vec<Attribute>,
    ) -> Result<String> {
        self.next += 1;
        let out = format!("{}_{}", op.to_ascii_lowercase(), self.next);
        let node = Node::new(op, domain, &out, inputs, [&out], attributes).map_err(ort_err(op))?;
        self.graph.add_node(node).map_err(ort_err(op))?;
        Ok(out)
    }

    /// Adds a node with several outputs.
    fn node_n(
        &mut self,
        op: &str,
        inputs: &[&str],
        outputs: usize,
        attributes: Vec<Attribute>,
    ) -> Result<Vec<String>> {
        self.next += 1;
        let outs: Vec<String> =
            (0..outputs).map(|i| format!("{}_{}_{i}", op.to_ascii_lowercase(), self.next)).collect();
        let node = Node::new(
            op,
            ONNX_DOMAIN,
            format!("{}_{}", op.to_ascii_lowercase(), self.next),
            inputs,
            &outs,
            attributes,
        )
        .map_err(ort_err(op))?;
        self.graph.add_node(node).map_err(ort_err(op))?;
        Ok(outs)
    }

    fn init_f32(&mut self, name: &str, shape: &[usize], values: &[f32]) -> Result<String> {
        let mut t = Tensor::<f32>::new(&Allocator::default(), shape.to_vec()).map_err(ort_err(name))?;
        t.extract_tensor_mut().1.copy_from_slice(values);
        self.graph.add_initializer(name, t, false).map_err(ort_err(name))?;
        Ok(name.to_string())
    }

    fn init_i64(&mut self, name: &str, values: &[i64]) -> Result<String> {
        self.init(name, &[values.len()], values)
    }

    /// An initializer of any element type.
    fn init<T: PrimitiveTensorElementType + Copy + std::fmt::Debug>(
        &mut self,
        name: &str,
        shape: &[usize],
        values: &[T],
    ) -> Result<String> {
        let mut t = Tensor::<T>::new(&Allocator::default(), shape.to_vec()).map_err(ort_err(name))?;
        t.extract_tensor_mut().1.copy_from_slice(values);
        self.graph.add_initializer(name, t, false).map_err(ort_err(name))?;
        Ok(name.to_string())
    }

    /// `x · W + b` for the weight `{name}.weight` (`[k, n]`, `[in, out]` layout) and bias
    /// `{name}.bias`: a `MatMul` in f32, or the int8 product of [`Precision::Int8`].
    fn dense(
        &mut self,
        x: &str,
        name: &str,
        weight: &[f32],
        bias: &[f32],
        k: usize,
        input: Input,
    ) -> Result<String> {
        let n = bias.len();
        let (product, bias) = match (self.precision, input) {
            (Precision::Fp32, _) => {
                let w = self.init_f32(&format!("{name}.weight"), &[k, n], weight)?;
                let b = self.init_f32(&format!("{name}.bias"), &[n], bias)?;
                (self.node("MatMul", &[x, &w], vec![])?, b)
            }
            (Precision::Int8, Input::Signed) => {
                let q = quantize::per_column(weight, k, n);
                let y = self.int8_signed(x, name, &q, k, n)?;
                (y, self.init_f32(&format!("{name}.bias"), &[n], bias)?)
            }
            (Precision::Int8, Input::Gelu) => self.int8_gelu(x, name, weight, bias, k, n)?,
        };
        self.node("Add", &[&product, &bias], vec![])
    }

    /// A row's largest |x| (or x) over 127 (or 255): the scale `[.., 1]` that quantizes it.
    fn row_scale(&mut self, x: &str, levels: f32) -> Result<String> {
        let axes = self.init_i64(&format!("const_axes_last_{}", self.next), &[-1])?;
        let max = self.node("ReduceMax", &[x, &axes], vec![])?;
        let floor = self.scalar_f32(&format!("const_floor_{}", self.next), 1e-8)?;
        let max = self.node("Max", &[&max, &floor], vec![])?;
        let step = self.scalar_f32(&format!("const_levels_{}", self.next), 1.0 / levels)?;
        self.node("Mul", &[&max, &step], vec![])
    }

    /// Blocked `QuantizeLinear` of each row of `x` (length `k`) by its own scale.
    fn quantize_rows(&mut self, x: &str, scale: &str, zero_point: Option<&str>, k: usize) -> Result<String> {
        let attrs = vec![
            Attribute::new("axis", -1i64).map_err(ort_err("axis"))?,
            Attribute::new("block_size", k as i64).map_err(ort_err("block_size"))?,
        ];
        match zero_point {
            Some(zp) => self.node("QuantizeLinear", &[x, scale, zp], attrs),
            None => self.node("QuantizeLinear", &[x, scale], attrs),
        }
    }

    /// The initializers of an int8 weight `[k, n]` and its column scales `[n]`.
    fn int8_weight(
        &mut self,
        name: &str,
        q: &quantize::Quantized,
        k: usize,
        n: usize,
    ) -> Result<(String, String)> {
        let wq = self.init(&format!("{name}.weight_int8"), &[k, n], &q.values)?;
        Ok((wq, self.init_f32(&format!("{name}.weight_scale"), &[n], &q.scales)?))
    }

    /// `x · W` for a layer norm's output: rows quantized symmetrically around 128.
    fn int8_signed(
        &mut self,
        x: &str,
        name: &str,
        q: &quantize::Quantized,
        k: usize,
        n: usize,
    ) -> Result<String> {
        let (wq, ws) = self.int8_weight(name, q, k, n)?;
        let abs = self.node("Abs", &[x], vec![])?;
        let scale = self.row_scale(&abs, 127.0)?;
        let zp = self.init(&format!("const_u8_128_{}", self.next), &[], &[128u8])?;
        let shape = self.node("Shape", &[&scale], vec![])?;
        let zps = self.node("Expand", &[&zp, &shape], vec![])?;
        let xq = self.quantize_rows(x, &scale, Some(&zps), k)?;
        self.node_in(MICROSOFT_DOMAIN, "MatMulIntegerToFloat", &[&xq, &wq, &scale, &ws, &zp], vec![])
    }

    /// `x · W` for GELU's output, and the bias that goes with it: rows shifted and quantized
    /// over 0..255, the weight's outlier rows added in f32 from the unshifted input. Returns
    /// the product and the bias initializer (the shift folded in).
    fn int8_gelu(
        &mut self,
        x: &str,
        name: &str,
        weight: &[f32],
        bias: &[f32],
        k: usize,
        n: usize,
    ) -> Result<(String, String)> {
        let split = quantize::split_outlier_rows(weight, k, n);
        let sums = quantize::column_sums(&split.int8, n);
        let folded: Vec<f32> = bias.iter().zip(&sums).map(|(b, s)| b - GELU_SHIFT * s).collect();
        let b = self.init_f32(&format!("{name}.bias"), &[n], &folded)?;
        let (wq, ws) = self.int8_weight(name, &split.int8, k, n)?;
        let shift = self.scalar_f32(&format!("{name}.shift"), GELU_SHIFT)?;
        let shifted = self.node("Add", &[x, &shift], vec![])?;
        let scale = self.row_scale(&shifted, 255.0)?;
        let xq = self.quantize_rows(&shifted, &scale, None, k)?;
        let y = self.node_in(MICROSOFT_DOMAIN, "MatMulIntegerToFloat", &[&xq, &wq, &scale, &ws], vec![])?;
        if split.rows.is_empty() {
            return Ok((y, b));
        }
        let rows: Vec<i64> = split.rows.iter().map(|&r| r as i64).collect();
        let rows = self.init_i64(&format!("{name}.outlier_rows"), &rows)?;
        let w_rows =
            self.init_f32(&format!("{name}.outlier_weight"), &[split.rows.len(), n], &split.f32_rows)?;
        let axis = vec![Attribute::new("axis", -1i64).map_err(ort_err("axis"))?];
        let picked = self.node("Gather", &[x, &rows], axis)?;
        let side = self.node("MatMul", &[&picked, &w_rows], vec![])?;
        Ok((self.node("Add", &[&y, &side], vec![])?, b))
    }

    fn scalar_f32(&mut self, name: &str, value: f32) -> Result<String> {
        let mut t = Tensor::<f32>::new(&Allocator::default(), Vec::<i64>::new()).map_err(ort_err(name))?;
        t.extract_tensor_mut().1[0] = value;
        self.graph.add_initializer(name, t, false).map_err(ort_err(name))?;
        Ok(name.to_string())
    }

    /// A parameter vector (bias, norm weight) of length `n`.
    fn param(&mut self, name: &str, n: usize) -> Result<String> {
        let values = self.w.shaped(name, &[n])?;
        self.init_f32(name, &[n], &values)
    }

    /// The `Linear` layer `name` (weight `[output, input]`, bias) applied to `x`.
    fn projection(
        &mut self,
        x: &str,
        name: &str,
        input: usize,
        output: usize,
        kind: Input,
    ) -> Result<String> {
        let weight = self.w.shaped(&format!("{name}.weight"), &[output, input])?;
        let bias = self.w.shaped(&format!("{name}.bias"), &[output])?;
        self.dense(x, name, &transpose(&weight, output, input), &bias, input, kind)
    }

    /// A `Linear` weight `[out, in]` as a graph matrix `[in, out]`.
    fn linear(&mut self, name: &str, input: usize, output: usize) -> Result<String> {
        let values = self.w.shaped(name, &[output, input])?;
        self.init_f32(name, &[input, output], &transpose(&values, output, input))
    }

    fn layer_norm(&mut self, x: &str, prefix: &str) -> Result<String> {
        let h = self.config.hidden_size;
        let gamma = self.param(&format!("{prefix}.weight"), h)?;
        let beta = self.param(&format!("{prefix}.bias"), h)?;
        let attrs = vec![
            Attribute::new("axis", -1i64).map_err(ort_err("axis"))?,
            Attribute::new("epsilon", self.config.layer_norm_eps as f32).map_err(ort_err("epsilon"))?,
        ];
        self.node("LayerNormalization", &[x, &gamma, &beta], attrs)
    }

    fn transpose(&mut self, x: &str, perm: &[i64]) -> Result<String> {
        let attrs = vec![Attribute::new("perm", perm.to_vec()).map_err(ort_err("perm"))?];
        self.node("Transpose", &[x], attrs)
    }

    fn finish(mut self, head: Head) -> Result<Model> {
        let classifier = self.declare_io(head)?;
        let embedded = self.embeddings(head)?;
        let mut x = self.layer_norm(&embedded, "embeddings.LayerNorm")?;
        let shared = self.layer_shared()?;
        for layer in 0..self.config.num_hidden_layers {
            x = self.encoder_layer(layer, &x, &shared)?;
        }
        let (x, name) = match classifier {
            None => (x, OUTPUT),
            Some((weight, labels)) => (self.classify(&x, &weight, labels)?, LOGITS),
        };
        // Name the final tensor as the declared output.
        let node =
            Node::new("Identity", ONNX_DOMAIN, "output", [&x], [name], []).map_err(ort_err("output"))?;
        self.graph.add_node(node).map_err(ort_err("output"))?;
        let opsets = match self.precision {
            Precision::Fp32 => vec![Opset::new(ONNX_DOMAIN, OPSET).map_err(ort_err("opset"))?],
            Precision::Int8 => vec![
                Opset::new(ONNX_DOMAIN, OPSET_INT8).map_err(ort_err("opset"))?,
                Opset::new(MICROSOFT_DOMAIN, 1).map_err(ort_err("opset"))?,
            ],
        };
        let mut model = Model::new(opsets).map_err(ort_err("model"))?;
        model.set_graph(self.graph).map_err(ort_err("model graph"))?;
        Ok(model)
    }

    /// Declares the graph's inputs (ids and mask, and segment ids for the classifier) and
    /// its output. With [`Head::Classifier`], the classifier's weight `[labels, H]` and its
    /// number of labels.
    fn declare_io(&mut self, head: Head) -> Result<Option<(Vec<f32>, usize)>> {
        let h = self.config.hidden_size;
        let dynamic = |ty| ValueType::Tensor {
            ty,
            shape: Shape::new([-1, -1]),
            dimension_symbols: SymbolicDimensions::new(["batch".to_string(), "sequence".to_string()]),
        };
        let mut inputs = vec![
            Outlet::new("input_ids", dynamic(TensorElementType::Int64)),
            Outlet::new("attention_mask", dynamic(TensorElementType::Int64)),
        ];
        if head == Head::Classifier {
            inputs.push(Outlet::new("token_type_ids", dynamic(TensorElementType::Int64)));
        }
        self.graph.set_inputs(inputs).map_err(ort_err("graph inputs"))?;
        let classifier = match head {
            Head::Encoder => None,
            Head::Classifier => match self.w.get_full("classifier.weight")? {
                (shape, weight) if shape.len() == 2 && shape[1] == h => Some((weight, shape[0])),
                (shape, _) => {
                    return Err(Error::user(format!(
                        "{}: classifier.weight has shape {shape:?}, expected [labels, {h}]",
                        self.w.path.display()
                    )))
                }
            },
        };
        let output = match &classifier {
            None => Outlet::new(
                OUTPUT,
                ValueType::Tensor {
                    ty: TensorElementType::Float32,
                    shape: Shape::new([-1, -1, h as i64]),
                    dimension_symbols: SymbolicDimensions::new([
                        "batch".to_string(),
                        "sequence".to_string(),
                        String::new(),
                    ]),
                },
            ),
            Some((_, labels)) => Outlet::new(
                LOGITS,
                ValueType::Tensor {
                    ty: TensorElementType::Float32,
                    shape: Shape::new([-1, *labels as i64]),
                    dimension_symbols: SymbolicDimensions::new(["batch".to_string(), String::new()]),
                },
            ),
        };
        self.graph.set_outputs([output]).map_err(ort_err("graph output"))?;
        Ok(classifier)
    }

    /// Embeddings: word[ids] + position[0..seq] + token type, before their layer norm.
    /// Without segment ids (the encoder) every token is of type 0, summed with the positions
    /// once.
    fn embeddings(&mut self, head: Head) -> Result<String> {
        let c = self.config;
        let h = c.hidden_size;
        let word = self.w.shaped("embeddings.word_embeddings.weight", &[c.vocab_size, h])?;
        let word = self.init_f32("word_embeddings", &[c.vocab_size, h], &word)?;
        let pos = self.w.shaped("embeddings.position_embeddings.weight", &[c.max_position_embeddings, h])?;
        let types = self.w.shaped("embeddings.token_type_embeddings.weight", &[c.type_vocab_size, h])?;
        let gathered = self.node("Gather", &[&word, "input_ids"], vec![])?;
        let shape = self.node("Shape", &["input_ids"], vec![])?;
        let one = self.init_i64("const_1", &[1])?;
        let two = self.init_i64("const_2", &[2])?;
        let zero = self.init_i64("const_0", &[0])?;
        let seq_len = self.node("Slice", &[&shape, &one, &two], vec![])?;
        match head {
            Head::Encoder => {
                let pos_type: Vec<f32> = pos.iter().enumerate().map(|(i, p)| p + types[i % h]).collect();
                let pos_type =
                    self.init_f32("position_type_embeddings", &[c.max_position_embeddings, h], &pos_type)?;
                let positions = self.node("Slice", &[&pos_type, &zero, &seq_len, &zero], vec![])?;
                self.node("Add", &[&gathered, &positions], vec![])
            }
            Head::Classifier => {
                let pos = self.init_f32("position_embeddings", &[c.max_position_embeddings, h], &pos)?;
                let types = self.init_f32("token_type_embeddings", &[c.type_vocab_size, h], &types)?;
                let positions = self.node("Slice", &[&pos, &zero, &seq_len, &zero], vec![])?;
                let segments = self.node("Gather", &[&types, "token_type_ids"], vec![])?;
                let summed = self.node("Add", &[&gathered, &segments], vec![])?;
                self.node("Add", &[&summed, &positions], vec![])
            }
        }
    }

    /// What every encoder layer uses: the additive attention bias (0 for tokens, -10000 for
    /// padding, shaped `[batch, 1, 1, seq]`), the shapes that split and merge the heads, the
    /// attention scale and GELU's approximation.
    fn layer_shared(&mut self) -> Result<LayerShared> {
        let c = self.config;
        let (h, heads) = (c.hidden_size, c.num_attention_heads);
        let head_dim = h / heads;
        let mask = self.node(
            "Cast",
            &["attention_mask"],
            vec![Attribute::new("to", ONNX_FLOAT).map_err(ort_err("to"))?],
        )?;
        let one_f = self.scalar_f32("const_1f", 1.0)?;
        let neg = self.scalar_f32("const_neg", -10000.0)?;
        let inverted = self.node("Sub", &[&one_f, &mask], vec![])?;
        let bias = self.node("Mul", &[&inverted, &neg], vec![])?;
        let axes = self.init_i64("const_axes_1_2", &[1, 2])?;
        let bias = self.node("Unsqueeze", &[&bias, &axes], vec![])?;
        let gelu = match c.hidden_act.as_str() {
            "gelu" => "none",
            "gelu_new" | "gelu_pytorch_tanh" | "gelu_fast" => "tanh",
            other => {
                return Err(Error::user(format!(
                    "config.json: hidden_act {other:?} is not supported (gelu, gelu_new)"
                )))
            }
        };
        Ok(LayerShared {
            bias,
            split_sizes: self.init_i64("const_qkv_split", &[h as i64, h as i64, h as i64])?,
            heads_shape: self.init_i64("const_heads_shape", &[0, 0, heads as i64, head_dim as i64])?,
            merged_shape: self.init_i64("const_merged_shape", &[0, 0, h as i64])?,
            scale: 1.0 / (head_dim as f32).sqrt(),
            gelu,
        })
    }

    /// Encoder layer `layer` on `x`: self-attention, then the feed-forward block, each with
    /// its residual and layer norm.
    fn encoder_layer(&mut self, layer: usize, x: &str, shared: &LayerShared) -> Result<String> {
        let (h, inter) = (self.config.hidden_size, self.config.intermediate_size);
        let p = format!("encoder.layer.{layer}");
        let context = self.self_attention(&p, x, shared)?;
        let attended =
            self.projection(&context, &format!("{p}.attention.output.dense"), h, h, Input::Signed)?;
        let residual = self.node("Add", &[&attended, x], vec![])?;
        let attention_out = self.layer_norm(&residual, &format!("{p}.attention.output.LayerNorm"))?;
        let up =
            self.projection(&attention_out, &format!("{p}.intermediate.dense"), h, inter, Input::Signed)?;
        let act = self.node(
            "Gelu",
            &[&up],
            vec![Attribute::new("approximate", shared.gelu.to_string()).map_err(ort_err("approximate"))?],
        )?;
        let down = self.projection(&act, &format!("{p}.output.dense"), inter, h, Input::Gelu)?;
        let residual = self.node("Add", &[&down, &attention_out], vec![])?;
        self.layer_norm(&residual, &format!("{p}.output.LayerNorm"))
    }

    /// The self-attention of the layer prefixed `p` on `x`, its heads merged again: one
    /// fused Q|K|V projection, the attention scale folded into Q.
    fn self_attention(&mut self, p: &str, x: &str, shared: &LayerShared) -> Result<String> {
        let h = self.config.hidden_size;
        let mut qkv_w = Vec::with_capacity(3 * h * h);
        let mut qkv_b = Vec::with_capacity(3 * h);
        for (part, factor) in [("query", shared.scale), ("key", 1.0), ("value", 1.0)] {
            let wt = self.w.shaped(&format!("{p}.attention.self.{part}.weight"), &[h, h])?;
            let b = self.w.shaped(&format!("{p}.attention.self.{part}.bias"), &[h])?;
            qkv_w.push(transpose(&wt, h, h).into_iter().map(|v| v * factor).collect::<Vec<_>>());
            qkv_b.extend(b.into_iter().map(|v| v * factor));
        }
        // Interleave rows: [in, out] matrices side by side → [H, 3H].
        let mut fused = Vec::with_capacity(3 * h * h);
        for row in 0..h {
            for part in &qkv_w {
                fused.extend_from_slice(&part[row * h..(row + 1) * h]);
            }
        }
        let qkv = self.dense(x, &format!("{p}.qkv"), &fused, &qkv_b, h, Input::Signed)?;
        let last_axis = vec![Attribute::new("axis", -1i64).map_err(ort_err("axis"))?];
        let parts = self.node_n("Split", &[&qkv, &shared.split_sizes], 3, last_axis)?;
        let mut split = Vec::new();
        for part in &parts {
            split.push(self.node("Reshape", &[part, &shared.heads_shape], vec![])?);
        }
        let q = self.transpose(&split[0], &[0, 2, 1, 3])?;
        let k = self.transpose(&split[1], &[0, 2, 3, 1])?;
        let v = self.transpose(&split[2], &[0, 2, 1, 3])?;
        let scores = self.node("MatMul", &[&q, &k], vec![])?;
        let scores = self.node("Add", &[&scores, &shared.bias], vec![])?;
        let probs =
            self.node("Softmax", &[&scores], vec![Attribute::new("axis", -1i64).map_err(ort_err("axis"))?])?;
        let context = self.node("MatMul", &[&probs, &v], vec![])?;
        let context = self.transpose(&context, &[0, 2, 1, 3])?;
        self.node("Reshape", &[&context, &shared.merged_shape], vec![])
    }

    /// The cross-encoder's head on the last hidden state `x`: the pooler over `[CLS]`,
    /// `tanh(h[:, 0] · W + b)`, then the classifier's `labels` logits.
    fn classify(&mut self, x: &str, weight: &[f32], labels: usize) -> Result<String> {
        let h = self.config.hidden_size;
        let index = self.init_i64("const_cls", &[0])?;
        let axis = vec![Attribute::new("axis", 1i64).map_err(ort_err("axis"))?];
        let cls = self.node("Gather", &[x, &index], axis)?;
        let cls_shape = self.init_i64("const_cls_shape", &[-1, h as i64])?;
        let cls = self.node("Reshape", &[&cls, &cls_shape], vec![])?;
        let pool_w = self.linear("pooler.dense.weight", h, h)?;
        let pool_b = self.param("pooler.dense.bias", h)?;
        let pooled = self.node("MatMul", &[&cls, &pool_w], vec![])?;
        let pooled = self.node("Add", &[&pooled, &pool_b], vec![])?;
        let pooled = self.node("Tanh", &[&pooled], vec![])?;
        let class_w = self.init_f32("classifier.weight", &[h, labels], &transpose(weight, labels, h))?;
        let (_, bias) = self.w.get_full("classifier.bias")?;
        if bias.len() != labels {
            return Err(Error::user(format!(
                "{}: classifier.bias has {} values for {labels} labels",
                self.w.path.display(),
                bias.len()
            )));
        }
        let class_b = self.init_f32("classifier.bias", &[labels], &bias)?;
        let logits = self.node("MatMul", &[&pooled, &class_w], vec![])?;
        self.node("Add", &[&logits, &class_b], vec![])
    }
}

/// What every encoder layer of the graph uses ([`Builder::layer_shared`]).
struct LayerShared {
    /// The additive attention bias.
    bias: String,
    /// `[H, H, H]`: Q|K|V split apart.
    split_sizes: String,
    /// `[0, 0, heads, head_dim]`.
    heads_shape: String,
    /// `[0, 0, H]`.
    merged_shape: String,
    /// `1/√d`, folded into the query weights and bias.
    scale: f32,
    /// GELU's `approximate` attribute: `none` or `tanh`.
    gelu: &'static str,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn half_precision_converts_exactly() {
        assert_eq!(f16_to_f32(0x3c00), 1.0);
        assert_eq!(f16_to_f32(0xc000), -2.0);
        assert_eq!(f16_to_f32(0x3555), 0.333_251_95);
        assert_eq!(f16_to_f32(0x0001), 5.960_464_5e-8);
        assert_eq!(f16_to_f32(0x0000), 0.0);
        assert!(f16_to_f32(0x7c00).is_infinite());
    }

    #[test]
    fn transpose_swaps_rows_and_columns() {
        assert_eq!(transpose(&[1., 2., 3., 4., 5., 6.], 2, 3), vec![1., 4., 2., 5., 3., 6.]);
    }
}
