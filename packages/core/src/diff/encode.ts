/**
 * One side of a table diff written to disk in parts by the hash of each row's key, so that
 * the two sides can then be matched one part at a time in bounded memory (join.ts). Each
 * record is the row's place in its table, its key and its values as JSON text.
 */
import type { ResourceDescriptor } from '../validator/descriptor/types.js';
import type { Base, Fetch } from '../validator/location.js';
import { comparableCasts, readRows } from '../validator/rows.js';
import { stringHash } from '../validator/table/key-tables.js';
import { SpillFiles } from '../validator/table/spill.js';
import { READ_REPORT_BYTES } from './progress.js';
import { canonical, castingOf, schemaOf } from './schema.js';

/** How one side's rows are written: everything it takes crosses to a worker thread. */
export interface EncodeSpec {
  resource: ResourceDescriptor;
  /** The fields compared, by their name on this side; undefined: every column, by its label. */
  columns: string[] | undefined;
  /** The key's fields by their name on this side, or undefined to match whole rows. */
  key: string[] | undefined;
  /**
   * Values written as the cells are (cast only when two rows' texts differ): both sides
   * are delimited text whose compared fields cast alike, so equal cells are equal values.
   */
  asWritten: boolean;
  parts: number;
}

export interface EncodedSide {
  /** Each part's open file, to read with readPart. */
  fds: number[];
  rows: number;
  /** The table's header labels. */
  labels: string[];
}

/** A row's values as text to compare: JSON, key order made canonical only where objects are. */
export function rowText(values: readonly unknown[]): string {
  for (const value of values)
    if (typeof value === 'object' && value !== null) return canonical(values);
  return JSON.stringify(values);
}

/** One value as key text: JSON, its key order made canonical where it is an object. */
function valueText(value: unknown): string {
  return typeof value === 'object' && value !== null ? canonical(value) : JSON.stringify(value);
}

/**
 * The part a key of this hash goes to, the same on both sides: by the high bits of the hash
 * mixed again, so that within a part the low bits still spread keys over a table's slots.
 */
export function partOf(hash: number, parts: number): number {
  return Math.floor(((Math.imul(hash, 0x9e3779b1) >>> 0) / 2 ** 32) * parts);
}

export const RECORD_HEADER = 16;

/** An integer as JSON writes it, which is its own key text: no cast needed. */
const PLAIN_INTEGER = /^(?:0|-?[1-9]\d{0,14})$/;
/**
 * A single integer key field cast as plain integers are: a cell written as JSON writes it is
 * its own key text (the cast and writing again took a tenth of a diff's reading).
 */
function plainIntegerKey(
  resource: ResourceDescriptor,
  key: string[] | undefined,
): Set<string> | undefined {
  const schema = schemaOf(resource);
  const field = key?.length === 1 ? schema?.fields.find((each) => each.name === key[0]) : undefined;
  const casting = field && Object.keys(castingOf(field));
  if (
    field?.type !== 'integer' ||
    casting?.some((property) => property !== 'type' && property !== 'format')
  )
    return undefined;
  return new Set(
    (schema?.missingValues ?? ['']).map((value) =>
      typeof value === 'string' ? value : value.value,
    ),
  );
}

/** Record layout: place (float64), the key's hash and length in bytes (uint32), key, values. */
function writer(order: number, hash: number, key: string, text: string) {
  return (buffer: Buffer, at: number): number => {
    buffer.writeDoubleLE(order, at);
    buffer.writeUInt32LE(hash, at + 8);
    const keyBytes = buffer.write(key, at + RECORD_HEADER);
    buffer.writeUInt32LE(keyBytes, at + 12);
    return RECORD_HEADER + keyBytes + buffer.write(text, at + RECORD_HEADER + keyBytes);
  };
}

export interface EncodeOptions {
  signal?: AbortSignal | undefined;
  /** Files opened by the thread that will read them (which then closes them, whatever happens here). */
  fds?: number[] | undefined;
  /** Told the rows and bytes read so far, every READ_REPORT_BYTES. */
  onRead?: ((rows: number, read: number) => void) | undefined;
}

/** Writes one side's rows to its parts: files of its own, or `options.fds`. */
export async function encodeSide(
  spec: EncodeSpec,
  source: { base: Base; fetch: Fetch },
  options: EncodeOptions = {},
): Promise<EncodedSide> {
  const { signal, fds, onRead } = options;
  const { resource } = spec;
  const schema = schemaOf(resource);
  const names = schema?.fields.map((field) => field.name);
  const casts = schema ? comparableCasts(schema) : [];
  const files = new SpillFiles(fds ?? spec.parts);
  let positions: number[] = [];
  let keyAt: number[] | undefined;
  /** Whether the columns compared are the table's own, in its order. */
  let inOrder = false;
  let rows = 0;
  let header: string[] = [];
  let reported = 0;
  const onBytes =
    onRead &&
    ((read: number) => {
      if (read - reported < READ_REPORT_BYTES) return;
      reported = read;
      onRead(rows, read);
    });
  const missing = plainIntegerKey(resource, spec.key);
  const typed = (values: readonly unknown[], at: readonly number[]) =>
    at.map((position) => {
      const cell = position < 0 ? null : (values[position] ?? null);
      const cast = casts[position];
      return cast ? cast(cell) : cell;
    });
  try {
    await readRows(
      resource,
      source.base,
      { fetch: source.fetch, signal, typed: false, onBytes },
      {
        labels: (labels) => {
          const fields = names ?? labels;
          header = labels;
          positions =
            spec.columns?.map((name) => fields.indexOf(name)) ?? labels.map((_, at) => at);
          keyAt = spec.key?.map((name) => fields.indexOf(name));
          inOrder = positions.every((position, index) => position === index);
        },
        row: (values) => {
          let key: string;
          let text: string;
          if (!keyAt) {
            // Whole rows are the key: typed, so that 1.0 and 1 are the same row.
            key = rowText(typed(values, positions));
            text = '';
          } else {
            const cell = values[keyAt[0] ?? -1];
            if (
              missing &&
              typeof cell === 'string' &&
              PLAIN_INTEGER.test(cell) &&
              !missing.has(cell)
            )
              key = cell;
            else {
              const keyValues = typed(values, keyAt);
              key = keyValues.length === 1 ? valueText(keyValues[0]) : rowText(keyValues);
            }
            text = !spec.asWritten
              ? rowText(typed(values, positions))
              : inOrder && values.length === positions.length
                ? JSON.stringify(values)
                : JSON.stringify(positions.map((at) => (at < 0 ? null : (values[at] ?? null))));
          }
          const hash = stringHash(key);
          files.appendWith(
            partOf(hash, spec.parts),
            RECORD_HEADER + 3 * (key.length + text.length),
            writer(rows++, hash, key, text),
          );
        },
        open: true,
      },
    );
    return { fds: files.detach(), rows, labels: header };
  } catch (error) {
    if (!fds) files.remove();
    throw error;
  }
}
