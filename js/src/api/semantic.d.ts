// Types of the public API, semantic.js (and the SemanticSearch class of client.js), as
// the code behaves: written by hand from it, and to be changed with it.

/** A download report of the transformer encoder (the static encoder downloads no model). */
export interface Progress {
  /** "download" while the model and runtime arrive, then "start" once. */
  phase: "download" | "start";
  loaded: number;
  total: number;
}

export interface ClientOptions {
  /** URL of the bundle's manifest.json; default: the page's <meta name="semantic-search">. */
  manifest?: string;
  /** URL that the bundle's page URLs are relative to; default: the folder above the bundle's. */
  siteRoot?: string;
  /**
   * The page's hints, which name the files a first query reads first so that they come
   * beside the catalog (default: the page's meta tag): the hash of the keyed word piece
   * files, the keyword shards' `<count>:<hashes>`, the page table's hash, the word rows'
   * `<count>:<hashes>`, the vector index's hash. A wrong one costs only its requests.
   */
  pieces?: string | null;
  keywords?: string | null;
  pages?: string | null;
  words?: string | null;
  index?: string | null;
  onProgress?: (progress: Progress) => void;
  /**
   * A site built with `query_encoder: progressive`: false never fetches the model in idle
   * time (default: fetched after the first answer, unless the connection saves data or is
   * 3G-class or slower); `onEncoder(kind)` is called when the model takes over.
   */
  idleEncoder?: boolean;
  onEncoder?: (kind: "static" | "transformer") => void;
}

export type SearchMode = "hybrid" | "vector" | "lexical";

export interface SearchOptions {
  /** Results wanted, 1 to 1000; default: the site's `top_k`. */
  topK?: number;
  /** `{key: value or values}` on `section`, `tags` and the site's facets: a page passes
   * with one of the values for every key. */
  filters?: Record<string, string | string[]>;
  /** Default: the site's `search.mode` (itself "hybrid" unless configured). "lexical" needs no vectors. */
  mode?: SearchMode;
  /** Pages below this relevance (0-1) are dropped; default: the site's `min_score`. */
  minScore?: number;
  /** The keyword results, while the query encoder is still loading; the promise then
   * resolves to the final ranking. */
  onPartial?: (results: SearchResult[], info: { ranking: "keyword" }) => void;
  /** Aborting it rejects the search with its reason and drops its answers. */
  signal?: AbortSignal;
}

export interface AnswerOptions extends Omit<SearchOptions, "onPartial"> {
  /** The reader is still typing the last word: an unknown last word is completed. */
  typing?: boolean;
  /** Search the words exactly as typed: no correction, no completion. */
  asTyped?: boolean;
  onPartial?: (answer: Answer, info: { ranking: "keyword" }) => void;
}

/** One word searched otherwise than typed. */
export interface Change {
  typed: string;
  used: string;
  kind: "corrected" | "completed";
}

/** The query as typed and as searched. */
export interface Reading {
  typed: string;
  text: string;
  changes: Change[];
}

export interface Answer {
  reading: Reading;
  results: SearchResult[];
  /** The query encoder that ranked these results (absent on keyword-only partial answers). */
  encoder?: "static" | "transformer";
}

/** One section (or a page's lead) of the site. */
export interface Hit {
  /** The chunk's number in the bundle. */
  id: number;
  /** The section's link: `page` and `#anchor`. */
  url: string;
  /** The page's absolute URL. */
  page: string;
  /** "" for the page's lead. */
  anchor: string;
  /** The page title. */
  title: string;
  /** The headings above the section, under the page title; [] for the page's lead. */
  path: string[];
  /** The page's navigation section, "" if none. */
  section: string;
  /** What a result shows of the section, as one line of text. */
  excerpt: string;
  /** The same excerpt as prose and code parts (code keeps its line breaks). */
  excerptParts: { text: string; code: boolean }[];
  kind: "page" | "section";
  score: number;
}

export interface SearchResult extends Hit {
  /** The page's relevance, 0-1; every section of a page has its page's score. */
  score: number;
  /** The section's relevance, 0-1, which orders the sections of a page. */
  sectionScore: number;
  /** The section's vector score (about a cosine), null where it was not scored. */
  vectorScore: number | null;
  /** The section's keyword score, null in mode "vector". */
  lexicalScore: number | null;
}

/** The query as the site's vectors are scored with: int8 codes for int8 vectors, else a
 * vector; null when the static encoder knows none of its tokens. */
export type QueryVector = Int8Array | Float32Array | Float64Array | null;

/** What `preload` resolves to. */
export interface Counts {
  pages: number;
  chunks: number;
}

export class SemanticSearch {
  /** `manifest` is required here: only `init` reads the page's <meta>. */
  constructor(options: ClientOptions & { manifest: string });
  /** Downloads what search needs; resolves when it is ready. */
  preload(): Promise<Counts>;
  search(query: string, options?: SearchOptions): Promise<SearchResult[]>;
  /** `search`, with the query as searched: slipped words corrected against the site's words. */
  answer(query: string, options?: AnswerOptions): Promise<Answer>;
  /** Plain exact nearest sections by vector; `score` is the vector score. Default topK: 10. */
  searchVector(query: string, options?: { topK?: number }): Promise<Hit[]>;
  embed(query: string): Promise<QueryVector>;
  /** Calls `watch` on each progress report too; returns its off switch. */
  watchProgress(watch: (progress: Progress) => void): () => boolean;
  /** Stops the worker; pending requests reject. */
  destroy(): void;
}

/** Where the built page says the bundle is (its <meta name="semantic-search">); {} elsewhere. */
export function pageOptions(doc?: Document): {
  manifest?: string; siteRoot?: string; ui?: string;
  pieces?: string | null; keywords?: string | null; pages?: string | null;
  words?: string | null; index?: string | null;
};
/** Sets the bundle to search; downloads nothing. Optional on built pages. */
export function init(options?: ClientOptions): SemanticSearch;
export function preload(): Promise<Counts>;
export function search(query: string, options?: SearchOptions): Promise<SearchResult[]>;
export function answer(query: string, options?: AnswerOptions): Promise<Answer>;
export function searchVector(query: string, options?: { topK?: number }): Promise<Hit[]>;
export function embed(query: string): Promise<QueryVector>;
export function destroy(): void;
