// The demo page: loads the engine, keeps databases in IndexedDB, stores the
// knowledge base with progress, searches with a live threshold, and draws
// the query's tokens and embedding next to the best match.
import { createEngine } from '../vesper-engine.mjs';
import { NO_META_TEXT, citationLabel, metaTextOf } from '../engine/kb.mjs';
import { drawComparison } from './embedding-view.mjs';
import { modelPicker, readCatalogue, restoreChoice } from './models.mjs';
import { speakControl } from './speak.mjs';
import { friendlyStorageError, storage } from './storage.mjs';
import { answerNodes, el, formatBytes, formatDate, highlighted } from './render.mjs';

const $ = (id) => document.getElementById(id);
// Passages shown greyed when nothing is.
const NEAR_MISSES = 5;
// The best passages a reader is shown, in ranked order, among those that
// reach the slider (the search fetches more, so the slider only re-filters).
const SHOWN_RESULTS = 5;
const state = { ready: false, metaText: NO_META_TEXT, engine: null, last: null, meta: new Map(), damaged: new Map(), storing: null, thresholdTouched: false, conversation: {}, speaker: null };

function setStatus(text, fraction = null) {
  $('status-text').textContent = text;
  const bar = $('load-progress');
  bar.hidden = fraction === null;
  if (fraction !== null) bar.value = fraction;
}

function showNotice(text) {
  $('notice').hidden = !text;
  $('notice').textContent = text ?? '';
}

function renderDatabases() {
  const tbody = $('db-table').querySelector('tbody');
  const select = $('db-select');
  const current = select.value;
  tbody.replaceChildren();
  select.replaceChildren();
  const button = (label, data) => el('button', { type: 'button', className: 'secondary', dataset: data }, label);
  for (const [name, meta] of state.meta) {
    tbody.append(el('tr', {},
      el('td', {}, name), el('td', {}, String(meta.chunks)), el('td', {}, formatBytes(meta.bytes.length)),
      el('td', {}, meta.model ?? 'lexical only'), el('td', {}, formatDate(meta.created)),
      el('td', {}, button('Export', { export: name }), ' ', button('Delete', { delete: name }))));
    select.append(new Option(name, name));
  }
  // Stored databases that failed their checks: listed so they can be deleted,
  // never searched.
  for (const [name, reason] of state.damaged) {
    tbody.append(el('tr', { className: 'damaged' },
      el('td', {}, name), el('td', { colSpan: 4, className: 'error' }, `damaged, not loaded: ${reason}`),
      el('td', {}, button('Delete', { delete: name }))));
  }
  if (state.meta.has(current)) select.value = current;
}

// A database's record, listed at once (the select and the table read
// state.meta); written to IndexedDB by save().
function remember(name, bytes) {
  const db = state.engine.require(name);
  const meta = { name, bytes, model: db.model?.id ?? null, chunks: db.size, created: Date.now() };
  state.meta.set(name, meta);
  return meta;
}

// Resolves to null, or to the reason the record could not be saved (the
// database then stays usable in this tab).
async function save(meta) {
  try {
    await storage.put(meta);
    return null;
  } catch (err) {
    return friendlyStorageError(err);
  }
}

// Saves a database to IndexedDB; resolves to null, or to the reason it
// could not be saved (it then stays usable in this tab).
async function persist(name, bytes) {
  const meta = remember(name, bytes);
  renderDatabases();
  return save(meta);
}

function report(message, isError = false) {
  $('store-status').textContent = message;
  $('store-status').classList.toggle('error', isError);
}

