// Text generation with a small causal language model (a manifest of kind
// "generator", models/README.md) on ONNX Runtime, the same in the browser
// (onnxruntime-web: WebGPU or WASM) and in Node (onnxruntime-node: CPU): the
// chat template as token ids, a decode loop over the model's key/value
// cache (prefill, then one token a step), greedy or seeded temperature and
// top-p sampling, stop tokens, a token budget, cancellation, and text
// streamed to the caller. The core's SentencePiece tokenizer encodes and
// decodes.
//
//   const g = await createGenerator({ core, ort, manifest, readFile });
//   const ids = g.chatPrompt([{ role: 'system', text }, { role: 'user', text: question }]);
//   const { text, stopped } = await g.generate(ids, { maxTokens: 200, onText: (delta) => show(delta) });
import { VesperError } from './errors.mjs';
import { createSession, loadTokenizer } from './embedder.mjs';
import { validateManifest } from './manifest.mjs';

// The graph's cache inputs and outputs by layer, from the manifest's patterns
// ("past_key_values.{layer}.{kv}").
function cacheNames(pattern, layers) {
  const names = [];
  for (let layer = 0; layer < layers; layer++) {
    for (const kv of ['key', 'value']) names.push(pattern.replace('{layer}', layer).replace('{kv}', kv));
  }
  return names;
}

// The session's inputs and outputs against what the manifest claims: a graph
// that differs (another export, another model) is refused before a token is
// generated, never run with guessed names or shapes.
function checkGraph(session, manifest, cacheType) {
  const g = manifest.graph;
  const problem = (what) => new VesperError('model_mismatch', `${manifest.id}: the graph ${what}`);
  const inputs = [g.inputs.inputIds, g.inputs.attentionMask, g.inputs.positionIds, ...cacheNames(g.past, g.layers)];
  for (const name of inputs) if (!session.inputNames.includes(name)) throw problem(`has no input '${name}'`);
  for (const name of [g.logits, ...cacheNames(g.present, g.layers)]) if (!session.outputNames.includes(name)) throw problem(`has no output '${name}'`);
  const extra = session.inputNames.filter((n) => !inputs.includes(n));
  if (extra.length) throw problem(`takes inputs the manifest does not name: ${extra.join(', ')}`);
  // Where the runtime describes its inputs (ONNX Runtime >= 1.22), the cache's
  // element type and head layout must be the manifest's.
  const meta = session.inputMetadata;
  if (!Array.isArray(meta)) return;
  for (const m of meta) {
    if (!cacheNames(g.past, g.layers).includes(m.name) || !Array.isArray(m.shape)) continue;
    const [, heads, , dim] = m.shape;
    if (m.type !== cacheType) throw problem(`keeps '${m.name}' as ${m.type}, the manifest says ${cacheType}`);
    if ((typeof heads === 'number' && heads !== g.kvHeads) || (typeof dim === 'number' && dim !== g.headDim)) {
      throw problem(`has '${m.name}' of shape [${m.shape.join(', ')}], the manifest says ${g.kvHeads} heads of ${g.headDim}`);
    }
  }
}

