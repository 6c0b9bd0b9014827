import { createHash, type Hash } from 'node:crypto';
import type { DialectDescriptor } from '../descriptor/types.js';
import { openBytes, SourceFailure, type Fetch } from '../location.js';
import { CsvParser } from './csv-parser.js';
import { checkRow, rowTooLong, type RowLimits } from './row-limits.js';
import { isSpreadsheet, readSpreadsheet } from '../sheets/read.js';
import { resolveDialect, type ResolvedDialect } from './dialect.js';
import {
  bomOf,
  canonicalEncoding,
  ChunkDecoder,
  detectEncoding,
  EncodingFailure,
  isSupported,
  SAMPLE_BYTES,
} from './encoding.js';

export interface RecordSink {
  /** A record of the table; `rowNumber` is given where rows can be left out (a sheet's empty rows). */
  record(cells: readonly unknown[], rowNumber?: number): void;
  readonly open: boolean;
}

export interface ReadOptions {
  locations: readonly string[];
  encoding: string | undefined;
  dialect: DialectDescriptor | undefined;
  defaultDelimiter: string | undefined;
  /** The resource's format: workbooks (xlsx, xls, ods) are read as sheets, not text. */
  format?: string | undefined;
  hashes: readonly string[];
  fetch: Fetch;
  signal?: AbortSignal | undefined;
  /** Past these, reading stops with a source error (the hub sets them; the CLI does not). */
  rowLimits?: RowLimits | undefined;
  /** Called after each chunk with the bytes read so far. */
  onBytes?: ((read: number) => void) | undefined;
}

export interface ReadResult {
  bytes: number;
  digests: Record<string, string>;
  encoding: string | undefined;
  dialect: ResolvedDialect | undefined;
  /** False when the sink stopped the read early. */
  complete: boolean;
}

export type { RowLimits };

/** Streams every part of a delimited table, or the chosen sheet of a workbook, into the sink. */
export async function readTable(options: ReadOptions, sink: RecordSink): Promise<ReadResult> {
  if (isSpreadsheet(options.format)) return readSpreadsheet(options, sink);
  const hashers = new Map<string, Hash>(options.hashes.map((name) => [name, createHash(name)]));
  const state: ReadResult = {
    bytes: 0,
    digests: {},
    encoding: undefined,
    dialect: undefined,
    complete: true,
  };
  for (const [part, location] of options.locations.entries()) {
    const handler =
      part > 0 && (state.dialect?.layout.headerRows.length ?? 0) > 0 ? skipFirst(sink) : sink;
    const finished = await readPart(location, options, state, handler, hashers);
    if (!finished) {
      state.complete = false;
      break;
    }
  }
  for (const [name, hasher] of hashers) state.digests[name] = hasher.digest('hex');
  return state;
}

function skipFirst(sink: RecordSink): RecordSink {
  let skipped = false;
  return {
    record: (cells) => {
      if (skipped) sink.record(cells);
      skipped = true;
    },
    get open() {
      return sink.open;
    },
  };
}

async function readPart(
  location: string,
  options: ReadOptions,
  state: ReadResult,
  sink: RecordSink,
  hashers: Map<string, Hash>,
): Promise<boolean> {
  const stream = await openBytes(location, options.fetch, options.signal);
  const pending: Uint8Array[] = [];
  let pendingBytes = 0;
  let partBytes = 0;
  let reader: PartReader | undefined;
  for await (const chunk of stream) {
    partBytes += chunk.length;
    state.bytes += chunk.length;
    for (const hasher of hashers.values()) hasher.update(chunk);
    if (reader) reader.push(chunk);
    else {
      pending.push(Buffer.from(chunk));
      pendingBytes += chunk.length;
      if (pendingBytes >= SAMPLE_BYTES)
        reader = await startPart(Buffer.concat(pending), options, state, sink);
    }
    options.onBytes?.(state.bytes);
    if (!sink.open) return false;
  }
  if (partBytes === 0) throw new SourceFailure('source-error', 'the source is empty');
  reader ??= await startPart(Buffer.concat(pending), options, state, sink);
  reader.end();
  return sink.open;
}

interface PartReader {
  push(chunk: Uint8Array): void;
  end(): void;
}

async function startPart(
  sample: Uint8Array,
  options: ReadOptions,
  state: ReadResult,
  sink: RecordSink,
): Promise<PartReader> {
  state.encoding ??= await chooseEncoding(sample, options.encoding);
  // NUL bytes in text of no declared encoding: a binary file (an executable, an image).
  if (options.encoding === undefined && !state.encoding.startsWith('utf-16') && sample.includes(0))
    throw new SourceFailure('format-error', 'the data is binary, not delimited text');
  const decoder = new ChunkDecoder(state.encoding);
  let text = '';
  let failure: Error | undefined;
  try {
    decoder.decode(sample, (decoded) => (text = decoded));
  } catch (error) {
    failure = error as Error;
  }
  if (/^\s*<(!doctype html|html[\s>])/i.test(text.slice(0, 1024)))
    throw new SourceFailure('format-error', 'the data is an HTML page, not a table');
  state.dialect ??= resolveDialect(options.dialect, text, options.defaultDelimiter);
  const limits = options.rowLimits;
  let rows = 0;
  let charsSinceRow = 0;
  const parser = new CsvParser(state.dialect.csv, (cells) => {
    rows++;
    if (limits) checkRow(cells, rows, limits);
    sink.record(cells);
  });
  // Checked per decoded chunk, out of the parser's loop: a row that has not ended after
  // the limit stops the read before it can take the memory it would need.
  const push = (decoded: string): void => {
    const before = rows;
    parser.push(decoded);
    if (!limits) return;
    charsSinceRow = rows > before ? 0 : charsSinceRow + decoded.length;
    if (charsSinceRow > limits.maxRowChars) throw rowTooLong(rows + 1, limits);
  };
  push(text);
  if (failure) throw failure;
  return {
    push: (chunk) => {
      decoder.decode(chunk, push);
    },
    end: () => {
      decoder.finish(push);
      parser.end();
    },
  };
}

async function chooseEncoding(sample: Uint8Array, declared: string | undefined): Promise<string> {
  if (declared !== undefined) {
    if (!isSupported(declared))
      throw new EncodingFailure(`encoding "${declared}" is not supported`, 0);
    return canonicalEncoding(declared);
  }
  return bomOf(sample)?.encoding ?? (await detectEncoding(sample.subarray(0, SAMPLE_BYTES)));
}
