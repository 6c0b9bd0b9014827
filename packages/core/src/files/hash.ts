import type { Hash } from 'node:crypto';

/**
 * A hash of the named algorithm. node:crypto is some twenty built-in modules: it is loaded
 * by the first validation that hashes, not by every start.
 */
export function newHash(algorithm: string): Hash {
  return process.getBuiltinModule('node:crypto').createHash(algorithm);
}

/**
 * How much of a file's start a hub compares before the file is hashed (`head_md5`): two
 * files of one length whose first 64 KiB differ are different files.
 */
export const HEAD_BYTES = 64 * 1024;

/**
 * The form fields of a CRC32 that follows a file, as S3 names them: the algorithm,
 * announced before the file, and the checksum after it.
 */
export const CRC32_FIELD = 'x-amz-checksum-crc32';
export const ALGORITHM_FIELD = 'x-amz-checksum-algorithm';

/** A CRC32 as S3 writes it: base64 of its four bytes, big-endian. */
export function crc32Base64(crc: number): string {
  const bytes = Buffer.alloc(4);
  bytes.writeUInt32BE(crc);
  return bytes.toString('base64');
}
