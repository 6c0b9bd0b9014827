/** The second range's side of a two-worker validation: see ranges.ts. */
import { fileChunks } from '../../files/chunks.js';
import { TaskCollector } from '../report/task.js';
import { compileField } from '../schema/field.js';
import { CsvParser, type CsvOptions, type SpanHandler } from './csv-parser.js';
import { ChunkDecoder } from './encoding.js';
import { checkRow, checkSpans, rowTooLong, type RowLimits } from './row-limits.js';
import { rangeLayout, type RangeRequest, type RangeResult } from './ranges.js';
import { rowsLeft, TableValidator, type ErrorPlace } from './table-validator.js';

interface RangeSource {
  location: string;
  start: number;
  end: number;
  encoding: string;
  csv: CsvOptions;
  rowLimits?: RowLimits;
}

/**
 * Parses a byte range that starts at a record, handing each record on until `onRecord`
 * (or `onSpans`, given a record as spans: see CsvParser) returns false. The chunks are
 * copied by nothing: each is decoded before the next read.
 */
export async function readRangeRecords(
  source: RangeSource,
  onRecord: (cells: string[]) => boolean,
  onBytes?: (read: number) => void,
  onSpans?: (...record: Parameters<SpanHandler>) => boolean,
): Promise<void> {
  let going = true;
  const limits = source.rowLimits;
  let records = 0;
  let charsSinceRecord = 0;
  const parser = new CsvParser(
    source.csv,
    (cells) => {
      records++;
      if (limits) checkRow(cells, records, limits);
      if (going) going = onRecord(cells);
    },
    onSpans &&
      ((text, bounds, count) => {
        records++;
        if (limits) checkSpans(bounds, count, records, limits);
        if (going) going = onSpans(text, bounds, count);
      }),
  );
  const decoder = new ChunkDecoder(source.encoding);
  // As one pass checks them (read.ts); a row past them fails this range, and the first
  // range, reading on alone, reports it with its row number.
  const push = (text: string): void => {
    const before = records;
    parser.push(text);
    if (!limits) return;
    charsSinceRecord = records > before ? 0 : charsSinceRecord + text.length;
    if (charsSinceRecord > limits.maxRowChars) throw rowTooLong(records + 1, limits);
  };
  let read = 0;
  for await (const chunk of fileChunks(source.location, {
    start: source.start,
    end: source.end,
  })) {
    decoder.decode(chunk, push);
    read += chunk.length;
    onBytes?.(read);
    if (!going) return;
  }
  decoder.finish(push);
  parser.end();
}

/** Validates the rows of the second range against the header the first range read. */
export async function validateRange(
  request: RangeRequest,
  onBytes: (read: number) => void,
  stopped: () => boolean = () => false,
): Promise<RangeResult> {
  const collector = new TaskCollector('', 'table', '', request.limits);
  const places: ErrorPlace[] = [];
  const schema = request.schema;
  const fields = schema.fields.map((field) => compileField(field, schema, request.version));
  const keys = { primaryKey: request.primaryKey, uniqueKeys: request.uniqueKeys, foreignKeys: [] };
  const validator = new TableValidator(
    fields,
    rangeLayout(request.commentChar),
    keys,
    request.fieldsMatch,
    collector,
    request.keyMemory,
    undefined,
    places,
  );
  validator.adoptHeader(request.map);
  let rowsExpected = false;
  const bytesRead = (read: number): void => {
    if (!rowsExpected && validator.rowNumber > 0) {
      rowsExpected = true;
      validator.expectRows(rowsLeft(validator.rowNumber, read, request.end - request.start));
    }
    onBytes(read);
  };
  try {
    const goOn = (): boolean => collector.open && !stopped();
    await readRangeRecords(
      request,
      (cells) => {
        validator.record(cells);
        return goOn();
      },
      bytesRead,
      (text, bounds, count) => {
        validator.spans(text, bounds, count);
        return goOn();
      },
    );
    return {
      ok: true,
      records: validator.rowNumber,
      rows: validator.rows,
      errors: collector.errors,
      places,
      keyBytes: validator.keyUsage().inMemory,
      keys: validator.trackers.map((tracker) => tracker.dump()),
    };
  } catch (error) {
    // Bad bytes, keys too many for memory: the first range's validator reads on alone and
    // finds the same, as one pass does.
    return { ok: false, reason: error instanceof Error ? error.message : String(error) };
  } finally {
    validator.discard();
  }
}
