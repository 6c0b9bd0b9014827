import { createHash } from 'node:crypto';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  afterPublication,
  browserLogin,
  publish,
  storedObjects,
  tempDir,
  waitForState,
  withHub,
} from './helpers.js';
import type { RunningHub } from '../../packages/hub/src/server.js';
import { zipEntries } from '../helpers/unzip.js';

type Resource = { name: string; bytes?: number; hash?: string; datahub?: { type: string } };

/** Writes a one-table package: its CSV (header, then rows) and its descriptor. */
function onePackage(
  dir: string,
  name: string,
  fields: { name: string; type: string }[],
  rows: string[][],
  delimiter: string,
): string {
  mkdirSync(dir, { recursive: true });
  const lines = [fields.map((field) => field.name), ...rows].map((row) => row.join(delimiter));
  writeFileSync(join(dir, `${name}.csv`), `${lines.join('\n')}\n`);
  const dialect = delimiter === ',' ? {} : { dialect: { delimiter } };
  const resource = { name, path: `${name}.csv`, ...dialect, schema: { fields } };
  writeFileSync(join(dir, 'datapackage.json'), JSON.stringify({ name, resources: [resource] }));
  return dir;
}

/** A table of `rows` rows, semicolon-delimited so that its CSV copy must be made. */
function tablePackage(dir: string, name: string, rows: number, delimiter = ';'): string {
  const fields = [
    { name: 'id', type: 'integer' },
    { name: 'name', type: 'string' },
    { name: 'price', type: 'number' },
  ];
  const body = Array.from({ length: rows }, (_, i) => [
    String(i),
    `${name} item ${String(i)}`,
    `${String(i % 1000)}.5`,
  ]);
  return onePackage(dir, name, fields, body, delimiter);
}

/**
 * A table of small numbers under long field names: its JSON copy is many times its size, as
 * copies of real tables often are.
 */
function widePackage(dir: string, name: string, rows: number): string {
  const fields = Array.from({ length: 8 }, (_, i) => ({
    name: `measurement_number_${String(i)}`,
    type: 'integer',
  }));
  const body = Array.from({ length: rows }, (_, row) =>
    fields.map((_, i) => String((row + i) % 10)),
  );
  return onePackage(dir, name, fields, body, ';');
}

async function published(url: string, jwt: string, dir: string): Promise<void> {
  const state = await waitForState(url, (await publish(url, jwt, dir)).flowId);
  expect(state.state).toBe('SUCCEEDED');
}

async function bytesOf(url: string): Promise<Buffer> {
  const response = await fetch(url);
  expect(response.status).toBe(200);
  return Buffer.from(await response.arrayBuffer());
}

