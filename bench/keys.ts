/**
 * Unique and primary-key checks on 1, 10 and 20 million rows: rows per second and memory
 * per key, each next to the same table validated with no keys. Memory per key is the peak
 * resident memory over the keyless run's, divided by the rows.
 */
import { spawnSync } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { mkdir, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

const SIZES = (process.env.ROWS ?? '1000000,10000000,20000000').split(',').map(Number);
const FIELDS = [
  { name: 'id', type: 'integer' },
  { name: 'code', type: 'string' },
  { name: 'batch', type: 'integer' },
  { name: 'item', type: 'string' },
];

/** A 16-character code unique to the row, in no order, as real identifiers are. */
function code(id: number): string {
  const mixed = Math.imul(id ^ 0x5bd1e995, 0x27d4eb2d) >>> 0;
  return `k${id.toString(36).padStart(6, '0')}${mixed.toString(16).padStart(9, '0')}`;
}

async function writeTable(rows: number): Promise<string> {
  const dir = `.bench/keys-${String(rows)}`;
  const csv = join(dir, 'data.csv');
  if (await stat(csv).catch(() => undefined)) return dir;
  await mkdir(dir, { recursive: true });
  const out = createWriteStream(`${csv}.part`);
  out.write('id,code,batch,item\n');
  for (let start = 1; start <= rows; start += 10_000) {
    let text = '';
    for (let id = start; id < start + 10_000 && id <= rows; id++)
      text += `${String(id)},${code(id)},${String(id % 1000)},i${String(Math.floor(id / 1000))}\n`;
    if (!out.write(text)) await new Promise<void>((resolve) => out.once('drain', () => resolve()));
  }
  await new Promise<void>((resolve, reject) =>
    out.end((error?: Error | null) => (error ? reject(error) : resolve())),
  );
  const { rename } = await import('node:fs/promises');
  await rename(`${csv}.part`, csv);
  return dir;
}

const KINDS: Record<string, Record<string, unknown>> = {
  'no keys': {},
  'integer key': { primaryKey: ['id'] },
  'integer key, also unique': { primaryKey: ['id'], uniqueColumn: 'id' },
  'string key (16 bytes)': { primaryKey: ['code'] },
  'composite key (int, string)': { primaryKey: ['batch', 'item'] },
};

/** The string key again: in one pass, and with a key memory of 256 MB, split and not. */
const VARIANTS: { label: string; mode: string; keyMemoryMb?: number }[] = [
  { label: 'string key, one pass', mode: 'validate-one' },
  { label: 'string key, key memory 256', mode: 'validate', keyMemoryMb: 256 },
  { label: 'string key, 256, one pass', mode: 'validate-one', keyMemoryMb: 256 },
];

async function measure(
  dir: string,
  kind: string,
  mode = 'validate',
  keyMemoryMb?: number,
): Promise<{ seconds: number; maxRssMB: number }> {
  const { uniqueColumn, ...keys } = KINDS[kind] ?? {};
  const fields = FIELDS.map((field) =>
    field.name === uniqueColumn ? { ...field, constraints: { unique: true } } : field,
  );
  await writeFile(
    join(dir, 'datapackage.json'),
    JSON.stringify({
      name: 'keys',
      resources: [{ name: 'data', path: 'data.csv', schema: { fields, ...keys } }],
    }),
  );
  const child = spawnSync(process.execPath, ['bench/measure.ts', mode, dir], {
    encoding: 'utf8',
    env: { ...process.env, ...(keyMemoryMb ? { KEY_MEMORY_MB: String(keyMemoryMb) } : {}) },
  });
  if (child.status !== 0) throw new Error(child.stderr);
  return JSON.parse(child.stdout) as { seconds: number; maxRssMB: number };
}

for (const rows of SIZES) {
  const dir = await writeTable(rows);
  console.log(
    `\n${rows.toLocaleString('en-US')} rows (${((await stat(join(dir, 'data.csv'))).size / 1024 / 1024).toFixed(0)} MB)`,
  );
  let base: { seconds: number; maxRssMB: number } | undefined;
  for (const kind of Object.keys(KINDS)) {
    const result = await measure(dir, kind);
    base ??= result;
    const perRow = ((result.maxRssMB - base.maxRssMB) * 1024 * 1024) / rows;
    console.log(
      `  ${kind.padEnd(28)} ${(rows / result.seconds / 1e6).toFixed(2)} M rows/s, ${result.seconds.toFixed(1)} s, peak ${result.maxRssMB.toFixed(0)} MB` +
        (kind === 'no keys' ? '' : `, ${perRow.toFixed(1)} bytes a row over no keys`),
    );
  }
  for (const variant of VARIANTS) {
    const result = await measure(dir, 'string key (16 bytes)', variant.mode, variant.keyMemoryMb);
    console.log(
      `  ${variant.label.padEnd(28)} ${(rows / result.seconds / 1e6).toFixed(2)} M rows/s, ${result.seconds.toFixed(1)} s, peak ${result.maxRssMB.toFixed(0)} MB`,
    );
  }
}
