import {
  createReadStream,
  createWriteStream,
  existsSync,
  mkdirSync,
  readFileSync,
  writeFileSync,
} from 'node:fs';
import { mkdir, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createInterface } from 'node:readline';

const CATEGORIES = ['books', 'games', 'music', 'garden', 'tools'];
const NAMES = ['Ada', 'Alan', 'Grace', 'Edsger', 'Barbara', 'Ken', 'Dennis', 'Margaret'];

/** One row's values; deterministic so that every run measures the same bytes. */
export function rowValues(id: number): [number, string, string, string, string, string, string] {
  const day = `20${String(10 + (id % 15))}-${String(1 + (id % 12)).padStart(2, '0')}-${String(1 + (id % 28)).padStart(2, '0')}`;
  const amount = ((id * 7919) % 1_000_000) / 100;
  const name = `${NAMES[id % NAMES.length] ?? ''} ${String(id % 977)}`;
  const note = `order ${String(id)}, shipped, ${CATEGORIES[id % 3] ?? ''}`;
  const active = id % 2 === 0 ? 'true' : 'false';
  return [id, name, day, amount.toFixed(2), active, CATEGORIES[id % CATEGORIES.length] ?? '', note];
}

function row(id: number): string {
  const values = rowValues(id);
  return `${values.slice(0, 6).join(',')},"${values[6]}"\n`;
}

export const SCHEMA = {
  fields: [
    { name: 'id', type: 'integer' },
    { name: 'name', type: 'string' },
    { name: 'day', type: 'date' },
    { name: 'amount', type: 'number', constraints: { minimum: 0 } },
    { name: 'active', type: 'boolean' },
    { name: 'category', type: 'string', constraints: { enum: CATEGORIES } },
    { name: 'note', type: 'string' },
  ],
};

/** Writes a package of `rows` rows under `dir` unless it is already there. */
export async function generatePackage(
  dir: string,
  rows: number,
  primaryKey: boolean,
): Promise<string> {
  const csv = join(dir, 'data.csv');
  const done = await stat(join(dir, 'datapackage.json')).catch(() => undefined);
  if (done) return csv;
  await mkdir(dir, { recursive: true });
  const out = createWriteStream(csv);
  out.write('id,name,day,amount,active,category,note\n');
  const batch = 10_000;
  for (let start = 1; start <= rows; start += batch) {
    let text = '';
    for (let id = start; id < start + batch && id <= rows; id++) text += row(id);
    if (!out.write(text)) await new Promise<void>((resolve) => out.once('drain', () => resolve()));
  }
  await new Promise<void>((resolve, reject) =>
    out.end((error?: Error | null) => (error ? reject(error) : resolve())),
  );
  const schema = primaryKey ? { ...SCHEMA, primaryKey: ['id'] } : SCHEMA;
  const descriptor = { name: 'bench', resources: [{ name: 'data', path: 'data.csv', schema }] };
  await writeFile(join(dir, 'datapackage.json'), JSON.stringify(descriptor, null, 2));
  return csv;
}

/**
 * The second version of a package of `rows` rows at `a`, written at `b` unless there: every
 * 100th row changed, every 200th removed, and as many new rows at the end.
 */
export async function changedCopy(a: string, b: string, rows: number): Promise<void> {
  if (existsSync(join(b, 'datapackage.json'))) return;
  mkdirSync(b, { recursive: true });
  const out = createWriteStream(join(b, 'data.csv'));
  const lines = createInterface({ input: createReadStream(join(a, 'data.csv')) });
  let index = 0;
  for await (const line of lines) {
    index++;
    if (index === 1) {
      out.write(`${line}\n`);
      continue;
    }
    if (index % 200 === 0) continue;
    if (index % 100 === 1) {
      const cells = line.split(',');
      cells[3] = (Number(cells[3]) + 1).toFixed(2);
      out.write(`${cells.join(',')}\n`);
    } else out.write(`${line}\n`);
  }
  for (let id = rows + 1; id <= rows + rows / 200; id++)
    out.write(`${String(id)},New ${String(id)},2024-01-01,1.00,true,books,"new row"\n`);
  await new Promise<void>((resolve) => out.end(() => resolve()));
  writeFileSync(join(b, 'datapackage.json'), readFileSync(join(a, 'datapackage.json')));
}
