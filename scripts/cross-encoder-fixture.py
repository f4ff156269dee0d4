#!/usr/bin/env python3
"""Reference fixture for strata's BERT cross-encoder (re-ranker).

Writes crates/strata-embed/tests/fixtures/cross-encoder.json: logits that Hugging Face
transformers' own BertForSequenceClassification computes for (query, passage) pairs, so the
Rust implementation can be checked against it to ~1e-6.

No model hub is reachable from strata's machines and no package on PyPI was found that ships
real cross-encoder weights, so the model has the exact architecture and config of
cross-encoder/ms-marco-MiniLM-L-6-v2 (6 layers, hidden 384, 12 heads, pooler dense+tanh over
[CLS], classifier Linear(384, 1)) but RANDOM weights made by a deterministic formula that the
Rust test reproduces (see `generate`). The tokenizer is the real bert-base-uncased WordPiece
vocabulary, taken from the all-MiniLM-L6-v2 folder that scripts/fetch-models.sh unpacks
(ms-marco-MiniLM-L-6-v2 uses the same vocabulary and lower-casing).

Set-up (CPU only; the default Linux torch wheel needs its CUDA wheels even to import, about
4.5 GB in all, so use a throw-away venv under /tmp):

    python3 -m venv /tmp/xenc-venv
    /tmp/xenc-venv/bin/pip install --no-cache-dir torch transformers tokenizers safetensors numpy
    scripts/fetch-models.sh all-MiniLM-L6-v2        # the tokenizer files, if not cached yet
    /tmp/xenc-venv/bin/python scripts/cross-encoder-fixture.py [TOKENIZER_DIR]

TOKENIZER_DIR defaults to $STRATA_MODEL_DIR, else $STRATA_CACHE/models/all-MiniLM-L6-v2
(STRATA_CACHE defaulting to ~/.cache/strata). The fixture was made with torch 2.15.0,
transformers 5.24.0 and tokenizers 0.23.3 (the versions are recorded in the fixture).
"""

import copy
import json
import os
import platform
import re
import sys
import tempfile
import textwrap
from pathlib import Path

import numpy as np
import safetensors
import safetensors.torch
import tokenizers
import torch
import transformers
from transformers import AutoTokenizer, BertConfig, BertForSequenceClassification

REPO = Path(__file__).resolve().parent.parent
OUT = REPO / "crates/strata-embed/tests/fixtures/cross-encoder.json"

# The published config.json of cross-encoder/ms-marco-MiniLM-L-6-v2 (num_labels = 1).
CONFIG = {
    "architectures": ["BertForSequenceClassification"],
    "attention_probs_dropout_prob": 0.1,
    "hidden_act": "gelu",
    "hidden_dropout_prob": 0.1,
    "hidden_size": 384,
    "initializer_range": 0.02,
    "intermediate_size": 1536,
    "layer_norm_eps": 1e-12,
    "max_position_embeddings": 512,
    "model_type": "bert",
    "num_attention_heads": 12,
    "num_hidden_layers": 6,
    "pad_token_id": 0,
    "position_embedding_type": "absolute",
    "type_vocab_size": 2,
    "vocab_size": 30522,
    "id2label": {"0": "LABEL_0"},
    "label2id": {"LABEL_0": 0},
}

MAX_LENGTH = 512  # CrossEncoder's max_length for this model (tokenizer model_max_length)

# ---------------------------------------------------------------------------------------------
# The weight generator. All integer arithmetic is wrapping unsigned 64-bit.
# ---------------------------------------------------------------------------------------------
MASK = 0xFFFFFFFFFFFFFFFF
SCALE = 0.1
LAYER_NORM_WEIGHT_OFFSET = 1.0


def fnv1a64(data: bytes) -> int:
    h = 0xCBF29CE484222325
    for b in data:
        h ^= b
        h = (h * 0x100000001B3) & MASK
    return h


