// `vesper export`: a site's pack loaded into real vector databases, PostgreSQL
// with pgvector (PGlite runs both in Node) and LanceDB, answers a query with
// the same passages, in the same order, as vesper's own vector search; the
// Qdrant JSON has every passage with its vector and payload.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { before, test } from 'node:test';
import { promisify } from 'node:util';
import { createEngine } from '../../web/vesper-engine.mjs';
import { root } from './helpers.mjs';

const run = promisify(execFile);
const vesper = (args) => run(join(root, 'tools/vesper'), args, { maxBuffer: 64 << 20 });
const dir = mkdtempSync(join(tmpdir(), 'vesper-export-'));
const pack = join(dir, 'site.pack');
const QUERIES = ['wingspan of the wandering albatross', 'how do the birds use the wind', 'equipamento para observar albatrozes', 'chick rearing at the nest'];
const TOP = 5;
let expected;  // query -> { vector, ids } from vesper's exact vector search

before(async () => {
  await vesper(['build', '--site', join(root, 'tests/data/site'), '--db', 'site', '--out', pack]);
  const engine = await createEngine({ model: join(root, 'models/default') });
  engine.loadPack(new Uint8Array(readFileSync(pack)));
  expected = new Map();
  for (const q of QUERIES) {
    const r = await engine.search('site', q, { k: TOP, mode: 'vector', threshold: -1, padTo: 0 });
    expected.set(q, { vector: Array.from(r.query.vector), ids: r.ranked.slice(0, TOP).map((x) => x.id) });
  }
  await engine.dispose();
});

test('pgvector: the SQL loads into PostgreSQL + pgvector and ranks as vesper does', { timeout: 120_000 }, async () => {
  const { PGlite } = await import('@electric-sql/pglite');
  const { vector } = await import('@electric-sql/pglite-pgvector');
  const sql = (await vesper(['export', pack, '--to', 'pgvector'])).stdout;
  assert.match(sql, /^-- vesper export of 'site': 8 passages, vesper-default-2, 256 dims\nCREATE EXTENSION IF NOT EXISTS vector;/);
  const pg = new PGlite({ extensions: { vector } });
  await pg.exec(sql);
  assert.equal((await pg.query('SELECT count(*)::int AS n FROM site')).rows[0].n, 8);
  const row = (await pg.query("SELECT url, title, language FROM site WHERE url = '/guide/#equipamento'")).rows[0];
  assert.deepEqual(row, { url: '/guide/#equipamento', title: ['Guia de campo', 'Guia de observação', 'Equipamento'], language: 'pt' });
  for (const [q, { vector: v, ids }] of expected) {
    const got = await pg.query('SELECT id FROM site ORDER BY embedding <=> $1::vector LIMIT $2', [`[${v.join(',')}]`, TOP]);
    assert.deepEqual(got.rows.map((r) => r.id), ids, q);
  }
  await pg.close();
});

test('LanceDB: the exported table ranks as vesper does', { timeout: 120_000 }, async () => {
  const lancedb = await import('@lancedb/lancedb');
  const out = join(dir, 'lance');
  const r = await vesper(['export', pack, '--to', 'lancedb', '--out', out]);
  assert.match(r.stderr, /8 passages of 'site' -> LanceDB table 'site'/);
  const table = await (await lancedb.connect(out)).openTable('site');
  for (const [q, { vector: v, ids }] of expected) {
    const got = await table.search(v).distanceType('cosine').limit(TOP).toArray();
    assert.deepEqual(got.map((x) => x.id), ids, q);
  }
  await assert.rejects(vesper(['export', pack, '--to', 'lancedb']), /needs --out DIR/);
});

test('Qdrant: a collection of the right size and every passage as a point with its payload', async () => {
  const json = JSON.parse((await vesper(['export', pack, '--to', 'qdrant', '--table', 'albatross'])).stdout);
  assert.deepEqual(json.collection, { name: 'albatross', vectors: { size: 256, distance: 'Cosine' } });
  assert.equal(json.points.length, 8);
  for (const p of json.points) {
    assert.equal(p.vector.length, 256);
    assert.ok(Math.abs(Math.hypot(...p.vector) - 1) < 1e-4, 'unit vectors');
    assert.match(p.payload.url, /^\//);
  }
  const lexical = join(dir, 'lexical.pack');
  await vesper(['build', '--site', join(root, 'tests/data/site'), '--db', 'lex', '--lexical', '--out', lexical]);
  await assert.rejects(vesper(['export', lexical, '--to', 'qdrant']), /lexical only: it has no vectors to export/);
});
