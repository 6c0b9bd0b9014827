import type { Readable } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';
import { CsvParser } from '@data/core';

/** Opens the bytes of a table's CSV copy. */
export type OpenCopy = () => Promise<Readable>;

const NORMAL_FORM = {
  delimiter: ',',
  quoteChar: '"',
  doubleQuote: true,
  escapeChar: null,
  skipInitialSpace: false,
};

/**
 * Streams the records of a table's CSV copy (the hub's normal form) to `take`, header first,
 * until it returns false: a page of rows deep in a large table is read, not held.
 */
export async function eachRecord(
  openCopy: OpenCopy,
  take: (cells: string[]) => boolean,
): Promise<void> {
  const stream = await openCopy();
  let open = true;
  const parser = new CsvParser(NORMAL_FORM, (cells) => {
    if (open) open = take(cells);
  });
  const decoder = new StringDecoder('utf8');
  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      parser.push(decoder.write(chunk));
      if (!open) break;
    }
    if (open) parser.push(decoder.end());
  } finally {
    stream.destroy();
  }
}

export interface RowsPage {
  labels: string[];
  rows: string[][];
  /** Whether rows follow this page. */
  more: boolean;
}

/** Rows `offset` to `offset + size` of a table's CSV copy. */
export async function rowsPage(
  openCopy: OpenCopy,
  offset: number,
  size: number,
): Promise<RowsPage> {
  const page: RowsPage = { labels: [], rows: [], more: false };
  let index = -1;
  await eachRecord(openCopy, (cells) => {
    if (index === -1) page.labels = cells;
    else if (index >= offset + size) {
      page.more = true;
      return false;
    } else if (index >= offset) page.rows.push(cells);
    index++;
    return true;
  });
  return page;
}