def splitmix64_py(x: int) -> int:
    """Reference (pure Python ints) version, used to check the numpy one."""
    z = (x + 0x9E3779B97F4A7C15) & MASK
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
    return z ^ (z >> 31)


def splitmix64_np(x: np.ndarray) -> np.ndarray:
    """Vectorised splitmix64 over a uint64 array (numpy uint64 array arithmetic wraps)."""
    assert x.dtype == np.uint64
    z = x + np.uint64(0x9E3779B97F4A7C15)
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


def value_py(name: str, i: int) -> np.float32:
    """Element i of tensor `name`, the slow way."""
    u = (splitmix64_py((fnv1a64(name.encode("utf-8")) + i) & MASK) >> 40) / 16777216.0
    v = (2.0 * u - 1.0) * SCALE
    if name.endswith("LayerNorm.weight"):
        v += LAYER_NORM_WEIGHT_OFFSET
    return np.float32(v)


def generate(name: str, shape) -> np.ndarray:
    """The tensor `name` (its state_dict name) of `shape`, elements in row-major order:
    seed = fnv1a64(name); u_i = (splitmix64(seed + i) >> 40) / 2^24 in [0, 1);
    v_i = (2 u_i - 1) * 0.1, plus 1.0 for names ending in "LayerNorm.weight";
    computed in float64 and rounded once to float32."""
    n = int(np.prod(shape, dtype=np.int64))
    seed = np.uint64(fnv1a64(name.encode("utf-8")))
    x = seed + np.arange(n, dtype=np.uint64)  # wraps
    u = (splitmix64_np(x) >> np.uint64(40)).astype(np.float64) / 16777216.0
    v = (2.0 * u - 1.0) * SCALE
    if name.endswith("LayerNorm.weight"):
        v = v + LAYER_NORM_WEIGHT_OFFSET
    return v.astype(np.float32).reshape(shape)


def check_generator():
    # Published splitmix64 test vector: the first output of a generator seeded with 0
    # (state += golden gamma, then mix) is 0xE220A8397B1DCDAF.
    assert splitmix64_py(0) == 0xE220A8397B1DCDAF
    # FNV-1a 64 test vectors.
    assert fnv1a64(b"") == 0xCBF29CE484222325
    assert fnv1a64(b"a") == 0xAF63DC4C8601EC8C
    for name, shape in [
        ("bert.embeddings.word_embeddings.weight", (30522, 384)),
        ("bert.encoder.layer.3.output.LayerNorm.weight", (384,)),
        ("classifier.bias", (1,)),
    ]:
        arr = generate(name, shape).reshape(-1)
        for i in sorted({0, 1, 2, 383, arr.size - 1} & set(range(arr.size))):
            assert arr[i] == value_py(name, i), (name, i)


# ---------------------------------------------------------------------------------------------
# The (query, passage) pairs. Passages are real paragraphs from strata's test corpus
# (shared/data/corpus), copied here so the script does not depend on it; a few are made up to
# exercise the tokenizer (accents, "§", dashes, CJK, emoji, an over-long word).
# ---------------------------------------------------------------------------------------------
def para(s: str) -> str:
    return textwrap.dedent(s).strip()


# txt/rfc7231-http11-semantics.txt, 4.2.1 Safe Methods (two paragraphs, original line breaks).
RFC7231_SAFE = para("""
    Request methods are considered "safe" if their defined semantics are
    essentially read-only; i.e., the client does not request, and does
    not expect, any state change on the origin server as a result of
    applying a safe method to a target resource.  Likewise, reasonable
    use of a safe method is not expected to cause any harm, loss of
    property, or unusual burden on the origin server.

    This definition of safe methods does not prevent an implementation
    from including behavior that is potentially harmful, that is not
    entirely read-only, or that causes side effects while invoking a safe
    method.  What is important, however, is that the client did not
    request that additional behavior and cannot be held accountable for
    it.  For example, most servers append request information to access
    log files at the completion of every response, regardless of the
    method, and that is considered safe even though the log storage might
    become full and crash the server.  Likewise, a safe request initiated
    by selecting an advertisement on the Web will often have the side
    effect of charging an advertising account.
""")

