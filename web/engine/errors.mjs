// The one error type of vesper's JS API. `code` is stable and machine-read:
// the core's (invalid_argument, invalid_utf8, corrupt_data, unsupported,
// model_mismatch, not_found, out_of_memory, internal), the pipeline's
// (empty_input, cancelled, model_unavailable) and the runtime's (inference).
export class VesperError extends Error {
  constructor(code, message, options = undefined) {
    super(message, options);
    this.name = 'VesperError';
    this.code = code;
  }

  // Any error as a VesperError: the core's (an Error with a code) keep their
  // code; anything else is 'internal', the original kept as the cause.
  static from(err) {
    if (err instanceof VesperError) return err;
    if (err?.name === 'AbortError') return new VesperError('cancelled', 'cancelled', { cause: err });
    const code = typeof err?.code === 'string' && /^[a-z_]+$/.test(err.code) ? err.code : 'internal';
    return new VesperError(code, String(err?.message ?? err), { cause: err });
  }
}

// What runtimes throw when memory runs out: a WebAssembly instance or memory
// the browser cannot reserve, a failed grow, a typed array the heap cannot
// hold, Emscripten's "Cannot enlarge memory", a C++ bad_alloc through ONNX
// Runtime. Matched on the message: none of them has a code of its own.
const OUT_OF_MEMORY = /out of memory|Memory\.grow|Maximum memory size|Array buffer allocation failed|Cannot enlarge memory|bad_alloc|Invalid (typed )?array( buffer)? length/i;

// err as a VesperError, an exhausted memory named as such ('out_of_memory',
// "not enough memory for <what>") so that a person reads the cause.
export function memoryAware(err, what) {
  const e = VesperError.from(err);
  if (e.code !== 'out_of_memory' && !OUT_OF_MEMORY.test(e.message)) return e;
  return new VesperError('out_of_memory', `not enough memory for ${what} (${e.message})`, { cause: err });
}
