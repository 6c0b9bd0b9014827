import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROUTES } from '../../packages/hub/src/server.js';

const DOC = readFileSync(join(import.meta.dirname, '../../docs/protocol.md'), 'utf8');

/** A route with its parameters unnamed: `GET /<>/<>/r/<>`. */
function unnamed(route: string): string {
  return route
    .replace(/:[a-z]+/g, '<>')
    .replace(/<[^>]*>\.\.<[^>]*>/g, '<>')
    .replace(/<[^>]*>/g, '<>');
}

/** Every `METHOD /path` the document names in code, its query left out. */
function documented(): Set<string> {
  const found = new Set<string>();
  for (const match of DOC.matchAll(/`(GET|POST|PUT|DELETE) (\/[^`\s?]*)/g))
    found.add(unnamed(`${match[1] ?? ''} ${match[2] ?? ''}`));
  return found;
}

describe('docs/protocol.md', () => {
  it('names every route the hub answers', () => {
    const names = documented();
    const missing = ROUTES.filter((route) => !names.has(unnamed(route)));
    expect(missing).toEqual([]);
    expect(ROUTES.length).toBeGreaterThan(30);
  });

  it('names no route the hub does not answer', () => {
    const routes = new Set(ROUTES.map(unnamed));
    // Addresses of other servers: the client's loopback listener, an upload URL.
    const elsewhere = [...documented()].filter((route) => !routes.has(route));
    expect(elsewhere).toEqual([]);
  });
});
