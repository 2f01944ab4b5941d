#!/usr/bin/python3
"""Makes vesper's tiny test models and their reference outputs.

Run with Debian's /usr/bin/python3 (python3-torch, python3-onnx):

    /usr/bin/python3 tools/models/make_test_models.py models/test

Writes, per model, model.onnx, manifest.json and reference.json (torch
outputs for fixed texts), plus a shared SentencePiece tokenizer trained with
spm_train on the knowledge base. The outputs are committed, so tests need
neither torch nor a network; this tool exists to make them again.

- tiny-gemma: a 2-layer Gemma-like bidirectional encoder (RMSNorm, GeGLU,
  scaled embeddings) with EmbeddingGemma's input and output names:
  input_ids, attention_mask -> last_hidden_state, sentence_embedding
  (masked mean pooling, dense projection, L2 normalisation).
- static-tiny: a static embedding model (token table, per-piece weights
  folded in, masked sum, L2 normalisation), also written in the core's own
  table format (model.vtab) so the C++ core runs it without ONNX Runtime.
"""
import json
import math
import os
import struct
import subprocess
import sys
from pathlib import Path

import torch
import torch.nn as nn

ROOT = Path(__file__).resolve().parents[2]
KB = sorted((ROOT / "web/kb/karpathy").glob("*.txt"))
EDGE = ROOT / "tests/data/edge_cases.txt"

REFERENCE_TEXTS = [
    "Software 2.0 is written in neural network weights.",
    "Por que a Tesla abandonou o LiDAR?",
    "从零构建是最快的理解压缩",
    "Emoji 🌍 and combining accents: ação",
    "x",
]


def train_tokenizer(out_dir: Path) -> Path:
    prefix = out_dir / "tokenizer"
    inputs = ",".join(str(p) for p in KB + [EDGE])
    # Gemma's special ids: <pad> 0, <eos> 1, <bos> 2, <unk> 3.
    subprocess.run(
        ["spm_train", f"--input={inputs}", f"--model_prefix={prefix}", "--model_type=unigram", "--vocab_size=2000",
         "--character_coverage=1.0", "--byte_fallback=true", "--pad_id=0", "--eos_id=1", "--bos_id=2", "--unk_id=3",
         "--num_threads=1", "--seed_sentencepiece_size=100000", "--minloglevel=2", "--hard_vocab_limit=false"],
        check=True, capture_output=True)
    (out_dir / "tokenizer.vocab").unlink()
    return prefix.with_suffix(".model")


def encode(model: Path, text: str, add_bos: bool, add_eos: bool):
    out = subprocess.run(["spm_encode", f"--model={model}", "--output_format=id"], input=text.encode(),
                         capture_output=True, check=True).stdout.decode().split()
    ids = [int(x) for x in out]
    return ([2] if add_bos else []) + ids + ([1] if add_eos else [])


class RMSNorm(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.weight = nn.Parameter(torch.zeros(d))

    def forward(self, x):
        # Gemma's (1 + w) scaling.
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-6) * (1.0 + self.weight)


