import { existsSync, mkdirSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DuckDBInstance } from '@duckdb/node-api';
import { version, type Package } from '../../packages/core/src/index.js';
import type { Storage } from '../../packages/hub/src/engines/storage/types.js';
import type { Published } from '../../packages/hub/src/services/published.js';
import { DEFAULT_VIEWER } from '../../packages/hub/src/options.js';
import {
  DuckEngine,
  PER_CLIENT,
  ViewerBusy,
} from '../../packages/hub/src/services/viewer/duckdb.js';
import { TableViewer } from '../../packages/hub/src/services/viewer/engine.js';
import {
  keepStats,
  revisionStats,
  tableStats,
  type RevisionStats,
} from '../../packages/hub/src/services/viewer/stats.js';
import { statsHtml } from '../../packages/hub/src/views/table-viewer.js';
import { tempDir } from './helpers.js';

/**
 * Column statistics of tables made to break them: columns named as the statistics' own
 * results were (n, v, bin, total, m0, d0, lo0, hi0, blo0, bhi0, x0), a file that is not
 * Parquet beside good tables, unique ids whose estimate is off, integers binned.
 */
let folder: string;
let viewer: TableViewer;
let pkg: Published;
const logged: string[] = [];
const CLASHING = ['n', 'v', 'bin', 'total', 'm0', 'd0', 'lo0', 'hi0', 'blo0', 'bhi0', 'x0'];

