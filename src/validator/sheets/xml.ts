import type { Readable } from 'node:stream';
import { SaxesParser } from 'saxes';
import { SourceFailure } from '../location.js';

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
      parser.write(chunk);
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
