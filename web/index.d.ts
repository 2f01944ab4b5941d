// Types of vesper's API (web/index.mjs). Checked by `tsc --noEmit` on
// tests/types/example.ts in the test command.

export type ErrorCode =
  | 'invalid_argument' | 'invalid_utf8' | 'corrupt_data' | 'unsupported' | 'model_mismatch'
  | 'not_found' | 'out_of_memory' | 'internal'
  | 'empty_input' | 'cancelled' | 'model_unavailable' | 'inference';

/** The one error type: every rejection and throw of this API is one. */
export class VesperError extends Error {
  constructor(code: ErrorCode, message: string, options?: { cause?: unknown });
  readonly name: 'VesperError';
  readonly code: ErrorCode;
  static from(err: unknown): VesperError;
}

/** Bytes, a URL, or (Node) a file path. */
export type Source = Uint8Array | ArrayBuffer | URL | string;

export interface Progress {
  stage: 'download' | 'embed';
  label?: string;
  database?: string;
  done: number;
  total: number;
}

export interface Fallback {
  /** What happened and what search does now ("... search is lexical only."). */
  reason: string;
}

export interface CreateOptions {
  /** A .pack to open; its databases become searchable. */
  pack?: Source | null;
  /** The folder `vesper split` wrote (a URL, or a path in Node): a large site's index, fetched in parts as queries need them. */
  split?: string | URL | null;
  /** A model folder; null for lexical search; omitted: the model the pack was built with. */
  model?: string | URL | null;
  /** A persona file (Source, JSON text or the parsed object) for ask(). */
  persona?: Source | object | null;
  /** The database search() and ask() use by default (else the pack's first). */
  database?: string | null;
  onProgress?: ((p: Progress) => void) | null;
  onFallback?: ((f: Fallback) => void) | null;
  preferWebGPU?: boolean;
}

export interface ModelInfo {
  id: string;
  dims: number;
  queryTemplate: string;
  documentTemplate: string;
  tokenizerFingerprint: string;
}

export interface Passage {
  id: string;
  score: number;
  title: string[];
  text: string;
  source: string;
  language: string;
  signals: string[];
  vectorScore?: number;
  /** Its page's metadata and filters (a site's data-vesper-meta / data-vesper-filter), when it has any. */
  fields?: { key: string; value: string; filter: boolean }[];
}

export interface SearchOptions {
  k?: number;
  /** The bar a passage's score must reach to be shown (default: the model's calibrated floor). */
  threshold?: number | null;
  database?: string | null;
  mode?: 'hybrid' | 'vector' | 'lexical';
  /** Only passages of pages marked with one of these values for every key (data-vesper-filter). */
  filters?: Record<string, string | string[]> | null;
  /** Also return the query's pieces, padded ids, vector, every ranked passage and timings. */
  diagnostics?: boolean;
}

export interface SearchResult {
  /** The passages shown: the query is answerable and they reach the threshold. */
  results: Passage[];
  /** When nothing is shown, the nearest passages, for a reader to see what is there. */
  nearMisses: Passage[];
  answerable: boolean;
  /** Not answerable, but not clearly so: say so beside the near misses, which may hold the answer. */
  unsure: boolean;
  confidence: number;
  threshold: number;
  query?: { pieces: string[]; ids: Int32Array; length: number; vector: Float32Array | null };
  ranked?: Passage[];
  evidence?: Record<string, unknown>;
  timings?: { tokenizeMs: number; embedMs: number; searchMs: number };
}

export interface Citation {
  n: number;
  id: string;
  title: string[];
  source: string;
  language: string;
  score: number;
}

/** Plain data: keep it and pass it back to continue the conversation. */
export type Conversation = Record<string, unknown>;

export interface AskOptions {
  conversation?: Conversation;
  database?: string | null;
  threshold?: number | null;
}

export interface Reply {
  answer: string;
  kind: 'answer' | 'dont_know' | 'declined' | 'exited' | 'reentered' | 'small_talk';
  language: string;
  citations: Citation[];
  declined: boolean;
  inRole: boolean;
  /** Answered from the closest passages of a search unsure the knowledge base answers (the answer says so). */
  unsure: boolean;
  conversation: Conversation;
}

export type Document = string | { source: string; text: string };

export interface AddOptions {
  onProgress?: ((p: { done: number; total: number }) => void) | null;
  signal?: AbortSignal | null;
}

export interface UseModelOptions {
  /** The manifest's variant ("q8", "q4"...); its default when omitted. */
  variant?: string | null;
  /** Browsers: download the model's files into Cache Storage first (resumable; checked). */
  download?: boolean;
  onProgress?: ((p: Progress) => void) | null;
  signal?: AbortSignal | null;
}

export class Vesper extends EventTarget {
  readonly model: ModelInfo | null;
  /** Switches to another model and re-embeds every database with it, all or nothing. */
  useModel(model: string | URL, options?: UseModelOptions): Promise<ModelInfo>;
  readonly backend: { name: string; reason: string } | null;
  readonly databases: string[];
  search(text: string, options?: SearchOptions): Promise<SearchResult>;
  ask(text: string, options?: AskOptions): Promise<Reply>;
  add(name: string, docs: Document[], options?: AddOptions): Promise<{ database: string; passages: number }>;
  /** The database as .pack bytes. */
  save(database?: string | null): Uint8Array;
  dispose(): Promise<void>;
  addEventListener(type: 'progress', listener: (ev: Event & { detail: Progress }) => void): void;
  addEventListener(type: 'fallback', listener: (ev: Event & { detail: Fallback }) => void): void;
  addEventListener(type: string, listener: EventListenerOrEventListenerObject | null): void;
}

export function create(options?: CreateOptions): Promise<Vesper>;
