import type { Hash } from 'node:crypto';
import { stat } from 'node:fs/promises';
import { CONTENT_WORDS, contentFormat } from '../../files/content-format.js';
import { newHash } from '../../files/hash.js';
import { isRemote } from '../../model/paths.js';
import { openBytes, SourceFailure } from '../location.js';
import { CsvParser } from './csv-parser.js';
import { fileChunks } from '../../files/chunks.js';
import type { RangeSplit } from './range-split.js';
import { checkRow, checkSpans, rowTooLong, type RowLimits } from './row-limits.js';
import { isParquet, isSpreadsheet } from '../sheets/formats.js';
import { resolveDialect } from './dialect.js';
import {
  bomOf,
  canonicalEncoding,
  ChunkDecoder,
  detectEncoding,
  EncodingFailure,
  isSupported,
  SAMPLE_BYTES,
} from './encoding.js';

import type { ReadOptions, ReadResult, RecordSink } from './read-types.js';

export type { ReadOptions, ReadResult, RecordSink } from './read-types.js';
export type { RowLimits };

/** Streams every part of a delimited table, or the chosen sheet of a workbook, into the sink. */
export async function readTable(options: ReadOptions, sink: RecordSink): Promise<ReadResult> {
  // The workbook readers (zip, XML) are loaded for workbooks only.
  if (isSpreadsheet(options.format))
    return (await import('../sheets/read.js')).readSpreadsheet(options, sink);
  if (isParquet(options.format))
    return (await import('../parquet/read.js')).readParquet(options, sink);
  const hashers = new Map<string, Hash>(options.hashes.map((name) => [name, newHash(name)]));
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
  if (state.complete)
    for (const [name, hasher] of hashers) state.digests[name] = hasher.digest('hex');
  // A read stopped early has no digest, and its size is the files' (how far it read
  // depends on where chunks ended).
  else state.bytes = (await localSize(options.locations)) ?? state.bytes;
  return state;
}

async function localSize(locations: readonly string[]): Promise<number | undefined> {
  if (locations.some(isRemote)) return undefined;
  const sizes = await Promise.all(locations.map((location) => stat(location)));
  return sizes.reduce((sum, info) => sum + info.size, 0);
}

