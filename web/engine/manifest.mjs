// A model's manifest.json, checked before anything trusts it (models/README.md
// says what each key means). Every client reads manifests through here, so
// `[]`, `null`, a wrong type or a missing key is one clear `invalid_argument`
// error naming the key, never a TypeError from deep inside the pipeline.
//
//   const manifest = parseManifest(text, 'models/x/manifest.json');
//   validateManifest(object, source);  // the same for an object already parsed
//
// The core checks what only it can (the answerability weights, the model
// files' bytes); this checks the shape.

const KINDS = ['onnx', 'static', 'generator'];
const MAX_LEXICON_SHARDS = 4096;  // core/lexical/lexicon.h kMaxLexiconShards
const MAX_KEY_WORDS = 4;          // kMaxKeyWords
const MAX_KEY_HAN = 8;            // kMaxKeyHan

// The model's bilingual lexicon; `shards`: the same served in shards
// (web/engine/on-demand.mjs).
function checkLexicon(c, lexicon, source) {
  c.object(lexicon, 'lexicon');
  c.string(lexicon.file, 'lexicon.file');
  if (lexicon.shards === undefined) return;
  const s = c.object(lexicon.shards, 'lexicon.shards');
  c.string(s.dir, 'lexicon.shards.dir');
  c.count(s.count, 'lexicon.shards.count', MAX_LEXICON_SHARDS);
  if (!Array.isArray(s.languages) || !s.languages.length) throw new ManifestError(source, "'lexicon.shards.languages' must be a non-empty list of language codes");
  s.languages.forEach((l, i) => c.string(l, `lexicon.shards.languages[${i}]`));
  c.count(s.maxWords, 'lexicon.shards.maxWords', MAX_KEY_WORDS);
  c.count(s.maxHan, 'lexicon.shards.maxHan', MAX_KEY_HAN);
}
// A text's vector mixed with its lexicon translation's (web/engine/translation-mix.mjs).
const MAX_MIX_WEIGHT = 4;
function checkTranslationMix(c, m, source) {
  const mix = c.object(m.translationMix, 'translationMix');
  if (!(typeof mix.weight === 'number' && mix.weight > 0 && mix.weight <= MAX_MIX_WEIGHT)) {
    throw new ManifestError(source, `'translationMix.weight' must be a number above 0 and at most ${MAX_MIX_WEIGHT}, not ${JSON.stringify(mix.weight)}`);
  }
  if (!Array.isArray(mix.languages) || mix.languages.length < 2) throw new ManifestError(source, "'translationMix.languages' must list at least two language codes");
  mix.languages.forEach((l, i) => c.string(l, `translationMix.languages[${i}]`));
  if (m.lexicon === undefined) throw new ManifestError(source, "'translationMix' needs the model's 'lexicon'");
}
const MAX_BLOCK_ROWS = 1 << 16;
const POOLINGS = ['mean', 'cls', 'last'];
// Tokens per input: EmbeddingGemma takes 2048; nothing in this field takes a
// million, and a larger claim would size buffers from a typo.
const MAX_LENGTH_LIMIT = 1 << 20;
const MAX_DIMS = 1 << 16;

export class ManifestError extends Error {
  constructor(source, message) {
    super(`${source}: ${message}`);
    this.code = 'invalid_argument';
  }
}

const isObject = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);
const isCount = (v, max) => Number.isInteger(v) && v > 0 && v <= max;
const typeName = (v) => (v === null ? 'null' : Array.isArray(v) ? 'an array' : typeof v);

// Small checkers over one key path; each throws a ManifestError naming it.
function checker(source) {
  const fail = (path, want, v) => { throw new ManifestError(source, `'${path}' must be ${want}, not ${typeName(v)}${typeof v === 'number' || typeof v === 'string' ? ` (${JSON.stringify(v)})` : ''}`); };
  return {
    object(v, path) { if (!isObject(v)) fail(path, 'an object', v); return v; },
    string(v, path, { optional = false, nonEmpty = true } = {}) {
      if (optional && v === undefined) return v;
      if (typeof v !== 'string' || (nonEmpty && v === '')) fail(path, nonEmpty ? 'a non-empty string' : 'a string', v);
      return v;
    },
    bool(v, path) { if (v !== undefined && typeof v !== 'boolean') fail(path, 'true or false', v); return v; },
    count(v, path, max, { optional = false } = {}) {
      if (optional && v === undefined) return v;
      if (!isCount(v, max)) fail(path, `a whole number from 1 to ${max}`, v);
      return v;
    },
    id(v, path) { if (v !== undefined && !(Number.isInteger(v) && v >= 0)) fail(path, 'a token id (a whole number >= 0)', v); return v; },
    oneOf(v, path, values, { optional = false } = {}) {
      if (optional && v === undefined) return v;
      if (!values.includes(v)) fail(path, `one of ${values.join(', ')}`, v);
      return v;
    },
  };
}

