import { describe, expect, it } from 'vitest';
import { datasetInfo } from '../../packages/cli/src/client/info.js';
import type { HttpFetch } from '../../packages/core/src/http/http.js';
import { FORMAT_TABLE } from '../core/format-table.js';

/** A hub that serves the same small table at every address. */
const table: HttpFetch = () =>
  Promise.resolve(
    new Response('a,b\n1,2\n', { status: 200 }) as unknown as Awaited<ReturnType<HttpFetch>>,
  );

describe('data info shows each resource’s format by the one format rule', () => {
  it.each(FORMAT_TABLE)('$what', async ({ resource, format }) => {
    const info = await datasetInfo(
      {
        descriptorUrl: 'https://hub.test/ada/prices/datapackage.json',
        descriptor: { resources: [{ name: 'prices', ...resource }] },
      },
      table,
    );
    expect(info.resources[0]?.format).toBe(format ?? (resource.data === undefined ? '' : 'inline'));
  });
});