class Layer(nn.Module):
    def __init__(self, d, heads, ff):
        super().__init__()
        self.heads = heads
        self.norm1 = RMSNorm(d)
        self.qkv = nn.Linear(d, 3 * d, bias=False)
        self.out = nn.Linear(d, d, bias=False)
        self.norm2 = RMSNorm(d)
        self.gate = nn.Linear(d, ff, bias=False)
        self.up = nn.Linear(d, ff, bias=False)
        self.down = nn.Linear(ff, d, bias=False)

    def forward(self, x, key_bias):
        b, t, d = x.shape
        h = self.norm1(x)
        q, k, v = self.qkv(h).view(b, t, 3, self.heads, d // self.heads).permute(2, 0, 3, 1, 4)
        scores = q @ k.transpose(-1, -2) / math.sqrt(d // self.heads) + key_bias
        x = x + self.out((scores.softmax(-1) @ v).transpose(1, 2).reshape(b, t, d))
        h = self.norm2(x)
        return x + self.down(torch.nn.functional.gelu(self.gate(h), approximate="tanh") * self.up(h))


class TinyGemmaEncoder(nn.Module):
    def __init__(self, vocab, d=64, heads=4, layers=2, ff=128, max_len=512, out_dims=64):
        super().__init__()
        self.d = d
        self.embed = nn.Embedding(vocab, d)
        self.pos = nn.Embedding(max_len, d)
        self.layers = nn.ModuleList(Layer(d, heads, ff) for _ in range(layers))
        self.final = RMSNorm(d)
        self.dense = nn.Linear(d, out_dims, bias=False)

    def forward(self, input_ids, attention_mask):
        t = input_ids.shape[1]
        x = self.embed(input_ids) * math.sqrt(self.d) + self.pos(torch.arange(t).unsqueeze(0))
        mask = attention_mask.to(torch.float32)
        key_bias = (1.0 - mask)[:, None, None, :] * -1e9
        for layer in self.layers:
            x = layer(x, key_bias)
        last = self.final(x)
        pooled = (last * mask.unsqueeze(-1)).sum(1) / mask.sum(1, keepdim=True).clamp(min=1.0)
        e = self.dense(pooled)
        return last, e / e.norm(dim=-1, keepdim=True).clamp(min=1e-12)


class StaticEmbedding(nn.Module):
    def __init__(self, table):
        super().__init__()
        self.table = nn.Parameter(table)

    def forward(self, input_ids, attention_mask):
        mask = attention_mask.to(torch.float32).unsqueeze(-1)
        s = (self.table[input_ids] * mask).sum(1)
        return s / s.norm(dim=-1, keepdim=True).clamp(min=1e-12)


def export(model, names_out, path: Path, vocab):
    ids = torch.tensor([[2, 10, 11, 12, 1], [2, 13, 1, 0, 0]])
    mask = torch.tensor([[1, 1, 1, 1, 1], [1, 1, 1, 0, 0]])
    dyn = {"input_ids": {0: "batch", 1: "sequence"}, "attention_mask": {0: "batch", 1: "sequence"}}
    for n in names_out:
        dyn[n] = {0: "batch", 1: "sequence"} if n == "last_hidden_state" else {0: "batch"}
    torch.onnx.export(model, (ids, mask), str(path), input_names=["input_ids", "attention_mask"],
                      output_names=names_out, dynamic_axes=dyn, opset_version=14)


def piece_weights(tokenizer: Path, vocab: int):
    """SIF weights a / (a + p(piece)) from piece frequencies in the knowledge base."""
    counts = torch.ones(vocab)
    for p in KB:
        for line in p.read_text().splitlines():
            if line.strip():
                for i in encode(tokenizer, line, False, False):
                    counts[i] += 1
    prob = counts / counts.sum()
    return 1e-3 / (1e-3 + prob)


def write_vtab(path: Path, table: torch.Tensor):
    """The core's static table format (core/embed/static_model.h): fp32 rows."""
    vocab, dims = table.shape
    with open(path, "wb") as f:
        f.write(b"VSTM")
        f.write(struct.pack("<IIII", 1, vocab, dims, 0))
        f.write(table.contiguous().numpy().astype("<f4").tobytes())


def reference(model, tokenizer, add_bos, add_eos, outputs):
    rows = []
    with torch.no_grad():
        for text in REFERENCE_TEXTS:
            ids = encode(tokenizer, text, add_bos, add_eos)
            t_ids = torch.tensor([ids])
            t_mask = torch.ones_like(t_ids)
            out = model(t_ids, t_mask)
            out = out if isinstance(out, tuple) else (out,)
            row = {"text": text, "ids": ids}
            for name, value in zip(outputs, out):
                if name == "sentence_embedding":
                    row[name] = [round(float(x), 7) for x in value[0]]
                else:
                    row[name + "_mean"] = [round(float(x), 7) for x in value[0].mean(0)]
            rows.append(row)
    return rows


def main(out_root: Path):
    torch.manual_seed(1234)
    out_root.mkdir(parents=True, exist_ok=True)
    tokenizer = train_tokenizer(out_root)
    vocab = int(subprocess.run(["wc", "-l"], input=subprocess.run(
        ["spm_export_vocab", f"--model={tokenizer}"], capture_output=True, check=True).stdout,
        capture_output=True).stdout.split()[0])

    gemma_dir = out_root / "tiny-gemma"
    gemma_dir.mkdir(exist_ok=True)
    gemma = TinyGemmaEncoder(vocab).eval()
    with torch.no_grad():  # non-zero norm weights, so the test exercises them
        for m in gemma.modules():
            if isinstance(m, RMSNorm):
                m.weight.normal_(0, 0.1)
    outputs = ["last_hidden_state", "sentence_embedding"]
    export(gemma, outputs, gemma_dir / "model.onnx", vocab)
    (gemma_dir / "reference.json").write_text(json.dumps(reference(gemma, tokenizer, True, True, outputs)))

    static_dir = out_root / "static-tiny"
    static_dir.mkdir(exist_ok=True)
    table = torch.randn(vocab, 32) * piece_weights(tokenizer, vocab).unsqueeze(-1)
    table[:4] = 0  # special pieces carry no meaning
    static = StaticEmbedding(table).eval()
    export(static, ["sentence_embedding"], static_dir / "model.onnx", vocab)
    write_vtab(static_dir / "model.vtab", table)
    (static_dir / "reference.json").write_text(
        json.dumps(reference(static, tokenizer, False, False, ["sentence_embedding"])))
    print(f"vocab {vocab}; wrote {gemma_dir} and {static_dir}")


if __name__ == "__main__":
    main(Path(sys.argv[1] if len(sys.argv) > 1 else ROOT / "models/test"))
