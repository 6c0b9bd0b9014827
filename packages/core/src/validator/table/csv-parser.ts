/**
 * A streaming CSV parser tuned for validation: it takes decoded text in chunks of any
 * size and calls back once per record with the raw cells. Unquoted fields are sliced
 * straight from the chunk, so the common case allocates one string per cell; with a span
 * handler, a record that lies whole in one chunk, with nothing doubled or escaped, is
 * handed on as where its cells lie in that chunk, and allocates nothing.
 */
export interface CsvOptions {
  delimiter: string;
  quoteChar: string | null;
  doubleQuote: boolean;
  escapeChar: string | null;
  skipInitialSpace: boolean;
}

export type RecordHandler = (cells: string[]) => void;

/**
 * A record given as where its cells lie in `text`: cell k is `text.slice(bounds[2k],
 * bounds[2k + 1])`. `bounds` is the parser's own and is rewritten by the next record.
 */
export type SpanHandler = (text: string, bounds: Int32Array, count: number) => void;

/** The cells of a record given as spans. */
export function spanCells(text: string, bounds: Int32Array, count: number): string[] {
  const cells = new Array<string>(count);
  for (let k = 0; k < count; k++) cells[k] = text.slice(bounds[2 * k], bounds[2 * k + 1]);
  return cells;
}

const LF = 10;
const CR = 13;
const SPACE = 32;

const enum State {
  FieldStart,
  Unquoted,
  Quoted,
  QuoteInQuoted,
  EscapeInUnquoted,
  EscapeInQuoted,
  AfterCarriageReturn,
}

export class CsvParser {
  private cells: string[] = [];
  private buffer = '';
  private state = State.FieldStart;
  private readonly delimiter: number;
  private readonly quote: number;
  private readonly quoteText: string;
  private readonly escape: number;
  /**
   * The cells of the current record read by `fields` and not yet made strings: none once
   * `push` returns (`afterFields` makes strings of them).
   */
  private bounds = new Int32Array(64);
  private spans = 0;

  constructor(
    private readonly options: CsvOptions,
    private readonly onRecord: RecordHandler,
    private readonly onSpans?: SpanHandler,
  ) {
    this.delimiter = options.delimiter.charCodeAt(0);
    this.quote = options.quoteChar ? options.quoteChar.charCodeAt(0) : -1;
    this.quoteText = options.quoteChar ?? '';
    this.escape = options.escapeChar ? options.escapeChar.charCodeAt(0) : -1;
  }

  push(text: string): void {
    const length = text.length;
    let i = 0;
    while (i < length) {
      switch (this.state) {
        case State.FieldStart:
          i =
            this.cells.length > 0
              ? this.fieldInRecord(text, i)
              : this.afterFields(text, this.fields(text, i));
          break;
        case State.Unquoted:
          i = this.unquoted(text, i);
          break;
        case State.Quoted:
          i = this.quoted(text, i);
          break;
        case State.QuoteInQuoted:
          i = this.quoteInQuoted(text, i);
          break;
        case State.EscapeInUnquoted:
          this.buffer += text.charAt(i);
          this.state = State.Unquoted;
          i++;
          break;
        case State.EscapeInQuoted:
          this.buffer += text.charAt(i);
          this.state = State.Quoted;
          i++;
          break;
        case State.AfterCarriageReturn:
          if (text.charCodeAt(i) === LF) i++;
          this.state = State.FieldStart;
          break;
      }
    }
  }

  /** True between records: the text pushed so far ended a record, inside no quoted field. */
  atRecordStart(): boolean {
    return this.state === State.FieldStart && this.cells.length === 0 && this.buffer === '';
  }

  /** Flushes the last record when the text does not end with a line break. */
  end(): void {
    if (this.state === State.FieldStart) {
      if (this.cells.length > 0) this.endRecord('');
    } else if (this.state !== State.AfterCarriageReturn) {
      this.endRecord(this.buffer);
    }
    this.state = State.FieldStart;
  }

