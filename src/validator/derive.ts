import { closeSync, openSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { rowWriter, type RowFormat } from '../files/row-formats.js';
import type { ResourceDescriptor } from './descriptor/types.js';
import { locate, readText, type Fetch } from './location.js';
import { asList } from './descriptor/rules.js';
import { isRemote } from './descriptor/paths.js';
import { isTable } from './resource.js';
import { asWritten, readRows } from './rows.js';

/** The copies of one table in the normal forms: where they were written, and their rows. */
export interface DerivedTable {
  /** The resource's position in `resources`. */
  index: number;
  name: string;
  csv: string;
  json: string;
  rows: number;
}

const FLUSH_BYTES = 256 * 1024;

/**
 * Text written to a file in large pieces, synchronously: this runs in a worker thread of its
 * own, where a blocking write holds up nothing else and keeps memory flat however fast rows
 * come (an asynchronous stream would buffer them while the disk catches up).
 */
class FileText {
  private readonly fd: number;
  private pending: string[] = [];
  private size = 0;

  constructor(path: string) {
    this.fd = openSync(path, 'wx');
  }

  write(text: string): void {
    if (text === '') return;
    this.pending.push(text);
    this.size += text.length;
    if (this.size >= FLUSH_BYTES) this.flush();
  }

  private flush(): void {
    if (this.pending.length === 0) return;
    writeSync(this.fd, this.pending.join(''));
    this.pending = [];
    this.size = 0;
  }

  close(): void {
    this.flush();
    closeSync(this.fd);
  }
}

/** The labels a copy uses: the schema's field names, else the header's, else field1… */
function namesFor(resource: ResourceDescriptor, header: string[], width: number): string[] {
  const fields = (resource.schema as { fields?: { name?: unknown }[] } | undefined)?.fields ?? [];
  const names = fields.map((field) => String(field.name));
  if (names.length > 0) return names;
  if (header.length > 0) return header;
  return Array.from({ length: width }, (_, i) => `field${String(i + 1)}`);
}

/**
 * Writes every table of a valid package again, streamed, as CSV in one normal form (UTF-8,
 * comma, double quote, \n, a header row) and as JSON (an array of objects, values typed by
 * the schema, dates and times in ISO 8601, missing values null), whatever the source's
 * encoding, dialect or spreadsheet format.
 */
export async function deriveTables(
  resources: ResourceDescriptor[],
  dir: string,
  outDir: string,
  fetch: Fetch,
): Promise<DerivedTable[]> {
  const derived: DerivedTable[] = [];
  for (const [index, declared] of resources.entries()) {
    // Tables whose bytes the package holds: remote ones are read where they are.
    const paths = asList(declared.path);
    if (!isTable(declared) || typeof declared.name !== 'string') continue;
    if (declared.data === undefined && (paths.length === 0 || paths.some(isRemote))) continue;
    const files = {
      csv: join(outDir, `${String(index)}.csv`),
      json: join(outDir, `${String(index)}.json`),
    };
    try {
      const resource = await withSchema(declared, dir, fetch);
      const rows = await writeCopies(resource, dir, files, fetch);
      derived.push({ index, name: declared.name, ...files, rows });
    } catch {
      // The package is valid: a table whose copies cannot be written is published without
      // them (a schema by reference gone since, say), not failed.
      rmSync(files.csv, { force: true });
      rmSync(files.json, { force: true });
    }
  }
  return derived;
}

/** The resource with its schema in place of a reference to one (a path or URL). */
async function withSchema(
  resource: ResourceDescriptor,
  dir: string,
  fetch: Fetch,
): Promise<ResourceDescriptor> {
  if (typeof resource.schema !== 'string') return resource;
  const schema = JSON.parse(await readText(locate(resource.schema, { dir }), fetch)) as unknown;
  return { ...resource, schema: schema as ResourceDescriptor['schema'] };
}

async function writeCopies(
  resource: ResourceDescriptor,
  dir: string,
  files: { csv: string; json: string },
  fetch: Fetch,
): Promise<number> {
  const outputs = (['csv', 'json'] as RowFormat[]).map((format) => ({
    writer: rowWriter(format),
    file: new FileText(format === 'csv' ? files.csv : files.json),
  }));
  let header: string[] = [];
  let started = false;
  let rows = 0;
  const begin = (width: number): void => {
    if (started) return;
    started = true;
    const names = namesFor(resource, header, width);
    for (const output of outputs) output.file.write(output.writer.start(names));
  };
  try {
    await readRows(
      resource,
      { dir },
      { fetch, typed: true, isoDates: true },
      {
        labels: (found) => (header = found),
        row: (values, cells) => {
          begin(values.length);
          rows++;
          // The CSV copy keeps each cell as written, so that the table's schema (formats,
          // missing values, decimal marks) still describes it; the JSON copy holds values.
          outputs[0]?.file.write(outputs[0].writer.row(cells.map(asWritten)));
          outputs[1]?.file.write(outputs[1].writer.row(values));
        },
        open: true,
      },
    );
    begin(0);
    for (const output of outputs) output.file.write(output.writer.end());
  } finally {
    for (const output of outputs) output.file.close();
  }
  return rows;
}
