import { randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { open } from 'node:fs/promises';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CopyObjectCommand,
  CreateMultipartUploadCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  HeadBucketCommand,
  HeadObjectCommand,
  ListMultipartUploadsCommand,
  ListObjectsV2Command,
  ListPartsCommand,
  PutObjectCommand,
  S3Client,
  S3ServiceException,
  UploadPartCommand,
  type Part,
} from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { eachLimited } from '@data/core';
import { BoundedCache } from '../../bounded-cache.js';
import {
  BUCKET_HINT,
  StorageAddressError,
  type ByteRange,
  type DirectAccess,
  type MultipartUploads,
  type ObjectMeta,
  type Storage,
  type StoredInfo,
  type StoredPart,
} from './types.js';

/** What an `s3://bucket/prefix?endpoint=…&region=…&path_style=true` address says. */
export interface S3Address {
  bucket: string;
  /** '' or a prefix ending in '/'. */
  prefix: string;
  endpoint?: string;
  region?: string;
  pathStyle: boolean;
}

export function parseS3Address(address: string): S3Address {
  let url: URL;
  try {
    url = new URL(address);
  } catch {
    throw new StorageAddressError(`"${address}" is not an s3:// address`);
  }
  if (url.protocol !== 's3:' || url.hostname === '')
    throw new StorageAddressError(`"${address}" is not an s3://<bucket>[/<prefix>] address`);
  if (url.username || url.password)
    throw new StorageAddressError(
      'put no credentials in the storage address: the AWS SDK reads them (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, profiles, instance roles)',
    );
  const known = new Set(['endpoint', 'region', 'path_style']);
  for (const name of url.searchParams.keys())
    if (!known.has(name))
      throw new StorageAddressError(
        `unknown storage option "${name}" (known: endpoint, region, path_style)`,
      );
  const endpoint = url.searchParams.get('endpoint') ?? undefined;
  if (endpoint !== undefined && !/^https?:\/\/[^/]/.test(endpoint))
    throw new StorageAddressError(`the storage endpoint "${endpoint}" is not an http(s) address`);
  const pathStyle = url.searchParams.get('path_style');
  if (pathStyle !== null && pathStyle !== 'true' && pathStyle !== 'false')
    throw new StorageAddressError('path_style is true or false');
  const prefix = decodeURIComponent(url.pathname).replace(/^\/+|\/+$/g, '');
  const region = url.searchParams.get('region') ?? undefined;
  return {
    bucket: url.hostname,
    prefix: prefix === '' ? '' : `${prefix}/`,
    ...(endpoint === undefined ? {} : { endpoint }),
    ...(region === undefined ? {} : { region }),
    pathStyle: pathStyle === 'true',
  };
}

const STAT_MS = 60_000;

/**
 * A multipart upload completed or aborted by another request meanwhile: NoSuchUpload, or
 * NoSuchKey from Swift's s3api for one completed.
 */
function isGoneUpload(error: unknown): boolean {
  return (
    error instanceof S3ServiceException &&
    (error.name === 'NoSuchUpload' || error.name === 'NoSuchKey')
  );
}

/** A store's refusal of a kind of request for good (Swift's s3api without slo, for one). */
function isRefusal(error: unknown): boolean {
  return (
    error instanceof S3ServiceException &&
    (error.name === 'NotImplemented' || error.$metadata.httpStatusCode === 501)
  );
}

function isNotFound(error: unknown): boolean {
  return (
    error instanceof S3ServiceException &&
    (error.$metadata.httpStatusCode === 404 ||
      error.name === 'NotFound' ||
      error.name === 'NoSuchKey')
  );
}

/**
 * Objects in an S3-compatible bucket through the AWS SDK v3, credentials from its own chain.
 * Checksums are sent only where the S3 API requires them: S3-compatible stores do not all
 * take the SDK's newer default ones, and every upload is bound to its Content-MD5 anyway.
 */
export class S3Storage implements Storage {
  readonly direct: DirectAccess;
  readonly multipart: MultipartUploads;

  private constructor(
    private readonly client: S3Client,
    private readonly address: S3Address,
  ) {
    this.direct = {
      presignPut: (key, meta, seconds) => this.presignPut(key, meta, seconds),
      presignGet: (key, response, seconds) => this.presignGet(key, response, seconds),
    };
    this.multipart = {
      supported: () => this.multipartSupport(),
      open: (under, type, create = true) => this.openMultipart(under, type, create),
      presignPart: (key, uploadId, part, length, seconds) =>
        getSignedUrl(
          this.client,
          new UploadPartCommand({
            Bucket: this.bucket,
            Key: this.key(key),
            UploadId: uploadId,
            PartNumber: part,
            ContentLength: length,
          }),
          { expiresIn: seconds, signableHeaders: new Set(['content-length']) },
        ),
      complete: (key, uploadId) => this.completeMultipart(key, uploadId),
      abort: async (key, uploadId) => {
        try {
          await this.client.send(
            new AbortMultipartUploadCommand({
              Bucket: this.bucket,
              Key: this.key(key),
              UploadId: uploadId,
            }),
          );
          return true;
        } catch (error) {
          if (isGoneUpload(error)) return false;
          throw error;
        }
      },
      list: (prefix) => this.listMultipart(prefix),
    };
  }

