/**
 * A table diff tells how far it is as events: rows read on both sides (from this thread and
 * from the worker thread that reads a large local side), then parts matched, with the share
 * of the whole diff done rising to 1. The progress line renders them.
 */
import { closeSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import type { EncodeSpec } from '../../packages/core/src/diff/encode.js';
import type { EncodeWorkerProgress } from '../../packages/core/src/diff/encode-worker.js';
import type { JoinPlan } from '../../packages/core/src/diff/join.js';
import { diffPackages, type DiffEvent, type DiffSide } from '../../packages/core/src/diff/index.js';
import { READ_REPORT_BYTES, READING_SHARE } from '../../packages/core/src/diff/progress.js';
import { encodeInWorker, WORKER_BYTES } from '../../packages/core/src/diff/rows.js';
import { folderSide } from '../../packages/core/src/diff/side.js';
import type { ResourceDescriptor } from '../../packages/core/src/validator/descriptor/types.js';
import { diffProgress } from '../../packages/cli/src/output/diff-progress.js';
import { folder } from '../helpers/fixtures.js';

const resource: ResourceDescriptor = {
  name: 'prices',
  path: 'prices.csv',
  schema: {
    fields: [
      { name: 'id', type: 'integer' },
      { name: 'price', type: 'number' },
      { name: 'note', type: 'string' },
    ],
    primaryKey: ['id'],
  },
};

/** A package of `rows` rows, each about 40 bytes; every 10th price differs when `changed`. */
function table(rows: number, changed = false): string {
  const dir = folder({ 'datapackage.json': { name: 'p', resources: [resource] } });
  const lines = ['id,price,note'];
  for (let id = 1; id <= rows; id++)
    lines.push(
      `${String(id)},${changed && id % 10 === 0 ? '2.5' : '1.5'},row number ${String(id)} of the table`,
    );
  writeFileSync(join(dir, 'prices.csv'), `${lines.join('\n')}\n`);
  return dir;
}

async function diffEvents(a: string, b: string): Promise<DiffEvent[]> {
  const events: DiffEvent[] = [];
  const sideA = folderSide(a, { resources: [resource] }, a);
  const sideB = folderSide(b, { resources: [resource] }, b);
  const diff = await diffPackages(sideA, sideB, {
    limit: 1,
    // Small parts, so that several are matched.
    memory: 2 * 1024 * 1024,
    onProgress: (event) => events.push(event),
  });
  expect(diff.resources[0]?.rows).toMatchObject({ changed: expect.any(Number) as number });
  return events;
}

type RowsEvent = Extract<DiffEvent, { type: 'rows' }>;

/** Rows and shares never go back; the share ends at 1 with every row of both sides read. */
function expectRising(events: DiffEvent[], rows: number): RowsEvent[] {
  expect(events[0]).toEqual({ type: 'table', name: 'prices', index: 0, total: 1 });
  const counts = events.filter((event): event is RowsEvent => event.type === 'rows');
  for (const [at, event] of counts.entries()) {
    const before = counts[at - 1];
    if (!before) continue;
    expect(event.rows).toBeGreaterThanOrEqual(before.rows);
    expect(event.share ?? 0).toBeGreaterThanOrEqual(before.share ?? 0);
  }
  expect(counts.at(-1)).toMatchObject({ phase: 'matching', rows, share: 1 });
  // Reading ends at its share of the work, before any part is matched.
  const lastRead = counts.filter((event) => event.phase === 'reading').at(-1);
  expect(lastRead).toMatchObject({ rows });
  expect(lastRead?.share).toBeCloseTo(READING_SHARE);
  return counts;
}

describe('a table diff reports its progress', () => {
  it('counts the rows read on both sides, then the parts matched, up to the whole', async () => {
    // About 2.5 MB a side: read in this thread, and told more than once on the way.
    const rows = 60_000;
    const events = await diffEvents(table(rows), table(rows, true));
    const counts = expectRising(events, 2 * rows);
    const reading = counts.filter((event) => event.phase === 'reading');
    expect(reading.some((event) => event.rows > 0 && event.rows < 2 * rows)).toBe(true);
    expect(counts.filter((event) => event.phase === 'matching').length).toBeGreaterThan(1);
  });

  it('counts what the worker thread reading a large side reads and matches', async () => {
    const rows = 250_000;
    const large = table(rows);
    expect(statSync(join(large, 'prices.csv')).size).toBeGreaterThan(WORKER_BYTES);
    const events = await diffEvents(large, table(1_000, true));
    const counts = expectRising(events, rows + 1_000);
    const reading = counts.filter((event) => event.phase === 'reading');
    // The worker's side told as it goes, not only once read whole.
    expect(
      reading.filter((event) => event.rows > 1_000 && event.rows < rows).length,
    ).toBeGreaterThan(2);
  });

  it.each([
    ['the length its server declares', true],
    ['no share, when its server declares no length', false],
  ])('gives a hub table of unknown size %s', async (_what, declared) => {
    const dir = table(60_000);
    const text = readFileSync(join(dir, 'prices.csv'));
    const hub: DiffSide = {
      label: 'ada/prices',
      // Published without `bytes`.
      descriptor: { resources: [resource] },
      base: { url: 'http://hub.test/ada/prices/datapackage.json' },
      fetch: () =>
        Promise.resolve(
          new Response(text, {
            headers: declared ? { 'content-length': String(text.length) } : {},
          }),
        ),
    };
    const events: DiffEvent[] = [];
    await diffPackages(folderSide(dir, { resources: [resource] }, dir), hub, {
      limit: 1,
      onProgress: (event) => events.push(event),
    });
    const shares = events.flatMap((event) => (event.type === 'rows' ? [event.share] : []));
    expect(shares.at(-1)).toBe(declared ? 1 : undefined);
    if (declared) expectRising(events, 120_000);
  });

  it('has the worker thread post its rows read and each part it matches', async () => {
    const dir = table(120_000);
    const spec: EncodeSpec = {
      resource,
      columns: ['id', 'price', 'note'],
      key: ['id'],
      asWritten: true,
      parts: 4,
    };
    const heard: EncodeWorkerProgress[] = [];
    const worker = await encodeInWorker(spec, dir, undefined, (message) => heard.push(message));
    if (!worker) throw new Error('the worker did not read the side');
    const fds = worker.encoded.fds;
    try {
      const read = heard.filter((message) => message.type === 'read');
      // About 4 MB: told every READ_REPORT_BYTES, rows rising.
      expect(read.length).toBeGreaterThanOrEqual(3);
      for (const [at, message] of read.entries()) {
        expect(message.read).toBeGreaterThanOrEqual((at + 1) * READ_REPORT_BYTES);
        expect(message.rows).toBeGreaterThan(at === 0 ? 0 : (read[at - 1]?.rows ?? 0));
        expect(message.rows).toBeLessThan(120_000);
      }
      const plan: JoinPlan = {
        keyed: true,
        columns: spec.columns ?? [],
        keyAt: [0],
        asWritten: true,
        a: { resource, columns: spec.columns ?? [] },
        b: { resource, columns: spec.columns ?? [] },
        limit: 1,
      };
      heard.length = 0;
      const found = await worker.join(plan, [
        [fds[0] ?? -1, fds[0] ?? -1],
        [fds[1] ?? -1, fds[1] ?? -1],
      ]);
      expect(found?.counts.removed).toBe(0);
      expect(heard).toEqual([{ type: 'matched' }, { type: 'matched' }]);
    } finally {
      worker.end();
      for (const fd of fds) closeSync(fd);
    }
  });
});

/**
 * A diff of a and b stopped as Ctrl-C stops it (the signal aborted with 'SIGINT') at the
 * first progress event `stopAt` accepts, at once or, as a signal is, from the event loop
 * once the code running has let it go: what it ended with, and any rejection left unhandled.
 */
async function diffStopped(
  a: string,
  b: string,
  stopAt: (event: DiffEvent) => boolean,
  delivered: 'at once' | 'from the event loop' = 'at once',
): Promise<{ ended: unknown; unhandled: unknown[] }> {
  const controller = new AbortController();
  const unhandled: unknown[] = [];
  const heard = (reason: unknown) => unhandled.push(reason);
  process.on('unhandledRejection', heard);
  try {
    const ended = await diffPackages(
      folderSide(a, { resources: [resource] }, a),
      folderSide(b, { resources: [resource] }, b),
      {
        limit: 1,
        memory: 2 * 1024 * 1024,
        signal: controller.signal,
        onProgress: (event) => {
          if (!stopAt(event)) return;
          if (delivered === 'at once') controller.abort('SIGINT');
          else setImmediate(() => controller.abort('SIGINT'));
        },
      },
    ).then(
      () => 'finished',
      (error: unknown) => error,
    );
    // Node tells of an unhandled rejection once the microtasks after it have run.
    await new Promise((resolve) => setImmediate(resolve));
    return { ended, unhandled };
  } finally {
    process.off('unhandledRejection', heard);
  }
}

describe('Ctrl-C while a diff matches its parts', () => {
  it('stops it with the interruption, the answer of the worker thread handled', async () => {
    // Side a is read in a worker thread, which then matches half of the parts.
    const a = table(250_000);
    expect(statSync(join(a, 'prices.csv')).size).toBeGreaterThan(WORKER_BYTES);
    const stopped = await diffStopped(
      a,
      table(1_000, true),
      (event) => event.type === 'rows' && event.phase === 'matching',
    );
    expect(stopped).toEqual({ ended: 'SIGINT', unhandled: [] });
  });

  it('stops it when typed during the last part, rather than finishing', async () => {
    // The signal comes from the event loop once the last part is matched, behind what
    // finishes the diff (in a terminal, the worker thread's answer came first).
    const stopped = await diffStopped(
      table(60_000),
      table(60_000, true),
      (event) => event.type === 'rows' && event.share === 1,
      'from the event loop',
    );
    expect(stopped).toEqual({ ended: 'SIGINT', unhandled: [] });
  });
});

describe('the progress line of a diff', () => {
  it('shows the table, the share done, the rows read, their rate and the time left', () => {
    let now = 0;
    vi.spyOn(performance, 'now').mockImplementation(() => now);
    const lines: string[] = [];
    const show = diffProgress('comparing a with b', (line) => lines.push(line));
    show({ type: 'table', name: 'prices', index: 1, total: 3 });
    show({ type: 'rows', name: 'prices', phase: 'reading', rows: 1, share: 0.01 });
    now = 2_000;
    show({ type: 'rows', name: 'prices', phase: 'reading', rows: 1_000_000, share: 0.5 });
    now = 3_000;
    show({ type: 'rows', name: 'prices', phase: 'matching', rows: 2_000_000, share: 0.8 });
    show({ type: 'rows', name: 'prices', phase: 'matching', rows: 2_000_000, share: undefined });
    expect(lines).toEqual([
      'comparing a with b: prices (2/3)',
      // The first half second gives no rate.
      'comparing a with b: prices (2/3) · 1% · 1 row read',
      'comparing a with b: prices (2/3) · 50% · 1,000,000 rows read · 500,000 rows/s · 2 s left',
      'comparing a with b: prices (2/3) · 80% · 2,000,000 rows read · matching · 1 s left',
      // A side of unknown size: no share, no time left.
      'comparing a with b: prices (2/3) · 2,000,000 rows read · matching',
    ]);
  });

  it('shows a table name as text, never as terminal codes', () => {
    const lines: string[] = [];
    diffProgress('comparing', (line) => lines.push(line))({
      type: 'table',
      name: 'x\u001b[2Jy',
      index: 0,
      total: 1,
    });
    expect(lines[0]).not.toContain('\u001b');
  });
});
