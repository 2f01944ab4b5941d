// Model manifests: every shipped one passes the check, hand-made bad ones get
// an invalid_argument error naming the key, and a seeded random mutator
// (deleted keys, values of the wrong type, [] and null) never gets past the
// check into a TypeError: mutants the check accepts still load the static
// test model or fail with a coded error.
import assert from 'node:assert/strict';
import { readFileSync, readdirSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { before, test } from 'node:test';
import { createEmbedder } from '../../web/engine/embedder.mjs';
import { parseManifest, validateManifest } from '../../web/engine/manifest.mjs';
import { fileReader, resolveModel } from '../../tools/cli/models.mjs';
import { loadCore, root } from './helpers.mjs';

const MUTANTS_PER_MANIFEST = 400;
const MUTANTS_LOADED = 150;  // of static-tiny's, the ones taken through createEmbedder

function shippedManifests() {
  const dirs = ['models', 'models/test'].flatMap((d) => readdirSync(join(root, d)).map((n) => join(root, d, n)));
  return dirs.filter((d) => existsSync(join(d, 'manifest.json'))).map((d) => join(d, 'manifest.json'));
}

// mulberry32: a small seeded generator, so a failure replays.
function random(seed) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const ODD_VALUES = [null, [], {}, '', 'x', -1, 0, 2.5, 1e12, NaN, true, false, [1], { a: 1 }, '../../etc/passwd'];

// Every [parent, key] pair in a JSON value.
function slots(value, out = []) {
  if (value !== null && typeof value === 'object') {
    for (const k of Object.keys(value)) {
      out.push([value, k]);
      slots(value[k], out);
    }
  }
  return out;
}

function mutate(manifest, rand) {
  const m = structuredClone(manifest);
  const edits = 1 + Math.floor(rand() * 3);
  for (let i = 0; i < edits; i++) {
    const all = slots(m);
    if (all.length === 0) break;
    const [parent, key] = all[Math.floor(rand() * all.length)];
    if (rand() < 0.3 && !Array.isArray(parent)) delete parent[key];
    else parent[key] = structuredClone(ODD_VALUES[Math.floor(rand() * ODD_VALUES.length)]);
  }
  return m;
}

test('every shipped manifest passes the check', () => {
  const paths = shippedManifests();
  assert.ok(paths.length >= 4, `found ${paths.length} manifests`);
  for (const p of paths) parseManifest(readFileSync(p, 'utf8'), p);
});

test('bad manifests get an invalid_argument error naming what is wrong', () => {
  const good = JSON.parse(readFileSync(join(root, 'models/test/static-tiny/manifest.json'), 'utf8'));
  const cases = [
    ['[]', /the manifest' must be an object, not an array/],
    ['null', /the manifest' must be an object, not null/],
    ['{"id": 1}', /'id' must be a non-empty string, not number/],
    ['not json', /not JSON/],
    [JSON.stringify({ ...good, kind: 'gguf' }), /'kind' must be one of onnx, static/],
    [JSON.stringify({ ...good, dims: -3 }), /'dims' must be a whole number/],
    [JSON.stringify({ ...good, tokenizer: [] }), /'tokenizer' must be an object, not an array/],
    [JSON.stringify({ ...good, tokenizer: { file: 'a', padId: 1.5 } }), /'tokenizer.padId' must be a token id/],
    [JSON.stringify({ ...good, matryoshkaDims: [64] }), /'matryoshkaDims\[0\]' must be a whole number from 1 to 32/],
    [JSON.stringify({ ...good, defaultVariant: 'q4' }), /'defaultVariant' names 'q4'/],
    [JSON.stringify({ ...good, variants: { fp32: { files: null } } }), /'variants.fp32.files' must be an object/],
    [JSON.stringify({ ...good, threshold: '0.3' }), /'threshold' must be a cosine/],
    [JSON.stringify({ ...good, tokenizer: { ...good.tokenizer, source: { path: 'tokenizer.json', sha256: 'abc' } } }), /'tokenizer.source.sha256' must be 64 hex digits/],
    [JSON.stringify({ ...good, variants: { fp32: { files: [{ path: 'model.onnx', bytes: '12' }] } } }), /'variants.fp32.files\[0\].bytes' must be a whole number of bytes/],
    [JSON.stringify({ ...good, card: { languages: 3 } }), /'card.languages' must be a non-empty string/],
    [JSON.stringify({ ...good, translationMix: [] }), /'translationMix' must be an object/],
    [JSON.stringify({ ...good, lexicon: { file: 'l.tsv' }, translationMix: { weight: 0, languages: ['en', 'pt'] } }), /'translationMix.weight' must be a number above 0/],
    [JSON.stringify({ ...good, lexicon: { file: 'l.tsv' }, translationMix: { weight: 0.5, languages: ['en'] } }), /'translationMix.languages' must list at least two/],
    [JSON.stringify({ ...good, lexicon: { file: 'l.tsv' }, translationMix: { weight: 0.5, languages: ['en', 7] } }), /'translationMix.languages\[1\]' must be a non-empty string/],
    [JSON.stringify({ ...good, translationMix: { weight: 0.5, languages: ['en', 'pt'] } }), /'translationMix' needs the model's 'lexicon'/],
  ];
  for (const [text, message] of cases) {
    assert.throws(() => parseManifest(text, 'm.json'), (err) => {
      assert.equal(err.code, 'invalid_argument', text);
      assert.match(err.message, /^m\.json: /);
      assert.match(err.message, message, text);
      return true;
    });
  }
});

test('the CLI and the embedder refuse a bad manifest with the same error', async () => {
  const core = await loadCore();
  await assert.rejects(createEmbedder({ core, manifest: [], readFile: async () => new Uint8Array() }),
    (err) => err.code === 'invalid_argument' && /must be an object, not an array/.test(err.message));
  await assert.rejects(createEmbedder({ core, manifest: null, readFile: async () => new Uint8Array() }),
    (err) => err.code === 'invalid_argument');
});

test('random mutants never escape the check as a TypeError', () => {
  let refused = 0;
  let total = 0;
  for (const [n, path] of shippedManifests().entries()) {
    const manifest = JSON.parse(readFileSync(path, 'utf8'));
    const rand = random(1000 + n);
    for (let i = 0; i < MUTANTS_PER_MANIFEST; i++) {
      const m = mutate(manifest, rand);
      total++;
      try {
        validateManifest(m, path);
      } catch (err) {
        assert.equal(err.code, 'invalid_argument', `${path} mutant ${i}: ${err.stack}`);
        refused++;
      }
    }
  }
  // Most single edits to a key the pipeline reads must be refused; edits to
  // descriptions and provider notes are harmless and pass.
  assert.ok(refused > total * 0.3 && refused < total, `${refused} of ${total} refused`);
});

let core;
before(async () => { core = await loadCore(); });

test('mutants the check accepts load the static test model or fail with a coded error', async () => {
  const model = resolveModel('static-tiny');
  const { manifest } = model;
  const readFile = fileReader(model);
  const rand = random(7);
  let loaded = 0;
  for (let i = 0; i < MUTANTS_LOADED; i++) {
    const m = mutate(manifest, rand);
    try {
      validateManifest(m);
    } catch {
      continue;
    }
    try {
      const e = await createEmbedder({ core, manifest: m, readFile });
      const { vectors, dims } = await e.embed(['a test sentence'], { kind: 'query' });
      assert.equal(vectors.length, dims, `mutant ${i}`);
      assert.ok(vectors.every(Number.isFinite), `mutant ${i}`);
      loaded++;
    } catch (err) {
      assert.ok(typeof err.code === 'string' && !(err instanceof TypeError), `mutant ${i} ${JSON.stringify(m)}: ${err.stack}`);
    }
  }
  assert.ok(loaded > 0, 'no accepted mutant loaded');
});