function storageOf(dir: string): Storage {
  const pathOf = (key: string) => join(dir, key.replace(/^objects\//, ''));
  return {
    location: dir,
    stat: (key: string) =>
      Promise.resolve(existsSync(pathOf(key)) ? { size: statSync(pathOf(key)).size } : undefined),
    materialize: (key: string, target: string) => Promise.resolve(symlinkSync(pathOf(key), target)),
  } as unknown as Storage;
}

const table = (name: string) => ({
  name,
  path: `data/${name}.parquet`,
  format: 'parquet',
});

beforeAll(async () => {
  folder = tempDir();
  const files = join(folder, 'files');
  mkdirSync(files);
  const instance = await DuckDBInstance.create(':memory:');
  const connection = await instance.connect();
  // Every column named as a result of the statistics once was, of each kind they compute.
  const clashing = CLASHING.map((name, index) =>
    index % 3 === 0
      ? `CAST(i * ${String(index + 1)} AS BIGINT) AS "${name}"`
      : index % 3 === 1
        ? `'w' || CAST(i % ${String(index + 2)} AS VARCHAR) AS "${name}"`
        : `DATE '2020-01-01' + CAST(i % 30 AS INTEGER) AS "${name}"`,
  );
  await connection.run(
    `COPY (SELECT 'name ' || CAST(i % 7 AS VARCHAR) AS name, i % 2 = 0 AS ok, ${clashing.join(', ')}
     FROM range(500) t(i)) TO '${join(files, 'clash.parquet')}' (FORMAT parquet)`,
  );
  // 200 unique ids, which HyperLogLog put at 223; integers from 1 to 50,000.
  await connection.run(
    `COPY (SELECT CAST(i + 1 AS BIGINT) AS id, CAST(1 + (i * 251) % 50000 AS BIGINT) AS amount,
       CAST(NULL AS VARCHAR) AS empty
     FROM range(200) t(i) UNION ALL SELECT 1 + 200, 50000, NULL) TO '${join(files, 'ids.parquet')}' (FORMAT parquet)`,
  );
  // 300 columns of 2,000 rows, of each kind, as a wide table of a publisher's is.
  const wide = Array.from({ length: 300 }, (_, index) =>
    index % 3 === 0
      ? `CAST(i * ${String(index + 1)} AS DOUBLE) AS c${String(index)}`
      : index % 3 === 1
        ? `'text ' || CAST((i * ${String(index + 7)}) % 997 AS VARCHAR) AS c${String(index)}`
        : `DATE '2020-01-01' + CAST(i % 365 AS INTEGER) AS c${String(index)}`,
  );
  await connection.run(
    `COPY (SELECT ${wide.join(', ')} FROM range(2000) t(i)) TO '${join(files, 'wide.parquet')}' (FORMAT parquet)`,
  );
  connection.closeSync();
  instance.closeSync();
  writeFileSync(join(files, 'broken.parquet'), 'this is not a Parquet file');
  const tmpDir = join(folder, 'tmp');
  mkdirSync(tmpDir);
  pkg = {
    descriptor: {
      name: 'shop',
      resources: [
        table('clash'),
        table('broken'),
        table('ids'),
        table('wide'),
        // The CSV copies say how many rows: all few enough for statistics after publication.
        ...[500, 1, 201].map((rows, index) => ({
          name: `copy${String(index)}`,
          path: `copy${String(index)}.csv`,
          datahub: {
            type: 'derived/csv',
            derivedFrom: [['clash', 'broken', 'ids'][index]],
            rows,
          },
        })),
      ],
    } as unknown as Package,
    prefix: 'packages/u/shop/1/',
    files: {
      'data/clash.parquet': 'clash.parquet',
      'data/broken.parquet': 'broken.parquet',
      'data/ids.parquet': 'ids.parquet',
      'data/wide.parquet': 'wide.parquet',
    },
    revision: { stats: null },
  } as unknown as Published;
  viewer = new TableViewer(
    {
      storage: storageOf(files),
      tmpDir,
      log: (line: string) => logged.push(line),
    } as unknown as ConstructorParameters<typeof TableViewer>[0],
    { answer: () => Promise.reject(new Error('no copies here')) } as never,
    { queries: 1, queued: 4 },
  );
});

afterAll(async () => {
  await viewer.stop();
  rmSync(folder, { recursive: true, force: true });
});

describe('column statistics', () => {
  it('compute a wide table within the memory of statistics (statsMemoryMb)', async () => {
    const { tables, failed } = await revisionStats(viewer, pkg, undefined, 60, ['wide']);
    expect(failed).toBeUndefined();
    const columns = tables[0]?.columns ?? [];
    expect(columns).toHaveLength(200);
    expect(columns[1]?.distinct).toBe(997);
    expect(columns[2]?.histogram?.length).toBeGreaterThan(0);
  });

  it('compute a table whose columns are named as the statistics’ results were', async () => {
    const { tables, failed } = await revisionStats(viewer, pkg, undefined, 60, ['clash']);
    expect(failed).toBeUndefined();
    const columns = tables[0]?.columns ?? [];
    expect(columns.map((column) => column.name)).toEqual(['name', 'ok', ...CLASHING]);
    const of = (name: string) => columns.find((column) => column.name === name);
    expect(of('name')?.top?.[0]).toEqual({ value: 'name 0', count: 72 });
    expect(of('name')?.distinct).toBe(7);
    expect(of('ok')?.top).toEqual([
      { value: false, count: 250 },
      { value: true, count: 250 },
    ]);
    for (const [index, name] of CLASHING.entries()) {
      const column = of(name);
      expect(column?.missing, name).toBe(0);
      if (index % 3 === 0) {
        // i × (index + 1) for i from 0 to 499.
        expect(column, name).toMatchObject({ min: 0, max: 499 * (index + 1), distinct: 500 });
        expect(
          column?.histogram?.reduce((sum, bin) => sum + bin.count, 0),
          name,
        ).toBe(500);
      } else if (index % 3 === 1) {
        expect(column?.distinct, name).toBe(index + 2);
        const top = column?.top ?? [];
        if (index + 2 <= 10)
          expect(
            top.reduce((sum, each) => sum + each.count, 0),
            name,
          ).toBe(500);
        else expect(top, name).toHaveLength(10);
      } else {
        expect(column, name).toMatchObject({ min: '2020-01-01', max: '2020-01-30', distinct: 30 });
      }
    }
  });

  it('lose only the table that fails, recorded with why, not tried again by this hub version', async () => {
    logged.length = 0;
    const revision = {
      ownerid: 'u1',
      dataset: 'shop',
      revision: 1,
      state: 'SUCCEEDED',
      descriptor: JSON.stringify(pkg.descriptor),
      files: JSON.stringify(pkg.files),
      stats: null as string | null,
    };
    const saved: RevisionStats[] = [];
    const hub = {
      store: {
        userById: () => Promise.resolve({ userid: 'u1', username: 'ada' }),
        dataset: () => Promise.resolve({ ownerid: 'u1', name: 'shop' }),
        revision: () => Promise.resolve({ ...revision }),
        saveStats: (_which: unknown, stats: string) => {
          saved.push(JSON.parse(stats) as RevisionStats);
          revision.stats = stats;
          return Promise.resolve();
        },
      },
      options: { limits: { processingSeconds: 60 } },
      log: (line: string) => logged.push(line),
      viewer,
    } as unknown as Parameters<typeof tableStats>[0];
    const asPublished = () => ({ ...pkg, revision: { ...revision } }) as unknown as Published;
    await keepStats(hub, revision);
    expect(saved).toHaveLength(1);
    expect(saved[0]?.tables.map((each) => each.table)).toEqual(['clash', 'ids']);
    expect(saved[0]?.failed).toEqual([
      { table: 'broken', reason: expect.stringMatching(/parquet/i) as string, hub: version() },
    ]);
    expect(logged.filter((line) => line.includes('"broken"'))).toHaveLength(1);
    // Asked for on every view of the table: not computed again, nothing more logged or saved.
    expect(await tableStats(hub, asPublished(), 'broken')).toBeUndefined();
    await keepStats(hub, revision, undefined, 'broken');
    expect(await tableStats(hub, asPublished(), 'broken')).toBeUndefined();
    expect(saved).toHaveLength(1);
    expect(logged.filter((line) => line.includes('"broken"'))).toHaveLength(1);
    expect((await tableStats(hub, asPublished(), 'ids'))?.rows).toBe(201);
    // A hub of another version tries it again (and fails again, as the file is still broken).
    const stats = JSON.parse(revision.stats ?? '{}') as RevisionStats;
    revision.stats = JSON.stringify({
      ...stats,
      failed: stats.failed?.map((each) => ({ ...each, hub: '0.0.1' })),
    });
    await keepStats(hub, revision, undefined, 'broken');
    expect(saved).toHaveLength(2);
    expect(saved[1]?.failed).toEqual([
      expect.objectContaining({ table: 'broken', hub: version() }),
    ]);
    expect(saved[1]?.tables.map((each) => each.table)).toEqual(['clash', 'ids']);
  });

  it('count distinct values exactly in a table of up to EXACT_ROWS, never more than there are', async () => {
    const { tables } = await revisionStats(viewer, pkg, undefined, 60, ['ids']);
    const of = (name: string) => tables[0]?.columns.find((column) => column.name === name);
    expect(of('id')).toMatchObject({ distinct: 201, missing: 0 });
    expect(of('id')?.approximate).toBeUndefined();
    expect(of('empty')).toMatchObject({ distinct: 0, missing: 201 });
    // An estimate, as a larger table has, is marked as one on the page.
    const column = { name: 'id', type: 'integer', missing: 0, distinct: 1234 };
    expect(statsHtml(column)).toContain('0 missing · 1,234 distinct');
    expect(statsHtml({ ...column, approximate: true })).toContain('0 missing · ≈1,200 distinct');
  });

  it('bin an integer column between whole numbers', async () => {
    const { tables } = await revisionStats(viewer, pkg, undefined, 60, ['ids']);
    const amount = tables[0]?.columns.find((column) => column.name === 'amount');
    const bins = amount?.histogram ?? [];
    expect(amount?.type).toBe('integer');
    expect(bins.length).toBe(20);
    for (const bin of bins) {
      expect(Number.isInteger(bin.from), String(bin.from)).toBe(true);
      expect(Number.isInteger(bin.to), String(bin.to)).toBe(true);
    }
    expect(bins[0]?.from).toBe(amount?.min);
    expect(bins.at(-1)?.to).toBe(50_000);
    expect(bins.reduce((sum, bin) => sum + bin.count, 0)).toBe(201);
    // Each bin begins after the one before ends.
    for (const [index, bin] of bins.slice(1).entries())
      expect(bin.from).toBe(Number(bins[index]?.to) + 1);
  });

  it('bin dates over a short span by whole days, datetimes by whole seconds', async () => {
    // Three days, and five seconds and a half, of 300 rows.
    const files = join(folder, 'files');
    const instance = await DuckDBInstance.create(':memory:');
    const connection = await instance.connect();
    await connection.run(
      `COPY (SELECT DATE '2020-01-01' + CAST(i % 3 AS INTEGER) AS day,
         TIMESTAMP '2020-01-01 10:00:00' + to_milliseconds(CAST((i * 37) % 5500 AS BIGINT)) AS at
       FROM range(300) t(i)) TO '${join(files, 'span.parquet')}' (FORMAT parquet)`,
    );
    connection.closeSync();
    instance.closeSync();
    const span = {
      ...pkg,
      descriptor: { name: 'span', resources: [table('span')] },
      prefix: 'packages/u/span/1/',
      files: { 'data/span.parquet': 'span.parquet' },
    } as unknown as Published;
    const { tables } = await revisionStats(viewer, span, undefined, 60);
    const of = (name: string) => tables[0]?.columns.find((column) => column.name === name);
    expect(of('day')?.histogram).toEqual([
      { from: '2020-01-01', to: '2020-01-01', count: 100 },
      { from: '2020-01-02', to: '2020-01-02', count: 100 },
      { from: '2020-01-03', to: '2020-01-03', count: 100 },
    ]);
    const bins = of('at')?.histogram ?? [];
    expect(bins.map((bin) => [bin.from, bin.to])).toEqual([
      ['2020-01-01T10:00:00', '2020-01-01T10:00:01'],
      ['2020-01-01T10:00:01', '2020-01-01T10:00:02'],
      ['2020-01-01T10:00:02', '2020-01-01T10:00:03'],
      ['2020-01-01T10:00:03', '2020-01-01T10:00:04'],
      ['2020-01-01T10:00:04', '2020-01-01T10:00:05'],
      ['2020-01-01T10:00:05', of('at')?.max],
    ]);
    expect(bins.reduce((sum, bin) => sum + bin.count, 0)).toBe(300);
  });
});

describe('the engine’s fair share', () => {
  it('gives each client one question running and one waiting, and small tables a lane first', async () => {
    const engine = new DuckEngine(
      { ...DEFAULT_VIEWER, queries: 1, queued: 16 },
      join(folder, 'fair-spill'),
      [`${folder}/`],
    );
    try {
      // Slow questions, held until the test lets them go: no timing.
      let release: () => void = () => undefined;
      const gate = new Promise<void>((resolve) => (release = resolve));
      const slow = () => gate.then(() => 'slow');
      const outcome = (promise: Promise<string>) =>
        promise.then(
          (answer) => answer,
          (error: unknown) => (error instanceof ViewerBusy ? 'busy' : String(error)),
        );
      // One client looping deep sorts of a large table: 20 at once.
      const greedy = Array.from({ length: 20 }, () =>
        outcome(engine.run(slow, undefined, 60, { key: 'address:10.0.0.1' })),
      );
      // Others' questions of the large table wait their turn; none is refused for the greedy one.
      const others = Array.from({ length: 10 }, (_, index) =>
        outcome(engine.run(slow, undefined, 60, { key: `address:10.0.1.${String(index)}` })),
      );
      // A small table's question runs at once, in its own lane, while the others still wait.
      const small = await outcome(
        engine.run(() => Promise.resolve('small'), undefined, 60, {
          key: 'address:10.0.2.1',
          small: true,
        }),
      );
      expect(small).toBe('small');
      release();
      const greedyAnswers = await Promise.all(greedy);
      expect(greedyAnswers.filter((answer) => answer === 'slow')).toHaveLength(PER_CLIENT);
      expect(greedyAnswers.filter((answer) => answer === 'busy')).toHaveLength(20 - PER_CLIENT);
      expect(await Promise.all(others)).toEqual(new Array(10).fill('slow'));
      // Its share back once its questions are answered.
      expect(
        await outcome(
          engine.run(() => Promise.resolve('again'), undefined, 60, { key: 'address:10.0.0.1' }),
        ),
      ).toBe('again');
    } finally {
      await engine.stop();
    }
  });
});
