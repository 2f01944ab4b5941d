// The demo page: loads the engine, keeps databases in IndexedDB, stores the
// knowledge base with progress, searches with a live threshold, and draws
// the query's tokens and embedding next to the best match.
import { createEngine } from '../vesper-engine.mjs';
import { citationLabel, metaHeadingsOf } from '../engine/kb.mjs';
import { drawComparison } from './embedding-view.mjs';
import { friendlyStorageError, storage } from './storage.mjs';

const $ = (id) => document.getElementById(id);
// Passages shown greyed when nothing is.
const NEAR_MISSES = 5;
// The best passages a reader is shown, in ranked order, among those that
// reach the slider (the search fetches more, so the slider only re-filters).
const SHOWN_RESULTS = 5;
const state = { ready: false, metaHeadings: [], engine: null, last: null, meta: new Map(), storing: null, thresholdTouched: false, conversation: {} };

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

function escapeHtml(s) {
  return s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]);
}

// Marks the query's words in a passage, case- and accent-insensitively:
// whole words for alphabetic scripts, any occurrence for CJK.
function highlight(text, query) {
  const fold = (s) => s.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase();
  const html = escapeHtml(text);
  const folded = fold(html);
  if (folded.length !== html.length) return html; // folding changed offsets: show it plain
  const words = [...new Set(fold(query).match(/\p{Script=Han}{2,}|[\p{L}\p{N}]{3,}/gu) ?? [])];
  const isWord = (c) => c !== undefined && /[\p{L}\p{N}]/u.test(c);
  const marks = [];
  for (const w of words) {
    const cjk = /\p{Script=Han}/u.test(w);
    for (let i = folded.indexOf(w); i >= 0; i = folded.indexOf(w, i + 1)) {
      if (cjk || (!isWord(folded[i - 1]) && !isWord(folded[i + w.length]))) marks.push([i, i + w.length]);
    }
  }
  marks.sort((a, b) => a[0] - b[0]);
  let out = '';
  let at = 0;
  for (const [a, b] of marks) {
    if (a < at) continue;
    out += `${html.slice(at, a)}<mark>${html.slice(a, b)}</mark>`;
    at = b;
  }
  return out + html.slice(at);
}

function formatBytes(n) {
  return n < 1e6 ? `${(n / 1e3).toFixed(0)} kB` : `${(n / 1e6).toFixed(1)} MB`;
}

function renderDatabases() {
  const tbody = $('db-table').querySelector('tbody');
  const select = $('db-select');
  const current = select.value;
  tbody.innerHTML = '';
  select.innerHTML = '';
  for (const [name, meta] of state.meta) {
    const tr = document.createElement('tr');
    tr.innerHTML = `<td>${escapeHtml(name)}</td><td>${meta.chunks}</td><td>${formatBytes(meta.bytes.length)}</td><td>${escapeHtml(meta.model ?? 'lexical only')}</td><td>${new Date(meta.created).toLocaleString()}</td>
      <td><button type="button" class="secondary" data-export="${escapeHtml(name)}">Export</button> <button type="button" class="secondary" data-delete="${escapeHtml(name)}">Delete</button></td>`;
    tbody.append(tr);
    select.append(new Option(name, name));
  }
  if (state.meta.has(current)) select.value = current;
}

// Saves a database to IndexedDB; resolves to null, or to the reason it
// could not be saved (it then stays usable in this tab).
async function persist(name, bytes) {
  const db = state.engine.require(name);
  const meta = { name, bytes, model: db.model?.id ?? null, chunks: db.size, created: Date.now() };
  state.meta.set(name, meta);
  renderDatabases();
  try {
    await storage.put(meta);
    return null;
  } catch (err) {
    return friendlyStorageError(err);
  }
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
      metaHeadings: state.metaHeadings,
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
    const names = state.engine.loadPack(new Uint8Array(await file.arrayBuffer()));
    const unsaved = [];
    for (const n of names) unsaved.push(await persist(n, state.engine.exportPack(n)));
    const problem = unsaved.find(Boolean);
    if (problem) report(problem, true);
    else report(`Imported ${names.join(', ')} from ${file.name}.`);
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
  await storage.remove(name).catch(() => {});
  renderDatabases();
  search();
}

function setThreshold(value) {
  $('threshold').value = String(value);
  // step="any": a calibrated threshold (three decimals, e.g. 0.309) is kept exactly, not snapped to a step.
  $('threshold-value').textContent = String(Number(Number(value).toFixed(3)));
}

