#!/usr/bin/python3
"""Makes vesper's tiny test generator and its reference outputs.

Run with Debian's /usr/bin/python3 (python3-torch, python3-sentencepiece):

    /usr/bin/python3 tools/models/make_test_generator.py models/test

Writes models/test/tiny-gemma-it/: model.onnx, manifest.json and
reference.json. The model is a 2-layer causal decoder built like Gemma 3
(scaled embeddings, RMSNorm with (1 + w), grouped-query attention with one
key/value head, rotary positions, query and key norms, norms before and after
attention and the MLP, GeGLU; its output head is untied, see below), with
random weights and Gemma 3's ONNX inputs and outputs: input_ids,
attention_mask, position_ids, past_key_values.{i}.key/.value -> logits,
present.{i}.key/.value. Its vocabulary is the test tokenizer's
(models/test/tokenizer.model) plus two control tokens that play
<start_of_turn> and <end_of_turn>, as Gemma 3's vocabulary holds them.

reference.json holds, for fixed conversations, the prompt's token ids (the
chat template applied with the official sentencepiece library, each text
segment encoded on its own as web/engine/generator.mjs does) and torch's
greedy continuation with its KV cache, step by step, with each step's margin
between the best and second-best logit (parity is only meaningful where the
margin is well above float rounding). The outputs are committed, so tests
need neither torch nor a network; this tool exists to make them again.
"""
import json
import math
import sys
from pathlib import Path

import sentencepiece as spm
import torch
import torch.nn as nn

from make_test_models import RMSNorm  # Gemma's, with its (1 + w) scaling

ROOT = Path(__file__).resolve().parents[2]
TOKENIZER = ROOT / "models/test/tokenizer.model"

D, HEADS, KV_HEADS, HEAD_DIM, LAYERS, FF = 64, 4, 1, 16, 2, 128
ROPE_THETA = 10000.0
# The embeddings' spread: scaled by sqrt(D) they enter at about unit size, as
# large as what attention and the MLP add, so the next token depends on the
# context (larger ones let a token's own row win every step: greedy repeats one
# token, and a broken cache would go unnoticed).
EMBED_STD = 1.0 / math.sqrt(D)
NEW_TOKENS = 16
# The chat template's texts (Gemma 3's): the system text opens the first user turn.
USER, MODEL = "user\n", "model\n"
CONVERSATIONS = [
    {"system": "You are a helpful teacher.", "user": "What is gradient descent?"},
    {"system": "", "user": "Por que a Tesla abandonou o LiDAR?"},
    {"system": "Answer briefly.", "user": "从零构建是最快的理解"},
]


def rotate_half(x):
    half = x.shape[-1] // 2
    return torch.cat((-x[..., half:], x[..., :half]), dim=-1)


