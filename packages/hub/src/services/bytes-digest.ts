import { createHash } from 'node:crypto';
import { HEAD_BYTES } from '@data/core';

/** What the hub knows of bytes once it has seen them all: the key's MD5 and the head's. */
export interface Digest {
  /** Base64 MD5 of every byte. */
  md5: string;
  /** Base64 MD5 of the first HEAD_BYTES, which names a file whose digest follows its bytes. */
  headMd5: string;
  length: number;
}

/** The MD5, head MD5 and length of bytes taken as they pass, a chunk at a time. */
export class BytesDigest {
  private readonly whole = createHash('md5');
  private readonly head = createHash('md5');
  private done: Digest | undefined;
  length = 0;

  add(chunk: Buffer): void {
    if (this.length < HEAD_BYTES) this.head.update(chunk.subarray(0, HEAD_BYTES - this.length));
    this.whole.update(chunk);
    this.length += chunk.length;
  }

  /** The bytes of a stream as they pass, taken. */
  async *through(stream: AsyncIterable<Buffer>): AsyncIterable<Buffer> {
    for await (const chunk of stream) {
      this.add(chunk);
      yield chunk;
    }
  }

  /** The digest of every byte added: no more may be added once it is asked for. */
  result(): Digest {
    this.done ??= {
      md5: this.whole.digest('base64'),
      headMd5: this.head.digest('base64'),
      length: this.length,
    };
    return this.done;
  }
}

/** The digest of bytes, read through once. */
export async function digestOf(stream: AsyncIterable<Buffer>): Promise<Digest> {
  const digest = new BytesDigest();
  for await (const chunk of stream) digest.add(chunk);
  return digest.result();
}