  /**
   * Reads records from a record's start until the text ends or a field needs the state
   * machine, and returns where it stopped: one loop over the characters with no state kept
   * between fields, since most fields are unquoted or quoted without doubled quotes, and end
   * within the text they started in. It changes none of the parser's state: `afterFields`
   * does, outside this loop. V8 optimizes the loop with the row checks inlined into it, and
   * code in it that first ran after that would make V8 throw that work away.
   */
  private fields(text: string, from: number): number {
    const length = text.length;
    const delimiter = this.delimiter;
    const escape = this.escape;
    const quote = this.quote;
    const skipSpace = this.options.skipInitialSpace;
    // Called at a record's start: the cells of the record read so far.
    let cells = 0;
    let i = from;
    while (i < length) {
      const code = text.charCodeAt(i);
      if (code === quote) {
        const closing = this.simpleQuotedEnd(text, i);
        if (closing < 0) return i;
        this.cell(text, i + 1, closing);
        i = closing + 1;
      } else if (code === delimiter || code === LF || code === CR) {
        // An empty field; but a line break with no field before it is an empty record.
        if (code === delimiter || cells > 0) this.cell(text, i, i);
      } else if (code === SPACE && skipSpace) {
        i++;
        continue;
      } else {
        const j = unquotedEnd(text, i, delimiter, escape);
        if (j === length || text.charCodeAt(j) === escape) return i;
        this.cell(text, i, j);
        i = j;
      }
      cells++;
      // i is at the delimiter or line break that ends the field.
      const end = text.charCodeAt(i);
      i++;
      if (end === delimiter) continue;
      cells = 0;
      this.emitFields(text);
      if (end === CR && i < length && text.charCodeAt(i) === LF) i++;
    }
    return length;
  }

  /**
   * Goes on where `fields` stopped: at the end of the text (after a carriage return, the
   * line feed may start the next), or at a field that the state machine reads, quoted or
   * not. The cells read before it become strings.
   */
  private afterFields(text: string, stop: number): number {
    this.settle(text);
    if (stop === text.length) {
      if (text.charCodeAt(stop - 1) === CR) this.state = State.AfterCarriageReturn;
      return stop;
    }
    if (text.charCodeAt(stop) === this.quote) {
      this.state = State.Quoted;
      return stop + 1;
    }
    this.state = State.Unquoted;
    return stop;
  }

  /**
   * One step at a field's start in a record the state machine began (cut by the end of a
   * text, or with a field it read): the rest of that record is read the same way.
   */
  private fieldInRecord(text: string, i: number): number {
    const code = text.charCodeAt(i);
    if (code === this.quote) {
      this.state = State.Quoted;
      return i + 1;
    }
    if (code === this.delimiter) {
      this.cells.push('');
      return i + 1;
    }
    if (code === LF || code === CR) {
      this.endRecord('');
      if (code === CR) this.state = State.AfterCarriageReturn;
      return i + 1;
    }
    if (code === SPACE && this.options.skipInitialSpace) return i + 1;
    this.state = State.Unquoted;
    return i;
  }

  /** A cell `fields` read whole from `text`: kept as a span when spans are handed on. */
  private cell(text: string, start: number, end: number): void {
    if (!this.onSpans) {
      this.cells.push(text.slice(start, end));
      return;
    }
    const at = 2 * this.spans++;
    if (at === this.bounds.length) {
      const grown = new Int32Array(2 * at);
      grown.set(this.bounds);
      this.bounds = grown;
    }
    this.bounds[at] = start;
    this.bounds[at + 1] = end;
  }

  /**
   * Makes strings of the spans kept, before the state machine, which keeps strings, goes on.
   * `fields` starts only on a record with no cells yet, so the spans are all its cells.
   */
  private settle(text: string): void {
    if (this.spans === 0) return;
    this.cells = spanCells(text, this.bounds, this.spans);
    this.spans = 0;
  }

  /** Ends a record `fields` read: as spans, when they are handed on, or as cells. */
  private emitFields(text: string): void {
    if (!this.onSpans) return this.emit();
    const count = this.spans;
    this.spans = 0;
    this.onSpans(text, this.bounds, count);
  }