  /** Connects and checks that the bucket is there and answers with these credentials. */
  static async open(address: string): Promise<S3Storage> {
    const parsed = parseS3Address(address);
    const settings = {
      ...(parsed.endpoint === undefined ? {} : { endpoint: parsed.endpoint }),
      forcePathStyle: parsed.pathStyle,
      requestChecksumCalculation: 'WHEN_REQUIRED' as const,
      responseChecksumValidation: 'WHEN_REQUIRED' as const,
    };
    let client = new S3Client({ ...settings, ...(parsed.region ? { region: parsed.region } : {}) });
    // Without a region anywhere (address, AWS_REGION, profile), S3-compatible stores take any.
    if (!parsed.region && !(await client.config.region().catch(() => undefined))) {
      client.destroy();
      client = new S3Client({ ...settings, region: 'us-east-1' });
    }
    const storage = new S3Storage(client, parsed);
    try {
      await client.send(new HeadBucketCommand({ Bucket: parsed.bucket }));
    } catch (error) {
      client.destroy();
      throw new StorageAddressError(
        `the bucket ${storage.location} cannot be reached: ${describe(error)}`,
        BUCKET_HINT,
      );
    }
    return storage;
  }

  get location(): string {
    return `s3://${this.address.bucket}/${this.address.prefix}`;
  }

  private key(key: string): string {
    return `${this.address.prefix}${key}`;
  }

  private get bucket(): string {
    return this.address.bucket;
  }

  /**
   * What HEAD said of keys lately. Objects are content-addressed and never replaced, and a
   * revision's files change only while it is processed, before anyone reads them: a HEAD for
   * every read cost a round trip to the store each time (239 small reads/s on Swift against
   * 20,000 from a folder, npm run bench:hub). This process forgets what it writes or
   * deletes at once; other processes' writes are seen within a minute.
   */
  private readonly known = new BoundedCache<{ info: StoredInfo; until: number }>(4 * 1024 * 1024);

  async stat(key: string): Promise<StoredInfo | undefined> {
    // Staged uploads come and go at any time: asked each time.
    if (key.startsWith('uploads/')) return this.head(key);
    const kept = this.known.get(key);
    if (kept && kept.until > Date.now()) return kept.info;
    const info = await this.head(key);
    if (info) this.known.set(key, { info, until: Date.now() + STAT_MS }, 256 + key.length);
    return info;
  }

  private async head(key: string): Promise<StoredInfo | undefined> {
    try {
      const head = await this.client.send(
        new HeadObjectCommand({ Bucket: this.bucket, Key: this.key(key) }),
      );
      // A single-part upload's ETag is the MD5 of its bytes (not so for multipart or SSE-KMS).
      const md5 = /^"?([0-9a-f]{32})"?$/.exec(head.ETag ?? '')?.[1];
      return {
        size: head.ContentLength ?? 0,
        modified: head.LastModified ?? new Date(0),
        version: `${head.ETag ?? ''}:${String(head.ContentLength)}`,
        ...(md5 === undefined ? {} : { md5 }),
      };
    } catch (error) {
      if (isNotFound(error)) return undefined;
      throw error;
    }
  }

  async read(key: string, range?: ByteRange): Promise<Readable> {
    const reply = await this.client.send(
      new GetObjectCommand({
        Bucket: this.bucket,
        Key: this.key(key),
        ...(range ? { Range: `bytes=${String(range.start)}-${String(range.end)}` } : {}),
      }),
    );
    return reply.Body as Readable;
  }

  async putFile(key: string, file: string, meta: ObjectMeta): Promise<void> {
    if (await this.head(key)) return;
    // Opened here, so that a file gone is this call's failure, not an 'error' event of a
    // stream nobody listens to yet.
    const handle = await open(file, 'r');
    // The SDK pipes the body into its request and listens to none of its errors, where one
    // unheard would end the whole process: a failing read stops the upload and is its failure.
    const body = handle.createReadStream({ autoClose: false });
    const reading = new AbortController();
    body.on('error', (error) => reading.abort(error));
    try {
      await this.forgetting(key, () =>
        this.client.send(
          new PutObjectCommand({
            Bucket: this.bucket,
            Key: this.key(key),
            Body: body,
            ContentLength: meta.length,
            ContentMD5: meta.md5,
            ContentType: meta.type,
          }),
          { abortSignal: reading.signal },
        ),
      );
    } catch (error) {
      throw reading.signal.aborted ? (reading.signal.reason as Error) : error;
    } finally {
      body.destroy();
      await handle.close();
    }
  }