class Layer(nn.Module):
    def __init__(self):
        super().__init__()
        self.input_norm = RMSNorm(D)
        self.q = nn.Linear(D, HEADS * HEAD_DIM, bias=False)
        self.k = nn.Linear(D, KV_HEADS * HEAD_DIM, bias=False)
        self.v = nn.Linear(D, KV_HEADS * HEAD_DIM, bias=False)
        self.q_norm = RMSNorm(HEAD_DIM)
        self.k_norm = RMSNorm(HEAD_DIM)
        self.o = nn.Linear(HEADS * HEAD_DIM, D, bias=False)
        self.post_attn_norm = RMSNorm(D)
        self.pre_ff_norm = RMSNorm(D)
        self.gate = nn.Linear(D, FF, bias=False)
        self.up = nn.Linear(D, FF, bias=False)
        self.down = nn.Linear(FF, D, bias=False)
        self.post_ff_norm = RMSNorm(D)

    def forward(self, x, cos, sin, bias, past_k, past_v):
        b, t, _ = x.shape
        h = self.input_norm(x)
        q = self.q_norm(self.q(h).view(b, t, HEADS, HEAD_DIM).transpose(1, 2))
        k = self.k_norm(self.k(h).view(b, t, KV_HEADS, HEAD_DIM).transpose(1, 2))
        v = self.v(h).view(b, t, KV_HEADS, HEAD_DIM).transpose(1, 2)
        q = q * cos + rotate_half(q) * sin
        k = k * cos + rotate_half(k) * sin
        k = torch.cat((past_k, k), dim=2)
        v = torch.cat((past_v, v), dim=2)
        # Each group of query heads reads its key/value head (broadcast, not
        # copied: repeat_interleave exports with the example's lengths fixed).
        g = q.reshape(b, KV_HEADS, HEADS // KV_HEADS, t, HEAD_DIM)
        scores = g @ k.unsqueeze(2).transpose(-1, -2) / math.sqrt(HEAD_DIM) + bias.unsqueeze(1)
        a = (scores.softmax(-1) @ v.unsqueeze(2)).reshape(b, HEADS, t, HEAD_DIM)
        a = a.transpose(1, 2).reshape(b, t, HEADS * HEAD_DIM)
        x = x + self.post_attn_norm(self.o(a))
        h = self.pre_ff_norm(x)
        m = self.down(torch.nn.functional.gelu(self.gate(h), approximate="tanh") * self.up(h))
        return x + self.post_ff_norm(m), k, v


class TinyGemmaCausal(nn.Module):
    def __init__(self, vocab):
        super().__init__()
        self.embed = nn.Embedding(vocab, D)
        self.layers = nn.ModuleList(Layer() for _ in range(LAYERS))
        self.final = RMSNorm(D)
        # Untied, unlike Gemma's: with random weights a tied head favours the
        # current token's own row and greedy decoding repeats it.
        self.head = nn.Linear(D, vocab, bias=False)
        inv = 1.0 / (ROPE_THETA ** (torch.arange(0, HEAD_DIM, 2, dtype=torch.float32) / HEAD_DIM))
        self.register_buffer("inv_freq", inv, persistent=False)

    def forward(self, input_ids, attention_mask, position_ids, *past):
        x = self.embed(input_ids) * math.sqrt(D)
        freqs = position_ids.to(torch.float32).unsqueeze(-1) * self.inv_freq
        emb = torch.cat((freqs, freqs), dim=-1).unsqueeze(1)
        cos, sin = emb.cos(), emb.sin()
        # A key is visible to a query at or after its position, and only if
        # the mask keeps it; positions come from the mask as Gemma's do.
        key_pos = attention_mask.cumsum(-1) - 1
        visible = (key_pos.unsqueeze(1) <= position_ids.unsqueeze(-1)) & (attention_mask.unsqueeze(1) > 0)
        bias = (~visible).to(torch.float32).unsqueeze(1) * -1e9
        presents = []
        for i, layer in enumerate(self.layers):
            x, k, v = layer(x, cos, sin, bias, past[2 * i], past[2 * i + 1])
            presents += [k, v]
        logits = self.head(self.final(x))
        return (logits, *presents)


def names():
    past, present = [], []
    for i in range(LAYERS):
        for kv in ("key", "value"):
            past.append(f"past_key_values.{i}.{kv}")
            present.append(f"present.{i}.{kv}")
    return past, present


def export(model, path: Path):
    past_names, present_names = names()
    ids = torch.tensor([[2, 10, 11]])
    mask = torch.ones(1, 5, dtype=torch.int64)
    pos = torch.tensor([[2, 3, 4]])
    past = [torch.randn(1, KV_HEADS, 2, HEAD_DIM) for _ in past_names]
    dyn = {"input_ids": {0: "batch", 1: "sequence"}, "attention_mask": {0: "batch", 1: "total"},
           "position_ids": {0: "batch", 1: "sequence"}, "logits": {0: "batch", 1: "sequence"}}
    for n in past_names:
        dyn[n] = {0: "batch", 2: "past"}
    for n in present_names:
        dyn[n] = {0: "batch", 2: "total"}
    torch.onnx.export(model, (ids, mask, pos, *past), str(path),
                      input_names=["input_ids", "attention_mask", "position_ids", *past_names],
                      output_names=["logits", *present_names], dynamic_axes=dyn, opset_version=14)


def chat_ids(sp, conv, start, end):
    """Gemma 3's template as ids: <bos><start_of_turn>user\\n{system}\\n\\n{user}<end_of_turn>\\n<start_of_turn>model\\n."""
    first = USER + (conv["system"] + "\n\n" if conv["system"] else "") + conv["user"]
    return [2, start] + sp.encode(first) + [end] + sp.encode("\n") + [start] + sp.encode(MODEL)


@torch.no_grad()
def recomputed(model, prompt, n):
    """Greedy without a cache (the whole sequence every step): what the cache must reproduce."""
    ids = list(prompt)
    empty = [torch.zeros(1, KV_HEADS, 0, HEAD_DIM) for _ in range(2 * LAYERS)]
    for _ in range(n):
        logits = model(torch.tensor([ids]), torch.ones(1, len(ids), dtype=torch.int64),
                       torch.arange(len(ids)).unsqueeze(0), *empty)[0]
        ids.append(int(logits[0, -1].argmax()))
    return ids[len(prompt):]


@torch.no_grad()
def greedy(model, prompt):
    past = [torch.zeros(1, KV_HEADS, 0, HEAD_DIM) for _ in range(2 * LAYERS)]
    ids, out, margins, first_top = prompt, [], [], None
    total = 0
    for step in range(NEW_TOKENS):
        t = len(ids)
        mask = torch.ones(1, total + t, dtype=torch.int64)
        pos = torch.arange(total, total + t).unsqueeze(0)
        logits, *past = model(torch.tensor([ids]), mask, pos, *past)
        row = logits[0, -1]
        top = torch.topk(row, 5)
        if step == 0:
            first_top = {"ids": [int(i) for i in top.indices], "logits": [round(float(v), 5) for v in top.values]}
        margins.append(round(float(top.values[0] - top.values[1]), 5))
        token = int(top.indices[0])
        out.append(token)
        total += t
        ids = [token]
    return out, margins, first_top


def main(out_root: Path):
    torch.manual_seed(20261206)
    sp = spm.SentencePieceProcessor(model_file=str(TOKENIZER))
    vocab = sp.get_piece_size()
    start, end = vocab, vocab + 1  # the two control tokens
    model = TinyGemmaCausal(vocab + 2).eval()
    with torch.no_grad():  # non-zero norm weights, so the test exercises them
        for m in model.modules():
            if isinstance(m, RMSNorm):
                m.weight.normal_(0, 0.1)
        model.embed.weight.normal_(0, EMBED_STD)
    out = out_root / "tiny-gemma-it"
    out.mkdir(parents=True, exist_ok=True)
    export(model, out / "model.onnx")
    rows = []
    for conv in CONVERSATIONS:
        prompt = chat_ids(sp, conv, start, end)
        tokens, margins, first_top = greedy(model, prompt)
        assert tokens == recomputed(model, prompt, NEW_TOKENS), "the KV cache changes greedy decoding"
        rows.append({**conv, "prompt": prompt, "greedy": tokens, "margins": margins, "firstTop": first_top})
    reference = {"model": "tiny-gemma-it", "newTokens": NEW_TOKENS, "conversations": rows}
    (out / "reference.json").write_text(json.dumps(reference, ensure_ascii=False, indent=1) + "\n")
    print(f"vocab {vocab + 2}; smallest greedy margin {min(min(r['margins']) for r in rows)}")


if __name__ == "__main__":
    main(Path(sys.argv[1] if len(sys.argv) > 1 else ROOT / "models/test"))