  /**
   * Where the quoted field that opens at `open` closes, when its closing quote is in this
   * text, followed there by a delimiter or a line break, and nothing in it is escaped or
   * doubled; otherwise -1, and the state machine reads it.
   */
  private simpleQuotedEnd(text: string, open: number): number {
    if (this.escape >= 0) return -1;
    const closing = text.indexOf(this.quoteText, open + 1);
    if (closing < 0 || closing + 1 >= text.length) return -1;
    const next = text.charCodeAt(closing + 1);
    return next === this.delimiter || next === LF || next === CR ? closing : -1;
  }

  private unquoted(text: string, start: number): number {
    const length = text.length;
    const j = unquotedEnd(text, start, this.delimiter, this.escape);
    if (j === length) {
      this.buffer += text.slice(start);
      return length;
    }
    const code = text.charCodeAt(j);
    const value =
      this.buffer.length === 0 ? text.slice(start, j) : this.buffer + text.slice(start, j);
    this.buffer = '';
    if (code === this.escape) {
      this.buffer = value;
      this.state = State.EscapeInUnquoted;
    } else if (code === this.delimiter) {
      this.cells.push(value);
      this.state = State.FieldStart;
    } else {
      this.endRecord(value);
      this.state = code === CR ? State.AfterCarriageReturn : State.FieldStart;
    }
    return j + 1;
  }

  private quoted(text: string, start: number): number {
    if (this.escape < 0) {
      const end = text.indexOf(this.quoteText, start);
      if (end < 0) {
        this.buffer += text.slice(start);
        return text.length;
      }
      this.buffer += text.slice(start, end);
      this.state = State.QuoteInQuoted;
      return end + 1;
    }
    for (let j = start; j < text.length; j++) {
      const code = text.charCodeAt(j);
      if (code === this.quote || code === this.escape) {
        this.buffer += text.slice(start, j);
        this.state = code === this.quote ? State.QuoteInQuoted : State.EscapeInQuoted;
        return j + 1;
      }
    }
    this.buffer += text.slice(start);
    return text.length;
  }

  private quoteInQuoted(text: string, i: number): number {
    const code = text.charCodeAt(i);
    if (code === this.quote && this.options.doubleQuote) {
      this.buffer += this.quoteText;
      this.state = State.Quoted;
      return i + 1;
    }
    if (code === this.delimiter) {
      this.cells.push(this.buffer);
      this.buffer = '';
      this.state = State.FieldStart;
      return i + 1;
    }
    if (code === LF || code === CR) {
      this.endRecord(this.buffer);
      this.state = code === CR ? State.AfterCarriageReturn : State.FieldStart;
      return i + 1;
    }
    // Text after a closing quote is kept, as lenient readers do: "ab"c reads as abc.
    this.state = State.Unquoted;
    return i;
  }

  private endRecord(lastValue: string): void {
    this.cells.push(lastValue);
    this.buffer = '';
    this.emit();
  }

  private emit(): void {
    const cells = this.cells;
    this.cells = [];
    this.onRecord(cells);
  }
}

/**
 * Where an unquoted field from `start` ends: its delimiter, line break or escape, or the end
 * of the text. A plain loop over the characters: faster than indexOf, whose calls cost more
 * than the few characters most fields hold (npm run bench, "our CSV parser alone").
 */
function unquotedEnd(text: string, start: number, delimiter: number, escape: number): number {
  const length = text.length;
  let j = start;
  for (; j < length; j++) {
    const code = text.charCodeAt(j);
    if (code === delimiter || code === LF || code === CR || code === escape) break;
  }
  return j;
}

/** The first `count` records of a text in a plain dialect, for previews. */
export function firstRecords(text: string, delimiter: string, count: number): string[][] {
  const records: string[][] = [];
  const parser = new CsvParser(
    { delimiter, quoteChar: '"', doubleQuote: true, escapeChar: null, skipInitialSpace: false },
    (cells) => {
      if (records.length < count) records.push(cells);
    },
  );
  parser.push(text);
  return records;
}
