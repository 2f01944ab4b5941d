// Hostile packs on the demo page: strings from a pack are shown as text and
// never run; a pack with valid checksums but unusable HNSW parameters is
// refused at import (it used to import, then fail to load after a reload);
// importing a database whose name exists keeps both.
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { crc32 } from 'node:zlib';
import { after, before, test } from 'node:test';
import { artifacts, launchPersistent, startServer, urlOf, watchConsole } from './helpers.mjs';

let server;
before(async () => {
  server = await startServer();
});
after(() => server?.close());

const HEADER = 8 + 4 + 4 + 8;  // magic, version, section count, total bytes
const ENTRY = 4 + 4 + 8 + 8 + 4;  // kind, collection, offset, size, crc32

// Makes a pack's framing consistent after its bytes were changed (the
// section sizes are unchanged): the checksums an attacker would recompute.
function recomputeChecksums(bytes) {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const count = view.getUint32(12, true);
  for (let i = 0; i < count; i++) {
    const e = HEADER + i * ENTRY;
    const offset = Number(view.getBigUint64(e + 8, true));
    const size = Number(view.getBigUint64(e + 16, true));
    view.setUint32(e + 24, crc32(bytes.subarray(offset, offset + size)), true);
  }
  const tableEnd = HEADER + count * ENTRY;
  view.setUint32(tableEnd, crc32(bytes.subarray(0, tableEnd)), true);
  return bytes;
}

// The collection options as SaveMeta writes them (min size u64, M, efC, efS)
// replaced: min size 2 so the graph is built at load, and the given efSearch.
function withHnswOptions(bytes, efSearch) {
  // The min size depends on the model's dimensions (HnswMinSizeFor): found by the three after it.
  const want = Buffer.alloc(12);
  want.writeUInt32LE(16, 0);
  want.writeUInt32LE(100, 4);  // the default efConstruction (core/index/hnsw_index.h)
  want.writeUInt32LE(128, 8);
  const at = Buffer.from(bytes).indexOf(want) - 8;
  assert.ok(at > 0, 'collection options found in the pack');
  const view = new DataView(bytes.buffer, bytes.byteOffset);
  view.setBigUint64(at, 2n, true);
  view.setUint32(at + 16, efSearch, true);
  return recomputeChecksums(bytes);
}

async function open(profile) {
  const context = await launchPersistent(profile);
  const page = await context.newPage();
  const errors = watchConsole(page);
  await page.goto(urlOf(server, '/'));
  await page.waitForSelector('body[data-ready=true]', { timeout: 60_000 });
  await page.evaluate(() => {
    window.alert = () => { window.pwned = 'alert'; };
  });
  return { context, page, errors };
}

async function importBytes(page, name, bytes) {
  await page.setInputFiles('#import-file', { name, mimeType: 'application/octet-stream', buffer: Buffer.from(bytes) });
}

const EVIL = '<img src=x onerror="window.pwned=1">';
// Every field a pack carries, as markup that would run if inserted as HTML.
function craftedChunks() {
  return [
    {
      id: `x" onmouseover="window.pwned=2" data-x="${EVIL}`,
      title: [`<img src=x onerror="window.pwned=3">Albatross`],
      source: '<svg onload="window.pwned=4">.md',
      text: `Albatross migration crosses the southern ocean every year; fish & chips ${EVIL} are not on the menu.`,
      language: 'en',
    },
    {
      id: '<script>window.pwned=5</script>',
      title: ['Albatross wings'],
      source: 'wings.md',
      text: 'An albatross can glide for hours on its long wings <iframe src="javascript:window.pwned=6"></iframe> without flapping.',
      language: 'en',
    },
  ];
}

