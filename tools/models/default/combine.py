#!/usr/bin/python3
"""Puts members saved by `train.py --keep-members DIR` together into a model
without retraining, to compare ensembles, SIF frequencies and
common-component counts on the development queries (eval.mjs) in seconds
instead of half an hour.

    combine.py KEEP_DIR MODEL_DIR [--members 0,1,2,3] [--common-components 1] [--joint-components 1]
               [--sif-per-language WORK_DIR]

--members takes KEEP_DIR's member numbers, OTHER_KEEP_DIR:N for a member of
another run (same tokenizer and training text), and N*0.5 for a member with
half the say of the others. MODEL_DIR must already hold tokenizer.model (the
one the members were trained with) and manifest.json; model.vtab and
model.onnx are overwritten and the manifest's dims follow the combination.
The steps are train.py's own: SIF weights, common components out of each
member, equal say per member, common components out of the whole table.
"""
import argparse
import json
import random
from pathlib import Path

import torch

from train import (encode_all, kb_lines, member_weights, per_language_frequency, read_pairs, remove_common_components,
                   write_onnx, write_vtab_int8)


def language_frequency(work: Path, tokenizer: Path, vocab: int, seed: int = 7):
    """The same per-language piece probabilities train.py --sif-per-language computes."""
    pairs, _ = read_pairs(work, random.Random(seed), seed)  # as train.py without --ui-strings
    texts = sorted({t for a, b, _ in pairs for t in (a, b)})
    lines = kb_lines()
    return per_language_frequency(pairs, encode_all(tokenizer, texts), {t: i for i, t in enumerate(texts)},
                                  lines, encode_all(tokenizer, lines), vocab)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("keep", type=Path)
    ap.add_argument("model", type=Path)
    ap.add_argument("--members", default="0,1,2,3")
    ap.add_argument("--common-components", type=int, default=1, help="taken out of each member")
    ap.add_argument("--joint-components", type=int, default=1, help="then taken out of the whole table")
    ap.add_argument("--sif-per-language", type=Path, metavar="WORK_DIR",
                    help="SIF frequencies per language (train.py's --sif-per-language), from WORK_DIR's text")
    args = ap.parse_args()
    common = torch.load(args.keep / "common.pt")
    sif, kb, a = common["sif"], common["kb"], common.get("a", 1e-4)
    if args.sif_per_language:
        sif = a / (a + language_frequency(args.sif_per_language, args.model / "tokenizer.model", len(sif)))
    parts = []
    for item in args.members.split(","):
        item, _, say = item.partition("*")
        where, _, m = item.rpartition(":")
        table = torch.load(Path(where or args.keep) / f"member-{m}.pt")["table"]
        parts.append(member_weights(table, sif, kb, args.common_components, say=float(say or 1)))
    weights = remove_common_components(torch.cat(parts, dim=1), kb, args.joint_components)
    write_vtab_int8(args.model / "model.vtab", weights)
    write_onnx(args.model / "model.onnx", weights)
    manifest_path = args.model / "manifest.json"
    manifest = json.loads(manifest_path.read_text())
    manifest["dims"] = weights.shape[1]
    manifest["matryoshkaDims"] = [weights.shape[1]]
    manifest_path.write_text(json.dumps(manifest, indent=2) + "\n")


if __name__ == "__main__":
    main()
