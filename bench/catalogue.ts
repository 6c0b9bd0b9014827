/**
 * How the catalogue's reads grow with the number of datasets, on SQLite and on PostgreSQL:
 * 10,000 and 1,000,000 published datasets of 1,000 owners, then the median time of a word
 * search, of the home page's first page (every dataset, newest first, with the total), and
 * of looking one dataset up; and the database's size. The figures docs/scaling.md uses.
 * Counts given as arguments (`node bench/catalogue.ts 10000`) are measured instead.
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { openMetadata } from '../packages/hub/dist/engines/metadata/open.js';
import type { Row } from '../packages/hub/dist/engines/metadata/tables.js';
import type { Metadata } from '../packages/hub/dist/engines/metadata/types.js';
import { postgresBin, startPostgres } from '../test/helpers/postgres.ts';

const WORDS = ['rain', 'river', 'census', 'prices', 'schools', 'traffic', 'energy', 'forest'];
const PLACES = ['lisbon', 'oslo', 'quito', 'accra', 'hanoi', 'lima', 'perth', 'cork', 'baku'];
const OWNERS = 1000;

function dataset(i: number): Row {
  const word = WORDS[i % WORDS.length] ?? '';
  const place = PLACES[Math.floor(i / WORDS.length) % PLACES.length] ?? '';
  return {
    ownerid: `owner${String(i % OWNERS)}`,
    name: `${word}-${place}-${String(i)}`,
    findability: 'published',
    title: `${word} of ${place}, series ${String(i % 97)}`,
    description: `Yearly ${word} figures for ${place}, collected by office ${String(i % 501)}.`,
    published_revision: 1,
    modified: new Date(Date.UTC(2020, 0, 1) + i * 60_000).toISOString(),
  };
}

async function fill(store: Metadata, count: number): Promise<void> {
  const users: Row[] = Array.from({ length: OWNERS }, (_, i) => ({
    userid: `owner${String(i)}`,
    username: `owner${String(i)}`,
    email: `owner${String(i)}@example.org`,
    name: `Owner ${String(i)}`,
    provider: 'local',
    subject: `owner${String(i)}`,
    join_date: '2020-01-01T00:00:00.000Z',
  }));
  await store.importRows('users', users);
  for (let start = 0; start < count; start += 500)
    await store.importRows(
      'datasets',
      Array.from({ length: Math.min(500, count - start) }, (_, i) => dataset(start + i)),
    );
}

async function median(run: () => Promise<unknown>, times = 15): Promise<number> {
  await run();
  const ms: number[] = [];
  for (let i = 0; i < times; i++) {
    const start = performance.now();
    await run();
    ms.push(performance.now() - start);
  }
  ms.sort((a, b) => a - b);
  return ms[Math.floor(ms.length / 2)] ?? 0;
}

async function measure(store: Metadata): Promise<string[]> {
  const search = await median(() => store.search('river oslo', undefined, 50, 0));
  const home = await median(() => store.search('', undefined, 50, 0));
  const one = await median(() => store.dataset('owner7', 'rain-lisbon-7007'));
  return [search, home, one].map((ms) => ms.toFixed(1));
}

const work = mkdtempSync(join(tmpdir(), 'data-bench-catalogue-'));
const bin = postgresBin();
const postgres = bin ? await startPostgres(bin) : undefined;
try {
  console.log(
    `${'engine'.padEnd(12)}${'datasets'.padStart(10)}${'fill s'.padStart(8)}${'search ms'.padStart(11)}${'home ms'.padStart(9)}${'lookup ms'.padStart(11)}${'size MB'.padStart(9)}`,
  );
  const counts = process.argv.slice(2).map(Number);
  for (const count of counts.length > 0 ? counts : [10_000, 1_000_000]) {
    const engines: [string, string][] = [['SQLite', join(work, `hub-${String(count)}.sqlite`)]];
    if (postgres) {
      const client = new pg.Client({ connectionString: postgres.url });
      await client.connect();
      await client.query(`create database catalogue_${String(count)}`);
      await client.end();
      engines.push([
        'PostgreSQL',
        postgres.url.replace(/\/postgres$/, `/catalogue_${String(count)}`),
      ]);
    }
    for (const [engine, address] of engines) {
      const store = await openMetadata(address);
      const started = performance.now();
      await fill(store, count);
      const fillSeconds = ((performance.now() - started) / 1000).toFixed(1);
      const figures = await measure(store);
      let bytes = 0;
      if (engine === 'SQLite') {
        (store as unknown as { db: { exec(sql: string): void } }).db.exec(
          'pragma wal_checkpoint(truncate)',
        );
        bytes = statSync(address).size;
      } else {
        const client = new pg.Client({ connectionString: address });
        await client.connect();
        const { rows } = await client.query<{ size: string }>(
          'select pg_database_size(current_database()) as size',
        );
        bytes = Number(rows[0]?.size ?? 0);
        await client.end();
      }
      await store.close();
      console.log(
        `${engine.padEnd(12)}${String(count).padStart(10)}${fillSeconds.padStart(8)}${(figures[0] ?? '').padStart(11)}${(figures[1] ?? '').padStart(9)}${(figures[2] ?? '').padStart(11)}${(bytes / 1024 / 1024).toFixed(0).padStart(9)}`,
      );
    }
  }
} finally {
  postgres?.stop();
  rmSync(work, { recursive: true, force: true });
}
