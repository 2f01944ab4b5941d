// Text -> vectors for one model, the same in the browser and in node: the
// manifest says how (models/README.md), the WASM core does tokenization and
// the pipeline around the model, ONNX Runtime (injected: onnxruntime-web or
// onnxruntime-node) runs the graph, or the core runs a static table model
// itself.
//
//   const e = await createEmbedder({ core, manifest, readFile, ort, executionProviders: ['wasm'] });
//   const { vectors, warnings } = await e.embed(['text'], { kind: 'document', onProgress });
import { VesperError } from './errors.mjs';
import { validateManifest } from './manifest.mjs';
import { lexiconSource, rowSource, withParts } from './on-demand.mjs';
import { mixInto, translationMixOf, translationsOf } from './translation-mix.mjs';
import { convertTokenizerJson } from './tokenizer-convert.mjs';

// Search thresholds when nothing else says: a model's manifest carries its
// calibrated one; 0.35 belongs to EmbeddingGemma; lexical packs gate on
// normalised BM25 (core/lexical/bm25.h), where 0.1 is the default.
export const DEFAULT_THRESHOLD = 0.35;
export const LEXICAL_THRESHOLD = 0.1;

// The embedder's errors are the API's one error type (its name kept for
// the callers that test for it).
export class EmbedError extends VesperError {}

// The model's tokenizer with its special-token policy; a tokenizer.json is
// converted to a SentencePiece model on the way. Where the file is not there
// (a model downloaded into a browser) its source tokenizer.json is.
export async function loadTokenizer(core, manifest, readFile) {
  const t = manifest.tokenizer;
  let bytes;
  let json = t.convert || t.file.endsWith('.json');
  try {
    bytes = await readFile(t.file);
  } catch (err) {
    if (err.code !== 'not_found' || !t.source) throw err;
    bytes = await readFile(t.source.path);
    json = true;
  }
  if (json) bytes = convertTokenizerJson(JSON.parse(new TextDecoder().decode(bytes))).bytes;
  return core.tokenizer(bytes, { addBos: t.addBos, addEos: t.addEos, bosId: t.bosId ?? -1, eosId: t.eosId ?? -1, padId: t.padId ?? -1 });
}

// ORT web takes external weights as { path, data }; node reads them beside the file.
export async function createSession(ort, manifest, variant, readFile, executionProviders, resolvePath) {
  const [main, ...external] = variant.files.filter((f) => f.path.endsWith('.onnx') || f.path.endsWith('.onnx_data'));
  const options = { executionProviders, graphOptimizationLevel: 'all', logSeverityLevel: 3 };
  if (resolvePath) return ort.InferenceSession.create(resolvePath(main.path), options);
  if (external.length) {
    options.externalData = await Promise.all(
      external.map(async (f) => ({ path: f.path.split('/').pop(), data: await readFile(f.path) })),
    );
  }
  return ort.InferenceSession.create(await readFile(main.path), options);
}

// A reader that has already started reading `paths` (all at once, so their
// downloads overlap each other and the work done between them); each is
// handed out once, later reads go to `read`. A prefetch that fails is only
// reported when its file is asked for.
function prefetching(read, paths) {
  const started = new Map();
  for (const path of paths) {
    if (!path || started.has(path)) continue;
    const p = read(path);
    p.catch(() => {});
    started.set(path, p);
  }
  return (path) => {
    const p = started.get(path);
    started.delete(path);
    return p ?? read(path);
  };
}

