import type { Readable } from 'node:stream';

/**
 * Where the hub keeps bytes: uploaded objects under `objects/<md5 hex><.ext>`, uploads
 * presigned for one owner under `uploads/<ownerid>/…` until the hub takes them in, and the
 * files the pipeline writes for each revision under `packages/<ownerid>/<dataset>/<revision>/`.
 * Keys are made by the hub from checked parts, never taken from a request as they are.
 */
export interface Storage {
  /** Where it is, for messages: a folder, or s3://bucket/prefix (never a secret). */
  readonly location: string;
  stat(key: string): Promise<StoredInfo | undefined>;
  /** The bytes of a stored key, or of the inclusive range of them. */
  read(key: string, range?: ByteRange): Promise<Readable>;
  /**
   * Stores a verified local file under a key that is never written twice: objects are
   * content-addressed and immutable, so the same bytes stored already are simply kept.
   */
  putFile(key: string, file: string, meta: ObjectMeta): Promise<void>;
  /** Writes a small text file, replacing what was there as a whole. */
  putText(key: string, text: string, type: string): Promise<void>;
  copy(from: string, to: string): Promise<void>;
  delete(key: string): Promise<void>;
  deletePrefix(prefix: string): Promise<void>;
  list(prefix: string): AsyncIterable<{ key: string; size: number }>;
  /** Puts the bytes of a key at a local path for reading (a link where it can). */
  materialize(key: string, target: string): Promise<void>;
  /** Stores that take uploads and serve reads themselves, at short-lived signed URLs. */
  readonly direct?: DirectAccess;
  close(): void;
}

export interface DirectAccess {
  presignPut(
    key: string,
    meta: ObjectMeta,
    seconds: number,
  ): Promise<{ url: string; headers: Record<string, string> }>;
  presignGet(
    key: string,
    response: { name: string; type: string },
    seconds: number,
  ): Promise<string>;
}

export interface StoredInfo {
  size: number;
  modified: Date;
  /** Changes whenever the bytes may have: the store's ETag, or size and times of a file. */
  version: string;
  /** The MD5 (hex) the store computed itself, where its ETag is one. */
  md5?: string;
}

export interface ByteRange {
  start: number;
  end: number;
}

export interface ObjectMeta {
  /** Base64 of the MD5 digest. */
  md5: string;
  length: number;
  type: string;
}

export const objectPath = (key: string): string => `objects/${key}`;

/** Where a revision's derived copies are, beside its descriptor. */
export const DERIVED_FOLDER = '_derived/';

export const stagedPath = (ownerid: string, key: string): string => `uploads/${ownerid}/${key}`;
export const packagePath = (ownerid: string, dataset: string, revision?: number): string =>
  revision === undefined
    ? `packages/${ownerid}/${dataset}/`
    : `packages/${ownerid}/${dataset}/${String(revision)}/`;

/** A storage address that cannot be used: what is wrong with it. */
export class StorageAddressError extends Error {
  override readonly name = 'StorageAddressError';
  constructor(
    message: string,
    /** What to do about it, where the message alone does not say. */
    readonly hint = 'give a folder, file://<folder> or s3://<bucket>[/<prefix>]?endpoint=…&region=…&path_style=true',
  ) {
    super(message);
  }
}

export const BUCKET_HINT =
  'check the address, that the bucket exists, and the credentials the AWS SDK finds (AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, a profile or an instance role)';
