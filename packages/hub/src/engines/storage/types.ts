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
  /** A store that keeps an upload's parts as they come, so that a broken one goes on (S3). */
  readonly multipart?: MultipartUploads;
  /** A store whose partial uploads the hub writes itself, at an offset (a folder). */
  readonly partial?: PartialFiles;
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
    /** What the store answers with: the file's type, and its Content-Disposition if any. */
    response: { name: string; type: string; disposition?: string | undefined },
    seconds: number,
  ): Promise<string>;
}

/**
 * The store's own multipart uploads: a client puts parts at presigned URLs, and what the
 * store holds of them is asked again after a break, so that only the missing parts are sent.
 */
export interface MultipartUploads {
  /**
   * Whether the store takes multipart uploads at all (not every S3-compatible one does), with
   * the store's `refusal` where it refused them for good; a failure to ask is asked again.
   */
  supported(): Promise<{ takes: boolean; refusal?: string }>;
  /**
   * The upload going on under the folder `under` (the oldest, when a race made two), else a
   * new one at a key of its own there, or undefined with `create` false. Each upload has its
   * own key, so that no other completion writes where one was completed and is checked.
   */
  open(
    under: string,
    type: string,
    create?: boolean,
  ): Promise<{ key: string; uploadId: string; parts: StoredPart[] } | undefined>;
  presignPart(
    key: string,
    uploadId: string,
    part: number,
    length: number,
    seconds: number,
  ): Promise<string>;
  /** Makes the object at `key` of every part held, in their order. */
  complete(key: string, uploadId: string): Promise<void>;
  /** Aborts the upload: false when it was gone already (completed or aborted meanwhile). */
  abort(key: string, uploadId: string): Promise<boolean>;
  /** The uploads going on under a prefix, with the bytes of their parts and when last written to. */
  list(
    prefix: string,
  ): AsyncIterable<{ key: string; uploadId: string; size: number; modified: Date }>;
}

export interface StoredPart {
  /** 1, 2, 3…: the part's place in the object. */
  number: number;
  size: number;
  modified: Date;
}

/**
 * Files the hub writes an upload into as it arrives, kept when the upload breaks off, and
 * written on at an offset no further than what they hold.
 */
export interface PartialFiles {
  /** The bytes held of the partial file at `key`: 0 when there is none. */
  size(key: string): Promise<number>;
  /**
   * Writes the body at `offset`, which must not be past the bytes held (409 otherwise), up
   * to `limit` bytes in all (400 past it); what arrives before the body breaks off stays.
   * Returns the bytes the file then holds, the write's stamp, and whether it was alone: no
   * other write went into the file while it did.
   */
  write(
    key: string,
    offset: number,
    body: AsyncIterable<Buffer>,
    limit: number,
  ): Promise<{ held: number; stamp: number; alone: boolean }>;
  /**
   * Takes the partial file away from its key, for the caller alone: its local path and the
   * stamp of the write that made it whole alone, if the last one did (else 0), or undefined
   * when there is none; 409 while a write into it goes on. The caller removes it.
   */
  take(key: string): Promise<{ path: string; stamp: number } | undefined>;
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
/** Where an upload that may break off and go on is gathered, before the hub checks it whole. */
export const resumablePath = (ownerid: string, name: string): string =>
  `uploads/${ownerid}/resumable/${name}`;
export const packagePath = (ownerid: string, dataset: string, revision?: number): string =>
  revision === undefined
    ? `packages/${ownerid}/${dataset}/`
    : `packages/${ownerid}/${dataset}/${String(revision)}/`;

/** A write to a partial file refused: at an offset past what it holds (409), or past its length (400). */
export class PartialWriteError extends Error {
  override readonly name = 'PartialWriteError';
  constructor(
    message: string,
    readonly status: 400 | 409,
  ) {
    super(message);
  }
}

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
