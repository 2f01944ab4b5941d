// vesper fetch-model against a loopback HTTP server serving local files:
// a good download, a dropped connection resumed with Range, a corrupted file
// refused and deleted, and hash pinning for manifests without sha256.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { promisify } from 'node:util';
import { root } from './helpers.mjs';

const payload = readFileSync(join(root, 'models/test/static-tiny/model.onnx'));
const sha = createHash('sha256').update(payload).digest('hex');
const requests = [];
let server, base;
let dropped = false;

before(async () => {
  server = createServer((req, res) => {
    requests.push({ url: req.url, range: req.headers.range ?? null });
    let body = payload;
    if (req.url === '/corrupt.onnx') {
      body = Buffer.from(payload);
      body[1000] ^= 0xff;
    }
    if (req.url === '/missing.onnx') {
      res.writeHead(404).end();
      return;
    }
    const m = /bytes=(\d+)-/.exec(req.headers.range ?? '');
    const from = m ? Number(m[1]) : 0;
    res.writeHead(from ? 206 : 200, { 'content-length': body.length - from, ...(from ? { 'content-range': `bytes ${from}-${body.length - 1}/${body.length}` } : {}) });
    if (req.url === '/drop.onnx' && !dropped) {
      // Half the file, then the connection dies.
      dropped = true;
      res.write(body.subarray(from, from + (body.length >> 1)), () => res.socket.destroy());
      return;
    }
    res.end(body.subarray(from));
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${server.address().port}`;
});
after(() => server.close());

function modelDir(files) {
  const dir = mkdtempSync(join(tmpdir(), 'vesper-fetch-'));
  writeFileSync(join(dir, 'manifest.json'), JSON.stringify({
    id: 'loopback-model', kind: 'onnx', dims: 32, maxLength: 512, defaultVariant: 'fp32',
    tokenizer: { file: 'tokenizer.model' },
    inputs: { inputIds: 'input_ids', attentionMask: 'attention_mask' },
    output: { name: 'sentence_embedding', pooled: true },
    variants: { fp32: { files } },
  }));
  return dir;
}

const vesper = (args) => promisify(execFile)(join(root, 'tools/vesper'), args).then(
  (r) => ({ code: 0, ...r }),
  (e) => ({ code: e.code, stdout: e.stdout, stderr: e.stderr }),
);

test('downloads and verifies a file', async () => {
  const dir = modelDir([{ path: 'onnx/model.onnx', url: `${base}/good.onnx`, sha256: sha }]);
  const r = await vesper(['fetch-model', dir]);
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(readFileSync(join(dir, 'onnx/model.onnx')), payload);
  assert.match(r.stderr, new RegExp(`onnx/model.onnx: downloaded, sha256 ${sha}`));
  const again = await vesper(['fetch-model', dir]);
  assert.match(again.stderr, /already present/);
});

test('a dropped connection is resumed with a Range request', async () => {
  const dir = modelDir([{ path: 'model.onnx', url: `${base}/drop.onnx`, sha256: sha }]);
  const before = requests.length;
  const r = await vesper(['fetch-model', dir]);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stderr, /resuming/);
  assert.deepEqual(readFileSync(join(dir, 'model.onnx')), payload);
  const ranges = requests.slice(before).map((q) => q.range);
  assert.equal(ranges[0], null);
  assert.equal(ranges[1], `bytes=${payload.length >> 1}-`);
});

test('a corrupted file is refused and deleted', async () => {
  const dir = modelDir([{ path: 'model.onnx', url: `${base}/corrupt.onnx`, sha256: sha }]);
  const r = await vesper(['fetch-model', dir]);
  assert.notEqual(r.code, 0);
  assert.match(r.stderr, /sha256 mismatch .* the download was deleted/);
  assert.ok(!existsSync(join(dir, 'model.onnx')));
  assert.ok(!existsSync(join(dir, 'model.onnx.part')));
});

test('an HTTP error fails without retry loops', async () => {
  const dir = modelDir([{ path: 'model.onnx', url: `${base}/missing.onnx`, sha256: sha }]);
  const r = await vesper(['fetch-model', dir]);
  assert.notEqual(r.code, 0);
  assert.match(r.stderr, /HTTP 404/);
});

test('unpinned files need --allow-unpinned, then their hash is pinned', async () => {
  const dir = modelDir([{ path: 'model.onnx', url: `${base}/good.onnx`, sha256: null }]);
  const refused = await vesper(['fetch-model', dir]);
  assert.notEqual(refused.code, 0);
  assert.match(refused.stderr, /pins no sha256 for model.onnx: pass --allow-unpinned/);
  const r = await vesper(['fetch-model', dir, '--allow-unpinned']);
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(JSON.parse(readFileSync(join(dir, 'pinned-hashes.json'), 'utf8')), { 'model.onnx': sha });
  // The pinned hash now guards later downloads.
  writeFileSync(join(dir, 'model.onnx'), 'tampered');
  const manifest = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8'));
  manifest.variants.fp32.files[0].url = `${base}/corrupt.onnx`;
  writeFileSync(join(dir, 'manifest.json'), JSON.stringify(manifest));
  const bad = await vesper(['fetch-model', dir]);
  assert.notEqual(bad.code, 0);
  assert.match(bad.stderr, /sha256 mismatch/);
});
