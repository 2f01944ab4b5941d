// The persona's voice on the page, opt-in: the site's generator (config
// "generator": { folder, variant, and optionally maxTokens, temperature,
// topP, seed }) is downloaded into Cache Storage with
// progress (web/engine/download.mjs, as the model picker downloads), loaded
// (WebGPU only after its logits match WASM's), and then each answer the
// persona gives is spoken by it over the passages it cited, streamed under
// the extractive answer with a stop button (web/engine/grounded.mjs). The
// extractive answer is shown at once and stays where the generated one fails
// its checks; asking while the model downloads gets the extractive answer.
import { downloadableFiles, downloadModel, downloadSize } from '../engine/download.mjs';
import { parseManifest } from '../engine/manifest.mjs';
import { loadGenerator } from '../engine/model.mjs';
import { speakReply } from '../engine/grounded.mjs';
import { el, formatBytes } from './render.mjs';

const $ = (id) => document.getElementById(id);

// The opt-in control, or null where the site names no generator. hooks:
// { render(li, reply) } redraws an answer with the generated reply.
export async function speakControl({ engine, config, hooks }) {
  const entry = config.generator;
  if (!entry?.folder) return null;
  const folder = entry.folder.replace(/\/?$/, '/');
  let manifest;
  try {
    manifest = parseManifest(await (await fetch(`${folder}manifest.json`)).text(), `${folder}manifest.json`);
  } catch {
    return null;  // a generator the site names but does not serve: no control
  }
  const title = manifest.name ?? manifest.id;
  const variant = entry.variant ?? manifest.defaultVariant;
  // The site's own limits on a reply, where it sets them (else grounded.mjs's).
  const settings = Object.fromEntries(['maxTokens', 'temperature', 'topP', 'seed'].filter((k) => entry[k] !== undefined).map((k) => [k, entry[k]]));
  const needsDownload = downloadableFiles(manifest, variant).length > 0;
  const size = needsDownload ? downloadSize(manifest, variant) : null;
  const box = $('speak-toggle');
  $('speak-label').textContent = `Let the persona speak in its own words with ${title}` +
    (size ? ` (downloads ${size.approx ? 'about ' : ''}${formatBytes(size.bytes)}, then runs on this device)` : ' (runs on this device)');
  $('speak-row').hidden = false;
  const status = (text, fraction = null) => {
    $('speak-status').textContent = text;
    $('speak-progress').hidden = fraction === null;
    if (fraction !== null) $('speak-progress').value = fraction;
  };
  const state = { generator: null, loading: null, abort: null, speaking: '' };

  // Which model speaks, on which backend and why; said again when the voice is turned back on.
  function speaking({ backend, reason }, more = '') {
    state.speaking = `The persona speaks with ${title} (${backend}: ${reason}).${more}`;
    status(state.speaking);
    box.dataset.backend = backend;
  }

  async function load() {
    state.abort = new AbortController();
    try {
      if (needsDownload) {
        await downloadModel(manifest, variant, {
          signal: state.abort.signal,
          onProgress: (p) => status(`Downloading ${title}: ${formatBytes(p.done)}${p.total ? ` of ${formatBytes(p.total)}` : ''}`, p.total ? p.done / p.total : null),
        });
      }
      status(`Loading ${title}…`);
      const loaded = await loadGenerator({
        core: engine.core, model: folder, cached: needsDownload, variant,
        onSwitch: (chosen) => speaking(chosen),
      });
      state.generator = loaded.generator;
      speaking(loaded, ' Its words are checked against the passages it cites.');
    } catch (err) {
      box.checked = false;
      status(`${title} could not be loaded (${err.message}); answers stay the persona's own.`);
    } finally {
      state.loading = null;
    }
  }

  box.addEventListener('change', () => {
    if (box.checked && !state.generator && !state.loading) state.loading = load();
    else if (box.checked && state.generator) status(state.speaking);
    if (!box.checked) {
      state.abort?.abort();
      status(state.generator ? 'Answers are the persona\'s own (extractive) until you turn this on again.' : '');
    }
  });

  return {
    // Speaks an extractive reply shown in `li` (an answer the persona gave):
    // streamed into a box under it with a stop button, then kept or not.
    async speak(li, { db, question, reply, earlier = '' }) {
      if (!box.checked || !state.generator || reply.kind !== 'answer') return;
      const abort = new AbortController();
      const stream = el('div', { className: 'speaking', lang: reply.language, attrs: { 'aria-live': 'polite' } });
      const stop = el('button', { type: 'button', className: 'secondary speak-stop' }, 'Stop');
      stop.addEventListener('click', () => abort.abort());
      const area = el('div', { className: 'spoken' }, el('div', { className: 'meta' }, 'Speaking…'), stream, stop);
      li.append(area);
      li.dataset.speaking = 'true';
      try {
        const spoken = await speakReply({
          engine, generator: state.generator, name: db, question, reply, earlier, signal: abort.signal, options: settings,
          onText: (delta) => { stream.textContent += delta; },
        });
        area.remove();
        if (spoken.generated) hooks.render(li, spoken, db);
        else li.append(el('p', { className: 'hint speak-note' }, `The model's words were not kept (${spoken.fallback}): the answer above is the persona's own.`));
        li.dataset.generated = String(spoken.generated);
        li.dataset.stopped = spoken.stopped ?? '';
        if (spoken.seconds) li.dataset.tokensPerSecond = (spoken.tokens / spoken.seconds).toFixed(1);
      } catch (err) {
        area.remove();
        li.append(el('p', { className: 'hint speak-note' }, `The model could not speak (${err.message}): the answer above is the persona's own.`));
        li.dataset.generated = 'false';
      } finally {
        delete li.dataset.speaking;
      }
    },
  };
}