// A seeded generator of floats in [0, 1) (mulberry32): the same seed samples
// the same tokens on every run and every machine.
export function seededRandom(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function argmax(row) {
  let best = 0;
  for (let i = 1; i < row.length; i++) if (row[i] > row[best]) best = i;
  return best;
}

// Tokens whose probability is below this share of the best one's are never
// drawn: it spares sorting a 262k-word vocabulary every step, and changes
// nothing a top-p below 1 - 1e-6 keeps.
const NEGLIGIBLE = 1e-6;

// One token from `row` (logits): greedy at temperature 0, else drawn from
// softmax(row / temperature) cut to the smallest set of most likely tokens
// whose probability reaches topP.
export function sampleToken(row, { temperature = 0, topP = 1, random = Math.random } = {}) {
  if (!(temperature > 0)) return argmax(row);
  const max = row[argmax(row)];
  const floor = max + temperature * Math.log(NEGLIGIBLE);
  const ids = [], weights = [];
  let total = 0;
  for (let i = 0; i < row.length; i++) {
    if (row[i] < floor) continue;
    const w = Math.exp((row[i] - max) / temperature);
    ids.push(i), weights.push(w);
    total += w;
  }
  const order = ids.map((_, i) => i).sort((x, y) => weights[y] - weights[x]);
  let kept = 0, mass = 0;
  while (kept < order.length && mass < topP * total) mass += weights[order[kept++]];
  let r = random() * mass;
  for (let k = 0; k < kept; k++) {
    r -= weights[order[k]];
    if (r <= 0) return ids[order[k]];
  }
  return ids[order[kept - 1]];
}

// What decoded text may be shown while more tokens come: a byte-fallback
// character split over tokens decodes as U+FFFD until its last byte arrives.
const holdBack = (text) => text.replace(/\uFFFD+$/, '');

export async function createGenerator({ core, ort, manifest, readFile, executionProviders = ['wasm'], variant: variantName = null, resolvePath = null }) {
  validateManifest(manifest, `model ${manifest?.id ?? ''}`.trim());
  if (manifest.kind !== 'generator') throw new VesperError('invalid_argument', `${manifest.id} is not a generator (kind '${manifest.kind}')`);
  if (!ort) throw new VesperError('invalid_argument', `${manifest.id} needs ONNX Runtime`);
  variantName ??= manifest.defaultVariant;
  const variant = manifest.variants[variantName];
  if (!variant) throw new VesperError('invalid_argument', `${manifest.id} has no variant '${variantName}'`);
  const tokenizer = await loadTokenizer(core, { ...manifest, tokenizer: { ...manifest.tokenizer, addBos: false, addEos: false } }, readFile);
  const cacheType = variant.cacheType ?? manifest.graph.cacheType;
  const session = await createSession(ort, manifest, variant, readFile, executionProviders, resolvePath);
  try {
    checkGraph(session, manifest, cacheType);
  } catch (err) {
    await session.release?.();
    tokenizer.dispose();
    throw err;
  }
  const g = manifest.graph;
  const chat = manifest.chat;
  const pastNames = cacheNames(g.past, g.layers);
  const presentNames = cacheNames(g.present, g.layers);
  const encode = (text) => (text ? Array.from(tokenizer.encode(text, { addSpecial: false, idsOnly: true }).ids) : []);
  const int64 = (values, dims) => new ort.Tensor('int64', BigInt64Array.from(values, BigInt), dims);

  // One forward pass: `ids` at positions from `past` on, over the cache.
  async function step(ids, past, cache) {
    const total = past + ids.length;
    const feeds = {
      [g.inputs.inputIds]: int64(ids, [1, ids.length]),
      [g.inputs.attentionMask]: int64(new Array(total).fill(1), [1, total]),
      [g.inputs.positionIds]: int64(ids.map((_, i) => past + i), [1, ids.length]),
    };
    pastNames.forEach((name, i) => { feeds[name] = cache[i]; });
    const out = await session.run(feeds);
    const logits = out[g.logits];
    const vocab = logits.dims[2];
    const row = logits.data.subarray((ids.length - 1) * vocab, ids.length * vocab);
    return { row, cache: presentNames.map((name) => out[name]) };
  }

  // Text of generated ids; control tokens (the chat markers, beyond the
  // tokenizer's vocabulary or named in the template) say nothing.
  const special = new Set([chat.turnStart, chat.turnEnd, manifest.tokenizer.bosId, manifest.tokenizer.eosId]);
  const decode = (ids) => tokenizer.decode(ids.filter((id) => id < tokenizer.vocabSize && !special.has(id)));

  const emptyCache = () => pastNames.map(() => new ort.Tensor(cacheType, cacheType === 'float16' ? new Uint16Array(0) : new Float32Array(0), [1, g.kvHeads, 0, g.headDim]));

  return {
    info: { id: manifest.id, name: manifest.name ?? manifest.id, variant: variantName, contextLength: manifest.maxLength },
    backend: executionProviders[0],
    tokenizer,

    // The chat template as ids (manifest "chat"): turns of role "system"
    // (opens the first user turn), "user" and "model"; ends with the model's
    // turn opened, ready to generate.
    chatPrompt(turns) {
      const ids = chat.bos ? [manifest.tokenizer.bosId] : [];
      let system = '';
      for (const { role, text } of turns) {
        if (role === 'system') {
          system += (system ? chat.separator : '') + text;
          continue;
        }
        if (role !== 'user' && role !== 'model') throw new VesperError('invalid_argument', `a chat turn's role is system, user or model, not '${role}'`);
        // As Gemma 3's template: the turn's text trimmed, the system text before it untouched.
        const body = role === 'user' && system ? system + chat.separator + text.trim() : text.trim();
        if (role === 'user') system = '';
        ids.push(chat.turnStart, ...encode(chat[role] + body), chat.turnEnd, ...encode(chat.afterTurn));
      }
      ids.push(chat.turnStart, ...encode(chat.model));
      return Int32Array.from(ids);
    },

    // The logits of the token after `promptIds` (the correctness gate
    // compares them across execution providers).
    async nextLogits(promptIds) {
      return Float32Array.from((await step(Array.from(promptIds), 0, emptyCache())).row);
    },

    // Continues `promptIds`. Resolves to { ids, text, stopped: 'stop' |
    // 'length' | 'cancelled', promptTokens, seconds }; onToken(id) and
    // onText(delta) hear each step. A signal that aborts ends the loop after
    // the step in flight: what was generated so far is kept.
    async generate(promptIds, { maxTokens = 256, temperature = 0, topP = 1, seed = 0, stop = manifest.stop, signal = null, onToken = null, onText = null } = {}) {
      const prompt = Array.from(promptIds);
      if (!prompt.length) throw new VesperError('invalid_argument', 'the prompt is empty');
      const room = manifest.maxLength - prompt.length;
      if (room <= 0) throw new VesperError('invalid_argument', `the prompt has ${prompt.length} tokens; ${manifest.id} reads at most ${manifest.maxLength}`);
      const budget = Math.min(maxTokens, room);
      const stops = new Set(stop);
      const random = seededRandom(seed);
      const started = performance.now();
      const out = [];
      let shown = '', stopped = 'length', past = 0, next = prompt, cache = emptyCache();
      while (out.length < budget) {
        if (signal?.aborted) {
          stopped = 'cancelled';
          break;
        }
        const r = await step(next, past, cache);
        past += next.length;
        cache = r.cache;
        const token = sampleToken(r.row, { temperature, topP, random });
        onToken?.(token);
        if (stops.has(token)) {
          stopped = 'stop';
          break;
        }
        out.push(token);
        next = [token];
        const text = holdBack(decode(out));
        if (onText && text.startsWith(shown) && text.length > shown.length) onText(text.slice(shown.length));
        shown = text.startsWith(shown) ? text : shown;
      }
      const text = decode(out);
      if (onText && text.length > shown.length && text.startsWith(shown)) onText(text.slice(shown.length));
      return { ids: out, text, stopped, promptTokens: prompt.length, seconds: (performance.now() - started) / 1000 };
    },

    decode,

    async dispose() {
      await session.release?.();
      tokenizer.dispose();
    },
  };
}