function resultItem(x, r, nearMiss) {
  const li = document.createElement('li');
  li.id = `chunk-${x.id}`;
  if (nearMiss) li.className = 'near-miss';
  const trail = x.title.length ? x.title.join(' › ') : x.source;
  li.innerHTML = `<div class="meta"><strong>${x.score.toFixed(3)}</strong> · ${escapeHtml(trail)} · ${escapeHtml(x.signals.join(' + '))}</div><div>${highlight(x.text.slice(0, 600), r.queryText)}</div>`;
  return li;
}

// The passages shown are those the core marked (the query is answerable and
// they reach the slider); when none is, the user still sees why and what was
// nearest, greyed, with scores.
function renderResults() {
  const list = $('results');
  list.innerHTML = '';
  const r = state.last;
  if (!r) return;
  const threshold = Number($('threshold').value);
  // The core decided whether the query is answerable; the slider then picks what to show.
  const shown = (r.answerable ? r.ranked.filter((x) => x.score >= threshold) : []).slice(0, SHOWN_RESULTS);
  for (const x of shown) list.append(resultItem(x, r, false));
  if (!shown.length) {
    const hint = document.createElement('li');
    hint.className = 'hint';
    hint.textContent = r.answerable
      ? `No passage scores above ${threshold.toFixed(2)}. The nearest passages:`
      : `Nothing in this database seems to answer that (confidence ${r.confidence.toFixed(2)}). The nearest passages:`;
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

let pending = 0;
async function search() {
  const text = $('query').value;
  if (!text.trim()) return;
  const db = state.ready ? $('db-select').value : '';
  if (!db) {
    // Typed while the engine or the database is still loading: main() runs it when ready.
    $('results').innerHTML = '<li class="hint">Your query will run as soon as the database is ready...</li>';
    return;
  }
  const ticket = ++pending;
  try {
    // The core decides with the database's own bar; 20 ranked passages come
    // back, so moving the slider only re-filters them.
    const r = await state.engine.search(db, text, { k: 20, mode: $('hybrid').checked ? 'hybrid' : 'vector' });
    if (ticket !== pending) return;
    state.last = { ...r, db, queryText: text };
    if (!state.thresholdTouched) setThreshold(state.engine.defaultThreshold(db));
    const t = r.timings;
    $('timings').textContent = `tokenize ${t.tokenizeMs.toFixed(1)} ms · embed ${t.embedMs.toFixed(1)} ms · search ${t.searchMs.toFixed(1)} ms`;
    $('pieces').innerHTML = r.query.pieces.map((p) => `<span>${escapeHtml(p)}</span>`).join('');
    $('token-ids').textContent = `[${Array.from(r.query.ids).join(', ')}]`;
    renderResults();
  } catch (err) {
    $('results').innerHTML = `<li class="error">${escapeHtml(err.message)}</li>`;
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
  box.innerHTML = `<div class="meta">${escapeHtml(citationLabel(chunk))}</div><div>${escapeHtml(chunk.text.slice(0, 1200))}</div>`;
  box.hidden = false;
  return true;
}

// Shows a cited passage in the search view, so a citation has somewhere to point.
function showPassage(db, id) {
  const chunk = state.engine.require(db).chunks().find((c) => c.id === id);
  if (!chunk) return;
  let li = document.getElementById(`chunk-${id}`);
  if (!li) {
    li = document.createElement('li');
    li.id = `chunk-${id}`;
    li.className = 'cited';
    const trail = chunk.title.length ? chunk.title.join(' › ') : chunk.source;
    li.innerHTML = `<div class="meta">cited by the persona · ${escapeHtml(trail)}</div><div>${escapeHtml(chunk.text.slice(0, 900))}</div>`;
    $('results').prepend(li);
  }
  li.classList.add('flash');
  li.tabIndex = -1;
  li.scrollIntoView({ block: 'center' });
  li.focus();
  setTimeout(() => li.classList.remove('flash'), 1500);
}

function addChat(role, html, extra = '') {
  const li = document.createElement('li');
  li.className = `chat ${role} ${extra}`.trim();
  li.innerHTML = html;
  $('chat-log').append(li);
  li.scrollIntoView({ block: 'nearest' });
  return li;
}

async function ask(ev) {
  ev.preventDefault();
  const question = $('chat-input').value;
  const db = $('db-select').value;
  if (!question.trim() || !db) return;
  addChat('user', escapeHtml(question));
  $('chat-input').value = '';
  try {
    const reply = await state.engine.ask(db, question, { conversation: state.conversation });
    state.conversation = reply.state;
    // [n] markers become links to the cited passages: hovering names the
    // passage, clicking shows it under the answer.
    const byN = new Map(reply.citations.map((c) => [c.n, c]));
    const link = (c, text) => `<a href="#chunk-${c.id}" class="cite" data-db="${escapeHtml(db)}" data-id="${c.id}" title="${escapeHtml(citationLabel(c))}">${text}</a>`;
    const body = escapeHtml(reply.answer).replace(/\[(\d+)\]/g, (m, n) => (byN.has(Number(n)) ? link(byN.get(Number(n)), m) : m))
      .replace(/\n\n/g, '<br><br>');
    const sources = reply.citations.map((c) => `<li>${link(c, `[${c.n}] ${escapeHtml(citationLabel(c))}`)}</li>`).join('');
    const li = addChat('persona', `<div class="answer" lang="${reply.language}">${body}</div>${sources ? `<ol class="sources">${sources}</ol>` : ''}<blockquote class="passage" hidden></blockquote>`, reply.kind);
    li.dataset.kind = reply.kind;
    li.dataset.language = reply.language;
    li.dataset.inRole = String(reply.inRole);
  } catch (err) {
    addChat('persona', escapeHtml(err.message), 'error');
  }
}

async function loadDefaultKnowledgeBase(config) {
  const texts = await Promise.all(config.knowledgeBase.files.map(async (f) => (await fetch(f)).text()));
  $('kb-text').value = texts.join('\n\n');
  $('db-name').value = config.knowledgeBase.name;
}

async function main() {
  // Offline after the first visit (web/sw.js). Failing to register only
  // costs the offline mode.
  navigator.serviceWorker?.register('sw.js').catch(() => {});
  // Listen from the start: a query typed while loading runs once ready.
  $('query').addEventListener('input', () => search());
  const config = await (await fetch('config.json')).json();
  const totals = new Map();
  state.engine = await createEngine({
    model: config.model,
    onProgress: ({ label, done, total }) => {
      totals.set(label, [done, total]);
      const [d, t] = [...totals.values()].reduce(([a, b], [x, y]) => [a + x, b + y], [0, 0]);
      setStatus(`Loading models... ${label} ${(d / 1e6).toFixed(1)} MB`, t ? d / t : null);
    },
  });
  showNotice(state.engine.notice);
  const e = state.engine;
  setStatus(e.model ? `Ready: ${e.model.id} on ${e.backend.name} (${e.backend.reason}); loaded in ${e.loadMs.toFixed(0)} ms` : `Ready (lexical search); loaded in ${e.loadMs.toFixed(0)} ms`);
  $('footer').textContent = `Vector search with vesper${e.model ? ` using ${e.model.id} on ${e.backend.name}` : ''}: C++ compiled to WebAssembly.`;
  await loadDefaultKnowledgeBase(config);

  for (const rec of await storage.list().catch(() => [])) {
    try {
      e.loadPack(rec.bytes);
      state.meta.set(rec.name, rec);
    } catch (err) {
      showNotice(`Database '${rec.name}' could not be loaded (${err.message}); it is kept in storage untouched.`);
    }
  }
  if (!state.meta.size && config.defaultPack) {
    try {
      const bytes = new Uint8Array(await (await fetch(config.defaultPack)).arrayBuffer());
      for (const n of e.loadPack(bytes)) await persist(n, e.exportPack(n));
    } catch {
      // No prebuilt pack for this model: the Store button builds one.
    }
  }
  renderDatabases();
  // The slider starts at the selected database's threshold (the model's calibrated one).
  if ($('db-select').value) setThreshold(e.defaultThreshold($('db-select').value));
  state.ready = true;
  search();
  if (config.persona) {
    try {
      const personaText = await (await fetch(config.persona)).text();
      const persona = e.loadPersona(personaText);
      // The sections the persona calls meta text are marked in what is stored here too.
      state.metaHeadings = metaHeadingsOf(JSON.parse(personaText));
      $('persona-line').textContent = `${persona.name} answers in the first person, composing from the passages it cites; it says when it does not know.`;
    } catch (err) {
      $('chat-send').disabled = true;
      $('persona-line').textContent = `The persona could not be loaded (${err.message}).`;
    }
  }
  $('chat-form').addEventListener('submit', ask);
  $('chat-reset').addEventListener('click', () => {
    state.conversation = {};
    $('chat-log').innerHTML = '';
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
  document.body.dataset.ready = 'true';
}

main().catch((err) => {
  setStatus(`vesper could not start: ${err.message}`);
  $('status-text').classList.add('error');
});
