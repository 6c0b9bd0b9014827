import { closeSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { encodeSide, type EncodeSpec } from '../../packages/core/src/diff/encode.js';
import { joinPart, JoinTotals, type JoinPlan } from '../../packages/core/src/diff/join.js';
import { encodeInWorker } from '../../packages/core/src/diff/rows.js';
import type { ResourceDescriptor } from '../../packages/core/src/validator/descriptor/types.js';
import { folder, pricesSchema } from '../helpers/fixtures.js';

const resource: ResourceDescriptor = {
  name: 'prices',
  path: 'prices.csv',
  schema: pricesSchema(),
};

function table(rows: number, price: (id: number) => string): string {
  const dir = folder({});
  const lines = ['id,price'];
  for (let id = 1; id <= rows; id++) lines.push(`${String(id)},${price(id)}`);
  writeFileSync(join(dir, 'prices.csv'), `${lines.join('\n')}\n`);
  return dir;
}

const spec: EncodeSpec = {
  resource,
  columns: ['id', 'price'],
  key: ['id'],
  asWritten: true,
  parts: 4,
};
const plan: JoinPlan = {
  keyed: true,
  columns: ['id', 'price'],
  keyAt: [0],
  asWritten: true,
  a: { resource, columns: ['id', 'price'] },
  b: { resource, columns: ['id', 'price'] },
  limit: 2,
};
const local = (dir: string) => ({
  base: { dir },
  fetch: () => Promise.reject(new Error('local')),
});

describe('a table diff in parts', () => {
  it('writes a side in a worker thread and matches parts there as in this thread', async () => {
    const a = table(10_000, (id) => `${String(id)}.5`);
    // Every 10th price changed; every 7th written otherwise but the same number.
    const b = table(10_000, (id) =>
      id % 10 === 0 ? `${String(id)}.25` : id % 7 === 0 ? `${String(id)}.50` : `${String(id)}.5`,
    );
    const worker = await encodeInWorker(spec, a, undefined);
    expect(worker?.encoded.rows).toBe(10_000);
    const here = await encodeSide(spec, local(b));
    const inWorker = worker?.encoded.fds ?? [];
    try {
      const parts = inWorker.map((fd, part) => [fd, here.fds[part] ?? -1] as [number, number]);
      const found = await worker?.join(plan, parts.slice(0, 2));
      const totals = new JoinTotals(plan);
      for (const [fdA, fdB] of parts.slice(2)) joinPart(fdA, fdB, totals);
      if (!found) throw new Error('the worker did not match its parts');
      expect(found.counts.changed).toBeGreaterThan(0);
      totals.merge(found);
      expect(totals.rows(['id'])).toEqual({
        added: 0,
        removed: 0,
        changed: 1_000,
        unchanged: 9_000,
        key: ['id'],
      });
      expect(totals.samples().changed).toEqual([
        { key: { id: 10 }, cells: { price: { from: 10.5, to: 10.25 } } },
        { key: { id: 20 }, cells: { price: { from: 20.5, to: 20.25 } } },
      ]);
    } finally {
      worker?.end();
      for (const fd of [...inWorker, ...here.fds]) closeSync(fd);
    }
  });

  it('falls back to this thread, which tells the error, when the worker cannot read the side', async () => {
    const missing = folder({});
    expect(await encodeInWorker(spec, missing, undefined)).toBeUndefined();
    await expect(encodeSide(spec, local(missing))).rejects.toThrow(/prices\.csv/);
  });
});
