/** The client's view of fetch: what it sends and what it reads of an answer. */
export interface HttpInit {
  method?: string;
  headers?: Record<string, string>;
  body?: string | Uint8Array | AsyncIterable<Uint8Array>;
  signal?: AbortSignal;
  redirect?: 'follow' | 'manual';
  duplex?: 'half';
}

export interface HttpResponse {
  readonly ok: boolean;
  readonly status: number;
  readonly headers: { get(name: string): string | null };
  readonly body: AsyncIterable<Uint8Array> | null;
  text(): Promise<string>;
}

/** fetch as the client uses it: the transport's undici fetch, or globalThis.fetch in tests. */
export type HttpFetch = (url: string, init?: HttpInit) => Promise<HttpResponse>;
