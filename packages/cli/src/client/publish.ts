import { stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import { InputError, NetworkError } from '@data/core';
import { isDerived, isRemote, localPaths, resourceName, resourcesOf } from '@data/core';
import type { Findability } from '@data/core';
import type { HubApi, FlowStatus } from './api.js';
import { stageFiles, type PackageFile, type StagedFile, type StageEvent } from './stage.js';
import { sleep, type HttpFetch } from '@data/core';
import { eachLimited } from '@data/core';
import { roundSeconds } from '@data/core';
import type { Package, Report } from '@data/core';

export type { Findability } from '@data/core';

export type PublishEvent =
  | StageEvent
  | { type: 'submitted'; flowId: string; unchanged: boolean }
  | { type: 'status'; status: FlowStatus };

/**
 * What is published: the package's folder, its descriptor, and the file holding its bytes.
 * The descriptor is read as a Package; validation checks its properties before it is
 * published, and what reads it sooner reads them with model/'s helpers (resourcesOf).
 */
export interface PublishSource {
  dir: string;
  descriptor: Package;
  descriptorFile: string;
}

export interface PublishOptions {
  source: PublishSource;
  api: HubApi;
  fetch: HttpFetch;
  site: string;
  token: string;
  profile: { id: string; username: string };
  findability: Findability;
  wait: boolean;
  /** Make a revision even when the package is the one already published. */
  force?: boolean;
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
  /** The hub made no revision: the package is the published revision as it is. */
  unchanged: boolean;
  url: string;
  uploaded: string[];
  skipped: string[];
  status: FlowStatus | undefined;
  /** Seconds, to the millisecond, from the first file's hashing to the last upload's end. */
  seconds: { upload: number };
}

/** datapackage.json first, then every local file the resources name, once each. */
function packageFiles(source: PublishSource): PackageFile[] {
  const descriptor = source.descriptor;
  const files = new Map([['datapackage.json', 'datapackage.json']]);
  for (const resource of resourcesOf(descriptor)) {
    // Copies a hub derived are made anew by the hub from their sources: never uploaded.
    if (isDerived(resource)) continue;
    for (const path of localPaths(resource))
      if (!files.has(path)) files.set(path, resourceName(resource));
  }
  return [...files].map(([path, name]) =>
    path === 'datapackage.json' ? { path, name, source: source.descriptorFile } : { path, name },
  );
}

/** A resource as a dry run of a new dataset lists it: what the hub would be sent. */
export interface PlannedResource {
  name: string;
  /** The descriptor's path (or paths); null for rows inline in the descriptor. */
  path: string | string[] | null;
  /** Rows as validation counted them; null for a file that is not a table. */
  rows: number | null;
  /** Bytes of its files; null when one is not on this computer. */
  bytes: number | null;
}

/** The bytes of a resource's files, or null when one is remote or cannot be read. */
async function localBytes(dir: string, paths: unknown[]): Promise<number | null> {
  let total = 0;
  for (const path of paths) {
    if (typeof path !== 'string' || isRemote(path)) return null;
    const size = await stat(resolve(dir, path)).then(
      (found) => found.size,
      () => undefined,
    );
    if (size === undefined) return null;
    total += size;
  }
  return total;
}

/** Each resource a publication would send, with its rows (from the validation) and its size. */
export async function plannedResources(
  source: PublishSource,
  report: Report,
): Promise<PlannedResource[]> {
  const planned: PlannedResource[] = [];
  for (const resource of resourcesOf(source.descriptor)) {
    if (isDerived(resource)) continue;
    const name = resourceName(resource);
    const task = report.tasks.find((each) => each.name === name);
    const path = resource.path;
    const given = Array.isArray(path) || typeof path === 'string' ? path : null;
    planned.push({
      name,
      path: given,
      rows: task?.stats.rows ?? null,
      bytes:
        task?.stats.bytes ??
        (given === null
          ? null
          : await localBytes(source.dir, Array.isArray(given) ? given : [given])),
    });
  }
  return planned;
}

/** The stored objects' URLs as the pipeline may read them: signed when private. */
async function presignAll(
  files: StagedFile[],
  api: HubApi,
  token: string,
  ownerid: string,
): Promise<Map<string, string>> {
  const signed = new Map<string, string>();
  await eachLimited(files, 8, async (file) => {
    const url =
      file.target.object_url ?? `${file.target.upload_url}/${file.target.upload_query.key ?? ''}`;
    signed.set(file.path, await api.presign(token, ownerid, url));
  });
  return signed;
}

/** Uploads a package's files through signed forms and asks the hub to publish it. */
export async function publishPackage(options: PublishOptions): Promise<PublishResult> {
  const { api, profile } = options;
  const { dir, descriptor } = options.source;
  const dataset = typeof descriptor.name === 'string' ? descriptor.name : '';
  if (!dataset)
    throw new InputError(
      'the package has no "name": the hub names the dataset after it',
      'add a "name" to datapackage.json',
    );
  const rawstore = await api.authorize(options.token, 'rawstore');
  const started = performance.now();
  const files = await stageFiles(packageFiles(options.source), {
    dir,
    api,
    fetch: options.fetch,
    rawstoreToken: rawstore.token,
    metadata: { owner: profile.id, findability: options.findability, dataset },
    concurrency: options.concurrency ?? 4,
    signal: options.signal,
    onEvent: options.onEvent,
  });
  const stagingSeconds = roundSeconds(performance.now() - started);
  const signed = await presignAll(files, api, rawstore.token, profile.id);
  const source = await api.authorize(options.token, 'source');
  const mapping = Object.fromEntries(
    files
      .filter((file) => file.path !== 'datapackage.json')
      .map((file) => [file.path, signed.get(file.path)]),
  );
  const spec = {
    meta: {
      version: 1,
      ownerid: profile.id,
      owner: profile.username,
      dataset,
      findability: options.findability,
      ...(options.force ? { force: true } : {}),
    },
    inputs: [
      {
        kind: 'datapackage',
        url: signed.get('datapackage.json'),
        parameters: { descriptor, 'resource-mapping': mapping },
      },
    ],
  };
  const { flowId, unchanged } = await api.sourceUpload(source.token, spec);
  options.onEvent?.({ type: 'submitted', flowId, unchanged });
  const result: PublishResult = {
    dataset,
    owner: profile.username,
    revision: Number(flowId.split('/').pop()),
    flowId,
    state: unchanged ? 'SUCCEEDED' : 'QUEUED',
    unchanged,
    url: `${options.site}/${profile.username}/${dataset}`,
    uploaded: files.filter((file) => !file.target.exists).map((file) => file.path),
    skipped: files.filter((file) => file.target.exists).map((file) => file.path),
    status: undefined,
    seconds: { upload: stagingSeconds },
  };
  if (!options.wait || unchanged) return result;
  const status = await waitForPublication(options, flowId);
  return { ...result, state: status.state, status };
}

/** Waits before each poll: quick at first (a small package is done in well under a second), then every 2 s, every 10 s after a minute. */
function pollDelay(poll: number, elapsed: number): number {
  if (elapsed > 60_000) return 10_000;
  return [100, 250, 500, 1000][poll] ?? 2_000;
}

/** Polls the status until it ends or times out; see pollDelay. */
async function waitForPublication(options: PublishOptions, flowId: string): Promise<FlowStatus> {
  const started = Date.now();
  for (let poll = 0; ; poll++) {
    const status = await options.api.status(flowId, options.token);
    options.onEvent?.({ type: 'status', status });
    if (status.state === 'SUCCEEDED' || status.state === 'FAILED') return status;
    const elapsed = Date.now() - started;
    if (elapsed > options.timeoutMs) {
      throw new NetworkError(
        `the hub did not finish publishing ${flowId} within ${String(Math.round(options.timeoutMs / 1000))} s (state ${status.state})`,
        undefined,
        {
          code: 'E_TIMEOUT',
          hint: 'the publication may still finish: look at the dataset later',
          reason: 'publication-unfinished',
        },
      );
    }
    await sleep(options.pollMs ?? pollDelay(poll, elapsed), options.signal);
  }
}
