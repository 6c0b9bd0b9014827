import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buffer } from 'node:stream/consumers';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { HttpFetch, HttpInit } from '../../packages/core/src/http/http.js';
import { ServerError } from '../../packages/core/src/errors.js';
import { EXIT, exitCodeOf } from '../../packages/cli/src/exit-codes.js';
import { uploadFile } from '../../packages/cli/src/transfers/upload.js';

const SESSION = 'http://127.0.0.1:9/rawstore/uploads?session=s&signature=x';

describe('an upload in parts to a hub that never holds what it is sent', () => {
  let work: string;
  beforeEach(() => {
    work = mkdtempSync(join(tmpdir(), 'data-parts-'));
  });
  afterEach(() => rmSync(work, { recursive: true, force: true }));

  it('stops once a round of parts adds nothing to what the hub holds: exit 3, naming the hub', async () => {
    const path = join(work, 'big.csv');
    writeFileSync(path, 'id\n1\n2\n');
    let plans = 0;
    // A hub that asks for the whole file again after every round.
    const fetch: HttpFetch = async (url: string, init: HttpInit = {}) => {
      const method = init.method ?? 'GET';
      // The part's bytes are read as a store would, then not kept.
      if (method === 'PUT' && init.body && typeof init.body !== 'string')
        await buffer(init.body as AsyncIterable<Uint8Array>);
      if (method === 'GET') {
        if (++plans > 20) throw new Error('asked for a plan again and again');
        const plan = { length: 7, held: 0, parts: [{ start: 0, end: 7, url: `${url}&part=1` }] };
        return new Response(JSON.stringify(plan));
      }
      return new Response('');
    };
    const upload = uploadFile(
      fetch,
      { method: 'PARTS', url: SESSION, path, length: 7, md5: 'x' },
      'big.csv',
      () => undefined,
    );
    const error: unknown = await upload.catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ServerError);
    expect(exitCodeOf(error as ServerError)).toBe(EXIT.network);
    expect((error as ServerError).message).toContain('http://127.0.0.1:9');
    expect(plans).toBe(2);
  });
});