async function store() {
  const name = $('db-name').value.trim();
  const text = $('kb-text').value;
  const status = $('store-status');
  status.classList.remove('error');
  if (!name) {
    status.textContent = 'Give the database a name first.';
    return;
  }
  const controller = new AbortController();
  state.storing = controller;
  $('store').disabled = true;
  $('cancel-store').hidden = false;
  const bar = $('store-progress');
  bar.hidden = false;
  bar.value = 0;
  try {
    const db = await state.engine.store(name, [{ source: `${name}.txt`, text }], {
      metaText: state.metaText,
      signal: controller.signal,
      onProgress: ({ done, total }) => {
        bar.value = done / total;
        status.textContent = `Storing ${done} / ${total} passages...`;
      },
    });
    const unsaved = await persist(name, state.engine.exportPack(name));
    if (unsaved) report(unsaved, true);
    else report(`Stored ${db.size} passages in '${name}'.`);
    $('db-select').value = name;
    search();
  } catch (err) {
    status.textContent = err.code === 'cancelled' ? 'Cancelled: nothing was changed.' : `Could not store: ${err.message}`;
    status.classList.toggle('error', err.code !== 'cancelled');
  } finally {
    state.storing = null;
    $('store').disabled = false;
    $('cancel-store').hidden = true;
    bar.hidden = true;
  }
}

async function importPack(file) {
  const status = $('store-status');
  status.classList.remove('error');
  try {
    // A database of the same name is never replaced by an import: both are
    // kept, the imported one under a free name, and the user is told.
    const renamed = [];
    const names = state.engine.loadPack(new Uint8Array(await file.arrayBuffer()), {
      keepBoth: true, reserved: [...state.damaged.keys()], onRename: (from, to) => renamed.push(`'${from}' as '${to}'`),
    });
    const unsaved = [];
    for (const n of names) unsaved.push(await persist(n, state.engine.exportPack(n)));
    const problem = unsaved.find(Boolean);
    const kept = renamed.length ? ` Kept ${renamed.join(', ')}: a database of that name already exists.` : '';
    if (problem) report(problem, true);
    else report(`Imported ${names.join(', ')} from ${file.name}.${kept}`);
    search();  // a query typed before there was any database runs now
  } catch (err) {
    status.textContent = `Could not import ${file.name}: ${err.message}`;
    status.classList.add('error');
  }
}

function exportPack(name) {
  const blob = new Blob([state.engine.exportPack(name)], { type: 'application/octet-stream' });
  const a = document.createElement('a');
  a.href = URL.createObjectURL(blob);
  a.download = `${name}.pack`;
  a.click();
  setTimeout(() => URL.revokeObjectURL(a.href), 1000);
}

async function removeDatabase(name) {
  state.engine.remove(name);
  state.meta.delete(name);
  state.damaged.delete(name);
  await storage.remove(name).catch(() => {});
  renderDatabases();
  search();
}

// What the slider's starting point means for this database.
function thresholdNote(db) {
  if (!state.engine.require(db).model) return '(lexical database: word matching only)';
  return state.engine.calibrated(db) ? '' : '(uncalibrated: this model ships no calibration, so the bar is its manifest\'s threshold)';
}

function setThreshold(value) {
  $('threshold').value = String(value);
  // step="any": a calibrated threshold (three decimals, e.g. 0.309) is kept exactly, not snapped to a step.
  $('threshold-value').textContent = String(Number(Number(value).toFixed(3)));
}

function resultItem(x, r, nearMiss) {
  const trail = x.title.length ? x.title.join(' › ') : x.source;
  return el('li', { id: `chunk-${x.id}`, className: nearMiss ? 'near-miss' : '' },
    el('div', { className: 'meta' }, el('strong', {}, x.score.toFixed(3)), ` · ${trail} · ${x.signals.join(' + ')}`),
    el('div', {}, highlighted(x.text.slice(0, 600), r.queryText)));
}

