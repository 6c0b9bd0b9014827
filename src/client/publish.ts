import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { CliError } from '../errors.js';
import { EXIT } from '../exit-codes.js';
import { isRemote } from '../validator/descriptor/paths.js';
import { fileDigest } from '../transfers/digest.js';
import { uploadFile } from '../transfers/upload.js';
import type { HubApi, FlowStatus, UploadTarget } from './api.js';
import { sleep, type HttpFetch } from './http.js';

export type Findability = 'published' | 'unlisted' | 'private';

export type PublishEvent =
  | { type: 'files'; files: { path: string; bytes: number; exists: boolean }[] }
  | { type: 'progress'; path: string; sent: number; bytes: number }
  | { type: 'uploaded'; path: string }
  | { type: 'submitted'; flowId: string }
  | { type: 'status'; status: FlowStatus };

export interface PublishOptions {
  dir: string;
  api: HubApi;
  fetch: HttpFetch;
  site: string;
  token: string;
  profile: { id: string; username: string };
  findability: Findability;
  wait: boolean;
  timeoutMs: number;
  pollMs?: number;
  concurrency?: number;
  signal?: AbortSignal | undefined;
  onEvent?: (event: PublishEvent) => void;
}

export interface PublishResult {
  dataset: string;
  owner: string;
  revision: number;
  flowId: string;
  state: FlowStatus['state'];
  url: string;
  uploaded: string[];
  skipped: string[];
  status: FlowStatus | undefined;
  /** Seconds spent hashing the files, and uploading the missing ones. */
  seconds: { digest: number; upload: number };
}

interface LocalFile {
  path: string;
  name: string;
  length: number;
  md5: string;
}

const TYPES: Record<string, string> = {
  csv: 'text/csv',
  tsv: 'text/tab-separated-values',
  json: 'application/json',
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
};

function typeOf(path: string): string {
  return (
    TYPES[/\.([a-z0-9]+)$/i.exec(path)?.[1]?.toLowerCase() ?? ''] ?? 'application/octet-stream'
  );
}

async function localFiles(dir: string, descriptor: Record<string, unknown>): Promise<LocalFile[]> {
  const files: { path: string; name: string }[] = [
    { path: 'datapackage.json', name: 'datapackage.json' },
  ];
  for (const resource of (descriptor.resources ?? []) as Record<string, unknown>[]) {
    const paths = Array.isArray(resource.path) ? (resource.path as unknown[]) : [resource.path];
    for (const path of paths) {
      if (typeof path === 'string' && !isRemote(path) && !files.some((file) => file.path === path))
        files.push({ path, name: String(resource.name) });
    }
  }
  return Promise.all(
    files.map(async (file) => ({ ...file, ...(await fileDigest(join(dir, file.path))) })),
  );
}

async function inParallel<T>(
  items: T[],
  limit: number,
  run: (item: T) => Promise<void>,
): Promise<void> {
  const queue = [...items];
  const workers = Array.from({ length: Math.min(limit, queue.length) }, async () => {
    for (let item = queue.shift(); item !== undefined; item = queue.shift()) await run(item);
  });
  await Promise.all(workers);
}