function skipFirst(sink: RecordSink): RecordSink {
  let skipped = false;
  const spans = sink.spans;
  return {
    record: (cells) => {
      if (skipped) sink.record(cells);
      skipped = true;
    },
    spans:
      spans &&
      ((text, bounds, count) => {
        if (skipped) spans.call(sink, text, bounds, count);
        skipped = true;
      }),
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
  const split = options.split;
  const part = new PartReading(options, state, sink, hashers);
  if (!split) {
    if (!(await part.take(await openBytes(location, options.fetch, options.signal)))) return false;
    return part.end();
  }
  const { at, size } = split.plan;
  const signal = options.signal;
  if (!(await part.take(fileChunks(location, { end: at, signal }), split))) return false;
  const between = part.atRecordStart();
  if (between && split.running && hashers.size > 0) {
    // While the other worker validates the rest, this one hashes it.
    for await (const chunk of fileChunks(location, { start: at, signal }))
      for (const hasher of hashers.values()) hasher.update(chunk);
    part.hashed = false;
  }
  if (await split.join(between)) {
    state.bytes += size - at;
    return part.end();
  }
  if (!(await part.take(fileChunks(location, { start: at, signal })))) return false;
  return part.end();
}

/** One part of a table read chunk by chunk: the first chunks sampled, the rest parsed. */
class PartReading {
  private reader: PartReader | undefined;
  private readonly pending: Uint8Array[] = [];
  private pendingBytes = 0;
  private partBytes = 0;
  /** False once the rest of the part has been hashed ahead of its parsing. */
  hashed = true;

  constructor(
    private readonly options: ReadOptions,
    private readonly state: ReadResult,
    private readonly sink: RecordSink,
    private readonly hashers: Map<string, Hash>,
  ) {}

  /** Reads chunks until they end (true) or the sink closes (false). */
  async take(chunks: AsyncIterable<Uint8Array>, split?: RangeSplit): Promise<boolean> {
    const { options, state } = this;
    for await (const chunk of chunks) {
      this.partBytes += chunk.length;
      state.bytes += chunk.length;
      if (this.hashed) for (const hasher of this.hashers.values()) hasher.update(chunk);
      if (this.reader) this.reader.push(chunk);
      else {
        this.pending.push(Buffer.from(chunk));
        this.pendingBytes += chunk.length;
        if (this.pendingBytes >= SAMPLE_BYTES) await this.start(split);
      }
      options.onBytes?.(state.bytes + (options.split?.read ?? 0));
      if (!this.sink.open) return false;
    }
    if (!this.reader) await this.start(split);
    return true;
  }

  private async start(split: RangeSplit | undefined): Promise<void> {
    if (this.partBytes === 0) throw new SourceFailure('source-error', 'the source is empty');
    const sample = Buffer.concat(this.pending);
    this.pending.length = 0;
    const sink = split ? beginningAtHeader(this.sink, split, this.state) : this.sink;
    this.reader = await startPart(sample, this.options, this.state, sink);
    const { encoding, dialect } = this.state;
    if (split && encoding !== undefined && dialect) split.begin(encoding, dialect);
  }

  atRecordStart(): boolean {
    return this.reader?.atRecordStart() ?? false;
  }

  /** Flushes the last record; false when the sink closed on it. */
  end(): boolean {
    this.reader?.end();
    return this.sink.open;
  }
}

/**
 * Starts the second range as soon as the header is read, rather than after the whole first
 * chunk (half a megabyte, read while the code is still cold): the second worker waits on it.
 */
function beginningAtHeader(sink: RecordSink, split: RangeSplit, state: ReadResult): RecordSink {
  const beginOnceHeaderRead = (): void => {
    if (!split.begun && split.headerRead && state.encoding !== undefined && state.dialect)
      split.begin(state.encoding, state.dialect);
  };
  const spans = sink.spans;
  return {
    record: (cells, rowNumber) => {
      sink.record(cells, rowNumber);
      beginOnceHeaderRead();
    },
    spans:
      spans &&
      ((text, bounds, count) => {
        spans.call(sink, text, bounds, count);
        beginOnceHeaderRead();
      }),
    get open() {
      return sink.open;
    },
  };
}

interface PartReader {
  push(chunk: Uint8Array): void;
  end(): void;
  atRecordStart(): boolean;
}

async function startPart(
  sample: Uint8Array,
  options: ReadOptions,
  state: ReadResult,
  sink: RecordSink,
): Promise<PartReader> {
  // Bytes that say they are no text (a PDF, a zip, a workbook) under a text table's name.
  const content = options.encoding === undefined ? contentFormat(sample) : undefined;
  if (content && content !== 'binary' && content !== 'html')
    throw new SourceFailure(
      'format-error',
      `the data is ${CONTENT_WORDS[content]}, not delimited text`,
    );
  state.encoding ??= await chooseEncoding(sample, options.encoding);
  // NUL bytes in text of no declared encoding: a binary file (an executable, an image).
  if (options.encoding === undefined && !state.encoding.startsWith('utf-16') && sample.includes(0))
    throw new SourceFailure('format-error', 'the data is binary, not delimited text');
  const decoder = new ChunkDecoder(state.encoding);
  let text = '';
  let failure: Error | undefined;
  try {
    decoder.decode(sample, (decoded) => (text += decoded));
  } catch (error) {
    failure = error as Error;
  }
  if (/^\s*<(!doctype html|html[\s>])/i.test(text.slice(0, 1024)))
    throw new SourceFailure('format-error', 'the data is an HTML page, not a table');
  state.dialect ??= resolveDialect(options.dialect, text, options.defaultDelimiter);
  const limits = options.rowLimits;
  let rows = 0;
  let charsSinceRow = 0;
  const spans = sink.spans;
  const parser = new CsvParser(
    state.dialect.csv,
    (cells) => {
      rows++;
      if (limits) checkRow(cells, rows, limits);
      sink.record(cells);
    },
    spans &&
      ((text, bounds, count) => {
        rows++;
        if (limits) checkSpans(bounds, count, rows, limits);
        spans.call(sink, text, bounds, count);
      }),
  );
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
    atRecordStart: () => parser.atRecordStart(),
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