// The passages shown are those the core marked (the query is answerable and
// they reach the slider); when none is, the user still sees why and what was
// nearest, greyed, with scores.
function renderResults() {
  const list = $('results');
  list.replaceChildren();
  const r = state.last;
  if (!r) return;
  const threshold = Number($('threshold').value);
  // The core decided whether the query is answerable; the slider then picks what to show.
  const shown = (r.answerable ? r.ranked.filter((x) => x.score >= threshold) : []).slice(0, SHOWN_RESULTS);
  for (const x of shown) list.append(resultItem(x, r, false));
  if (!shown.length) {
    const hint = document.createElement('li');
    hint.className = 'hint';
    // A query that shares no word with a database searched by its words has no nearest passage.
    const near = r.ranked.length ? ' The nearest passages:' : '';
    hint.textContent = r.answerable
      ? `No passage scores above ${threshold.toFixed(2)}.${near}`
      : r.unsure
        ? `Not sure this database answers that (confidence ${r.confidence.toFixed(2)}). The closest passages, in case one does:`
        : `Nothing in this database seems to answer that (confidence ${r.confidence.toFixed(2)}).${near}`;
    list.append(hint);
    for (const x of r.ranked.slice(0, NEAR_MISSES)) list.append(resultItem(x, r, true));
  }
  // The comparison shows the passage whose vector is closest, shown or not.
  const best = r.query.vector ? r.ranked.reduce((m, x) => ((x.vectorScore ?? -2) > (m?.vectorScore ?? -2) ? x : m), null) : null;
  $('best-score').textContent = best ? best.vectorScore.toFixed(4) : '–';
  if (best) {
    const match = state.engine.require(r.db).vector(best.id);
    drawComparison({ query: Array.from(r.query.vector), match: Array.from(match), canvases: { query: $('query-strip'), match: $('match-strip'), diff: $('diff-strip') } });
  }
}

// Work the visitor is not waiting for, when the page is idle (at the latest
// after IDLE_WAIT_MS).
const IDLE_WAIT_MS = 1000;
function idle(fn) {
  if (window.requestIdleCallback) requestIdleCallback(fn, { timeout: IDLE_WAIT_MS });
  else setTimeout(fn, 0);
}

let pending = 0;
async function search() {
  const text = $('query').value;
  if (!text.trim()) return;
  const db = state.ready ? $('db-select').value : '';
  if (!db) {
    // Typed while the engine or the database is still loading: main() runs it when ready.
    $('results').replaceChildren(el('li', { className: 'hint' }, 'Your query will run as soon as the database is ready...'));
    return;
  }
  const ticket = ++pending;
  try {
    // The core decides with the database's own bar; 20 ranked passages come
    // back, so moving the slider only re-filters them.
    const r = await state.engine.search(db, text, { k: 20, mode: $('hybrid').checked ? 'hybrid' : 'vector' });
    if (ticket !== pending) return;
    state.last = { ...r, db, queryText: text };
    if (!state.thresholdTouched) setThreshold(state.engine.defaultThreshold(db, $('hybrid').checked ? 'hybrid' : 'vector'));
    $('threshold-note').textContent = thresholdNote(db);
    const t = r.timings;
    $('timings').textContent = `tokenize ${t.tokenizeMs.toFixed(1)} ms · embed ${t.embedMs.toFixed(1)} ms · search ${t.searchMs.toFixed(1)} ms`;
    $('pieces').replaceChildren(...r.query.pieces.map((p) => el('span', {}, p)));
    $('token-ids').textContent = `[${Array.from(r.query.ids).join(', ')}]`;
    renderResults();
    if (!performance.getEntriesByName('vesper-first-results').length) performance.mark('vesper-first-results');
  } catch (err) {
    $('results').replaceChildren(el('li', { className: 'error' }, err.message));
  }
}

// Shows a cited passage under the answer that cites it (clicking the same
// citation again hides it), with a link to it among the search results.
function togglePassage(anchor) {
  const box = anchor.closest('.chat')?.querySelector('.passage');
  const chunk = state.engine.require(anchor.dataset.db).chunks().find((c) => c.id === anchor.dataset.id);
  if (!box || !chunk) return false;
  if (!box.hidden && box.dataset.id === chunk.id) {
    box.hidden = true;
    return true;
  }
  box.dataset.id = chunk.id;
  box.replaceChildren(el('div', { className: 'meta' }, citationLabel(chunk)), el('div', {}, chunk.text.slice(0, 1200)));
  box.hidden = false;
  return true;
}

