/**
 * A 100 MB .xlsx workbook validated next to the same rows as CSV, in one run: time and peak
 * resident memory of each. The workbook is written as Excel writes one: text in the shared
 * string table (a unique note on every row), dates as serial numbers under a date style.
 */
import { spawnSync } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { mkdir, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { finished } from 'node:stream/promises';
import yazl from 'yazl';
import { generatePackage, rowValues, SCHEMA } from './generate.ts';

const MB = 1024 * 1024;
const ROWS = Number(process.env.ROWS ?? 3_000_000);
const RUNS = Number(process.env.RUNS ?? 3);
const DIR = `.bench/workbook-${String(ROWS)}`;

function escape(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** Days from Excel's day zero (1899-12-30) to an ISO date. */
function serial(day: string): number {
  return Date.parse(`${day}T00:00:00Z`) / 86_400_000 + 25_569;
}

/** The shared strings first (every text of every row, in order), then the sheet pointing at them. */
function* sharedStrings(): Generator<string> {
  yield `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<sst xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main">`;
  yield ['id', 'name', 'day', 'amount', 'active', 'category', 'note']
    .map((label) => `<si><t>${label}</t></si>`)
    .join('');
  let chunk = '';
  for (let id = 1; id <= ROWS; id++) {
    const [, name, , , , category, note] = rowValues(id);
    chunk += `<si><t>${escape(name)}</t></si><si><t>${escape(category)}</t></si><si><t>${escape(note)}</t></si>`;
    if (chunk.length > 1 << 16) {
      yield chunk;
      chunk = '';
    }
  }
  yield `${chunk}</sst>`;
}

function* sheet(): Generator<string> {
  yield `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData>`;
  yield `<row r="1">${[0, 1, 2, 3, 4, 5, 6].map((index) => `<c t="s"><v>${String(index)}</v></c>`).join('')}</row>`;
  let chunk = '';
  for (let id = 1; id <= ROWS; id++) {
    const [, , day, amount, active] = rowValues(id);
    const text = 7 + (id - 1) * 3;
    chunk += `<row r="${String(id + 1)}"><c><v>${String(id)}</v></c><c t="s"><v>${String(text)}</v></c><c s="1"><v>${String(serial(day))}</v></c><c><v>${amount}</v></c><c t="b"><v>${active === 'true' ? '1' : '0'}</v></c><c t="s"><v>${String(text + 1)}</v></c><c t="s"><v>${String(text + 2)}</v></c></row>`;
    if (chunk.length > 1 << 16) {
      yield chunk;
      chunk = '';
    }
  }
  yield `${chunk}</sheetData></worksheet>`;
}

const PARTS: Record<string, string> = {
  '[Content_Types].xml': `<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/><Override PartName="/xl/worksheets/sheet1.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/><Override PartName="/xl/sharedStrings.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sharedStrings+xml"/><Override PartName="/xl/styles.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.styles+xml"/></Types>`,
  '_rels/.rels': `<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="xl/workbook.xml"/></Relationships>`,
  'xl/workbook.xml': `<?xml version="1.0" encoding="UTF-8"?><workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><sheets><sheet name="data" sheetId="1" r:id="rId1"/></sheets></workbook>`,
  'xl/_rels/workbook.xml.rels': `<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" Target="worksheets/sheet1.xml"/><Relationship Id="rId2" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/sharedStrings" Target="sharedStrings.xml"/><Relationship Id="rId3" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/styles" Target="styles.xml"/></Relationships>`,
  'xl/styles.xml': `<?xml version="1.0" encoding="UTF-8"?><styleSheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><cellXfs count="2"><xf numFmtId="0"/><xf numFmtId="14"/></cellXfs></styleSheet>`,
};

async function writeWorkbook(): Promise<string> {
  const path = join(DIR, 'data.xlsx');
  if (await stat(join(DIR, 'datapackage.json')).catch(() => undefined)) return path;
  await mkdir(DIR, { recursive: true });
  const zip = new yazl.ZipFile();
  for (const [name, text] of Object.entries(PARTS)) zip.addBuffer(Buffer.from(text), name);
  zip.addReadStream(Readable.from(sharedStrings()), 'xl/sharedStrings.xml');
  zip.addReadStream(Readable.from(sheet()), 'xl/worksheets/sheet1.xml');
  zip.end();
  const out = zip.outputStream.pipe(createWriteStream(path));
  await finished(out);
  const descriptor = {
    name: 'workbook',
    resources: [{ name: 'data', path: 'data.xlsx', schema: SCHEMA }],
  };
  await writeFile(join(DIR, 'datapackage.json'), JSON.stringify(descriptor, null, 2));
  return path;
}

interface Measure {
  rows: number;
  seconds: number;
  maxRssMB: number;
}

function measure(dir: string): Measure {
  const child = spawnSync(process.execPath, ['bench/measure.ts', 'validate', dir], {
    encoding: 'utf8',
  });
  if (child.status !== 0) throw new Error(child.stderr);
  return JSON.parse(child.stdout) as Measure;
}

function spread(values: number[], digits: number): string {
  const sorted = [...values].sort((a, b) => a - b);
  const median = sorted[Math.floor(sorted.length / 2)] ?? 0;
  return `${median.toFixed(digits)} (${(sorted[0] ?? 0).toFixed(digits)}–${(sorted.at(-1) ?? 0).toFixed(digits)})`;
}

const workbook = await writeWorkbook();
const csv = await generatePackage(`.bench/workbook-csv-${String(ROWS)}`, ROWS, false);
const sizes = { xlsx: (await stat(workbook)).size, csv: (await stat(csv)).size };
console.log(
  `${ROWS.toLocaleString('en-US')} rows of 7 columns; median (min–max) of ${String(RUNS)} runs each, alternating`,
);
const results: Record<'xlsx' | 'csv', Measure[]> = { xlsx: [], csv: [] };
for (let run = 0; run < RUNS; run++) {
  results.xlsx.push(measure(DIR));
  results.csv.push(measure(`.bench/workbook-csv-${String(ROWS)}`));
}
for (const kind of ['xlsx', 'csv'] as const) {
  const runs = results[kind];
  if (runs.some((each) => each.rows !== ROWS)) throw new Error(`${kind}: not every row was read`);
  console.log(
    `${kind.padEnd(4)} ${(sizes[kind] / MB).toFixed(0).padStart(4)} MB: ${spread(
      runs.map((each) => each.seconds),
      1,
    )} s, ` +
      `${spread(
        runs.map((each) => ROWS / each.seconds / 1000),
        0,
      )} k rows/s, peak RSS ${spread(
        runs.map((each) => each.maxRssMB),
        0,
      )} MB`,
  );
}
