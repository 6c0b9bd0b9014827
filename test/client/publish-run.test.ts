import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { HubApi } from '../../packages/cli/src/client/api.js';
import { runPublish, type PublishRunDeps } from '../../packages/cli/src/client/publish-run.js';
import type { Found } from '../../packages/cli/src/credentials/store.js';
import type { Report } from '../../packages/core/src/validator/report/types.js';

const CITIES = join(import.meta.dirname, '../../examples/cities');
const HUB = 'http://hub.test';
const FOUND: Found = { token: 't', profile: undefined, source: 'env', location: 'DATA_TOKEN' };

/** Deps over a hub nobody may reach, recording the steps taken in order. */
function deps(report: Partial<Report>): { deps: PublishRunDeps; steps: string[] } {
  const steps: string[] = [];
  const fetch = (url: string) => {
    steps.push(`fetch ${url}`);
    return Promise.reject(new Error('no requests in this test'));
  };
  const signal = new AbortController().signal;
  return {
    steps,
    deps: {
      api: new HubApi(HUB, fetch, signal),
      hub: { api: HUB, site: HUB },
      fetch,
      signal,
      credential: (dataset) => {
        steps.push(`credential ${String(dataset)}`);
        return Promise.resolve(FOUND);
      },
      signedIn: (found) => ({
        api: HUB,
        fetch,
        signal,
        token: found.token,
        refused: () => new Error('refused'),
      }),
      validate: (held) => {
        steps.push(held ? 'validate held' : 'validate');
        return Promise.resolve({ valid: true, errors: [], tasks: [], ...report } as Report);
      },
      progress: () => Promise.reject(new Error('no publication in this test')),
    },
  };
}

const options = { findability: 'published' as const, wait: true, timeoutMs: 60_000 };

describe('runPublish', () => {
  it('answers an invalid package as { invalid }, having asked the hub nothing', async () => {
    const { deps: given, steps } = deps({ valid: false });
    const result = await runPublish({ ...options, path: CITIES, owner: 'Org' }, given);
    expect(result).toEqual({ invalid: expect.objectContaining({ valid: false }) as Report });
    expect(steps).toEqual(['credential org/world-cities', 'validate']);
  });

  it('asks for the credential of a single file by its name before the file is read', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'data-run-'));
    writeFileSync(join(dir, 'Über Prices.csv'), 'a\n1\n');
    const { deps: given, steps } = deps({ valid: false });
    const result = await runPublish({ ...options, path: join(dir, 'Über Prices.csv') }, given);
    expect('invalid' in result).toBe(true);
    expect(steps).toEqual(['credential uber-prices', 'validate held']);
  });
});