// Shows a cited passage in the search view, so a citation has somewhere to point.
function showPassage(db, id) {
  const chunk = state.engine.require(db).chunks().find((c) => c.id === id);
  if (!chunk) return;
  let li = document.getElementById(`chunk-${id}`);
  if (!li) {
    const trail = chunk.title.length ? chunk.title.join(' › ') : chunk.source;
    li = el('li', { id: `chunk-${id}`, className: 'cited' },
      el('div', { className: 'meta' }, `cited by the persona · ${trail}`), el('div', {}, chunk.text.slice(0, 900)));
    $('results').prepend(li);
  }
  li.classList.add('flash');
  li.tabIndex = -1;
  li.scrollIntoView({ block: 'center' });
  li.focus();
  setTimeout(() => li.classList.remove('flash'), 1500);
}

function addChat(role, nodes, extra = '') {
  const li = el('li', { className: `chat ${role} ${extra}`.trim() }, nodes);
  $('chat-log').append(li);
  li.scrollIntoView({ block: 'nearest' });
  return li;
}

async function ask(ev) {
  ev.preventDefault();
  const question = $('chat-input').value;
  const db = $('db-select').value;
  if (!question.trim() || !db) return;
  addChat('user', question);
  $('chat-input').value = '';
  let li = null, reply = null;
  const earlier = state.conversation?.topic ?? '';
  try {
    reply = await state.engine.ask(db, question, { conversation: state.conversation });
    state.conversation = reply.state;
    li = addChat('persona', replyNodes(db, reply), reply.kind);
    li.dataset.kind = reply.kind;
    li.dataset.language = reply.language;
    li.dataset.inRole = String(reply.inRole);
  } catch (err) {
    addChat('persona', err.message, 'error');
    return;
  }
  // With the persona's voice on, the model speaks the answer just shown.
  await state.speaker?.speak(li, { db, question, reply, earlier });
}

// An answer's text with its [n] markers as links to the cited passages
// (hovering names the passage, clicking shows it under the answer), the
// list of sources, and the place a clicked passage opens.
function replyNodes(db, reply) {
  const link = (c, text) => el('a', { href: `#chunk-${encodeURIComponent(c.id)}`, className: 'cite', title: citationLabel(c), dataset: { db, id: c.id } }, text);
  const sources = reply.citations.map((c) => el('li', {}, link(c, `[${c.n}] ${citationLabel(c)}`)));
  return [
    el('div', { className: 'answer', lang: reply.language }, answerNodes(reply.answer, reply.citations, link)),
    sources.length ? el('ol', { className: 'sources' }, sources) : null,
    el('blockquote', { className: 'passage', hidden: true }),
  ];
}

// The default knowledge base's files as documents, named as the CLI names them.
function knowledgeBaseDocuments(config) {
  return Promise.all(config.knowledgeBase.files.map(async (f) => ({ source: f.split('/').pop(), text: await (await fetch(f)).text() })));
}

// docs: knowledgeBaseDocuments(config), asked for while the engine loaded.
// Not over what the visitor typed meanwhile: it is filled after the first
// results (laying out its 150 kB of text is ~100 ms of a cold load).
async function loadDefaultKnowledgeBase(config, docsPromise) {
  const docs = await docsPromise;
  if (!$('kb-text').value) $('kb-text').value = docs.map((d) => d.text).join('\n\n');
  if (!$('db-name').value) $('db-name').value = config.knowledgeBase.name;
}

// What a model switch re-embeds: the selected database; the default
// knowledge base from its files (chunked again for the new model), any
// other from its passages.
async function reembedPlan(config) {
  const name = $('db-select').value;
  if (!name || !state.meta.has(name)) return {};
  if (name !== config.knowledgeBase.name) return { [name]: null };
  return { [name]: await knowledgeBaseDocuments(config) };
}

// After a model switch: the re-embedded databases are saved, and the query runs again.
async function onSwitched(entry, names) {
  for (const name of names) {
    const unsaved = await persist(name, state.engine.exportPack(name));
    if (unsaved) showNotice(unsaved);
  }
  const e = state.engine;
  setStatus(`Ready: ${e.model.id} on ${e.backend.name} (${e.backend.reason})`);
  $('footer').textContent = `Vector search with vesper using ${e.model.id} on ${e.backend.name}: C++ compiled to WebAssembly.`;
  state.thresholdTouched = false;
  showNotice(null);
  search();
}