# txt/rfc7231-http11-semantics.txt, 4.2.2 Idempotent Methods (first paragraph, one line).
RFC7231_IDEMPOTENT = (
    'A request method is considered "idempotent" if the intended effect on the server of '
    "multiple identical requests with that method is the same as the effect for a single such "
    "request. Of the request methods defined by this specification, PUT, DELETE, and safe "
    "request methods are idempotent."
)

# txt/rfc7231-http11-semantics.txt, 4.3.1 GET (first paragraph).
RFC7231_GET = (
    "The GET method requests transfer of a current selected representation for the target "
    "resource. GET is the primary mechanism of information retrieval and the focus of almost "
    "all performance optimizations. Hence, when people speak of retrieving some identifiable "
    "information via HTTP, they are generally referring to making a GET request."
)

# markdown/uslm-user-guide.md, 11.3 (computing @temporalId), markdown escapes kept as-is.
USLM_TEMPORAL_ID = para(r"""
    Levels of the hierarchy should be omitted whenever the numbering of a level does not require references to the higher levels. For example, section numbers are usually unique throughout the document, so it is not necessary to use the higher big levels to compute a name. So a section can be identified as simply &quot;s1&quot; rather than &quot;p1\_d1\_s1&quot;.

    For example, part III of subchapter II of chapter 12 of Title 8 would have a `@temporalId` of &quot;ch12\_schII\_ptIII&quot;, and subparagraph (A) of paragraph (1) of subsection (a) of section 1201 of Title 8 would have a `@temporalId` of &quot;s1201\_a\_1\_A&quot;.
""")

# markdown/rust-book-ch19-03-pattern-syntax.md (matching named variables).
RUST_BOOK_MATCH = para("""
    The pattern in the second match arm introduces a new variable named `y` that
    will match any value inside a `Some` value. Because we’re in a new scope inside
    the `match` expression, this is a new `y` variable, not the `y` we declared at
    the beginning with the value `10`. This new `y` binding will match any value
    inside a `Some`, which is what we have in `x`. Therefore, this new `y` binds to
    the inner value of the `Some` in `x`. That value is `5`, so the expression for
    that arm executes and prints `Matched, y = 5`.
""")

