// Converts a Hugging Face tokenizer.json that came from SentencePiece (BPE
// with byte fallback, as Gemma's, or Unigram) back into a SentencePiece
// model, so vesper's C++ tokenizer produces the same ids as the reference
// JS tokenizer (transformers.js / @lenml/tokenizers).
//
// What maps to what:
// - BPE merges -> piece scores: SentencePiece merges the adjacent pair whose
//   concatenation scores highest, HF the pair with the lowest merge rank, so a
//   merged piece scores -(rank of the first merge that makes it).
// - Added tokens are split out of the raw text before normalisation in HF:
//   SentencePiece's user-defined symbols do the same (longest match first).
//   Those written with '▁' never occur in raw text, so they stay normal
//   pieces that BPE builds, as in HF.
// - pad/bos/eos are control symbols, <unk> the unknown piece, <0xNN> bytes.
// - Normalizer: Replace(' ' -> '▁') is SentencePiece's whitespace escaping,
//   Prepend('▁') or Metaspace's prefix is add_dummy_prefix, Precompiled
//   carries SentencePiece's own charsmap.
import { ProtoWriter } from './protobuf.mjs';

const NORMAL = 1, UNKNOWN = 2, CONTROL = 3, USER_DEFINED = 4, BYTE = 6;
const BPE = 2, UNIGRAM = 1;

class ConversionError extends Error {}

function flatten(node) {
  if (!node) return [];
  if (node.type === 'Sequence') return (node.normalizers ?? node.pretokenizers ?? []).flatMap(flatten);
  return [node];
}

function normalizerSpec(json) {
  const spec = { name: 'identity', charsmap: null, addDummyPrefix: false, escapeWhitespaces: false, removeExtraWhitespaces: false };
  for (const n of flatten(json.normalizer)) {
    if (n.type === 'Replace' && n.pattern?.String === ' ' && n.content === '\u2581') spec.escapeWhitespaces = true;
    else if (n.type === 'Prepend' && n.prepend === '\u2581') spec.addDummyPrefix = true;
    else if (n.type === 'Precompiled') {
      spec.name = 'precompiled';
      spec.charsmap = n.precompiled_charsmap ? Uint8Array.from(atob(n.precompiled_charsmap), (c) => c.charCodeAt(0)) : null;
    } else if (n.type === 'Replace' && n.pattern?.Regex === ' {2,}' && n.content === ' ') spec.removeExtraWhitespaces = true;
    else throw new ConversionError(`unsupported normalizer ${JSON.stringify(n)}`);
  }
  for (const p of flatten(json.pre_tokenizer)) {
    if (p.type === 'Metaspace') {
      spec.escapeWhitespaces = true;
      if (p.add_prefix_space || p.prepend_scheme === 'always' || p.prepend_scheme === 'first') spec.addDummyPrefix = true;
    } else if (p.type === 'Split' && p.pattern?.String === ' ' && spec.escapeWhitespaces) {
      // Runs after spaces became '▁': it never splits anything.
    } else if (p.type === 'WhitespaceSplit') {
      spec.removeExtraWhitespaces = true;
    } else {
      throw new ConversionError(`unsupported pre-tokenizer ${JSON.stringify(p)}`);
    }
  }
  return spec;
}

export function convertTokenizerJson(json) {
  const model = json.model;
  if (model?.type !== 'BPE' && model?.type !== 'Unigram') throw new ConversionError(`unsupported model type ${model?.type}`);
  const pieces = [];
  if (model.type === 'BPE') {
    for (const [piece, id] of Object.entries(model.vocab)) pieces[id] = { piece, score: 0, type: NORMAL };
    const firstRank = new Map();
    model.merges.forEach((m, rank) => {
      const [a, b] = Array.isArray(m) ? m : m.split(' ');
      const merged = a + b;
      if (!firstRank.has(merged)) firstRank.set(merged, rank);
    });
    for (const p of pieces) {
      if (!p) throw new ConversionError('vocabulary ids are not contiguous');
      if (firstRank.has(p.piece)) p.score = -firstRank.get(p.piece);
    }
  } else {
    model.vocab.forEach(([piece, score], id) => (pieces[id] = { piece, score, type: NORMAL }));
  }
  if (model.byte_fallback) {
    for (const p of pieces) if (/^<0x[0-9A-F]{2}>$/.test(p.piece)) p.type = BYTE;
  }
  const ids = { unk: -1, bos: -1, eos: -1, pad: -1 };
  const control = { '<pad>': 'pad', '<bos>': 'bos', '<s>': 'bos', '<eos>': 'eos', '</s>': 'eos' };
  for (const t of json.added_tokens ?? []) {
    const p = pieces[t.id];
    if (!p || p.piece !== t.content) continue;
    if (t.content === model.unk_token || t.content === '<unk>') {
      p.type = UNKNOWN;
      ids.unk = t.id;
    } else if (control[t.content] && t.special) {
      p.type = CONTROL;
      ids[control[t.content]] = t.id;
    } else if (!t.content.includes('\u2581')) {
      p.type = USER_DEFINED;
    }
  }
  if (model.type === 'Unigram' && model.unk_id != null) {
    pieces[model.unk_id].type = UNKNOWN;
    ids.unk = model.unk_id;
  }
  if (ids.unk < 0) throw new ConversionError('the vocabulary has no unknown token');

  const norm = normalizerSpec(json);
  const trainer = new ProtoWriter();
  trainer.int(3, model.type === 'BPE' ? BPE : UNIGRAM);
  trainer.int(4, pieces.length);
  trainer.bool(35, Boolean(model.byte_fallback));
  trainer.int(40, ids.unk);
  trainer.int(41, ids.bos);
  trainer.int(42, ids.eos);
  trainer.int(43, ids.pad);
  trainer.string(45, pieces[ids.unk].piece);
  if (ids.bos >= 0) trainer.string(46, pieces[ids.bos].piece);
  if (ids.eos >= 0) trainer.string(47, pieces[ids.eos].piece);
  if (ids.pad >= 0) trainer.string(48, pieces[ids.pad].piece);

  const normalizer = new ProtoWriter();
  normalizer.string(1, norm.name);
  if (norm.charsmap) normalizer.bytes(2, norm.charsmap);
  normalizer.bool(3, norm.addDummyPrefix);
  normalizer.bool(4, norm.removeExtraWhitespaces);
  normalizer.bool(5, norm.escapeWhitespaces);

  const out = new ProtoWriter();
  for (const p of pieces) {
    const w = new ProtoWriter();
    w.string(1, p.piece);
    w.float(2, p.score);
    w.int(3, p.type);
    out.message(1, w);
  }
  out.message(2, trainer);
  out.message(3, normalizer);
  return { bytes: out.finish(), ids, pieces: pieces.length, type: model.type };
}