export async function createEmbedder({
  core,
  manifest,
  readFile,
  ort = null,
  executionProviders = ['wasm'],
  variant: variantName = null,
  dims = null,
  resolvePath = null,
  useStaticCore = true,
  rowsOnDemand = true,
}) {
  validateManifest(manifest, `model ${typeof manifest?.id === 'string' ? manifest.id : ''}`.trim());
  if (manifest.kind === 'generator') throw new EmbedError('invalid_argument', `${manifest.id} generates text; it is not an embedding model`);
  const runsStatic = manifest.kind === 'static' && useStaticCore;
  // A site that serves the table in blocks and the lexicon in shards
  // (web/engine/on-demand.mjs) lets a page fetch only what its packs and
  // queries use.
  const blocks = runsStatic && rowsOnDemand ? manifest.static.blocks ?? null : null;
  const shards = rowsOnDemand ? manifest.lexicon?.shards ?? null : null;
  readFile = prefetching(readFile, [manifest.tokenizer.file, runsStatic && !blocks ? manifest.static.file : null, shards ? null : manifest.lexicon?.file]);
  variantName ??= manifest.defaultVariant;
  dims ??= manifest.dims;
  const supported = manifest.matryoshkaDims ?? [manifest.dims];
  if (!supported.includes(dims) && dims !== manifest.dims) {
    throw new EmbedError('invalid_argument', `${manifest.id} supports dims ${supported.join(', ')}, not ${dims}`);
  }
  const tokenizer = await loadTokenizer(core, manifest, readFile);
  const variant = manifest.variants?.[variantName];
  let runStatic = null;
  let rows = null;
  let session = null;
  let backend;
  if (blocks) {
    runStatic = core.sparseStaticModel(tokenizer.vocabSize, manifest.dims);
    rows = rowSource({ model: runStatic, readFile, blocks, tableFile: manifest.static.file });
    backend = 'vesper-core';
  } else if (runsStatic) {
    const model = core.staticModel(await readFile(manifest.static.file));
    if (model.dims !== manifest.dims) throw new EmbedError('corrupt_data', `${manifest.static.file} has ${model.dims} dims, manifest says ${manifest.dims}`);
    runStatic = model;
    backend = 'vesper-core';
  } else {
    if (!variant) throw new EmbedError('invalid_argument', `${manifest.id} has no variant '${variantName}'`);
    if (!ort) throw new EmbedError('invalid_argument', `${manifest.id} needs ONNX Runtime`);
    session = await createSession(ort, manifest, variant, readFile, executionProviders, resolvePath);
    backend = executionProviders[0];
  }
  // The model's lexicon, when it ships one: what lets BM25 match across languages.
  let lexicon = null;
  let lexiconParts = null;
  if (shards) {
    lexicon = core.shardedLexicon(shards);
    lexiconParts = lexiconSource({ lexicon, readFile, shards, tableFile: manifest.lexicon.file });
  } else if (manifest.lexicon) {
    lexicon = core.lexicon(await readFile(manifest.lexicon.file));
  }
  const fullDims = manifest.dims;
  const outputName = manifest.output.name;
  const info = {
    id: variantName === manifest.defaultVariant && dims === fullDims ? manifest.id : `${manifest.id}:${variantName}@${dims}`,
    dims,
    queryTemplate: manifest.prompts?.query ?? '{text}',
    documentTemplate: manifest.prompts?.document ?? '{text}',
    tokenizerFingerprint: tokenizer.fingerprint,
  };

  function prepare(texts, kind, titles) {
    const template = kind === 'query' ? info.queryTemplate : info.documentTemplate;
    const warnings = [];
    const encoded = texts.map((text, i) => {
      if (typeof text !== 'string' || !text.trim()) throw new EmbedError('empty_input', `text ${i} is empty: there is nothing to embed`);
      const prompt = core.formatPrompt(template, text, titles?.[i] ?? '', manifest.prompts?.titleFallback ?? 'none');
      const e = tokenizer.encode(prompt, { maxLength: manifest.maxLength, idsOnly: true });
      if (e.truncated) {
        warnings.push({ index: i, code: 'truncated', message: `text ${i} is longer than ${manifest.maxLength} tokens; only its start was embedded` });
      }
      return e;
    });
    return { encoded, warnings };
  }

  async function runBatch(batch) {
    const seq = Math.max(...batch.map((e) => e.length));
    const n = batch.length;
    const ids = new BigInt64Array(n * seq);
    const mask = new BigInt64Array(n * seq);
    const mask32 = new Int32Array(n * seq);
    const pad = BigInt(tokenizer.specialIds.pad);
    batch.forEach((e, b) => {
      for (let t = 0; t < seq; t++) {
        const real = t < e.length;
        ids[b * seq + t] = real ? BigInt(e.ids[t]) : pad;
        mask[b * seq + t] = real ? 1n : 0n;
        mask32[b * seq + t] = real ? 1 : 0;
      }
    });
    const feeds = {
      [manifest.inputs.inputIds]: new ort.Tensor('int64', ids, [n, seq]),
      [manifest.inputs.attentionMask]: new ort.Tensor('int64', mask, [n, seq]),
    };
    if (manifest.inputs.tokenTypeIds) feeds[manifest.inputs.tokenTypeIds] = new ort.Tensor('int64', new BigInt64Array(n * seq), [n, seq]);
    const out = await session.run(feeds, [outputName]);
    const tensor = out[outputName];
    const data = tensor.data instanceof Float32Array ? tensor.data : Float32Array.from(tensor.data);
    if (manifest.output.pooled) return data;
    return core.pool(data, mask32, n, seq, tensor.dims[2], manifest.output.pooling ?? 'mean');
  }

  const withModelParts = rows || lexiconParts ? (fn) => withParts(fn, { rows, lexicon: lexiconParts }) : async (fn) => fn();
  const mix = translationMixOf(manifest);

  return {
    info,
    backend,
    manifest,
    tokenizer,
    // The static model's table, for token-level reranking (null for ONNX models).
    pieceModel: runStatic,
    lexicon,
    // Runs fn (a core call that may need parts of the model's tables: it
    // throws 'missing_rows' or 'missing_lexicon' before changing anything)
    // until the parts it needs are loaded; just fn where the whole tables
    // are. rowStats, lexiconStats: what was fetched.
    withParts: withModelParts,
    rowStats: rows?.stats ?? null,
    lexiconStats: lexiconParts?.stats ?? null,
    // kind: 'query' | 'document'; titles: per text (documents); languages:
    // per text, its language where known (a passage's), else it is detected
    // (used by a model that mixes in translations). Resolves to
    // { vectors: Float32Array(n * dims), dims, warnings, tokens, timings }.
    async embed(texts, { kind = 'document', titles = null, languages = null, batchSize = 8, onProgress = null } = {}) {
      if (!mix || !lexicon) return embedPlain(texts, { kind, titles, batchSize, onProgress });
      const languageOf = (i) => languages?.[i] || core.detectLanguage(texts[i]);
      // The texts' own rows and their translations' lexicon shards are
      // fetched side by side: a query on a model served in parts waits for
      // two rounds of parts (then the translation's rows), not three.
      const [out, translated] = await Promise.all([
        embedPlain(texts, { kind, titles, batchSize, onProgress }),
        withModelParts(() => translationsOf(lexicon, mix, texts, languageOf)),
      ]);
      if (!translated.length) return out;
      const extra = await embedPlain(translated.map((t) => t.text), { kind, batchSize });
      mixInto(out.vectors, dims, extra.vectors, translated.map((t) => t.index), mix.weight);
      return out;
    },
    async dispose() {
      tokenizer.dispose();
      runStatic?.dispose();
      lexicon?.dispose();
      await session?.release?.();
    },
  };

  async function embedPlain(texts, { kind = 'document', titles = null, batchSize = 8, onProgress = null } = {}) {
    if (!Array.isArray(texts) || texts.length === 0) throw new EmbedError('empty_input', 'nothing to embed');
    const t0 = performance.now();
    const { encoded, warnings } = prepare(texts, kind, titles);
    if (rows) await rows.ensure(encoded.flatMap((e) => Array.from(e.ids.subarray(0, e.length))));
    const t1 = performance.now();
    const vectors = new Float32Array(texts.length * dims);
    // Similar lengths batch together, so padding wastes little.
    const order = encoded.map((e, i) => i).sort((a, b) => encoded[a].length - encoded[b].length);
    for (let start = 0; start < order.length; start += batchSize) {
      const idx = order.slice(start, start + batchSize);
      let raw;
      if (runStatic) {
        raw = new Float32Array(idx.length * fullDims);
        idx.forEach((i, b) => raw.set(runStatic.embed(encoded[i].ids.subarray(0, encoded[i].length)), b * fullDims));
      } else {
        raw = await runBatch(idx.map((i) => encoded[i]));
      }
      const rowDims = raw.length / idx.length;
      if (rowDims !== fullDims) throw new EmbedError('model_mismatch', `the model returned ${rowDims}-dim vectors, its manifest says ${fullDims}`);
      const unit = core.truncateNormalize(raw, idx.length, fullDims, dims);
      idx.forEach((i, b) => vectors.set(unit.subarray(b * dims, (b + 1) * dims), i * dims));
      onProgress?.({ done: Math.min(start + batchSize, order.length), total: order.length });
    }
    const t2 = performance.now();
    return {
      vectors,
      dims,
      warnings,
      tokens: encoded.map((e) => e.length),
      timings: { tokenizeMs: t1 - t0, inferMs: t2 - t1 },
    };
  }
}
