import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { dryRunPublish } from '../../packages/cli/src/client/publish-dry-run.js';
import { openPublishSource } from '../../packages/cli/src/client/publish-source.js';
import type { Report } from '../../packages/core/src/validator/report/types.js';
import { fakeFetch } from '../helpers/fake-fetch.js';

const CITIES = join(import.meta.dirname, '../../examples/cities');
const SITE = 'https://hub.test';
const signal = new AbortController().signal;

/** A validation report that counted these rows and bytes of the cities resource. */
const validated = {
  valid: true,
  errors: [],
  tasks: [{ name: 'cities', stats: { rows: 12, bytes: 999 }, errors: [] }],
} as unknown as Report;

describe('dryRunPublish', () => {
  it('lists each resource of a dataset the hub does not have, with its rows and bytes', async () => {
    const source = await openPublishSource(CITIES, undefined, undefined);
    const { fetch, asked } = fakeFetch();
    const plan = await dryRunPublish(CITIES, source, validated, 'ada', {
      fetch,
      site: SITE,
      signal,
    });
    expect(asked[0]).toContain('/ada/world-cities');
    expect(plan).toEqual({
      dataset: 'ada/world-cities',
      published: false,
      diff: null,
      resources: [
        {
          name: 'countries',
          path: 'data/countries.csv',
          rows: null,
          bytes: statSync(join(CITIES, 'data/countries.csv')).size,
        },
        { name: 'cities', path: 'data/cities.csv', rows: 12, bytes: 999 },
      ],
    });
  });

  it('compares with the published revision, which it reads from the hub', async () => {
    const source = await openPublishSource(CITIES, undefined, undefined);
    const read = (path: string) => readFileSync(join(CITIES, path), 'utf8');
    const published = JSON.parse(read('datapackage.json')) as { title: string };
    published.title = 'Cities, as published';
    const base = `${SITE}/ada/world-cities`;
    const { fetch } = fakeFetch({
      [`${base}/datapackage.json`]: JSON.stringify(published),
      [`${base}/data/countries.csv`]: read('data/countries.csv'),
      [`${base}/data/cities.csv`]: read('data/cities.csv'),
    });
    const plan = await dryRunPublish(CITIES, source, validated, 'ada', {
      fetch,
      site: SITE,
      signal,
    });
    expect(plan.published).toBe(true);
    expect(plan.dataset).toBe('ada/world-cities');
    expect(JSON.stringify(plan.diff)).toContain('Cities, as published');
    expect(Object.keys(plan)).toEqual(['dataset', 'published', 'diff']);
  });
});
