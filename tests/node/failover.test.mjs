// A trusted WebGPU embedder that fails at run time (a lost device) hands the
// query, and every later one, to WASM: nothing is dropped. Input errors are
// not run-time failures and pass through.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { briefly, failover } from '../../web/engine/backend.mjs';
import { EmbedError } from '../../web/engine/embedder.mjs';

function fake(name, { failAfter = Infinity } = {}) {
  let calls = 0;
  return {
    info: { id: 'm' },
    backend: name,
    tokenizer: { name },
    disposed: false,
    calls: () => calls,
    async embed(texts) {
      if (!texts.length) throw new EmbedError('empty_input', 'nothing to embed');
      calls++;
      if (calls > failAfter) throw new Error('GPUDevice was lost');
      return { vectors: Float32Array.of(name === 'webgpu' ? 1 : 2) };
    },
    async dispose() {
      this.disposed = true;
    },
  };
}

test('a run-time failure on the primary retries that query on the fallback and stays there', async () => {
  const gpu = fake('webgpu', { failAfter: 1 });
  const wasm = fake('wasm');
  const switches = [];
  const e = failover(gpu, wasm, (err) => switches.push(err.message));
  assert.equal(e.backend, 'webgpu');
  assert.deepEqual([...(await e.embed(['a'])).vectors], [1]);
  assert.deepEqual([...(await e.embed(['b'])).vectors], [2], 'the failed query is answered on WASM');
  assert.deepEqual(switches, ['GPUDevice was lost']);
  assert.equal(e.backend, 'wasm');
  assert.equal(e.tokenizer.name, 'wasm');
  assert.deepEqual([...(await e.embed(['c'])).vectors], [2]);
  assert.equal(gpu.calls(), 2, 'the lost GPU is not tried again');
  assert.equal(switches.length, 1);
  assert.ok(gpu.disposed);
});

test('input errors pass through without switching', async () => {
  const gpu = fake('webgpu');
  const wasm = fake('wasm');
  let switched = false;
  const e = failover(gpu, wasm, () => (switched = true));
  await assert.rejects(e.embed([]), (err) => err instanceof EmbedError && err.code === 'empty_input');
  assert.equal(switched, false);
  assert.equal(e.backend, 'webgpu');
  await e.dispose();
  assert.ok(gpu.disposed && wasm.disposed);
});

test('a runtime error is told in one line, without build paths, keeping its cause', () => {
  const ort = new Error("failed to call OrtRun(). ERROR_CODE: 1, ERROR_MESSAGE: /mnt/build/onnxruntime/core/providers/webgpu/buffer_manager.cc:669 void onnxruntime::webgpu::BufferManager::Download(CommandRecordingState &, WGPUBuffer, void *, size_t) const map_async_result.status == wgpu::MapAsyncStatus::Success was false. Failed to download data from buffer. wgpu::MapAsyncStatus value: 4, message: Failed to execute 'mapAsync' on 'GPUBuffer': The Device was lost before mapping was resolved.\n");
  const line = briefly(ort);
  assert.doesNotMatch(line, /\n|\/mnt\/|buffer_manager\.cc|CommandRecordingState/);
  assert.match(line, /The Device was lost before mapping was resolved\.$/);
  assert.ok(line.length <= 241);
  assert.equal(briefly(new Error('plain')), 'plain');
});