# txt/rfc9000-quic-unpaginated.txt, 4.1 Data Flow Control and 4.2 Increasing Flow Control
# Limits (about 800 tokens: truncated to fit 512 with the query).
RFC9000_FLOW_CONTROL = para("""
    4.1.  Data Flow Control

    QUIC employs a limit-based flow control scheme where a receiver
    advertises the limit of total bytes it is prepared to receive on a
    given stream or for the entire connection.  This leads to two levels
    of data flow control in QUIC:

    *  Stream flow control, which prevents a single stream from consuming
       the entire receive buffer for a connection by limiting the amount
       of data that can be sent on each stream.

    *  Connection flow control, which prevents senders from exceeding a
       receiver's buffer capacity for the connection by limiting the
       total bytes of stream data sent in STREAM frames on all streams.

    Senders MUST NOT send data in excess of either limit.

    A receiver sets initial limits for all streams through transport
    parameters during the handshake (Section 7.4).  Subsequently, a
    receiver sends MAX_STREAM_DATA frames (Section 19.10) or MAX_DATA
    frames (Section 19.9) to the sender to advertise larger limits.

    A receiver can advertise a larger limit for a stream by sending a
    MAX_STREAM_DATA frame with the corresponding stream ID.  A
    MAX_STREAM_DATA frame indicates the maximum absolute byte offset of a
    stream.  A receiver could determine the flow control offset to be
    advertised based on the current offset of data consumed on that
    stream.

    A receiver can advertise a larger limit for a connection by sending a
    MAX_DATA frame, which indicates the maximum of the sum of the
    absolute byte offsets of all streams.  A receiver maintains a
    cumulative sum of bytes received on all streams, which is used to
    check for violations of the advertised connection or stream data
    limits.  A receiver could determine the maximum data limit to be
    advertised based on the sum of bytes consumed on all streams.

    Once a receiver advertises a limit for the connection or a stream, it
    is not an error to advertise a smaller limit, but the smaller limit
    has no effect.

    A receiver MUST close the connection with an error of type
    FLOW_CONTROL_ERROR if the sender violates the advertised connection
    or stream data limits; see Section 11 for details on error handling.

    A sender MUST ignore any MAX_STREAM_DATA or MAX_DATA frames that do
    not increase flow control limits.

    If a sender has sent data up to the limit, it will be unable to send
    new data and is considered blocked.  A sender SHOULD send a
    STREAM_DATA_BLOCKED or DATA_BLOCKED frame to indicate to the receiver
    that it has data to write but is blocked by flow control limits.  If
    a sender is blocked for a period longer than the idle timeout
    (Section 10.1), the receiver might close the connection even when the
    sender has data that is available for transmission.  To keep the
    connection from closing, a sender that is flow control limited SHOULD
    periodically send a STREAM_DATA_BLOCKED or DATA_BLOCKED frame when it
    has no ack-eliciting packets in flight.

    4.2.  Increasing Flow Control Limits

    Implementations decide when and how much credit to advertise in
    MAX_STREAM_DATA and MAX_DATA frames, but this section offers a few
    considerations.

    To avoid blocking a sender, a receiver MAY send a MAX_STREAM_DATA or
    MAX_DATA frame multiple times within a round trip or send it early
    enough to allow time for loss of the frame and subsequent recovery.

    Control frames contribute to connection overhead.  Therefore,
    frequently sending MAX_STREAM_DATA and MAX_DATA frames with small
    changes is undesirable.  On the other hand, if updates are less
    frequent, larger increments to limits are necessary to avoid blocking
    a sender, requiring larger resource commitments at the receiver.
    There is a trade-off between resource commitment and overhead when
    determining how large a limit is advertised.

    A receiver can use an autotuning mechanism to tune the frequency and
    amount of advertised additional credit based on a round-trip time
    estimate and the rate at which the receiving application consumes
    data, similar to common TCP implementations.  As an optimization, an
    endpoint could send frames related to flow control only when there
    are other frames to send, ensuring that flow control does not cause
    extra packets to be sent.

    A blocked sender is not required to send STREAM_DATA_BLOCKED or
    DATA_BLOCKED frames.  Therefore, a receiver MUST NOT wait for a
    STREAM_DATA_BLOCKED or DATA_BLOCKED frame before sending a
    MAX_STREAM_DATA or MAX_DATA frame; doing so could result in the
    sender being blocked for the rest of the connection.  Even if the
    sender sends these frames, waiting for them will result in the sender
    being blocked for at least an entire round trip.

    When a sender receives credit after being blocked, it might be able
    to send a large amount of data in response, resulting in short-term
    congestion; see Section 7.7 of [QUIC-RECOVERY] for a discussion of
    how a sender can avoid this congestion.
""")

