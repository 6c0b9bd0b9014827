/** One part of a `multipart/byteranges` body: its headers and its bytes. */
export interface BytePart {
  type: string | undefined;
  range: string | undefined;
  body: Buffer;
}

/**
 * The parts of a `multipart/byteranges` body (RFC 9110 14.6), read as a client would read
 * it: each delimiter is CRLF `--boundary` (the first may come without the CRLF), then the
 * part's header lines, an empty line and its bytes; the close delimiter ends with `--`.
 * Throws on anything else, so that a body a client could not read fails the test.
 */
export function parseByteranges(contentType: string, body: Buffer): BytePart[] {
  const boundary = /^multipart\/byteranges;\s*boundary="?([^";]+)"?$/i.exec(contentType)?.[1];
  if (!boundary) throw new Error(`not multipart/byteranges: ${contentType}`);
  const delimiter = Buffer.from(`\r\n--${boundary}`);
  // A CRLF before the first delimiter makes every delimiter the same.
  const text = Buffer.concat([Buffer.from('\r\n'), body]);
  const parts: BytePart[] = [];
  let at = text.indexOf(delimiter);
  if (at !== 0) throw new Error('the body does not begin with the boundary');
  for (;;) {
    at += delimiter.length;
    if (text.subarray(at, at + 4).toString() === '--\r\n' && at + 4 === text.length) return parts;
    if (text.subarray(at, at + 2).toString() !== '\r\n')
      throw new Error(`no line end after the boundary at ${String(at)}`);
    const headersEnd = text.indexOf('\r\n\r\n', at);
    if (headersEnd < 0) throw new Error('a part has no end to its headers');
    const headers = new Map<string, string>();
    for (const line of text
      .subarray(at + 2, headersEnd)
      .toString('latin1')
      .split('\r\n')) {
      const colon = line.indexOf(':');
      headers.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
    }
    const next = text.indexOf(delimiter, headersEnd + 4);
    if (next < 0) throw new Error('a part has no delimiter after it');
    parts.push({
      type: headers.get('content-type'),
      range: headers.get('content-range'),
      body: text.subarray(headersEnd + 4, next),
    });
    at = next;
  }
}
