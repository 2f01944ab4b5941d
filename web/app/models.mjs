// The page's model picker: the models the site's config lists, each with its
// download size, languages, licence and what it improves; choosing one
// downloads its files into Cache Storage (progress, cancel, resume), then
// the engine loads it (the WebGPU-vs-WASM probe says which runs it) and
// re-embeds the selected database with it, all or nothing. The choice is
// remembered, and a downloaded model loads from the cache on the next visit,
// offline too. Any failure leaves the current model and databases in use.
import { cachedState, downloadableFiles, downloadModel, downloadSize, removeModel } from '../engine/download.mjs';
import { parseManifest } from '../engine/manifest.mjs';
import { el, formatBytes } from './render.mjs';

const $ = (id) => document.getElementById(id);
const CHOICE_KEY = 'vesper.model';

const keyOf = (entry) => `${entry.folder}|${entry.variant ?? ''}`;

// The config's models, each with its manifest: [{ folder, variant, manifest }].
export async function readCatalogue(config) {
  const entries = config.models ?? (config.model ? [{ folder: config.model }] : []);
  // All at once (a cold page waited for them one after another).
  const read = await Promise.all(entries.map(async (e) => {
    const folder = e.folder.replace(/\/?$/, '/');
    try {
      const manifest = parseManifest(await (await fetch(`${folder}manifest.json`)).text(), `${folder}manifest.json`);
      return { folder, variant: e.variant ?? manifest.defaultVariant ?? null, manifest, isDefault: folder === config.model?.replace(/\/?$/, '/') };
    } catch {
      return null;  // a model the site lists but does not serve is left out of the picker
    }
  }));
  return read.filter(Boolean);
}

// The remembered choice, if it is still in the catalogue.
export function rememberedChoice(catalogue) {
  try {
    const saved = JSON.parse(localStorage.getItem(CHOICE_KEY) ?? 'null');
    return catalogue.find((e) => saved && keyOf(e) === keyOf(saved) && !e.isDefault) ?? null;
  } catch {
    return null;
  }
}

function remember(entry) {
  try {
    if (entry.isDefault) localStorage.removeItem(CHOICE_KEY);
    else localStorage.setItem(CHOICE_KEY, JSON.stringify({ folder: entry.folder, variant: entry.variant }));
  } catch {
    // Storage refused (private mode): the choice lasts this visit only.
  }
}

const needsDownload = (entry) => downloadableFiles(entry.manifest, entry.variant).length > 0;

// Loads a remembered, downloaded model at start-up (no network); resolves to
// null, or to why it could not be (the default stays in use).
export async function restoreChoice(engine, catalogue) {
  const entry = rememberedChoice(catalogue);
  if (!entry) return null;
  try {
    if (needsDownload(entry) && !(await cachedState(entry.manifest, entry.variant)).complete) {
      return `${entry.manifest.name} is no longer downloaded`;
    }
    await engine.switchModel(entry.folder, { variant: entry.variant, cached: needsDownload(entry) });
    return null;
  } catch (err) {
    return `${entry.manifest.name} could not be loaded (${err.message})`;
  }
}

