/**
 * The zip of a revision is a zipped data package: its descriptor at the root, and every path
 * that descriptor names at that path in the zip, with the bytes and hash it declares.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import yauzl from 'yauzl';
import { browserLogin, runData, tempDir, withHub } from './helpers.js';
import { unzipTo, zipEntries } from '../helpers/unzip.js';

type Resource = { name: string; path?: string | string[]; bytes?: number; hash?: string };

/** A package of a nested file, a table in two parts, inline rows and a README. */
function packageIn(dir: string): void {
  mkdirSync(join(dir, 'data', 'parts'), { recursive: true });
  writeFileSync(join(dir, 'README.md'), '# Towns\n');
  writeFileSync(
    join(dir, 'data', 'towns.csv'),
    'id;name;founded\n1;Zürich;1218-01-01\n2;Bern;1191-05-20\n',
  );
  writeFileSync(join(dir, 'data', 'parts', 'a.csv'), 'n,at\n1,2024-01-03T10:00:00+01:00\n');
  writeFileSync(join(dir, 'data', 'parts', 'b.csv'), '2,2024-01-04T10:00:00\n');
  writeFileSync(
    join(dir, 'datapackage.json'),
    JSON.stringify({
      name: 'towns',
      resources: [
        {
          name: 'towns',
          path: 'data/towns.csv',
          dialect: { delimiter: ';' },
          schema: {
            fields: [
              { name: 'id', type: 'integer' },
              { name: 'name', type: 'string' },
              { name: 'founded', type: 'date' },
            ],
          },
        },
        {
          name: 'parts',
          path: ['data/parts/a.csv', 'data/parts/b.csv'],
          schema: {
            fields: [
              { name: 'n', type: 'integer' },
              { name: 'at', type: 'datetime' },
            ],
          },
        },
        {
          name: 'kinds',
          data: [{ kind: 'city' }, { kind: 'village' }],
          schema: { fields: [{ name: 'kind', type: 'string' }] },
        },
      ],
    }),
  );
}

/** The hash of some bytes as a descriptor declares it: hex MD5, or `algorithm:hex`. */
function hashOf(bytes: Buffer, declared: string): string {
  const [algorithm, hex] = declared.includes(':') ? declared.split(':') : [undefined, declared];
  const digest = createHash(algorithm ?? 'md5')
    .update(bytes)
    .digest('hex');
  return algorithm && hex ? `${algorithm}:${digest}` : digest;
}

describe('the zip of a revision', () => {
  it('is a zipped data package: its descriptor at the root, every path it names, as declared', async () => {
    const dir = tempDir();
    const unzipped = tempDir();
    try {
      packageIn(dir);
      await withHub({}, async ({ url }) => {
        const env = { DATA_API: url, DATA_TOKEN: await browserLogin(url) };
        const published_ = await runData(['publish', dir], { env });
        expect(published_.err).not.toMatch(/^error/m);
        expect(published_.code).toBe(0);
        const response = await fetch(`${url}/ada/towns/r/towns_zip.zip`);
        expect(response.status).toBe(200);
        const zipped = Buffer.from(await response.arrayBuffer());
        const files = await zipEntries(zipped);
        expect(files.has('datapackage.json')).toBe(true);
        expect([...files.keys()].filter((name) => name.startsWith('towns/'))).toEqual([]);
        const inside = JSON.parse(files.get('datapackage.json')?.toString() ?? '{}') as {
          resources: Resource[];
        };
        const published = (await (await fetch(`${url}/ada/towns/datapackage.json`)).json()) as {
          resources: Resource[];
        };
        // Every resource but the zip itself and the Parquet copies, as published.
        expect(inside.resources.map((resource) => resource.name)).toEqual(
          published.resources
            .map((resource) => resource.name)
            .filter((name) => name !== 'towns_zip' && !name.endsWith('_parquet')),
        );
        const named = new Set<string>(['datapackage.json', 'README.md']);
        for (const resource of inside.resources) {
          if (resource.path === undefined) continue;
          const paths = Array.isArray(resource.path) ? resource.path : [resource.path];
          for (const path of paths) {
            named.add(path);
            const bytes = files.get(path);
            expect(bytes, path).toBeDefined();
            // Each file as the hub serves it at that path.
            const served = await fetch(`${url}/ada/towns/${path}`);
            expect(served.status, path).toBe(200);
            expect(
              Buffer.from(await served.arrayBuffer()).equals(bytes ?? Buffer.alloc(0)),
              path,
            ).toBe(true);
            if (paths.length > 1) continue;
            if (resource.bytes !== undefined) expect(bytes?.length, path).toBe(resource.bytes);
            if (resource.hash !== undefined)
              expect(hashOf(bytes ?? Buffer.alloc(0), resource.hash), path).toBe(resource.hash);
          }
        }
        // Each folder listed before the files in it, as `zip -r` lists them.
        const zip = await yauzl.fromBufferPromise(zipped, { lazyEntries: true });
        const order: string[] = [];
        for await (const entry of zip.eachEntry()) order.push(entry.fileName);
        zip.close();
        for (const [index, name] of order.entries()) {
          const parts = name.replace(/\/$/, '').split('/').slice(0, -1);
          for (let depth = 1; depth <= parts.length; depth++)
            expect(order.slice(0, index), name).toContain(`${parts.slice(0, depth).join('/')}/`);
        }
        expect(order).toContain('_derived/');
        // Nothing in the zip the descriptor does not name.
        expect([...files.keys()].sort()).toEqual([...named].sort());
        expect(files.get('README.md')?.toString()).toBe('# Towns\n');
        // Unzipped, it is a package data validate finds valid.
        await unzipTo(zipped, unzipped);
        const valid = await runData(['validate', unzipped]);
        expect(valid.out + valid.err).toMatch(/valid/);
        expect(valid.code).toBe(0);
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
      rmSync(unzipped, { recursive: true, force: true });
    }
  });
});
