import { describeBytes } from '../text/bytes.js';

/**
 * The most bytes of a descriptor (JSON or YAML) or any JSON answer read from a hub or a URL:
 * four times what a hub takes in one (its `specBytes`), far past a real descriptor, and short
 * of the memory parsing more would cost (about six times its size).
 */
export const MAX_REMOTE_TEXT_BYTES = 16 * 1024 * 1024;

/** A text from a server past the cap: refused as it arrives, before it is held whole. */
export class TextTooLarge extends Error {
  override readonly name = 'TextTooLarge';
}

/**
 * A body's bytes as UTF-8 text, refused once more than `maxBytes` have arrived (what names
 * it, e.g. its URL, is told in the error); the rest is never read.
 */
export async function readBoundedText(
  body: AsyncIterable<Uint8Array>,
  what: string,
  maxBytes = MAX_REMOTE_TEXT_BYTES,
): Promise<string> {
  const parts: Buffer[] = [];
  let bytes = 0;
  for await (const chunk of body) {
    bytes += chunk.byteLength;
    if (bytes > maxBytes)
      throw new TextTooLarge(
        `${what} is larger than ${describeBytes(maxBytes)}, the most read of a descriptor or an answer from a hub or a URL`,
      );
    parts.push(Buffer.from(chunk));
  }
  return Buffer.concat(parts).toString('utf8');
}
