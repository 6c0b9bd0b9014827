import { describe, expect, it } from 'vitest';
import {
  ChunkedDecoder,
  framing,
  keepsAlive,
  parseHead,
  ProtocolError,
} from '../../packages/core/src/http/http1-parse.js';

function decodeInPieces(encoded: string, cut: number[]): { body: string; used: number } {
  const bytes = Buffer.from(encoded, 'latin1');
  const decoder = new ChunkedDecoder();
  const parts: Buffer[] = [];
  let used = 0;
  let from = 0;
  for (const to of [...cut, bytes.length]) {
    if (decoder.done) break;
    used += decoder.feed(bytes.subarray(from, to), (data) => parts.push(Buffer.from(data)));
    from = to;
  }
  expect(decoder.done).toBe(true);
  return { body: Buffer.concat(parts).toString('latin1'), used };
}

describe('the head of an answer', () => {
  it('reads the status, the version and the fields, joining repeated ones', () => {
    const head = parseHead(
      'HTTP/1.1 206 Partial Content\r\nContent-Range: bytes 5-9/10\r\nVary: a\r\nvary:  b \r\nX-Empty:',
    );
    expect(head.status).toBe(206);
    expect(head.minor).toBe(1);
    expect(head.headers.get('content-range')).toBe('bytes 5-9/10');
    expect(head.headers.get('vary')).toBe('a, b');
    expect(head.headers.get('x-empty')).toBe('');
  });

  it('takes a status line without a reason phrase, and HTTP/1.0', () => {
    expect(parseHead('HTTP/1.0 200').minor).toBe(0);
    expect(parseHead('HTTP/1.1 404 ').status).toBe(404);
  });

  it.each([
    ['a status line of another protocol', 'HTTP/2 200 OK'],
    ['a status of two digits', 'HTTP/1.1 20 OK'],
    ['a folded field', 'HTTP/1.1 200 OK\r\nX-A: one\r\n two'],
    ['a field without a colon', 'HTTP/1.1 200 OK\r\nX-A one'],
    ['a space before the colon', 'HTTP/1.1 200 OK\r\nX-A : one'],
  ])('refuses %s', (_, text) => {
    expect(() => parseHead(text)).toThrow(ProtocolError);
  });
});

describe('how the body ends', () => {
  const head = (status: number, fields: Record<string, string>, minor = 1) => ({
    status,
    minor,
    headers: new Map(Object.entries(fields)),
  });

  it('by its length, and the connection stays', () => {
    const framed = framing(head(200, { 'content-length': '42' }));
    expect(framed).toEqual({ kind: 'length', left: 42 });
    expect(keepsAlive(head(200, { 'content-length': '42' }), framed)).toBe(true);
  });

  it('with no body for 204 and 304, whatever the fields say', () => {
    expect(framing(head(204, { 'content-length': '42' })).kind).toBe('none');
    expect(framing(head(304, { 'transfer-encoding': 'chunked' })).kind).toBe('none');
  });

  it('by chunks when chunked is the last coding, and then the length is ignored', () => {
    const fields = { 'transfer-encoding': 'gzip, chunked', 'content-length': '3' };
    const framed = framing(head(200, fields));
    expect(framed.kind).toBe('chunked');
    expect(keepsAlive(head(200, fields), framed)).toBe(false);
  });

  it('when the server closes: another last coding, no length, or HTTP/1.0', () => {
    expect(framing(head(200, { 'transfer-encoding': 'chunked, gzip' })).kind).toBe('close');
    expect(framing(head(200, {})).kind).toBe('close');
    const old = head(200, { 'content-length': '1' }, 0);
    expect(keepsAlive(old, framing(old))).toBe(false);
    const closing = head(200, { 'content-length': '1', connection: 'Close' });
    expect(keepsAlive(closing, framing(closing))).toBe(false);
  });

  it('takes a repeated length that agrees, and refuses one that does not or is not a number', () => {
    expect(framing(head(200, { 'content-length': '7, 7' }))).toEqual({ kind: 'length', left: 7 });
    expect(() => framing(head(200, { 'content-length': '7, 8' }))).toThrow(ProtocolError);
    expect(() => framing(head(200, { 'content-length': '-1' }))).toThrow(ProtocolError);
    expect(() => framing(head(200, { 'content-length': '0x10' }))).toThrow(ProtocolError);
  });
});

describe('chunked transfer coding', () => {
  const encoded =
    '5;name=value\r\nhello\r\n1A\r\n, a chunk of 26 bytes, ok.\r\n0\r\nX-Trailer: t\r\n\r\nNEXT';

  it('decodes a body whatever the pieces it comes in, and stops at its end', () => {
    const whole = decodeInPieces(encoded, []);
    expect(whole.body).toBe('hello, a chunk of 26 bytes, ok.');
    expect(whole.used).toBe(encoded.length - 'NEXT'.length);
    for (let cut = 1; cut < encoded.length; cut++)
      expect(decodeInPieces(encoded, [cut]).body, `cut at ${String(cut)}`).toBe(whole.body);
    const everyByte = Array.from({ length: encoded.length - 1 }, (_, index) => index + 1);
    expect(decodeInPieces(encoded, everyByte).body).toBe(whole.body);
  });

  it.each([
    ['a size that is not hexadecimal', 'zz\r\n'],
    ['a chunk without its CRLF', '3\r\nabcX\r\n0\r\n\r\n'],
    ['an endless size line', '1'.repeat(9000)],
  ])('refuses %s', (_, text) => {
    const decoder = new ChunkedDecoder();
    expect(() => decoder.feed(Buffer.from(text), () => undefined)).toThrow(ProtocolError);
  });
});
