import type { ResourceDescriptor, SchemaDescriptor, StandardVersion } from '../descriptor/types.js';
import { compileField } from '../schema/field.js';
import { tupleKey } from '../schema/keys.js';
import { INVALID } from '../schema/types/index.js';
import { inlineRecords } from './inline.js';
import { readTable, type ReadOptions } from './read.js';
import { resolveDialect } from './dialect.js';
import { LookupKeys } from './lookup-keys.js';
import { isCommentRow } from './table-validator.js';

/** Reads a referenced resource once and keeps only the key tuples of the named fields. */
export async function collectKeys(
  resource: ResourceDescriptor,
  schema: SchemaDescriptor,
  fieldNames: readonly string[],
  version: StandardVersion,
  read: Omit<ReadOptions, 'hashes'>,
  keyMemory: number,
): Promise<LookupKeys> {
  const indexes = fieldNames.map((name) => schema.fields.findIndex((field) => field.name === name));
  const fields = indexes.map((index) =>
    compileField(schema.fields[index] ?? { name: '' }, schema, version),
  );
  const keys = new LookupKeys(keyMemory);
  const layout = resolveDialect(
    typeof resource.dialect === 'object' ? resource.dialect : undefined,
    '',
    ',',
  ).layout;
  const headerEnd = layout.headerRows.length > 0 ? Math.max(...layout.headerRows) : 0;
  let rowNumber = 0;
  let contentRows = 0;
  const sink = {
    open: true,
    record(cells: readonly unknown[], sheetRow?: number): void {
      rowNumber = sheetRow ?? rowNumber + 1;
      if (isCommentRow(layout, rowNumber, cells)) return;
      if (++contentRows <= headerEnd) return;
      const values = fields.map((field, position) => {
        const raw = cells[indexes[position] ?? -1];
        if (
          raw === undefined ||
          raw === null ||
          (typeof raw === 'string' && field.missing.has(raw))
        )
          return null;
        return field.cast(raw);
      });
      if (values.includes(INVALID) || values.every((value) => value === null)) return;
      keys.add(tupleKey(values));
    },
  };
  if (resource.data !== undefined) {
    const records = inlineRecords(resource.data);
    if (typeof records !== 'string') for (const record of records) sink.record(record);
    return keys;
  }
  await readTable({ ...read, hashes: [] }, sink);
  return keys;
}