/** Uploads a package's files through signed forms and asks the hub to publish it. */
export async function publishPackage(options: PublishOptions): Promise<PublishResult> {
  const { api, dir, profile } = options;
  const descriptor = JSON.parse(await readFile(join(dir, 'datapackage.json'), 'utf8')) as Record<
    string,
    unknown
  >;
  const dataset = typeof descriptor.name === 'string' ? descriptor.name : '';
  if (!dataset)
    throw new CliError('the package has no "name": the hub names the dataset after it', {
      code: 'E_INPUT',
      exitCode: EXIT.usage,
      hint: 'add a "name" to datapackage.json',
    });
  const digestStart = performance.now();
  const files = await localFiles(dir, descriptor);
  const digestSeconds = (performance.now() - digestStart) / 1000;
  const rawstore = await api.authorize(options.token, 'rawstore');
  const filedata = Object.fromEntries(
    files.map((file) => [
      file.path,
      { length: file.length, md5: file.md5, name: file.name, type: typeOf(file.path) },
    ]),
  );
  const targets = await api.rawstoreAuthorize(rawstore.token, {
    metadata: { owner: profile.id, findability: options.findability },
    filedata,
  });
  const target = (path: string): UploadTarget => {
    const found = targets[path];
    if (!found)
      throw new CliError(`rawstore authorize: the hub gave no upload form for ${path}`, {
        code: 'E_API',
        exitCode: EXIT.network,
      });
    return found;
  };
  options.onEvent?.({
    type: 'files',
    files: files.map((file) => ({
      path: file.path,
      bytes: file.length,
      exists: target(file.path).exists,
    })),
  });
  const missing = files.filter((file) => !target(file.path).exists);
  const uploadStart = performance.now();
  await inParallel(missing, options.concurrency ?? 3, async (file) => {
    const form = target(file.path);
    const upload = {
      url: form.upload_url,
      fields: form.upload_query,
      path: join(dir, file.path),
      length: file.length,
      contentType: form.upload_query['Content-Type'] ?? typeOf(file.path),
    };
    await uploadFile(
      options.fetch,
      upload,
      file.path,
      (sent) => options.onEvent?.({ type: 'progress', path: file.path, sent, bytes: file.length }),
      options.signal,
    );
    options.onEvent?.({ type: 'uploaded', path: file.path });
  });
  const uploadSeconds = (performance.now() - uploadStart) / 1000;
  const stored = (path: string): string =>
    `${target(path).upload_url}/${target(path).upload_query.key ?? ''}`;
  const source = await api.authorize(options.token, 'source');
  const mapping = Object.fromEntries(
    files
      .filter((file) => file.path !== 'datapackage.json')
      .map((file) => [file.path, stored(file.path)]),
  );
  const spec = {
    meta: {
      version: 1,
      ownerid: profile.id,
      owner: profile.username,
      dataset,
      findability: options.findability,
    },
    inputs: [
      {
        kind: 'datapackage',
        url: stored('datapackage.json'),
        parameters: { descriptor, 'resource-mapping': mapping },
      },
    ],
  };
  const { flowId } = await api.sourceUpload(source.token, spec);
  options.onEvent?.({ type: 'submitted', flowId });
  const result: PublishResult = {
    dataset,
    owner: profile.username,
    revision: Number(flowId.split('/').pop()),
    flowId,
    state: 'QUEUED',
    url: `${options.site}/${profile.username}/${dataset}`,
    uploaded: missing.map((file) => file.path),
    skipped: files.filter((file) => target(file.path).exists).map((file) => file.path),
    status: undefined,
    seconds: { digest: digestSeconds, upload: uploadSeconds },
  };
  if (!options.wait) return result;
  const status = await waitForPublication(options, flowId);
  return { ...result, state: status.state, status };
}

/** Polls the status every 2 s, every 10 s after the first minute, until it ends or times out. */
async function waitForPublication(options: PublishOptions, flowId: string): Promise<FlowStatus> {
  const started = Date.now();
  for (;;) {
    const status = await options.api.status(flowId, options.token);
    options.onEvent?.({ type: 'status', status });
    if (status.state === 'SUCCEEDED' || status.state === 'FAILED') return status;
    const elapsed = Date.now() - started;
    if (elapsed > options.timeoutMs) {
      throw new CliError(
        `the hub did not finish publishing ${flowId} within ${String(Math.round(options.timeoutMs / 1000))} s (state ${status.state})`,
        {
          code: 'E_TIMEOUT',
          exitCode: EXIT.network,
          hint: 'the publication may still finish: run `data info` on the dataset later',
        },
      );
    }
    await sleep(options.pollMs ?? (elapsed > 60_000 ? 10_000 : 2_000), options.signal);
  }
}