// A file entry: where it goes (path), where it is downloaded from (url), and
// what it must be (bytes: its exact size; sha256); approxBytes only sizes a
// download for people.
function checkFile(c, f, at, source) {
  c.object(f, at);
  c.string(f.path, `${at}.path`);
  c.string(f.url, `${at}.url`, { optional: true });
  if (f.sha256 !== undefined && f.sha256 !== null && !/^[0-9a-f]{64}$/i.test(f.sha256)) {
    throw new ManifestError(source, `'${at}.sha256' must be 64 hex digits or null`);
  }
  for (const k of ['bytes', 'approxBytes']) {
    if (f[k] !== undefined && !Number.isSafeInteger(f[k])) throw new ManifestError(source, `'${at}.${k}' must be a whole number of bytes`);
  }
}

function checkTokenizer(c, t, source) {
  c.object(t, 'tokenizer');
  c.string(t.file, 'tokenizer.file');
  // The tokenizer.json its file is converted from, where it is not built locally.
  if (t.source !== undefined) checkFile(c, t.source, 'tokenizer.source', source);
  c.bool(t.addBos, 'tokenizer.addBos');
  c.bool(t.addEos, 'tokenizer.addEos');
  c.bool(t.convert, 'tokenizer.convert');
  for (const k of ['bosId', 'eosId', 'padId']) c.id(t[k], `tokenizer.${k}`);
}

function checkGraph(c, m) {
  c.object(m.inputs, 'inputs');
  c.string(m.inputs.inputIds, 'inputs.inputIds');
  c.string(m.inputs.attentionMask, 'inputs.attentionMask');
  c.string(m.inputs.tokenTypeIds, 'inputs.tokenTypeIds', { optional: true });
  c.object(m.output, 'output');
  c.string(m.output.name, 'output.name');
  c.bool(m.output.pooled, 'output.pooled');
  c.oneOf(m.output.pooling, 'output.pooling', POOLINGS, { optional: true });
}

// A generator's graph (web/engine/generator.mjs): input names, the cache's
// name patterns ("{layer}", "{kv}": key or value), its layout and element type.
const MAX_LAYERS = 1024;
const MAX_HEADS = 1024;
const MAX_VOCAB = 1 << 24;
const CACHE_TYPES = ['float32', 'float16'];
function checkGeneratorGraph(c, g, source) {
  c.object(g, 'graph');
  c.object(g.inputs, 'graph.inputs');
  for (const k of ['inputIds', 'attentionMask', 'positionIds']) c.string(g.inputs[k], `graph.inputs.${k}`);
  c.string(g.logits, 'graph.logits');
  for (const k of ['past', 'present']) {
    c.string(g[k], `graph.${k}`);
    if (!g[k].includes('{layer}') || !g[k].includes('{kv}')) throw new ManifestError(source, `'graph.${k}' must hold {layer} and {kv}`);
  }
  c.count(g.layers, 'graph.layers', MAX_LAYERS);
  c.count(g.kvHeads, 'graph.kvHeads', MAX_HEADS);
  c.count(g.headDim, 'graph.headDim', MAX_DIMS);
  c.count(g.vocab, 'graph.vocab', MAX_VOCAB);
  c.oneOf(g.cacheType, 'graph.cacheType', CACHE_TYPES);
}

// The chat template as the model was trained on it (Gemma 3: <start_of_turn>
// and <end_of_turn> by id, "user\n" and "model\n" opening each turn, system
// text at the start of the first user turn).
function checkChat(c, chat, m, source) {
  c.object(chat, 'chat');
  c.bool(chat.bos, 'chat.bos');
  for (const k of ['turnStart', 'turnEnd']) {
    c.id(chat[k], `chat.${k}`);
    if (chat[k] === undefined || chat[k] >= m.graph.vocab) throw new ManifestError(source, `'chat.${k}' must be a token id below graph.vocab (${m.graph.vocab})`);
  }
  for (const k of ['user', 'model', 'separator', 'afterTurn']) c.string(chat[k], `chat.${k}`, { nonEmpty: false });
  if (chat.bos && m.tokenizer.bosId === undefined) throw new ManifestError(source, "'chat.bos' needs 'tokenizer.bosId'");
}

