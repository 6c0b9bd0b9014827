import type { Readable } from 'node:stream';
import { SaxesParser } from 'saxes';
import { SourceFailure } from '../location.js';
import { cellTooLong, MAX_CELL_CHARS } from './workbook.js';

/** Deeper than any workbook part nests (a sheet's cell text is about six elements down). */
const MAX_XML_DEPTH = 256;

/** More attributes than any element of a workbook has. */
const MAX_XML_ATTRIBUTES = 1024;

/** What saxes holds of an element or text not yet finished: its own fields, not in its types. */
interface PendingXml {
  text: string;
  name: string;
  entity: string;
  tags: unknown[];
  attribList: unknown[];
}

/**
 * Refuses a part whose text (or name, or entity) runs on past a cell's limit, or whose
 * elements nest or take attributes past any workbook's, before saxes holds more of it: a
 * compressed run of blanks inflates to more than a string can hold.
 */
function checkPending(parser: SaxesParser): void {
  const pending = parser as unknown as PendingXml;
  if (
    pending.text.length > MAX_CELL_CHARS ||
    pending.name.length > MAX_CELL_CHARS ||
    pending.entity.length > MAX_CELL_CHARS
  )
    throw cellTooLong();
  if (pending.tags.length > MAX_XML_DEPTH)
    throw new SourceFailure(
      'format-error',
      `the workbook nests elements more than ${String(MAX_XML_DEPTH)} deep, deeper than a workbook does`,
    );
  if (pending.attribList.length > MAX_XML_ATTRIBUTES)
    throw new SourceFailure(
      'format-error',
      `an element of the workbook has more than ${String(MAX_XML_ATTRIBUTES)} attributes, more than a workbook's do`,
    );
}

export interface XmlHandlers {
  /** Element names come without their namespace prefix; attribute names keep theirs. */
  open?: (name: string, attributes: Record<string, string>, selfClosing: boolean) => void;
  close?: (name: string) => void;
  text?: (text: string) => void;
}

function localName(name: string): string {
  const colon = name.indexOf(':');
  return colon < 0 ? name : name.slice(colon + 1);
}

/** How much of a part saxes is given at once, so that what it holds is checked as it grows. */
const XML_SLICE = 64 * 1024;

/**
 * Reads an XML part of a workbook as a stream of events, never the whole part at once.
 * Returns false when `stop` asked to end early.
 */
export async function walkXml(
  stream: Readable,
  handlers: XmlHandlers,
  stop: () => boolean = () => false,
): Promise<boolean> {
  const parser = new SaxesParser({ position: false, xmlns: false });
  const { open, close, text } = handlers;
  if (open)
    parser.on('opentag', (tag) => {
      open(localName(tag.name), tag.attributes, tag.isSelfClosing);
    });
  if (close)
    parser.on('closetag', (tag) => {
      close(localName(tag.name));
    });
  if (text) {
    parser.on('text', text);
    parser.on('cdata', text);
  }
  stream.setEncoding('utf8');
  try {
    for await (const chunk of stream as AsyncIterable<string>) {
      for (let at = 0; at < chunk.length; at += XML_SLICE) {
        parser.write(chunk.slice(at, at + XML_SLICE));
        checkPending(parser);
      }
      if (stop()) {
        stream.destroy();
        return false;
      }
    }
    parser.close();
  } catch (error) {
    stream.destroy();
    throw damaged(error);
  }
  return true;
}

/**
 * Malformed XML (saxes throws plain errors) and broken compressed data (zlib's coded errors)
 * are findings about the workbook; anything else goes on as it is.
 */
export function damaged(error: unknown): Error {
  if (!(error instanceof Error)) return new Error(String(error));
  if (error instanceof SourceFailure) return error;
  const code = (error as Error & { code?: unknown }).code;
  const zlib = typeof code === 'string' && code.startsWith('Z_');
  if (error.constructor !== Error && !zlib) return error;
  return new SourceFailure('format-error', `the workbook is damaged: ${error.message}`);
}
