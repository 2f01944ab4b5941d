// The CLI end to end on the seeds: build with a model, search as JSON,
// refuse a pack under another model, tokenize offline, errors on stderr.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { copyFileSync, cpSync, existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { before, test } from 'node:test';
import { promisify } from 'node:util';
import { root, seedFiles } from './helpers.mjs';
import { ROWS_PER_BLOCK } from '../../web/engine/on-demand.mjs';

const tmp = mkdtempSync(join(tmpdir(), 'vesper-cli-'));
const vesper = (args) => promisify(execFile)(join(root, 'tools/vesper'), args, { maxBuffer: 64 << 20 }).then(
  (r) => ({ code: 0, ...r }),
  (e) => ({ code: e.code, stdout: e.stdout, stderr: e.stderr }),
);

before(async () => {
  const r = await vesper(['build', ...seedFiles, '--db', 'karpathy', '--model', 'static-tiny', '--out', join(tmp, 'kb.pack')]);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stderr, /embedding karpathy: \d+ chunks from 5 files, static-tiny/);
});

test('search --json returns results above the threshold', async () => {
  const r = await vesper(['search', join(tmp, 'kb.pack'), 'HydraNet backbone heads', '--json', '-k', '3', '--threshold', '0.2']);
  assert.equal(r.code, 0, r.stderr);
  const { results } = JSON.parse(r.stdout);
  assert.ok(results.length > 0 && results.length <= 3);
  for (const x of results) {
    assert.deepEqual(Object.keys(x), ['id', 'score', 'title', 'text', 'source', 'signals']);
    assert.ok(x.score >= 0.2);
    assert.ok(Array.isArray(x.title) && Array.isArray(x.signals));
  }
  const none = await vesper(['search', join(tmp, 'kb.pack'), 'HydraNet', '--json', '--threshold', '0.9999']);
  const nothing = JSON.parse(none.stdout);
  assert.deepEqual(nothing.results, []);
  assert.ok(nothing.nearMisses.length > 0, 'the nearest passages are listed when nothing is shown');
});

// execFile with text on standard input.
function vesperWithInput(args, input) {
  return new Promise((resolve) => {
    const child = execFile(join(root, 'tools/vesper'), args, { maxBuffer: 64 << 20 }, (e, stdout, stderr) =>
      resolve({ code: e ? e.code : 0, stdout, stderr }));
    child.stdin.end(input);
  });
}

test('a query longer than the argument limit is read from standard input with "-"', async () => {
  // 300 kB: over Linux's 128 kB limit for one argument, so it cannot be given on the command line.
  const long = `HydraNet backbone heads ${'multi task learning '.repeat(15_000)}`;
  const r = await vesperWithInput(['search', join(tmp, 'kb.pack'), '-', '--json', '-k', '3', '--threshold', '0'], long);
  assert.equal(r.code, 0, r.stderr);
  assert.ok(JSON.parse(r.stdout).results.length > 0);
  const bad = await vesperWithInput(['search', join(tmp, 'kb.pack'), '-', '--json'], Buffer.from([0x48, 0xff, 0xfe]));
  assert.notEqual(bad.code, 0);
  assert.match(bad.stderr, /standard input is not valid UTF-8 text/);
});

test('search refuses -k 0, -k -1 and -k 2.5 as usage errors', async () => {
  for (const k of ['0', '-1', '2.5']) {
    const r = await vesper(['search', join(tmp, 'kb.pack'), 'HydraNet', `-k=${k}`]);
    assert.equal(r.code, 2, k);
    assert.match(r.stderr, /-k must be a positive whole number/);
  }
});