/** Runs `run` on a hub where ada published the `prices` table of `rows` rows. */
async function withPrices(
  rows: number,
  run: (hub: RunningHub & { url: string }) => Promise<void>,
): Promise<void> {
  const dir = tablePackage(tempDir(), 'prices', rows);
  try {
    await withHub({}, async (hub) => {
      await published(hub.url, await browserLogin(hub.url), dir);
      await afterPublication(hub);
      await run(hub);
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Bytes the hub's store keeps: data, revisions' files, kept copies and staged uploads. */
async function keptBytes(hub: RunningHub['hub']): Promise<number> {
  let total = 0;
  for (const prefix of ['objects/', 'packages/', 'cache/', 'uploads/'])
    for await (const { size } of hub.storage.list(prefix)) total += size;
  return total;
}

describe('derived copies made when asked for', () => {
  it('publishes before any copy exists, and names every copy without the size it cannot know', async () => {
    await withPrices(200, async ({ url, hub }) => {
      expect(hub.copies.made).toBe(0);
      const descriptor = (await (await fetch(`${url}/ada/prices/datapackage.json`)).json()) as {
        resources: Resource[];
      };
      const named = Object.fromEntries(descriptor.resources.map((each) => [each.name, each]));
      expect(Object.keys(named)).toEqual([
        'prices',
        'prices_csv',
        'prices_json',
        'prices_csv_preview',
        'prices_parquet',
        'prices_zip',
      ]);
      expect(named.prices_json?.bytes).toBeUndefined();
      expect(named.prices_csv?.bytes).toBeUndefined();
      expect(named.prices_zip?.bytes).toBeUndefined();
      // The preview is made as the table is validated, and its size is known.
      const preview = await bytesOf(`${url}/ada/prices/r/prices_csv_preview.json`);
      expect(named.prices_csv_preview?.bytes).toBe(preview.length);
      expect(named.prices_csv_preview?.hash).toBe(createHash('md5').update(preview).digest('hex'));
      expect((JSON.parse(preview.toString()) as unknown[]).length).toBe(100);
    });
  });

  it('makes a copy once for fifty readers asking at once, and keeps it for the next', async () => {
    await withPrices(20_000, async ({ url, hub }) => {
      const copies = await Promise.all(
        Array.from({ length: 50 }, () => bytesOf(`${url}/ada/prices/r/prices.json`)),
      );
      const rows = JSON.parse(copies[0]?.toString() ?? '[]') as { id: number; price: number }[];
      expect(rows).toHaveLength(20_000);
      expect(rows[19_999]).toEqual({ id: 19_999, name: 'prices item 19999', price: 999.5 });
      for (const copy of copies) expect(copy.equals(copies[0] ?? Buffer.alloc(0))).toBe(true);
      expect(hub.copies.made).toBe(1);
      // Kept once stored: sent whole with its length, and by ranges, without being made again.
      await hub.copies.idle();
      const again = await fetch(`${url}/ada/prices/r/prices.json`, {
        headers: { range: 'bytes=0-9' },
      });
      expect(again.status).toBe(206);
      expect(await again.text()).toBe(copies[0]?.subarray(0, 10).toString());
      expect(hub.copies.made).toBe(1);
    });
  });

  it("never sends a copy an older hub's writers kept: the cache is keyed by the writers' version", async () => {
    await withPrices(300, async ({ url, hub }) => {
      // What a hub before the writers' version kept for this copy, where it kept it then.
      const ada = await hub.store.userByName('ada');
      const descriptor = (await (await fetch(`${url}/ada/prices/datapackage.json`)).json()) as {
        resources: { name: string; path: string }[];
      };
      const copyPath = descriptor.resources.find((each) => each.name === 'prices_json')?.path;
      const oldKey = `cache/${String(ada?.userid)}/prices/1/${basename(String(copyPath))}`;
      const stale = Buffer.from('[{"id":"written by an older hub"}]');
      const file = join(tempDir(), 'stale.json');
      writeFileSync(file, stale);
      const md5 = createHash('md5').update(stale).digest('base64');
      await hub.store.reserveCopy(oldKey, stale.length, 1 << 30);
      await hub.storage.putFile(oldKey, file, {
        md5,
        length: stale.length,
        type: 'application/json',
      });
      await hub.store.keptCopy(oldKey);
      const rows = JSON.parse((await bytesOf(`${url}/ada/prices/r/prices.json`)).toString()) as {
        id: number;
      }[];
      expect(rows).toHaveLength(300);
      expect(rows[0]?.id).toBe(0);
      expect(hub.copies.made).toBe(1);
    });
  });

  it('serves a CSV already in normal form as its own copy, with its size and hash', async () => {
    const dir = tempDir();
    try {
      mkdirSync(dir, { recursive: true });
      // Quoted where the copy would not quote, and \r\n line ends: the same table.
      const text = 'id,name\r\n1,"Zürich"\r\n2,"a, b"\r\n';
      writeFileSync(join(dir, 'towns.csv'), text);
      writeFileSync(
        join(dir, 'datapackage.json'),
        JSON.stringify({ name: 'towns', resources: [{ name: 'towns', path: 'towns.csv' }] }),
      );
      await withHub({}, async (running) => {
        const { url, hub } = running;
        await published(url, await browserLogin(url), dir);
        await afterPublication(running);
        const copy = await bytesOf(`${url}/ada/towns/r/towns_csv.csv`);
        expect(copy.toString()).toBe(text);
        const descriptor = (await (await fetch(`${url}/ada/towns/datapackage.json`)).json()) as {
          resources: Resource[];
        };
        const named = descriptor.resources.find((each) => each.name === 'towns_csv');
        expect(named?.bytes).toBe(Buffer.byteLength(text));
        expect(named?.hash).toBe(createHash('md5').update(text).digest('hex'));
        expect(hub.copies.made).toBe(0);
        // Its zip holds it, read from the same object.
        const files = await zipEntries(await bytesOf(`${url}/ada/towns/r/towns_zip.zip`));
        expect(files.get('_derived/towns_csv.csv')?.toString()).toBe(text);
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('never keeps more than the quotas and the cache budget, however often every copy is asked for', async () => {
    const root = tempDir();
    const quota = 1024 * 1024;
    const budget = 5 * 1024 * 1024;
    try {
      // 250 KB of data each, whose JSON copies are some 2 MB each.
      const dirs = ['north', 'south', 'east'].map((name) =>
        widePackage(join(root, name), name, 15_000),
      );
      await withHub({ maxStorageBytes: quota, derivedCacheBytes: budget }, async ({ url, hub }) => {
        const jwt = await browserLogin(url);
        for (const dir of dirs) await published(url, jwt, dir);
        let largest = 0;
        for (let round = 0; round < 3; round++)
          for (const name of ['north', 'south', 'east'])
            for (const file of [`${name}.json`, `${name}_csv.csv`, `${name}_zip.zip`, '0.json']) {
              await bytesOf(`${url}/ada/${name}/r/${file}`);
              largest = Math.max(largest, await keptBytes(hub));
            }
        // Each copy was asked for again after the others pushed it out.
        expect(hub.copies.made).toBeGreaterThan(9);
        expect(largest).toBeLessThanOrEqual(quota + budget);
        const usage = await hub.store.cacheUsage();
        expect(usage.bytes).toBeLessThanOrEqual(budget);
        expect(usage.copies).toBeGreaterThan(0);
      });
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  it('answers a copy that cannot be made with a 500 and a plain reason, and no path of its own', async () => {
    await withPrices(50, async ({ url, hub }) => {
      // The stored original is lost (a disk replaced, an object deleted by hand).
      for (const key of await storedObjects(hub)) await hub.storage.delete(`objects/${key}`);
      const response = await fetch(`${url}/ada/prices/r/prices.json`);
      expect(response.status).toBe(500);
      const reason = await response.text();
      expect(reason).toMatch(/the JSON copy of prices could not be made/);
      expect(reason).not.toContain(hub.options.dataDir);
      expect(reason).not.toMatch(/ENOENT|at .*\.ts/);
    });
  });
});
