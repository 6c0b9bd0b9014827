import { TextDecoder } from 'node:util';

/**
 * Picks the encoding of a byte stream and decodes it chunk by chunk. Detection follows
 * the reference validator: a BOM wins, then a sample that is valid UTF-8 is UTF-8, and
 * only then is chardet asked.
 */
export const SAMPLE_BYTES = 65_536;

export class EncodingFailure extends Error {
  constructor(
    readonly note: string,
    readonly offset: number,
  ) {
    super(note);
  }
}

export interface Detection {
  encoding: string;
  bomLength: number;
}

export function bomOf(sample: Uint8Array): Detection | undefined {
  if (sample[0] === 0xef && sample[1] === 0xbb && sample[2] === 0xbf) {
    return { encoding: 'utf-8', bomLength: 3 };
  }
  if (sample[0] === 0xff && sample[1] === 0xfe) return { encoding: 'utf-16le', bomLength: 2 };
  if (sample[0] === 0xfe && sample[1] === 0xff) return { encoding: 'utf-16be', bomLength: 2 };
  return undefined;
}

export async function detectEncoding(sample: Uint8Array): Promise<string> {
  if (isUtf8(sample)) return 'utf-8';
  const { analyse } = await import('chardet');
  for (const match of analyse(sample)) {
    const name = match.name.toLowerCase();
    if (name === 'utf-8' || name === 'ascii') continue;
    if (isSupported(name)) return name === 'iso-8859-1' ? 'windows-1252' : name;
  }
  return 'windows-1252';
}

/** True when the sample decodes as UTF-8, allowing a sequence cut at its end. */
function isUtf8(sample: Uint8Array): boolean {
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(sample, { stream: true });
    return true;
  } catch {
    return false;
  }
}

export function isSupported(encoding: string): boolean {
  try {
    new TextDecoder(encoding);
    return true;
  } catch {
    return false;
  }
}

export function canonicalEncoding(encoding: string): string {
  return new TextDecoder(encoding).encoding;
}

/**
 * A chunk is decoded in pieces of this many bytes: the text of a piece (at most 64 K
 * characters, 64 KB as Latin-1) is a young object, where the text of a whole chunk (512 KB
 * from files/chunks.ts) went straight to the old generation's large objects, whose growth
 * brought on full collections: on the 1M-row table, 24 to 50 ms of mark-compact in each
 * thread (node --trace-gc). Pieces of 32 KB were no faster.
 */
const PIECE_BYTES = 64 * 1024;

/** Decodes chunks; on bad bytes, hands over the good prefix and then throws. */
export class ChunkDecoder {
  private readonly decoder: TextDecoder;
  private offset = 0;
  private carried = 0;

  constructor(readonly encoding: string) {
    this.decoder = new TextDecoder(encoding, { fatal: true, ignoreBOM: false });
  }

  /**
   * Decodes a chunk, then hands the text on, piece by piece (PIECE_BYTES): what `onText` throws
   * is its own, not a decoding error.
   */
  decode(chunk: Uint8Array, onText: (text: string) => void): void {
    if (chunk.length <= PIECE_BYTES) return this.decodePiece(chunk, onText);
    for (let at = 0; at < chunk.length; at += PIECE_BYTES)
      this.decodePiece(chunk.subarray(at, at + PIECE_BYTES), onText);
  }

  private decodePiece(chunk: Uint8Array, onText: (text: string) => void): void {
    let text: string;
    try {
      text = this.decoder.decode(chunk, { stream: true });
    } catch {
      this.fail(chunk, onText);
    }
    this.offset += chunk.length;
    if (this.encoding === 'utf-8') this.carried = continuationsOwed(chunk);
    onText(text);
  }

  finish(onText: (text: string) => void): void {
    let text: string;
    try {
      text = this.decoder.decode();
    } catch {
      throw new EncodingFailure(
        `the data ends in the middle of a ${this.encoding} character`,
        this.offset,
      );
    }
    onText(text);
  }

  private fail(chunk: Uint8Array, onText: (text: string) => void): never {
    const skip = this.carried;
    const index = this.encoding === 'utf-8' ? firstInvalidUtf8(chunk, skip) : 0;
    const prefix = new TextDecoder(this.encoding).decode(chunk.subarray(skip, index), {
      stream: true,
    });
    onText(prefix);
    const byte = (chunk[index] ?? 0).toString(16).padStart(2, '0');
    const position = this.offset + index;
    throw new EncodingFailure(
      `byte 0x${byte} at offset ${String(position)} is not valid ${this.encoding}`,
      position,
    );
  }
}

/** Index of the first byte that starts an invalid UTF-8 sequence. */
export function firstInvalidUtf8(bytes: Uint8Array, start = 0): number {
  let i = start;
  while (i < bytes.length) {
    const byte = bytes[i] ?? 0;
    const size = sequenceLength(byte);
    if (size === 0) return i;
    for (let k = 1; k < size; k++) {
      const next = bytes[i + k];
      if (next === undefined) return i;
      if ((next & 0xc0) !== 0x80) return i;
    }
    i += size;
  }
  return bytes.length;
}

function sequenceLength(lead: number): number {
  if (lead < 0x80) return 1;
  if (lead >= 0xc2 && lead <= 0xdf) return 2;
  if (lead >= 0xe0 && lead <= 0xef) return 3;
  if (lead >= 0xf0 && lead <= 0xf4) return 4;
  return 0;
}

/** How many continuation bytes the next chunk owes to a sequence cut at this chunk's end. */
function continuationsOwed(bytes: Uint8Array): number {
  for (let back = 1; back <= Math.min(3, bytes.length); back++) {
    const byte = bytes[bytes.length - back] ?? 0;
    if ((byte & 0xc0) === 0x80) continue;
    const size = sequenceLength(byte);
    return size > back ? size - back : 0;
  }
  return 0;
}