test('a pack from one model is refused under another', async () => {
  const r = await vesper(['search', join(tmp, 'kb.pack'), 'cameras', '--model', 'tiny-gemma']);
  assert.equal(r.code, 1);
  assert.match(r.stderr, /'karpathy' was embedded with 'static-tiny' \(32 dims.*not with 'tiny-gemma' \(64 dims/);
});

test('inspect describes and validates; damage is reported', async () => {
  const r = await vesper(['inspect', join(tmp, 'kb.pack'), '--json']);
  const info = JSON.parse(r.stdout);
  assert.equal(info.collections[0].model.id, 'static-tiny');
  writeFileSync(join(tmp, 'bad.pack'), 'VESPERPK garbage');
  const bad = await vesper(['inspect', join(tmp, 'bad.pack')]);
  assert.equal(bad.code, 1);
  assert.match(bad.stderr, /^vesper: pack rejected: truncated/);
});

test('inspect lists each section with its size', async () => {
  const r = await vesper(['inspect', join(tmp, 'kb.pack')]);
  assert.equal(r.code, 0, r.stderr);
  for (const section of ['meta', 'chunks', 'vectors', 'bm25', 'pieces']) assert.match(r.stdout, new RegExp(`\\n    ${section} +\\d+ bytes`));
});

test('model-parts serves a static model in parts beside its files; a graph model is refused', async () => {
  const dir = join(tmp, 'site-model');
  cpSync(join(root, 'models/test/static-tiny'), dir, { recursive: true });
  copyFileSync(join(root, 'models/test/tokenizer.model'), join(dir, 'tokenizer.model'));
  const manifest = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8'));
  writeFileSync(join(dir, 'manifest.json'), JSON.stringify({ ...manifest, tokenizer: { ...manifest.tokenizer, file: 'tokenizer.model' } }));
  const r = await vesper(['model-parts', dir]);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /^rows: \d+ files, [\d.]+ MB, in /);
  assert.deepEqual(JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8')).static.blocks, { dir: 'rows/', rows: ROWS_PER_BLOCK });
  assert.ok(existsSync(join(dir, 'rows', '0.vrow')));
  const refused = await vesper(['model-parts', join(root, 'models/test/tiny-gemma')]);
  assert.equal(refused.code, 1);
  assert.match(refused.stderr, /is not a static model/);
});

test('tokenize --model works offline from the manifest tokenizer', async () => {
  const r = await vesper(['tokenize', '--model', 'embeddinggemma-300m', '--json', 'Hello world']);
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(JSON.parse(r.stdout), { ids: [2, 9259, 1902, 1], pieces: ['<bos>', 'Hello', '▁world', '<eos>'] });
  const plain = await vesper(['tokenize', '--model', 'embeddinggemma-300m', '--no-special', '--json', 'Hello world']);
  assert.deepEqual(JSON.parse(plain.stdout).ids, [9259, 1902]);
});

test('embed prints a unit vector; bad input fails clearly', async () => {
  const r = await vesper(['embed', '--model', 'tiny-gemma', '--json', 'gradient descent']);
  const { model, dims, vector } = JSON.parse(r.stdout);
  assert.equal(model, 'tiny-gemma');
  assert.equal(dims, 64);
  assert.ok(Math.abs(Math.hypot(...vector) - 1) < 1e-5);
  const empty = await vesper(['embed', '--model', 'tiny-gemma', '  ']);
  assert.equal(empty.code, 1);
  assert.match(empty.stderr, /text 0 is empty/);
  const usage = await vesper(['search']);
  assert.equal(usage.code, 2);
  const missing = await vesper(['embed', '--model', 'embeddinggemma-300m', 'x']);
  assert.match(missing.stderr, /missing: download it with 'tools\/vesper fetch-model embeddinggemma-300m'/);
});

test('output files are replaced whole: a write killed midway leaves the old file', async () => {
  const { readFileSync, existsSync } = await import('node:fs');
  const { spawn } = await import('node:child_process');
  const target = join(tmp, 'atomic.pack');
  writeFileSync(target, 'old pack');
  // Big enough that the write takes a while; the child says when it starts writing.
  const size = 128 << 20;
  const writer = `import { writeFileAtomic } from ${JSON.stringify(join(root, 'tools/cli/write.mjs'))};
    const bytes = Buffer.alloc(${size}, 7); process.stdout.write('go\\n'); writeFileAtomic(${JSON.stringify(target)}, bytes);`;
  const child = spawn(process.execPath, ['--input-type=module', '-e', writer], { stdio: ['ignore', 'pipe', 'ignore'] });
  await new Promise((r) => child.stdout.once('data', r));
  await new Promise((r) => setTimeout(r, 20));  // midway through (a plain write leaves a truncated file here)
  child.kill('SIGKILL');
  await new Promise((r) => child.on('exit', r));
  const { readdirSync, rmSync } = await import('node:fs');
  for (const f of readdirSync(tmp)) if (f.startsWith('.atomic.pack.')) rmSync(join(tmp, f));  // the killed writer's temporary file
  const now = readFileSync(target);
  // Either the old file or the whole new one, never a truncated mix.
  assert.ok(now.toString() === 'old pack' || (now.length === size && now.every((b) => b === 7)), `${now.length} bytes`);
  // A build that fails keeps the previous pack.
  const failed = await vesper(['build', join(tmp, 'missing.txt'), '--db', 'x', '--out', target]);
  assert.equal(failed.code, 1);
  assert.ok(existsSync(target));
  assert.deepEqual(readFileSync(target), now);
});

test('build keeps the passages (and their piece lists) in files beside the pack while it works, and leaves none behind', async () => {
  const { readdirSync } = await import('node:fs');
  const spills = () => readdirSync(tmp).filter((f) => /\.(passages|pieces)\.tmp$/.test(f));
  assert.deepEqual(spills(), []);  // the build before these tests
  // Read while building (after the spill file was made): a file that is not UTF-8 fails the build.
  writeFileSync(join(tmp, 'latin1.txt'), Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x0a]));
  const failed = await vesper(['build', seedFiles[0], join(tmp, 'latin1.txt'), '--db', 'x', '--lexical', '--out', join(tmp, 'failed.pack')]);
  assert.equal(failed.code, 1);
  assert.match(failed.stderr, /latin1\.txt.*UTF-8/);
  assert.deepEqual(spills(), []);
  assert.ok(!existsSync(join(tmp, 'failed.pack')));
});