# html/usc-title09-arbitration.htm, 9 U.S.C. §§ 2-3 (text extracted from the HTML).
USC9_S2_S3 = (
    "§2. Validity, irrevocability, and enforcement of agreements to arbitrate A written "
    "provision in any maritime transaction or a contract evidencing a transaction involving "
    "commerce to settle by arbitration a controversy thereafter arising out of such contract or "
    "transaction, or the refusal to perform the whole or any part thereof, or an agreement in "
    "writing to submit to arbitration an existing controversy arising out of such a contract, "
    "transaction, or refusal, shall be valid, irrevocable, and enforceable, save upon such "
    "grounds as exist at law or in equity for the revocation of any contract. (July 30, 1947, "
    "ch. 392, 61 Stat. 670.) Derivation Act Feb. 12, 1925, ch. 213, §2, 43 Stat. 883. §3. Stay "
    "of proceedings where issue therein referable to arbitration If any suit or proceeding be "
    "brought in any of the courts of the United States upon any issue referable to arbitration "
    "under an agreement in writing for such arbitration, the court in which such suit is "
    "pending, upon being satisfied that the issue involved in such suit or proceeding is "
    "referable to arbitration under such an agreement, shall on application of one of the "
    "parties stay the trial of the action until such arbitration has been had in accordance "
    "with the terms of the agreement, providing the applicant for the stay is not in default in "
    "proceeding with such arbitration. (July 30, 1947, ch. 392, 61 Stat. 670.) Derivation Act "
    "Feb. 12, 1925, ch. 213, §3, 43 Stat. 883."
)

# html/usc-title09-arbitration.htm, 9 U.S.C. § 4 (about 600 tokens).
USC9_S4 = (
    "§4. Failure to arbitrate under agreement; petition to United States court having "
    "jurisdiction for order to compel arbitration; notice and service thereof; hearing and "
    "determination A party aggrieved by the alleged failure, neglect, or refusal of another to "
    "arbitrate under a written agreement for arbitration may petition any United States "
    "district court which, save for such agreement, would have jurisdiction under title 28, in "
    "a civil action or in admiralty of the subject matter of a suit arising out of the "
    "controversy between the parties, for an order directing that such arbitration proceed in "
    "the manner provided for in such agreement. Five days' notice in writing of such "
    "application shall be served upon the party in default. Service thereof shall be made in "
    "the manner provided by the Federal Rules of Civil Procedure. The court shall hear the "
    "parties, and upon being satisfied that the making of the agreement for arbitration or the "
    "failure to comply therewith is not in issue, the court shall make an order directing the "
    "parties to proceed to arbitration in accordance with the terms of the agreement. The "
    "hearing and proceedings, under such agreement, shall be within the district in which the "
    "petition for an order directing such arbitration is filed. If the making of the "
    "arbitration agreement or the failure, neglect, or refusal to perform the same be in issue, "
    "the court shall proceed summarily to the trial thereof. If no jury trial be demanded by "
    "the party alleged to be in default, or if the matter in dispute is within admiralty "
    "jurisdiction, the court shall hear and determine such issue. Where such an issue is "
    "raised, the party alleged to be in default may, except in cases of admiralty, on or before "
    "the return day of the notice of application, demand a jury trial of such issue, and upon "
    "such demand the court shall make an order referring the issue or issues to a jury in the "
    "manner provided by the Federal Rules of Civil Procedure, or may specially call a jury for "
    "that purpose. If the jury find that no agreement in writing for arbitration was made or "
    "that there is no default in proceeding thereunder, the proceeding shall be dismissed. If "
    "the jury find that an agreement for arbitration was made in writing and that there is a "
    "default in proceeding thereunder, the court shall make an order summarily directing the "
    "parties to proceed with the arbitration in accordance with the terms thereof. (July 30, "
    "1947, ch. 392, 61 Stat. 671; Sept. 3, 1954, ch. 1263, §19, 68 Stat. 1233.) Derivation Act "
    "Feb. 12, 1925, ch. 213, §4, 43 Stat. 883."
)

# Made up: accents, "§ 4.2", em and en dashes, guillemets, CJK, Greek, a ligature, full-width
# letters, an emoji, a zero-width space and a tab (cleaned or split by BERT's normaliser).
NON_ASCII = (
    "Gemäß § 4.2 Abs. 1 — sofern nicht anders bestimmt — dürfen personenbezogene Daten nur "
    "verarbeitet werden, wenn die Übermittlung erforderlich ist. Le délai de conservation est "
    "fixé à « douze mois » (art. 5–7). 個人情報の保護に関する法律（第二十三条）に基づき、"
    "第三者提供には本人の同意が必要です。数据保护法第4.2条。Ο νόμος ισχύει. "
    "Naïve café façade ﬁnal ＡＢＣ１２３ 🔒 zero\u200bwidth\ttab."
)