// The picker. hooks: { reembedPlan() -> { name: docs | null } for the
// selected database, metaText(), onSwitched(entry, reembedded names),
// showNotice(text) }.
export function modelPicker({ engine, catalogue, hooks }) {
  const state = { busy: null, sizes: new Map() };
  // The engine names a model by its id, plus ":variant@dims" for another than its default.
  const inUse = (entry) => {
    const m = entry.manifest;
    return engine.model?.id === (!entry.variant || entry.variant === m.defaultVariant ? m.id : `${m.id}:${entry.variant}@${m.dims}`);
  };

  function status(text, isError = false) {
    $('model-status').textContent = text;
    $('model-status').classList.toggle('error', isError);
  }

  function progress(fraction, text) {
    $('model-progress-row').hidden = fraction === undefined;
    if (fraction === undefined) return;
    const bar = $('model-progress');
    if (fraction === null) bar.removeAttribute('value');
    else bar.value = fraction;
    $('model-progress-text').textContent = text;
  }

  function line() {
    const m = engine.manifest;
    $('model-name').textContent = m ? `${m.name ?? m.id}${engine.model.id !== m.id ? ` (${engine.model.id.split(':')[1]})` : ''}` : 'none (lexical search)';
    $('model-backend').textContent = engine.backend ? `on ${engine.backend.name}: ${engine.backend.reason}` : '';
  }

  function sizeText(entry) {
    if (!needsDownload(entry)) return 'no download: in the page, works offline, in every browser';
    const cached = state.sizes.get(keyOf(entry));
    if (cached?.complete) return `downloaded (${formatBytes(cached.cachedBytes)})`;
    const size = downloadSize(entry.manifest, entry.variant);
    const have = (cached?.cachedBytes ?? 0) + (cached?.partialBytes ?? 0);
    const here = have ? ` (${formatBytes(have)} already here)` : '';
    return `${size ? `${size.approx ? 'about ' : ''}${formatBytes(size.bytes)}` : 'size not stated,'} download${here}`;
  }

  function card(entry) {
    const m = entry.manifest;
    const current = inUse(entry);
    const cached = state.sizes.get(keyOf(entry));
    const action = current ? el('span', { className: 'in-use' }, 'in use')
      : el('button', { type: 'button', dataset: { use: keyOf(entry) }, disabled: Boolean(state.busy) },
        needsDownload(entry) && !cached?.complete ? 'Download and use' : 'Use');
    return el('li', { className: current ? 'model-card current' : 'model-card', dataset: { model: keyOf(entry) } },
      el('div', {}, el('strong', {}, m.name ?? m.id), entry.variant && needsDownload(entry) ? ` · ${entry.variant}` : '', ' · ', sizeText(entry)),
      el('div', { className: 'meta' }, `${m.card?.languages ?? 'languages not stated'} · ${m.dims} dims · licence: ${m.license ?? 'not stated'}`),
      el('div', {}, m.card?.improves ?? m.description ?? ''),
      el('div', {}, action));
  }

  async function downloaded() {
    const rows = [];
    for (const entry of catalogue.filter(needsDownload)) {
      const s = await cachedState(entry.manifest, entry.variant).catch(() => null);
      state.sizes.set(keyOf(entry), s);
    }
    const byModel = new Map();
    for (const entry of catalogue.filter(needsDownload)) {
      const s = state.sizes.get(keyOf(entry));
      if (!s?.cachedBytes && !s?.partialBytes) continue;
      const seen = byModel.get(entry.manifest.id) ?? { entry, bytes: 0, variants: [] };
      seen.bytes = Math.max(seen.bytes, s.cachedBytes + s.partialBytes);
      if (s.complete) seen.variants.push(entry.variant);
      byModel.set(entry.manifest.id, seen);
    }
    for (const [id, { entry, bytes, variants }] of byModel) {
      rows.push(el('tr', {}, el('td', {}, entry.manifest.name ?? id), el('td', {}, variants.join(', ') || 'partly downloaded'),
        el('td', {}, formatBytes(bytes)), el('td', {}, el('button', { type: 'button', className: 'secondary', dataset: { remove: id } }, 'Remove'))));
    }
    $('downloaded-models').replaceChildren(...rows);
    $('downloaded-none').hidden = rows.length > 0;
  }

  async function render() {
    await downloaded();
    $('model-cards').replaceChildren(...catalogue.map(card));
    line();
  }

  async function use(entry) {
    if (state.busy) return;
    const controller = new AbortController();
    state.busy = controller;
    $('model-cancel').hidden = false;
    await render();
    const name = entry.manifest.name ?? entry.manifest.id;
    hooks.showNotice(null);
    let tUse = null;
    try {
      if (needsDownload(entry)) {
        status(`Downloading ${name}...`);
        await downloadModel(entry.manifest, entry.variant, {
          signal: controller.signal,
          onProgress: ({ done, total, file }) => progress(total ? done / total : null, `${file.split('/').pop()}: ${formatBytes(done)}${total ? ` of ${formatBytes(total)}` : ''}`),
        });
      }
      tUse = performance.now();
      status(`Loading ${name} and checking WebGPU against WASM...`);
      progress(null, 'loading the model');
      const plan = await hooks.reembedPlan();
      const names = Object.keys(plan);
      await engine.switchModel(entry.folder, {
        variant: entry.variant, cached: needsDownload(entry), reembed: plan, metaText: hooks.metaText(), signal: controller.signal,
        onProgress: (p) => {
          if (p.stage === 'embed') progress(p.done / p.total, `re-embedding '${p.label}': ${p.done} / ${p.total} passages`);
        },
      });
      remember(entry);
      const ms = performance.now() - tUse;
      progress(undefined);
      await hooks.onSwitched(entry, names);
      status(`Now using ${name} on ${engine.backend.name} (${engine.backend.reason}).${names.length ? ` '${names.join("', '")}' re-embedded.` : ''} Ready in ${(ms / 1000).toFixed(1)} s after the download.`);
      $('model-status').dataset.useMs = String(Math.round(ms));
    } catch (err) {
      const still = engine.manifest?.name ?? engine.manifest?.id ?? 'lexical search';
      if (err.code === 'cancelled') status(`Cancelled: still using ${still}; nothing changed.${tUse === null ? ' What was downloaded is kept, and the next try resumes.' : ''}`);
      else {
        status(`Could not switch to ${name}: ${err.message}. Still using ${still}.`, true);
        hooks.showNotice(`${name} is not in use: ${err.message}. ${still} stays in use.`);
      }
    } finally {
      state.busy = null;
      $('model-cancel').hidden = true;
      progress(undefined);
      await render();
    }
  }

  async function remove(id) {
    const entry = catalogue.find((e) => e.manifest.id === id);
    if (engine.manifest?.id === id) {
      status(`${entry.manifest.name} is in use: switch to another model before removing it.`, true);
      return;
    }
    const freed = await removeModel(entry.manifest);
    status(`Removed ${entry.manifest.name} (${formatBytes(freed)} freed).`);
    await render();
  }

  $('model-cards').addEventListener('click', (ev) => {
    const b = ev.target.closest('button[data-use]');
    if (b) use(catalogue.find((e) => keyOf(e) === b.dataset.use));
  });
  $('downloaded-models').addEventListener('click', (ev) => {
    const b = ev.target.closest('button[data-remove]');
    if (b) remove(b.dataset.remove);
  });
  $('model-cancel').addEventListener('click', () => state.busy?.abort());
  $('model-change').addEventListener('click', () => {
    const open = $('model-picker').hidden;
    $('model-picker').hidden = !open;
    $('model-change').setAttribute('aria-expanded', String(open));
    if (open) render();
  });
  line();
  return { render, line, use: (key) => use(catalogue.find((e) => keyOf(e) === key)) };
}