test('a manifest naming a file outside its folder is refused, not read', async () => {
  const { mkdirSync, readFileSync } = await import('node:fs');
  const dir = join(tmp, 'evil-model');
  mkdirSync(dir, { recursive: true });
  const manifest = JSON.parse(readFileSync(join(root, 'models/test/static-tiny/manifest.json'), 'utf8'));
  (await import('node:fs')).copyFileSync(join(root, 'models/test/tokenizer.model'), join(dir, 'tokenizer.model'));
  manifest.tokenizer.file = 'tokenizer.model';
  manifest.static.file = '../../../../../../etc/passwd';
  writeFileSync(join(dir, 'manifest.json'), JSON.stringify(manifest));
  const r = await vesper(['embed', '--model', dir, 'hello']);
  assert.equal(r.code, 1);
  assert.match(r.stderr, /names a file outside its folder: \.\.\/\.\.\//);
});

test('knowledge-base text reaches the terminal with its control characters escaped', async () => {
  const doc = join(tmp, 'hostile.md');
  // A title change, a clear screen, a hyperlink (OSC 8), a C1 CSI and a bidi override.
  writeFileSync(doc, '# Zebra \x1b]0;pwned\x07 notes\n\nZebra crossings \x1b[2J\x1b[H are \x1b]8;;http://x\x1b\\here\x1b]8;;\x1b\\ \u009b31m striped \u202e reversed.\n');
  const pack = join(tmp, 'hostile.pack');
  assert.equal((await vesper(['build', doc, '--db', 'hostile', '--lexical', '--out', pack])).code, 0);
  const r = await vesper(['search', pack, 'zebra crossings', '--threshold', '0']);
  assert.equal(r.code, 0, r.stderr);
  assert.ok(!/[\x00-\x08\x0b-\x1f\x7f-\x9f\u202e]/u.test(r.stdout), JSON.stringify(r.stdout));
  assert.match(r.stdout, /\\x1b\]0;pwned\\x07/);
  assert.match(r.stdout, /\\x9b31m striped \\u202e reversed/);
  // JSON output keeps the text as it is (JSON escapes it).
  const json = await vesper(['search', pack, 'zebra crossings', '--threshold', '0', '--json']);
  assert.ok(JSON.parse(json.stdout).results[0].text.includes('\x1b[2J'));
});

test('a folder given as a file, and a session file of the wrong shape, say what to do', async () => {
  const r = await vesper(['build', tmp, '--db', 'x', '--lexical', '--out', join(tmp, 'x.pack')]);
  assert.equal(r.code, 1);
  assert.match(r.stderr, /is a folder, not a file: give the files in it/);
  assert.doesNotMatch(r.stderr, /EISDIR/);
  const session = join(tmp, 'bad-session.json');
  writeFileSync(session, JSON.stringify({ persona: 'andrej-karpathy', state: { said: 'not a list', turns: 1 } }));
  const ask = await vesper(['ask', join(tmp, 'kb.pack'), 'What is micrograd?', '--model', 'static-tiny', '--session', session]);
  assert.equal(ask.code, 1, ask.stdout);
  assert.match(ask.stderr, /bad-session\.json holds a conversation this version cannot read \(.+\); delete it to start a new conversation/);
});

test('a query the decision refuses without being sure says so, with the closest passages', async () => {
  const { site } = await import('../browser/helpers.mjs');
  const pack = join(site(), 'packs/karpathy.pack');  // the default model's, calibrated
  // A development-half question near the cut (bench/quality/questions-en.tsv en-039):
  // refused, with confidence in the unsure band, its answer ranked second.
  const question = 'Why does a transformer spend the same effort on an easy word as on a hard math step?';
  const json = JSON.parse((await vesper(['search', pack, question, '--json'])).stdout);
  assert.equal(json.answerable, false);
  assert.equal(json.unsure, true, `confidence ${json.confidence}`);
  assert.ok(json.nearMisses.length > 0);
  const text = await vesper(['search', pack, question]);
  assert.match(text.stdout, /^not sure the knowledge base answers this \(confidence 0\.\d\d\); the closest passages:/);
  // Clearly unrelated: refused, and said plainly.
  const plain = JSON.parse((await vesper(['search', pack, 'What is the boiling point of olive oil in Kelvin?', '--json'])).stdout);
  assert.equal(plain.answerable, false);
  assert.equal(plain.unsure, false, `confidence ${plain.confidence}`);
});

test('models lists what is installed, with sizes, and what fetch-model would download', async () => {
  const r = await vesper(['models', '--json']);
  assert.equal(r.code, 0, r.stderr);
  const models = new Map(JSON.parse(r.stdout).map((m) => [m.id, m]));
  const def = Object.values(models.get('vesper-default-2').variants)[0];
  assert.ok(def.installed && def.bytes > 1e6, 'the default model is here');
  const gemma = models.get('embeddinggemma-300m').variants.q8;
  assert.ok(!gemma.installed && gemma.fetchable && gemma.missing.includes('onnx/model_quantized.onnx'));
  const text = await vesper(['models']);
  assert.match(text.stdout, /embeddinggemma-300m \(onnx, 768 dims\)[^]*q8: not downloaded \(about 329\.9 MB\): tools\/vesper fetch-model embeddinggemma-300m --variant q8/);
});