  async putText(key: string, text: string, type: string): Promise<void> {
    await this.forgetting(key, () =>
      this.client.send(
        new PutObjectCommand({
          Bucket: this.bucket,
          Key: this.key(key),
          Body: text,
          ContentType: type,
        }),
      ),
    );
  }

  /** Runs a write of a key, forgetting what HEAD said of it before and after. */
  private async forgetting(key: string, write: () => Promise<unknown>): Promise<void> {
    this.known.delete(key);
    try {
      await write();
    } finally {
      this.known.delete(key);
    }
  }

  async copy(from: string, to: string): Promise<void> {
    await this.forgetting(to, () =>
      this.client.send(
        new CopyObjectCommand({
          Bucket: this.bucket,
          Key: this.key(to),
          CopySource: `${this.bucket}/${encodeURI(this.key(from))}`,
        }),
      ),
    );
  }

  async delete(key: string): Promise<void> {
    await this.forgetting(key, () =>
      this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: this.key(key) })),
    );
  }

  /**
   * One DELETE per key, a few at a time. The batch delete of the S3 API needs Content-MD5,
   * which this SDK no longer sends (it sends its own checksums, which not every
   * S3-compatible store takes: Swift refuses the request).
   */
  async deletePrefix(prefix: string): Promise<void> {
    let batch: string[] = [];
    const flush = async (): Promise<void> => {
      await eachLimited(batch, 8, (key) => this.delete(key));
      batch = [];
    };
    for await (const { key } of this.list(prefix)) {
      batch.push(key);
      if (batch.length === 256) await flush();
    }
    await flush();
  }

  async *list(prefix: string): AsyncIterable<{ key: string; size: number }> {
    let token: string | undefined;
    do {
      const page = await this.client.send(
        new ListObjectsV2Command({
          Bucket: this.bucket,
          Prefix: this.key(prefix),
          ...(token ? { ContinuationToken: token } : {}),
        }),
      );
      for (const entry of page.Contents ?? [])
        if (entry.Key)
          yield { key: entry.Key.slice(this.address.prefix.length), size: entry.Size ?? 0 };
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
  }

  /** The store's answer to a multipart upload: kept once it is a definite one. */
  private takesMultipart: Promise<{ takes: boolean; refusal?: string }> | undefined;

  private async multipartSupport(): Promise<{ takes: boolean; refusal?: string }> {
    const asking = (this.takesMultipart ??= this.probeMultipart());
    const answer = await asking;
    // A timeout or a store out of service says nothing of multipart uploads: asked again.
    if (!answer.takes && answer.refusal === undefined && this.takesMultipart === asking)
      this.takesMultipart = undefined;
    return answer;
  }

  /** Begins a multipart upload and aborts it (or leaves it to gc, under uploads/). */
  private async probeMultipart(): Promise<{ takes: boolean; refusal?: string }> {
    const key = this.key('uploads/multipart-probe');
    let created: { UploadId?: string | undefined };
    try {
      created = await this.client.send(
        new CreateMultipartUploadCommand({ Bucket: this.bucket, Key: key }),
      );
    } catch (error) {
      return isRefusal(error) ? { takes: false, refusal: describe(error) } : { takes: false };
    }
    await this.client
      .send(
        new AbortMultipartUploadCommand({
          Bucket: this.bucket,
          Key: key,
          UploadId: created.UploadId,
        }),
      )
      .catch(() => undefined);
    return { takes: true };
  }

  private async openMultipart(
    under: string,
    type: string,
    create: boolean,
  ): Promise<{ key: string; uploadId: string; parts: StoredPart[] } | undefined> {
    const folder = `${under}/`;
    let oldest: { key: string; uploadId: string; initiated: number } | undefined;
    for await (const upload of this.multipartUploads(folder))
      if (!oldest || upload.initiated < oldest.initiated) oldest = upload;
    if (oldest)
      return {
        key: oldest.key,
        uploadId: oldest.uploadId,
        parts: (await this.partsOf(oldest.key, oldest.uploadId)).map((part) => ({
          number: part.PartNumber ?? 0,
          size: part.Size ?? 0,
          modified: part.LastModified ?? new Date(0),
        })),
      };
    if (!create) return undefined;
    const key = `${folder}${randomBytes(12).toString('hex')}`;
    const created = await this.client.send(
      new CreateMultipartUploadCommand({
        Bucket: this.bucket,
        Key: this.key(key),
        ContentType: type,
      }),
    );
    if (!created.UploadId) throw new Error(`the store began no multipart upload at ${key}`);
    return { key, uploadId: created.UploadId, parts: [] };
  }

  private async partsOf(key: string, uploadId: string): Promise<Part[]> {
    const parts: Part[] = [];
    let marker: string | undefined;
    do {
      const page = await this.client.send(
        new ListPartsCommand({
          Bucket: this.bucket,
          Key: this.key(key),
          UploadId: uploadId,
          ...(marker ? { PartNumberMarker: marker } : {}),
        }),
      );
      parts.push(...(page.Parts ?? []));
      marker = page.IsTruncated ? page.NextPartNumberMarker : undefined;
    } while (marker);
    return parts;
  }

  private async completeMultipart(key: string, uploadId: string): Promise<void> {
    const parts = (await this.partsOf(key, uploadId))
      .map((part) => ({ PartNumber: part.PartNumber, ETag: part.ETag }))
      .sort((a, b) => (a.PartNumber ?? 0) - (b.PartNumber ?? 0));
    await this.forgetting(key, () =>
      this.client.send(
        new CompleteMultipartUploadCommand({
          Bucket: this.bucket,
          Key: this.key(key),
          UploadId: uploadId,
          MultipartUpload: { Parts: parts },
        }),
      ),
    );
  }

  private async *multipartUploads(
    prefix: string,
  ): AsyncIterable<{ key: string; uploadId: string; initiated: number }> {
    let keyMarker: string | undefined;
    let idMarker: string | undefined;
    do {
      const page = await this.client.send(
        new ListMultipartUploadsCommand({
          Bucket: this.bucket,
          Prefix: this.key(prefix),
          ...(keyMarker ? { KeyMarker: keyMarker } : {}),
          ...(idMarker ? { UploadIdMarker: idMarker } : {}),
        }),
      );
      for (const upload of page.Uploads ?? [])
        if (upload.Key && upload.UploadId)
          yield {
            key: upload.Key.slice(this.address.prefix.length),
            uploadId: upload.UploadId,
            initiated: upload.Initiated?.getTime() ?? 0,
          };
      keyMarker = page.IsTruncated ? page.NextKeyMarker : undefined;
      idMarker = page.IsTruncated ? page.NextUploadIdMarker : undefined;
    } while (keyMarker);
  }

  /**
   * Each upload under a prefix, last written to when its newest part was (or it began); one
   * completed or aborted while it is listed is left out.
   */
  private async *listMultipart(
    prefix: string,
  ): AsyncIterable<{ key: string; uploadId: string; size: number; modified: Date }> {
    for await (const { key, uploadId, initiated } of this.multipartUploads(prefix)) {
      let parts: Part[];
      try {
        parts = await this.partsOf(key, uploadId);
      } catch (error) {
        if (isGoneUpload(error)) continue;
        throw error;
      }
      const newest = parts.reduce(
        (latest, part) => Math.max(latest, part.LastModified?.getTime() ?? 0),
        initiated,
      );
      const size = parts.reduce((sum, part) => sum + (part.Size ?? 0), 0);
      yield { key, uploadId, size, modified: new Date(newest) };
    }
  }

  /** A copy for the validator, which reads local files. */
  async materialize(key: string, target: string): Promise<void> {
    await pipeline(await this.read(key), createWriteStream(target, { flags: 'wx' }));
  }

  private async presignPut(
    key: string,
    meta: ObjectMeta,
    seconds: number,
  ): Promise<{ url: string; headers: Record<string, string> }> {
    const url = await getSignedUrl(
      this.client,
      new PutObjectCommand({
        Bucket: this.bucket,
        Key: this.key(key),
        ContentMD5: meta.md5,
        ContentLength: meta.length,
        ContentType: meta.type,
      }),
      {
        expiresIn: seconds,
        // Bound into the signature: the store takes these bytes, of this length, only.
        signableHeaders: new Set(['content-md5', 'content-length', 'content-type']),
      },
    );
    return {
      url,
      headers: {
        'Content-MD5': meta.md5,
        'Content-Length': String(meta.length),
        'Content-Type': meta.type,
      },
    };
  }

  private presignGet(
    key: string,
    response: { name: string; type: string; disposition?: string | undefined },
    seconds: number,
  ): Promise<string> {
    return getSignedUrl(
      this.client,
      new GetObjectCommand({
        Bucket: this.bucket,
        Key: this.key(key),
        ResponseContentType: response.type,
        ResponseContentDisposition:
          response.disposition ?? `inline; filename="${response.name.replace(/["\\\r\n]/g, '_')}"`,
      }),
      { expiresIn: seconds },
    );
  }

  close(): void {
    this.client.destroy();
  }
}

function describe(error: unknown): string {
  if (error instanceof S3ServiceException)
    return `${error.name} (HTTP ${String(error.$metadata.httpStatusCode ?? '?')})`;
  return error instanceof Error ? error.message : String(error);
}