# Made up: a chunk with a 128-character hex digest (a "word" over WordPiece's 100-character
# limit, so it becomes [UNK]) and a URL.
DIGEST = (
    "Release artifacts are signed; verify strata-0.4.2-x86_64.tar.gz against "
    "https://example.org/releases/SHA512SUMS. Its SHA-512 digest is "
    "3f0c1e6a9b2d4c8e7f1a0b3c5d7e9f2a4b6c8d0e1f3a5b7c9d1e3f5a7b9c0d2e4f6a8b0c1d3e5f7a9b2c4d6e8f"
    "0a1b3c5d7e9f1a2b4c6d8e0f2a3b5c7d9e1f3 and the file is 12,345,678 bytes."
)

PAIRS = [
    # short query + short passage
    ("what is an idempotent http method", RFC7231_IDEMPOTENT),
    # one-word query
    ("GET", RFC7231_GET),
    # query + RFC paragraphs with line breaks and double spaces
    ("can a safe request method have side effects?", RFC7231_SAFE),
    # query + legal/spec markdown with escapes and entities
    ("How is the temporalId of a subparagraph computed in USLM?", USLM_TEMPORAL_ID),
    # query + prose with code spans and curly apostrophes
    ("rust match arm shadowing variable y", RUST_BOOK_MATCH),
    # non-ASCII query and passage
    ("Datenschutz § 4.2 — Übermittlung an Dritte (個人情報)", NON_ASCII),
    # over-long word -> [UNK]
    ("sha512 checksum of the release tarball", DIGEST),
    # long passage (> 600 tokens), only the passage is truncated
    ("QUIC flow control MAX_STREAM_DATA blocked sender", RFC9000_FLOW_CONTROL),
    # long query (~300 tokens) and long passage: longest_first trims both
    (USC9_S2_S3, USC9_S4),
    # irrelevant pair (low score expected with real weights)
    ("chocolate cake recipe", USC9_S4[:400]),
]


def tokenizer_dir() -> Path:
    if len(sys.argv) > 1:
        return Path(sys.argv[1])
    if os.environ.get("STRATA_MODEL_DIR"):
        return Path(os.environ["STRATA_MODEL_DIR"])
    cache = os.environ.get("STRATA_CACHE") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "strata")
    return Path(cache) / "models/all-MiniLM-L6-v2"


def f32(x) -> float:
    """A float32 value as the Python float (double) that holds it exactly; json writes its
    shortest repr, which round-trips to the same float32."""
    return float(np.float32(x))


