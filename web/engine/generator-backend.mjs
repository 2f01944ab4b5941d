// Where a generator runs in the browser (web/engine/generator.mjs): WebGPU
// when the browser has it and the manifest allows it, but only once its
// next-token logits agree with WASM's, and on WASM from the moment the GPU
// fails (a lost device) with the reply generated again there. Node runs
// ONNX Runtime's native CPU provider. web/engine/backend.mjs does the same
// for embedding models.
import { briefly, hasWebGPU } from './backend.mjs';
import { createGenerator } from './generator.mjs';

// Resolves to { generator, backend, reason, gate }. WebGPU runs a generator
// only once its logits for a probe prompt agree with
// WASM's (the same next token, and every logit within GATE_RELATIVE_DIFF
// of the largest one's size): fp16 exports have produced garbage there.
const GATE_PROMPT = [{ role: 'user', text: 'vesper probe: what is gradient descent? 梯度下降。 Descida do gradiente.' }];
const GATE_RELATIVE_DIFF = 1e-2;

export async function chooseGeneratorBackend({ core, ort, manifest, readFile, variant, cpu, resolvePath, preferWebGPU, onSwitch }) {
  const make = (ep) => createGenerator({ core, ort, manifest, readFile, executionProviders: [ep], variant, resolvePath: ep === 'cpu' ? resolvePath : null });
  const fallback = await make(cpu);
  const v = manifest.variants[variant ?? manifest.defaultVariant];
  let reason = cpu === 'cpu' ? "run by ONNX Runtime's native CPU provider" : 'WebGPU not requested';
  if (preferWebGPU && !(await hasWebGPU())) reason = 'this browser has no WebGPU adapter';
  else if (preferWebGPU && v?.providers?.webgpu?.ok === false) reason = `WebGPU disabled for this variant: ${v.providers.webgpu.why}`;
  else if (preferWebGPU) {
    let gpu = null;
    try {
      gpu = await make('webgpu');
      const prompt = fallback.chatPrompt(GATE_PROMPT);
      const [a, b] = await Promise.all([gpu.nextLogits(prompt), fallback.nextLogits(prompt)]);
      const gate = compareLogits(a, b);
      if (gate.ok) {
        // The WASM twin is let go (a generator is hundreds of MB) and made
        // again only if the GPU fails later.
        await fallback.dispose();
        const chosen = { backend: 'webgpu', reason: `WebGPU logits match WASM (largest difference ${gate.diff.toPrecision(3)} of scale ${gate.scale.toPrecision(3)})`, gate };
        chosen.generator = generatorFailover(gpu, () => make(cpu), (err) => {
          Object.assign(chosen, { backend: cpu, reason: `WebGPU failed while generating (${briefly(err)}): switched to WASM` });
          onSwitch?.(chosen);
        });
        return chosen;
      }
      reason = `WebGPU logits disagree with WASM (${gate.why}): using WASM`;
      await gpu.dispose();
    } catch (err) {
      reason = `WebGPU failed (${err.message}): using WASM`;
      await gpu?.dispose();
    }
  }
  return { generator: fallback, backend: cpu, reason, gate: null };
}

// A generator on `primary` (WebGPU) until a call fails at run time (a lost
// device), then on a generator `makeFallback()` resolves to, for that call
// and every later one: the reply is given, never dropped. A generation that
// failed part-way is run again from its prompt; what it had already streamed
// is not streamed twice (the gate made both give the same tokens). Errors
// about the input ('invalid_argument') are the caller's and pass through.
export function generatorFailover(primary, makeFallback, onSwitch) {
  let current = primary, switching = null;
  const switchOver = async (err) => {
    switching ??= makeFallback().then((g) => {
      current = g;
      onSwitch(err);
      primary.dispose().catch(() => {});
      return g;
    });
    return switching;
  };
  const guarded = (call) => async (...args) => {
    if (current !== primary) return call(current, ...args);
    try {
      return await call(primary, ...args);
    } catch (err) {
      if (err?.code === 'invalid_argument') throw err;
      return call(await switchOver(err), ...args);
    }
  };
  return {
    get info() { return current.info; },
    get backend() { return current.backend; },
    get tokenizer() { return current.tokenizer; },
    chatPrompt: (turns) => current.chatPrompt(turns),
    decode: (ids) => current.decode(ids),
    nextLogits: guarded((g, ids) => g.nextLogits(ids)),
    generate: (ids, options = {}) => {
      let streamed = '';  // what the caller has heard, over every attempt
      return guarded((g, i, o) => {
        let attempt = '';
        const onText = o.onText && ((delta) => {
          attempt += delta;
          if (attempt.length <= streamed.length) return;
          o.onText(attempt.slice(streamed.length));
          streamed = attempt;
        });
        return g.generate(i, { ...o, onText });
      })(ids, options);
    },
    dispose: async () => { await current.dispose(); },
  };
}

// The correctness gate's comparison of two providers' next-token logits.
export function compareLogits(a, b) {
  if (a.length !== b.length) return { ok: false, why: `${a.length} logits against ${b.length}`, diff: Infinity, scale: 0 };
  let diff = 0, scale = 0, bestA = 0, bestB = 0;
  for (let i = 0; i < a.length; i++) {
    if (!Number.isFinite(a[i])) return { ok: false, why: 'a logit is not finite', diff: Infinity, scale: 0 };
    diff = Math.max(diff, Math.abs(a[i] - b[i]));
    scale = Math.max(scale, Math.abs(b[i]));
    if (a[i] > a[bestA]) bestA = i;
    if (b[i] > b[bestB]) bestB = i;
  }
  if (bestA !== bestB) return { ok: false, why: `next token ${bestA} against ${bestB}`, diff, scale };
  const ok = diff <= GATE_RELATIVE_DIFF * Math.max(scale, 1);
  return { ok, why: ok ? null : `largest difference ${diff.toPrecision(3)}`, diff, scale };
}