test('a pack whose ids, titles, sources and text hold markup: shown as text in results, answers and citations, never run', { timeout: 180_000 }, async () => {
  const profile = mkdtempSync(join(tmpdir(), 'vesper-hostile-'));
  let { context, page, errors } = await open(profile);
  const bytes = await page.evaluate((chunks) => {
    const db = window.vesperEngine.core.collection('<b onclick="window.pwned=7">evil</b>', null);
    db.add(chunks);
    const out = Array.from(window.vesperEngine.core.savePack([db]));
    db.dispose();
    return out;
  }, craftedChunks());
  const dbName = '<b onclick="window.pwned=7">evil</b>';
  await importBytes(page, 'evil.pack', bytes);
  await page.waitForFunction(() => /Imported <b onclick/.test(document.getElementById('store-status').textContent));
  const noMarkup = async () => {
    assert.equal(await page.evaluate(() => window.pwned), undefined, 'no script from the pack ran');
    assert.equal(await page.$$eval('main img, main svg, main iframe, main script, #db-table b, #results b', (n) => n.length), 0);
  };
  await noMarkup();
  assert.ok((await page.textContent('#db-table')).includes(dbName), 'the name is shown as text');

  await page.selectOption('#db-select', dbName);
  await page.fill('#query', 'albatross fish amp chips');
  await page.waitForFunction(() => document.querySelectorAll('#results li:not(.hint)').length >= 2);
  const results = await page.textContent('#results');
  assert.ok(results.includes(EVIL), 'the passage text is shown literally');
  assert.ok(results.includes('<img src=x onerror="window.pwned=3">Albatross'), 'the title is shown literally');
  // Highlighting works on the text, not on escaped HTML: "&" stays "&" and
  // "amp" (only in the escaped form "&amp;") is not marked.
  assert.ok(results.includes('fish & chips'));
  const marks = await page.$$eval('#results mark', (m) => [...new Set(m.map((x) => x.textContent.toLowerCase()))].sort());
  assert.deepEqual(marks, ['albatross', 'chips', 'fish']);
  await noMarkup();

  await page.fill('#chat-input', 'Tell me about albatross migration across the southern ocean.');
  await page.click('#chat-send');
  await page.waitForSelector('#chat-log li.persona');
  const cites = await page.$$eval('#chat-log li.persona a.cite', (a) => a.map((x) => x.dataset.id));
  assert.ok(cites.length > 0, `the persona cites the crafted passages: ${await page.textContent('#chat-log')}`);
  assert.ok(cites.every((id) => craftedChunks().some((c) => c.id === id)), 'data-id holds the id as it is');
  for (const a of await page.$$('#chat-log li.persona a.cite')) {
    await a.hover();
    await a.click();
  }
  await noMarkup();
  await page.screenshot({ path: join(artifacts, 'page-hostile-pack.png'), fullPage: true });

  // Stored in IndexedDB: still inert after a reload.
  await context.close();
  ({ context, page, errors } = await open(profile));
  assert.ok((await page.textContent('#db-table')).includes(dbName));
  await page.selectOption('#db-select', dbName);
  await page.fill('#query', 'albatross wings');
  await page.waitForFunction(() => document.querySelectorAll('#results li:not(.hint)').length >= 1);
  await noMarkup();
  assert.deepEqual(errors, []);
  await context.close();
});

test('a checksummed pack with unusable HNSW parameters is refused at import; a database of the same name is kept beside', { timeout: 180_000 }, async () => {
  const profile = mkdtempSync(join(tmpdir(), 'vesper-hnsw-'));
  let { context, page } = await open(profile);
  const good = Uint8Array.from(await page.evaluate(() => Array.from(window.vesperEngine.exportPack('karpathy'))));
  for (const efSearch of [0xffffffff, 0]) {
    const bad = withHnswOptions(good.slice(), efSearch);
    writeFileSync(join(profile, 'bad.pack'), bad);
    await importBytes(page, `ef-${efSearch}.pack`, bad);
    await page.waitForFunction((n) => document.getElementById('store-status').textContent.includes(n), `ef-${efSearch}.pack`);
    assert.match(await page.textContent('#store-status'), /Could not import ef-\d+\.pack: .*bad HNSW parameters: HNSW efSearch must be in \[1, 65536\]/);
  }
  assert.deepEqual(await page.$$eval('#db-select option', (o) => o.map((x) => x.value)), ['karpathy'], 'nothing was imported');

  // The same pack again: kept beside the existing database, both searchable, both survive a reload.
  await importBytes(page, 'again.pack', good);
  await page.waitForFunction(() => /Imported karpathy \(2\) from again\.pack\. Kept 'karpathy' as 'karpathy \(2\)'/.test(document.getElementById('store-status').textContent));
  await context.close();
  ({ context, page } = await open(profile));
  assert.equal(await page.isVisible('#notice'), false, 'nothing failed to load after the reload');
  assert.deepEqual(await page.$$eval('#db-select option', (o) => o.map((x) => x.value)).then((v) => v.sort()), ['karpathy', 'karpathy (2)']);
  const top = (db) => page.evaluate(async (db) => (await window.vesperEngine.search(db, 'HydraNet', { threshold: 0 })).ranked[0].id, db);
  assert.equal(await top('karpathy (2)'), await top('karpathy'));
  await context.close();
});
