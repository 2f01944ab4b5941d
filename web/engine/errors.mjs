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