async function main() {
  // Listen from the start: a query typed while loading runs once ready.
  $('query').addEventListener('input', () => search());
  const config = await (await fetch('config.json')).json();
  // Asked for now, needed once the engine is ready: fetched while it loads.
  const early = {
    docs: knowledgeBaseDocuments(config),
    persona: config.persona ? fetch(config.persona).then((r) => (r.ok ? r.text() : Promise.reject(new Error(`HTTP ${r.status}`)))) : null,
  };
  early.docs.catch(() => {});
  early.persona?.catch(() => {});
  // Neither needs the engine: read while it loads.
  const cataloguePromise = readCatalogue(config);
  const storedPromise = storage.list().catch(() => []);
  const totals = new Map();
  let loading = true;
  state.engine = await createEngine({
    model: config.model,
    onNotice: showNotice,
    onProgress: ({ label, done, total }) => {
      // Later downloads are the engine's own, in the background (a query's
      // model parts, the lexicon's other directions read while idle): the
      // status keeps saying the page is ready.
      if (!loading) return;
      totals.set(label, [done, total]);
      const [d, t] = [...totals.values()].reduce(([a, b], [x, y]) => [a + x, b + y], [0, 0]);
      setStatus(`Loading models... ${label} ${(d / 1e6).toFixed(1)} MB`, t ? d / t : null);
    },
  });
  const e = state.engine;
  // Where a cold load's time goes (tools/bench/page-timing.mjs reads these marks).
  performance.mark('vesper-engine-ready');
  // A model downloaded on an earlier visit loads from the browser's cache.
  const catalogue = await cataloguePromise;
  const unrestored = await restoreChoice(e, catalogue);
  performance.mark('vesper-model-restored');
  if (unrestored) showNotice(`${unrestored}: the default model is in use.`);
  loading = false;
  setStatus(e.model ? `Ready: ${e.model.id} on ${e.backend.name} (${e.backend.reason}); loaded in ${e.loadMs.toFixed(0)} ms` : `Ready (lexical search); loaded in ${e.loadMs.toFixed(0)} ms`);
  $('footer').textContent = `Vector search with vesper${e.model ? ` using ${e.model.id} on ${e.backend.name}` : ''}: C++ compiled to WebAssembly.`;

  const stored = await storedPromise;
  performance.mark('vesper-storage-listed');
  for (const rec of stored) {
    try {
      // A database of another model than the one in use is kept, searched by its words.
      e.loadPack(rec.bytes, { anyModel: true });
      state.meta.set(rec.name, rec);
    } catch (err) {
      state.damaged.set(rec.name, err.message);
      showNotice(`Database '${rec.name}' is damaged and was not loaded (${err.message}); your other databases are unaffected. It is kept untouched in storage until you delete it.`);
    }
  }
  // The default database's record, written to storage once the first results are shown.
  const unsaved = [];
  if (!state.meta.size && config.defaultPack) {
    try {
      const bytes = new Uint8Array(await (await fetch(config.defaultPack)).arrayBuffer());
      performance.mark('vesper-pack-fetched');
      const names = e.loadPack(bytes);
      performance.mark('vesper-pack-loaded');
      // Kept for the next visit, written while the visitor reads the page: the
      // fetched bytes themselves when the pack holds one database (no export).
      // A damaged stored database of the same name is left for the user to delete, not overwritten.
      for (const n of names) if (!state.damaged.has(n)) unsaved.push(remember(n, names.length === 1 ? bytes : e.exportPack(n)));
    } catch {
      // No prebuilt pack for this model: the Store button builds one.
    }
  }
  renderDatabases();
  performance.mark('vesper-databases-ready');
  // The slider starts at the selected database's threshold (the model's calibrated one).
  if ($('db-select').value) setThreshold(e.defaultThreshold($('db-select').value));
  state.ready = true;
  // A query typed while loading runs now, alone: what it does not need (the
  // persona, the model picker, the service worker's downloads, storage)
  // waits for its results.
  await search();
  idle(async () => {
    // The editor's text is a convenience: without it the page still searches.
    await loadDefaultKnowledgeBase(config, early.docs).catch(() => {});
    for (const meta of unsaved) {
      const failed = await save(meta);
      if (failed) showNotice(failed);
    }
    // Offline after the first visit (web/sw.js): its precache (the whole
    // model files included) would otherwise compete with the page's own
    // downloads. Failing to register only costs the offline mode.
    navigator.serviceWorker?.register('sw.js').catch(() => {});
  });
  // The lexicon's other translation directions, read while the visitor reads the page, not on their first query.
  idle(() => e.warm());
  let personaFailed = false;
  if (config.persona) {
    try {
      const personaText = await early.persona;
      const persona = e.loadPersona(personaText);
      // The sections the persona calls meta text are marked in what is stored here too.
      state.metaText = metaTextOf(JSON.parse(personaText));
      $('persona-line').textContent = `${persona.name} answers in the first person, composing from the passages it cites; it says when it does not know.`;
    } catch (err) {
      personaFailed = true;
      $('persona-line').textContent = `The persona could not be loaded (${err.message}).`;
    }
  }
  // The persona's opt-in voice (config "generator"), once the persona answers.
  if (!personaFailed) {
    speakControl({ engine: e, config, hooks: { render: (li, reply, db) => li.replaceChildren(...replyNodes(db, reply)) } })
      .then((speaker) => { state.speaker = speaker; })
      .catch(() => {});
  }
  modelPicker({
    engine: e, catalogue,
    hooks: {
      reembedPlan: () => reembedPlan(config),
      metaText: () => state.metaText,
      onSwitched,
      showNotice,
    },
  });
  $('chat-form').addEventListener('submit', ask);
  // Ask starts disabled (web/index.html): pressed, or Enter in its box, before
  // this handler existed, the form submitted and the page reloaded, losing the
  // question and the load. A question typed meanwhile waits in its box.
  $('chat-send').disabled = personaFailed;
  $('chat-reset').addEventListener('click', () => {
    state.conversation = {};
    $('chat-log').replaceChildren();
  });
  $('chat-log').addEventListener('click', (ev) => {
    const a = ev.target.closest('a.cite');
    if (!a) return;
    ev.preventDefault();
    // [n] in the answer opens the passage in place; a source in the list opens it among the results.
    if (a.closest('.sources') || !togglePassage(a)) showPassage(a.dataset.db, a.dataset.id);
  });

  $('store').addEventListener('click', store);
  $('cancel-store').addEventListener('click', () => state.storing?.abort());
  $('db-select').addEventListener('change', () => search());
  $('hybrid').addEventListener('change', () => search());
  $('threshold').addEventListener('input', () => {
    state.thresholdTouched = true;
    setThreshold($('threshold').value);
    renderResults();
  });
  $('db-table').addEventListener('click', (ev) => {
    const b = ev.target.closest('button');
    if (b?.dataset.delete) removeDatabase(b.dataset.delete);
    if (b?.dataset.export) exportPack(b.dataset.export);
  });
  $('import-file').addEventListener('change', (ev) => ev.target.files[0] && importPack(ev.target.files[0]));
  const zone = document.body;
  zone.addEventListener('dragover', (ev) => {
    ev.preventDefault();
    $('import-zone').classList.add('drag');
  });
  zone.addEventListener('drop', (ev) => {
    ev.preventDefault();
    $('import-zone').classList.remove('drag');
    const f = ev.dataTransfer.files[0];
    if (f) importPack(f);
  });
  window.vesperEngine = e; // for tests and the console
  performance.mark('vesper-page-ready');
  document.body.dataset.ready = 'true';
}

main().catch((err) => {
  setStatus(`vesper could not start: ${err.message}`);
  $('status-text').classList.add('error');
});
