import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { HttpFetch } from '@data/core';
import { runCli } from '../helpers/cli.js';
import { fakeFetch } from '../helpers/fake-fetch.js';
import { HUB } from '../helpers/msw/hub.js';

/** A hub where nothing listens: every request is refused, and recorded. */
const nothingListens = () => fakeFetch({}, 'refused');

describe('data publish of a path that is not there', () => {
  const missing = join(mkdtempSync(join(tmpdir(), 'data-missing-')), 'nonexistent');

  it.each([
    ['not logged in', { DATA_TOKEN: '' }],
    ['with a token', { DATA_TOKEN: 'a-token' }],
  ])('says so before it asks the hub anything (%s), as validate does', async (_, env) => {
    const { fetch, asked } = nothingListens();
    const published = await runCli(['publish', missing], {
      env: { DATA_API: HUB, ...env },
      fetch,
    });
    const validated = await runCli(['validate', missing], { env: { DATA_API: HUB }, fetch });
    expect(asked).toEqual([]);
    expect(published.code).toBe(2);
    expect(validated.code).toBe(2);
    expect(published.err).toContain(`error: "${missing}" does not exist`);
    expect(published.err).not.toContain('cannot reach');
  });

  it('answers one JSON error naming the path under --json', async () => {
    const { fetch, asked } = nothingListens();
    const { code, out } = await runCli(['--json', 'publish', missing], {
      env: { DATA_API: HUB, DATA_TOKEN: '' },
      fetch,
    });
    expect(asked).toEqual([]);
    expect(code).toBe(2);
    expect(JSON.parse(out)).toEqual({
      error: { code: 'E_INPUT', message: `"${missing}" does not exist`, hint: null },
    });
  });

  it('still says first that nothing listens at the hub when the path is there', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'data-missing-'));
    writeFileSync(join(dir, 'data.csv'), 'a,b\n1,2\n');
    const { fetch, asked } = nothingListens();
    const { code, err } = await runCli(['publish', join(dir, 'data.csv')], {
      env: { DATA_API: HUB, DATA_TOKEN: '' },
      fetch,
    });
    expect(code).toBe(3);
    expect(err).toContain(`cannot reach ${HUB}`);
    // The check is retried on a refused connection: it is the only request.
    expect(new Set(asked)).toEqual(new Set([`${HUB}/auth/check`]));
  });
});

describe('data publish with no token', () => {
  /** A hub that answers that no one is signed in, recording what it was asked. */
  function signedOutHub(): { fetch: HttpFetch; asked: string[] } {
    const asked: string[] = [];
    const fetch: HttpFetch = (url) => {
      asked.push(url);
      return Promise.resolve(
        Response.json({ authenticated: false, providers: {} }) as Awaited<ReturnType<HttpFetch>>,
      );
    };
    return { fetch, asked };
  }

  it.each([[[]], [['--sheets', 'all']]])(
    'says "not logged in" before it reads a workbook (%j)',
    async (flags) => {
      // Not a workbook at all: reading it would fail, so exit 4 shows it was never read.
      const dir = mkdtempSync(join(tmpdir(), 'data-no-token-'));
      writeFileSync(join(dir, 'book.xlsx'), 'this is not a zip file');
      const { fetch, asked } = signedOutHub();
      const { code, err } = await runCli(['publish', join(dir, 'book.xlsx'), ...flags], {
        env: { DATA_API: HUB, DATA_TOKEN: '' },
        fetch,
      });
      expect(err).toContain(`not logged in to ${HUB}`);
      expect(code).toBe(4);
      expect(asked).toEqual([`${HUB}/auth/check`]);
    },
  );
});
