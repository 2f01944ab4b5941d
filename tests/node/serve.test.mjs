// tools/serve.mjs serves only what lies inside a mount: an encoded "../"
// cannot reach a sibling folder whose name starts with the served one's.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { bodyLength, urlReader } from '../../web/engine/backend.mjs';
import { serve } from '../../tools/serve.mjs';

test('requests outside the served folder are refused; bad escapes are a 400', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'vesper-serve-'));
  mkdirSync(join(dir, 'site'));
  mkdirSync(join(dir, 'site-secret'));
  writeFileSync(join(dir, 'site', 'index.html'), 'public');
  writeFileSync(join(dir, 'site', '..notes.txt'), 'a dotted name inside');
  writeFileSync(join(dir, 'site-secret', 'key.txt'), 'secret');
  const server = await serve([['/', join(dir, 'site')]]);
  const get = async (path) => {
    const res = await fetch(`http://127.0.0.1:${server.address().port}${path}`);
    return { status: res.status, body: await res.text() };
  };
  try {
    assert.deepEqual(await get('/'), { status: 200, body: 'public' });
    assert.equal((await get('/..notes.txt')).status, 200);
    for (const path of ['/..%2fsite-secret/key.txt', '/%2e%2e/site-secret/key.txt', '/..%5csite-secret/key.txt', '/%2e%2e%2f%2e%2e%2fetc/passwd']) {
      const r = await get(path);
      assert.notEqual(r.status, 200, path);
      assert.ok(!r.body.includes('secret'), path);
    }
    assert.equal((await get('/%E0%A4%A')).status, 400);
  } finally {
    server.close();
  }
});

// --gzip serves what a static host sends a browser that accepts gzip; the
// engine then reads the body's length as unknown (Content-Length counts the
// compressed bytes), not as a size to check the decoded body against.
test('gzip: compressed when accepted, identity otherwise; bodyLength sees through it', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'vesper-serve-gz-'));
  const text = 'vesper '.repeat(2000);
  writeFileSync(join(dir, 'page.txt'), text);
  const server = await serve([['/', dir]], { gzip: true });
  const url = `http://127.0.0.1:${server.address().port}/page.txt`;
  try {
    const gz = await fetch(url, { headers: { 'accept-encoding': 'gzip' } });
    assert.equal(gz.headers.get('content-encoding'), 'gzip');
    assert.ok(Number(gz.headers.get('content-length')) < text.length / 10);
    assert.equal(bodyLength(gz), null);
    assert.equal(await gz.text(), text);  // fetch decodes it
    const plain = await fetch(url, { headers: { 'accept-encoding': 'identity' } });
    assert.equal(plain.headers.get('content-encoding'), null);
    assert.equal(bodyLength(plain), text.length);
    assert.equal(await plain.text(), text);
    const seen = [];
    const bytes = await urlReader(`http://127.0.0.1:${server.address().port}/`, { onBytes: (p) => seen.push(p) })('page.txt');
    assert.equal(new TextDecoder().decode(bytes), text);
    assert.equal(seen.at(-1).done, text.length);
    assert.equal(seen.at(-1).total, 0);  // unknown: not the compressed length
  } finally {
    server.close();
  }
});