def main():
    torch.set_num_threads(1)
    torch.manual_seed(0)  # irrelevant (every parameter is overwritten), but keeps runs identical
    check_generator()

    # eager attention: the plain softmax(QK^T/sqrt(d) + mask) V that a Rust port implements.
    config = BertConfig(**CONFIG)
    config._attn_implementation = "eager"
    model = BertForSequenceClassification(config)
    model.eval()
    assert model.config._attn_implementation == "eager", model.config._attn_implementation

    params = dict(model.named_parameters())
    state = model.state_dict()
    tensors = []
    with torch.no_grad():
        for name, t in state.items():
            if name not in params:
                print(f"buffer left alone: {name} {tuple(t.shape)}")
                continue
            params[name].copy_(torch.from_numpy(generate(name, tuple(t.shape))))
            tensors.append({"name": name, "shape": list(t.shape)})
    missing = set(params) - {t["name"] for t in tensors}
    assert not missing, f"parameters not in state_dict: {missing}"

    # The names a saved model.safetensors uses, for the Rust loader.
    with tempfile.TemporaryDirectory() as d:
        model.save_pretrained(d, safe_serialization=True)
        saved = safetensors.torch.load_file(os.path.join(d, "model.safetensors"))
    saved_names = sorted(saved)
    ours = sorted(t["name"] for t in tensors)
    if saved_names != ours:
        print("safetensors names differ from state_dict names:")
        print("  only in file:", sorted(set(saved_names) - set(ours)))
        print("  only in state_dict:", sorted(set(ours) - set(saved_names)))
    for t in tensors:
        if t["name"] in saved:
            assert torch.equal(saved[t["name"]], state[t["name"]]), t["name"]

    tok_dir = tokenizer_dir()
    tokenizer = AutoTokenizer.from_pretrained(str(tok_dir))
    queries = [q for q, _ in PAIRS]
    passages = [p for _, p in PAIRS]

    # (a) each pair alone, unpadded, as CrossEncoder tokenizes a batch of one
    pairs_out = []
    with torch.no_grad():
        for q, p in PAIRS:
            enc = tokenizer([q], [p], padding=True, truncation="longest_first",
                            max_length=MAX_LENGTH, return_tensors="pt")
            logit = model(**enc).logits[0, 0].item()
            pairs_out.append({
                "query": q,
                "passage": p,
                "input_ids": enc["input_ids"][0].tolist(),
                "token_type_ids": enc["token_type_ids"][0].tolist(),
                "logit": f32(logit),
            })

        # (b) all pairs as one padded batch, as CrossEncoder.predict does
        enc = tokenizer(queries, passages, padding=True, truncation="longest_first",
                        max_length=MAX_LENGTH, return_tensors="pt")
        batch = model(**enc).logits[:, 0].tolist()
        batch_logits = [f32(x) for x in batch]

        # Intermediate values for the first pair, to help debug a port.
        enc0 = tokenizer([queries[0]], [passages[0]], return_tensors="pt")
        out0 = model.bert(**enc0, output_hidden_states=True)
        debug = {
            "pair": 0,
            "embeddings_token0_first8": [f32(x) for x in out0.hidden_states[0][0, 0, :8]],
            "layer1_token0_first8": [f32(x) for x in out0.hidden_states[1][0, 0, :8]],
            "last_hidden_token0_first8": [f32(x) for x in out0.last_hidden_state[0, 0, :8]],
            "last_hidden_token_last_first8": [f32(x) for x in out0.last_hidden_state[0, -1, :8]],
            "pooled_first8": [f32(x) for x in out0.pooler_output[0, :8]],
        }

        # The same model in float64, for the size of float32 rounding error: a float32 port
        # should land within a few 1e-7 of 'logit' but can only be as close as this allows.
        model64 = copy.deepcopy(model).double()
        for po in pairs_out:
            ids = torch.tensor([po["input_ids"]])
            tt = torch.tensor([po["token_type_ids"]])
            po["logit_f64"] = model64(input_ids=ids, token_type_ids=tt).logits[0, 0].item()

    # Check that padded batch and single pairs agree, and that the ids line up.
    for i, po in enumerate(pairs_out):
        n = len(po["input_ids"])
        assert enc["input_ids"][i, :n].tolist() == po["input_ids"]
        assert enc["attention_mask"][i, :n].all() and not enc["attention_mask"][i, n:].any()
    diffs = [abs(a["logit"] - b) for a, b in zip(pairs_out, batch_logits)]

    # Sample values so a port can check its generator before anything else.
    for t in tensors:
        flat = generate(t["name"], tuple(t["shape"])).reshape(-1)
        t["first3"] = [f32(x) for x in flat[:3]]
        t["sum"] = float(flat.astype(np.float64).sum())

    versions = (f"python {platform.python_version()}, torch {torch.__version__}, "
                f"transformers {transformers.__version__}, tokenizers {tokenizers.__version__}, "
                f"safetensors {safetensors.__version__}, numpy {np.__version__}")
    fixture = {
        "about": (
            "Reference logits of Hugging Face transformers' BertForSequenceClassification with "
            "the config of cross-encoder/ms-marco-MiniLM-L-6-v2 and RANDOM weights from the "
            "generator below (no real cross-encoder weights are available offline), eager "
            "attention, eval mode, float32 on CPU with one thread. Pairs are tokenized as "
            "sentence-transformers' CrossEncoder does: tokenizer(queries, passages, "
            "padding=True, truncation='longest_first', max_length=512), with the "
            "bert-base-uncased vocabulary of all-MiniLM-L6-v2. 'logit' is each pair run alone "
            "(unpadded); 'logit_f64' is the same in float64 (same float32 weights); "
            "'batch_logits' is all pairs in one padded batch (attention_mask 0 on padding). "
            "'debug' has a few intermediate values for pair 0. Made by "
            f"scripts/cross-encoder-fixture.py with {versions}."
        ),
        "generator": {
            "description": (
                "For each parameter tensor (state_dict name N, n elements in row-major order): "
                "seed = fnv1a64(UTF-8 bytes of N) (offset basis 0xcbf29ce484222325, prime "
                "0x100000001b3, h ^= byte then h *= prime); for i in 0..n: "
                "u = (splitmix64(seed + i) >> 40) / 16777216.0 (as float64, in [0,1)); "
                "v = (2*u - 1) * scale; if N ends with 'LayerNorm.weight' then v += 1.0; "
                "value[i] = v rounded once to float32. splitmix64(x): z = x + "
                "0x9E3779B97F4A7C15; z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9; "
                "z = (z ^ (z >> 27)) * 0x94D049BB133111EB; return z ^ (z >> 31). All integer "
                "arithmetic is wrapping unsigned 64-bit. Buffers (e.g. position_ids) are not "
                "parameters and are not generated. 'first3' and 'sum' (float64 sum of the "
                "float32 values; numpy's pairwise sum, so compare with a relative tolerance of about "
                "1e-9) in 'tensors' check a port of this generator."
            ),
            "scale": SCALE,
            "layer_norm_weight_offset": LAYER_NORM_WEIGHT_OFFSET,
        },
        "config": CONFIG,
        "max_length": MAX_LENGTH,
        "tensors": tensors,
        "pairs": pairs_out,
        "batch_logits": batch_logits,
        "debug": debug,
    }
    OUT.parent.mkdir(parents=True, exist_ok=True)
    text = json.dumps(fixture, ensure_ascii=False, indent=1)
    # Put each list of numbers on one line (indent=1 would give every id its own line).
    text = re.sub(r"\[\s*(-?[0-9][-0-9.e+,\s]*?)\s*\]",
                  lambda m: "[" + ", ".join(x.strip() for x in m.group(1).split(",")) + "]", text)
    assert json.loads(text) == fixture
    OUT.write_text(text + "\n", encoding="utf-8")

    lengths = [len(p["input_ids"]) for p in pairs_out]
    logits = [p["logit"] for p in pairs_out]
    print(f"wrote {OUT} ({OUT.stat().st_size} bytes)")
    print(versions)
    print(f"{len(tensors)} tensors, {sum(int(np.prod(t['shape'])) for t in tensors)} values")
    print(f"pairs: {len(pairs_out)}, token lengths {lengths}")
    for p in pairs_out:
        nq = p["token_type_ids"].count(0)
        print(f"  len {len(p['input_ids']):3d} (segment A {nq:3d}, B {len(p['input_ids']) - nq:3d})"
              f"  logit {p['logit']!r}")
    print(f"logit range [{min(logits)!r}, {max(logits)!r}]")
    print(f"max |single - batch| = {max(diffs):.3g}")
    print(f"max |float32 - float64| = {max(abs(p['logit'] - p['logit_f64']) for p in pairs_out):.3g}")


if __name__ == "__main__":
    main()
