// A static site as input (web/engine/site.mjs, `vesper build --site`): HTML
// pages and Markdown give sections named by URL and heading anchor, the
// indexed region and the ignored parts are honoured, a page's language is
// its passages', and search results link to the section with a marked
// excerpt, grouped by page (web/engine/results.mjs).
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { promisify } from 'node:util';
import { createEngine } from '../../web/vesper-engine.mjs';
import { excerptHtml, groupByPage } from '../../web/engine/results.mjs';
import { htmlSections, markdownSections, pageUrl, siteDocuments } from '../../web/engine/site.mjs';
import { exportRows, pgvectorSql } from '../../web/engine/export.mjs';
import { root } from './helpers.mjs';

const siteDir = join(root, 'tests/data/site');
const pages = ['index.html', 'guide/index.html', 'docs/breeding.md'].map((path) => ({ path, text: readFileSync(join(siteDir, path), 'utf8') }));
const vesper = (args) => promisify(execFile)(join(root, 'tools/vesper'), args, { maxBuffer: 16 << 20 });

test('pages become sections named by URL and anchor, with their heading trail', () => {
  const docs = siteDocuments(pages);
  assert.deepEqual(docs.map((d) => d.source), [
    '/#top', '/#wingspan', '/#top',  // "Dynamic soaring" has no id: the nearest heading's anchor
    '/guide/#guia', '/guide/#equipamento',
    '/docs/breeding/#breeding', '/docs/breeding/#dance', '/docs/breeding/#chick-rearing',
  ]);
  const wingspan = docs[1].text;
  assert.match(wingspan, /^# Albatross Field Guide\n## Wingspan\n\nThe wandering albatross has the largest wingspan of any living bird, up to 3\.5 metres\.\n$/);
  const all = docs.map((d) => d.text).join('\n');
  for (const absent of ['var x', 'color: red', 'Home', 'Advertisement', 'Copyright', 'outside the marked region']) {
    assert.ok(!all.includes(absent), `${absent} is not indexed`);
  }
  assert.match(docs[2].text, /- Climb into the wind\n- Turn and descend downwind/);
  assert.deepEqual([...new Set(docs.map((d) => d.language))], ['en', 'pt-BR']);
  assert.match(docs[7].text, /```\n# not a heading inside code\n```/, 'a # line in a code fence is code');
});

test('URLs: index pages are their folder, Markdown follows the template; entities and unclosed tags are read', () => {
  assert.equal(pageUrl('index.html'), '/');
  assert.equal(pageUrl('guide/index.html'), '/guide/');
  assert.equal(pageUrl('guide/install.html'), '/guide/install.html');
  assert.equal(pageUrl('docs/intro.md'), '/docs/intro/');
  assert.equal(pageUrl('docs/README.md'), '/docs/');
  assert.equal(pageUrl('docs/intro.md', '/{path}.html'), '/docs/intro.html');
  const page = htmlSections('<title>A &amp; B</title><body><p>x &lt;y&gt; &#x4e2d;&#25991; &bogus; <b>bold<p>next</body>');
  assert.equal(page.title, 'A & B');
  assert.match(page.sections[0].body, /x <y> 中文 &bogus; bold\s+next/);
});

test('vesper build --site: results carry the section URL, a marked excerpt, and pages group their sections', { timeout: 60_000 }, async () => {
  const out = join(mkdtempSync(join(tmpdir(), 'vesper-site-')), 'site.pack');
  const built = await vesper(['build', '--site', siteDir, '--db', 'site', '--out', out]);
  assert.match(built.stderr, /8 chunks from 3 pages of /);
  const r = JSON.parse((await vesper(['search', out, 'wingspan of the wandering albatross', '--json', '--threshold', '0'])).stdout);
  const top = r.results[0];
  assert.equal(top.url, '/#wingspan');
  assert.match(top.excerpt, /<mark>wandering<\/mark> <mark>albatross<\/mark> has <mark>the<\/mark> largest <mark>wingspan<\/mark>/);
  assert.equal(r.pages[0].url, '/');
  assert.equal(r.pages[0].title, 'Albatross Field Guide');
  assert.ok(r.pages[0].subResults.length >= 2, 'the page lists its matching sections');
  assert.equal(r.pages[0].subResults[0].url, '/#wingspan');
  assert.equal(new Set(r.pages.map((p) => p.url)).size, r.pages.length, 'one group per page');
  await assert.rejects(vesper(['build', '--site', siteDir, 'x.txt', '--db', 'site', '--out', out]), /not both/);
});

test('a page language is its passages\'; excerpts escape HTML; plain files stay ungrouped', async () => {
  const engine = await createEngine({ model: join(root, 'models/test/static-tiny') });
  const db = await engine.store('site', siteDocuments(pages));
  const guide = db.chunks().filter((c) => c.source.startsWith('/guide/'));
  assert.ok(guide.length && guide.every((c) => c.language === 'pt'));
  assert.equal(excerptHtml('a <script>alert(1)</script> albatross', 'albatross'), 'a &lt;script&gt;alert(1)&lt;/script&gt; <mark>albatross</mark>');
  const groups = groupByPage([{ id: 'a', source: 'notes.txt', title: ['Notes'], text: 'x', score: 1 }, { id: 'b', source: 'notes.txt', title: ['Notes'], text: 'y', score: 0.5 }], 'x');
  assert.equal(groups.length, 2);
  assert.equal(groups[0].url, null);
  await engine.dispose();
});

test('data-vesper-meta and -filter: every passage of the page carries them; --filter narrows a search; results, pages and exports show them', { timeout: 60_000 }, async () => {
  assert.deepEqual(htmlSections(pages[0].text).fields, [
    { key: 'author', value: 'Field Team', filter: false }, { key: 'section', value: 'home', filter: true },
    { key: 'audience', value: 'visitors', filter: true },  // an element's text, though the header is not indexed
  ]);
  assert.deepEqual(htmlSections(pages[1].text).fields.map((f) => `${f.key}=${f.value}`), ['section=guide', 'audience=visitors']);
  // Markdown: front matter's meta and filters maps, a value or a [list] per key.
  assert.deepEqual(markdownSections(pages[2].text).fields.map((f) => `${f.filter ? 'filter' : 'meta'} ${f.key}=${f.value}`),
    ['filter topic=breeding', 'filter topic=life cycle', 'meta author=Field Team']);
  const out = join(mkdtempSync(join(tmpdir(), 'vesper-site-')), 'site.pack');
  await vesper(['build', '--site', siteDir, '--db', 'site', '--out', out]);
  const search = async (...args) => {
    const r = JSON.parse((await vesper(['search', out, 'wingspan of the wandering albatross', '--json', '--threshold', '0', '-k', '8', ...args])).stdout);
    return { ...r, listed: [...r.results, ...r.nearMisses] };  // shown, or the nearest when the decision holds them back
  };
  const all = await search();
  assert.ok(all.listed.some((r) => r.url.startsWith('/guide/')) && all.listed.some((r) => r.url.startsWith('/#')));
  const home = all.results.find((r) => r.url.startsWith('/#'));
  assert.deepEqual(home.metadata, { author: 'Field Team' });
  assert.deepEqual(home.filters, { section: ['home'], audience: ['visitors'] });
  assert.deepEqual(all.pages.find((p) => p.url === '/').metadata, { author: 'Field Team' });
  const guide = await search('--filter', 'section:guide');
  assert.ok(guide.listed.length > 0 && guide.listed.every((r) => r.url.startsWith('/guide/')));
  const both = await search('--filter', 'section:guide', '--filter', 'section:home', '--filter', 'audience:visitors');
  assert.ok(both.listed.some((r) => r.url.startsWith('/guide/')) && both.listed.some((r) => r.url.startsWith('/#')));
  const breeding = await search('--filter', 'topic:life cycle');
  assert.ok(breeding.listed.length > 0 && breeding.listed.every((r) => r.url.startsWith('/docs/breeding/')));
  const none = await search('--filter', 'section:nowhere');
  assert.deepEqual([none.results, none.nearMisses], [[], []]);
  assert.match((await vesper(['search', out, 'albatross', '--filter', 'section:nowhere'])).stdout, /no passage of a page with those filters/);
  await assert.rejects(vesper(['search', out, 'albatross', '--filter', 'section']), /expects key:value/);
  // The engine: a value or a list per key; anything else is a clear error. The pack keeps the fields.
  const engine = await createEngine({ model: null });
  const [name] = engine.loadPack(new Uint8Array(readFileSync(out)), { anyModel: true });
  const found = await engine.search(name, 'albatrozes nos penhascos', { threshold: 0, filters: { section: 'guide' } });
  assert.ok(found.ranked.length > 0 && found.ranked.every((r) => r.source.startsWith('/guide/')));
  await assert.rejects(engine.search(name, 'albatross', { filters: 'guide' }), /filters must be an object/);
  await assert.rejects(engine.search(name, 'albatross', { filters: { section: [1] } }), /must hold strings/);
  await engine.dispose();
  const withModel = await createEngine({ model: join(root, 'models/default') });
  const [db] = withModel.loadPack(new Uint8Array(readFileSync(out)));
  const row = exportRows(withModel.require(db)).find((r) => r.url.startsWith('/#'));
  assert.deepEqual([row.metadata, row.filters], [{ author: 'Field Team' }, { section: ['home'], audience: ['visitors'] }]);
  assert.match(pgvectorSql(withModel.require(db)), /'\{"author":"Field Team"\}'::jsonb/);
  await withModel.dispose();
});

test('a page\'s description (HTML meta, Markdown front matter) leads its sections\' trail beside the title', () => {
  const docs = siteDocuments([
    { path: 'cli/uninstall.md', text: '---\ntitle: npm-uninstall\ndescription: Remove a package\n---\n\n# npm-uninstall\n\n## Synopsis\n\nnpm uninstall <pkg>\n' },
    { path: 'guide/index.html', text: '<html><head><title>Guide</title><meta name="description" content="How to start &amp; stay"></head><body><main><h2 id="a">A</h2><p>Text.</p></main></body></html>' },
  ]);
  assert.equal(docs[0].source, '/cli/uninstall/#synopsis');
  assert.match(docs[0].text, /^# npm-uninstall — Remove a package\n## Synopsis\n/);
  assert.match(docs[1].text, /^# Guide — How to start & stay\n## A\n/);
});

test('a small site answers its own questions at the default settings, and not unrelated ones', { timeout: 60_000 }, async () => {
  // 8 passages: fewer than the core's "typical passage" needs (collection.cpp
  // kTypicalPassages), which once made every question of a small site "not covered".
  const out = join(mkdtempSync(join(tmpdir(), 'vesper-site-')), 'site.pack');
  await vesper(['build', '--site', siteDir, '--db', 'site', '--out', out]);
  const search = async (q) => JSON.parse((await vesper(['search', out, q, '--json'])).stdout);
  for (const [q, url] of [['how wide are an albatross\'s wings', '/#wingspan'], ['where do albatrosses breed', '/docs/breeding/#breeding']]) {
    const r = await search(q);
    assert.ok(r.answerable, `${q}: answered (confidence ${r.confidence})`);
    assert.ok(r.results.slice(0, 2).some((x) => x.url === url), `${q}: ${url} among the first two`);
  }
  for (const q of ['best pizza in town', 'how do I renew my passport']) {
    const r = await search(q);
    assert.equal(r.answerable, false, q);
    assert.equal(r.results.length, 0, q);
  }
});
