/**
 * A streaming CSV parser tuned for validation: it takes decoded text in chunks of any
 * size and calls back once per record with the raw cells. Unquoted fields are sliced
 * straight from the chunk, so the common case allocates one string per cell.
 */
export interface CsvOptions {
  delimiter: string;
  quoteChar: string | null;
  doubleQuote: boolean;
  escapeChar: string | null;
  skipInitialSpace: boolean;
}

export type RecordHandler = (cells: string[]) => void;

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
  private readonly delimiterText: string;
  /** Positions of the next delimiter and line breaks in the text pushed, found with indexOf. */
  private nextDelimiter = -1;
  private nextLineFeed = -1;
  private nextCarriageReturn = -1;

  constructor(
    private readonly options: CsvOptions,
    private readonly onRecord: RecordHandler,
  ) {
    this.delimiter = options.delimiter.charCodeAt(0);
    this.quote = options.quoteChar ? options.quoteChar.charCodeAt(0) : -1;
    this.quoteText = options.quoteChar ?? '';
    this.escape = options.escapeChar ? options.escapeChar.charCodeAt(0) : -1;
    this.delimiterText = options.delimiter.charAt(0);
  }

  push(text: string): void {
    // Positions found in the previous text say nothing of this one, even when the two are
    // equal strings (a file of repeated rows gives equal chunks).
    this.nextDelimiter = this.nextLineFeed = this.nextCarriageReturn = -1;
    const length = text.length;
    let i = 0;
    while (i < length) {
      switch (this.state) {
        case State.FieldStart:
          i = this.fieldStart(text, i);
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

  private fieldStart(text: string, i: number): number {
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
      if (this.cells.length > 0) this.endRecord('');
      else this.emit();
      if (code === CR) this.state = State.AfterCarriageReturn;
      return i + 1;
    }
    if (code === SPACE && this.options.skipInitialSpace) return i + 1;
    // Read on at once: most fields start here and are unquoted.
    this.state = State.Unquoted;
    return this.unquoted(text, i);
  }

  private unquoted(text: string, start: number): number {
    const length = text.length;
    let j: number;
    if (this.escape < 0) j = this.fieldEnd(text, start);
    else {
      const delimiter = this.delimiter;
      const escape = this.escape;
      for (j = start; j < length; j++) {
        const code = text.charCodeAt(j);
        if (code === delimiter || code === LF || code === CR || code === escape) break;
      }
    }
    const code = j < length ? text.charCodeAt(j) : 0;
    if (j === length) {
      this.buffer += text.slice(start);
      return length;
    }
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

  /** Where an unquoted field that starts at `start` ends, found with indexOf rather than a char loop. */
  private fieldEnd(text: string, start: number): number {
    const none = text.length;
    if (this.nextDelimiter < start)
      this.nextDelimiter = positionOrEnd(text, this.delimiterText, start);
    if (this.nextLineFeed < start) this.nextLineFeed = positionOrEnd(text, '\n', start);
    if (this.nextCarriageReturn < start && this.nextCarriageReturn !== none) {
      this.nextCarriageReturn = positionOrEnd(text, '\r', start);
    }
    return Math.min(this.nextDelimiter, this.nextLineFeed, this.nextCarriageReturn);
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

function positionOrEnd(text: string, search: string, start: number): number {
  const found = text.indexOf(search, start);
  return found < 0 ? text.length : found;
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