function checkVariants(c, m, source) {
  if (m.variants === undefined && m.kind === 'static') return;
  c.object(m.variants, 'variants');
  for (const [name, v] of Object.entries(m.variants)) {
    c.object(v, `variants.${name}`);
    if (!Array.isArray(v.files)) c.object(undefined, `variants.${name}.files`);
    v.files.forEach((f, i) => checkFile(c, f, `variants.${name}.files[${i}]`, source));
    if (v.providers !== undefined) c.object(v.providers, `variants.${name}.providers`);
    // A generator variant whose cache is kept in another type than the graph's default (fp16 exports).
    c.oneOf(v.cacheType, `variants.${name}.cacheType`, CACHE_TYPES, { optional: true });
  }
  c.string(m.defaultVariant, 'defaultVariant');
  if (!Object.hasOwn(m.variants, m.defaultVariant)) {
    throw new ManifestError(source, `'defaultVariant' names '${m.defaultVariant}', which is not in 'variants'`);
  }
}

function checkPrompts(c, p) {
  if (p === undefined) return;
  c.object(p, 'prompts');
  for (const k of ['query', 'document', 'titleFallback']) c.string(p[k], `prompts.${k}`, { optional: true, nonEmpty: false });
}

// Checks `m` in place and returns it; `source` names it in errors.
export function validateManifest(m, source = 'manifest') {
  const c = checker(source);
  c.object(m, 'the manifest');
  c.string(m.id, 'id');
  c.oneOf(m.kind, 'kind', KINDS);
  if (m.kind === 'generator') {
    c.count(m.maxLength, 'maxLength', MAX_LENGTH_LIMIT);
    checkTokenizer(c, m.tokenizer, source);
    checkGeneratorGraph(c, m.graph, source);
    checkChat(c, m.chat, m, source);
    if (!Array.isArray(m.stop) || !m.stop.length) throw new ManifestError(source, "'stop' must list the token ids that end a reply");
    m.stop.forEach((id, i) => c.id(id, `stop[${i}]`));
    checkVariants(c, m, source);
    return m;
  }
  c.count(m.dims, 'dims', MAX_DIMS);
  if (m.matryoshkaDims !== undefined) {
    if (!Array.isArray(m.matryoshkaDims)) c.object(undefined, 'matryoshkaDims');
    m.matryoshkaDims.forEach((d, i) => c.count(d, `matryoshkaDims[${i}]`, m.dims));
  }
  c.count(m.maxLength, 'maxLength', MAX_LENGTH_LIMIT);
  checkTokenizer(c, m.tokenizer, source);
  if (m.kind === 'static') {
    c.object(m.static, 'static');
    c.string(m.static.file, 'static.file');
    // The table also served in blocks of rows (web/engine/on-demand.mjs).
    if (m.static.blocks !== undefined) {
      c.object(m.static.blocks, 'static.blocks');
      c.string(m.static.blocks.dir, 'static.blocks.dir');
      c.count(m.static.blocks.rows, 'static.blocks.rows', MAX_BLOCK_ROWS);
    }
  }
  if (m.lexicon !== undefined) checkLexicon(c, m.lexicon, source);
  // A static model may also ship the same model as a graph for ONNX Runtime.
  if (m.kind === 'onnx' || m.variants !== undefined) checkGraph(c, m);
  checkPrompts(c, m.prompts);
  // What the page's model picker tells people about the model.
  if (m.card !== undefined) {
    c.object(m.card, 'card');
    for (const k of ['languages', 'improves']) c.string(m.card[k], `card.${k}`, { optional: true });
  }
  if (m.threshold !== undefined && !(typeof m.threshold === 'number' && m.threshold >= -1 && m.threshold <= 1)) {
    throw new ManifestError(source, `'threshold' must be a cosine from -1 to 1, not ${JSON.stringify(m.threshold)}`);
  }
  if (m.answerability !== undefined) c.object(m.answerability, 'answerability');
  if (m.translationMix !== undefined) checkTranslationMix(c, m, source);
  // A bilingual lexicon (TSV, core/lexical/lexicon.h) for cross-lingual BM25.
  if (m.lexicon !== undefined) {
    c.object(m.lexicon, 'lexicon');
    c.string(m.lexicon.file, 'lexicon.file');
  }
  checkVariants(c, m, source);
  return m;
}

// JSON text (or bytes) -> a checked manifest.
export function parseManifest(text, source = 'manifest') {
  if (typeof text !== 'string') text = new TextDecoder().decode(text);
  let m;
  try {
    m = JSON.parse(text);
  } catch (err) {
    throw new ManifestError(source, `not JSON (${err.message})`);
  }
  return validateManifest(m, source);
}
