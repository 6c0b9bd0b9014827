/**
 * The one module that imports undici: its fetch and its dispatcher come from the same
 * package, so that they can never be of two different versions.
 */
import { Agent, fetch as undiciFetch } from 'undici';

export const agent = new Agent({
  connectTimeout: 30_000,
  headersTimeout: 60_000,
  bodyTimeout: 300_000,
});

export type RequestOptions = NonNullable<Parameters<typeof undiciFetch>[1]>;

export function fetch(url: string, init: RequestOptions = {}): ReturnType<typeof undiciFetch> {
  return undiciFetch(url, { ...init, dispatcher: agent });
}
