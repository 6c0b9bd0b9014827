import { link, mkdir, rename, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { TextDecoder } from 'node:util';
import { validate } from '../validator/index.js';
import { detectVersion, isRemote, unsafeReason } from '../validator/descriptor/paths.js';
import {
  bomOf,
  canonicalEncoding,
  detectEncoding,
  SAMPLE_BYTES,
} from '../validator/table/encoding.js';
import { sniffDelimiter } from '../validator/table/dialect.js';
import { fileHead } from '../files/chunks.js';
import type { Report } from '../validator/index.js';
import type { Hub } from './context.js';
import type { FlowSpec } from './pipeline-store.js';
import type { StepId } from './steps.js';

/** What the steps of one revision share. */
export interface Work {
  readonly hub: Hub;
  readonly ownerid: string;
  readonly dataset: string;
  readonly revision: number;
  readonly spec: FlowSpec;
  readonly workDir: string;
  descriptor: Record<string, unknown>;
  report?: Report;
}

export class StepFailure extends Error {
  constructor(readonly log: string[]) {
    super(log.join('; '));
  }
}

type Resource = Record<string, unknown> & { name?: unknown; path?: unknown; format?: unknown };

function resources(work: Work): Resource[] {
  const list = work.descriptor.resources;
  return Array.isArray(list) ? (list as Resource[]) : [];
}

function localPaths(resource: Resource): string[] {
  const paths = Array.isArray(resource.path) ? (resource.path as unknown[]) : [resource.path];
  return paths.filter((path): path is string => typeof path === 'string' && !isRemote(path));
}

function isCsv(resource: Resource): boolean {
  const format = typeof resource.format === 'string' ? resource.format.toLowerCase() : undefined;
  const path = localPaths(resource)[0] ?? '';
  return (
    format === 'csv' || format === 'tsv' || (format === undefined && /\.(csv|tsv)$/i.test(path))
  );
}

/**
 * The object key of a raw store URL. Only the path counts: the hub may have restarted on
 * another port since the URL was made, and only keys of stored objects are ever linked.
 */
function storedKey(url: string): string | undefined {
  try {
    const match = /^\/rawstore\/objects\/([0-9a-f]{32}(?:\.[a-z0-9]{1,10})?)$/.exec(
      new URL(url).pathname,
    );
    return match?.[1];
  } catch {
    return undefined;
  }
}

/** Links every stored object into a fresh work folder at its resource's path. */
async function load(work: Work): Promise<Record<string, unknown>> {
  const input = work.spec.inputs[0];
  if (!input) throw new StepFailure(['the flow spec has no input']);
  work.descriptor = structuredClone(input.parameters.descriptor);
  const mapping = input.parameters['resource-mapping'];
  const version = detectVersion(work.descriptor);
  await rm(work.workDir, { recursive: true, force: true });
  await mkdir(work.workDir, { recursive: true });
  const problems: string[] = [];
  let files = 0;
  for (const resource of resources(work)) {
    for (const path of localPaths(resource)) {
      const url = mapping[path];
      // The old client fills the mapping without waiting for it: fall back to the object
      // this owner last authorized for the path.
      const key =
        (typeof url === 'string' ? storedKey(url) : undefined) ??
        work.hub.store.lastUpload(work.ownerid, path);
      const unsafe = unsafeReason(path, version);
      if (unsafe) problems.push(`path "${path}" is not safe (${unsafe})`);
      else if (!key || key.includes('/') || !work.hub.store.hasObject(key))
        problems.push(`no stored object for "${path}"`);
      else {
        const target = join(work.workDir, path);
        await mkdir(dirname(target), { recursive: true });
        await link(join(work.hub.objectsDir, key), target);
        files++;
      }
    }
  }
  if (problems.length > 0) throw new StepFailure(problems);
  return { files };
}

async function encoding(work: Work): Promise<Record<string, unknown>> {
  let detected = 0;
  for (const resource of resources(work).filter(isCsv)) {
    if (typeof resource.encoding === 'string') continue;
    const path = localPaths(resource)[0];
    if (!path) continue;
    const bytes = await fileHead(join(work.workDir, path), SAMPLE_BYTES);
    resource.encoding = bomOf(bytes)?.encoding ?? canonicalEncoding(await detectEncoding(bytes));
    detected++;
  }
  return { detected };
}

async function csvKind(work: Work): Promise<Record<string, unknown>> {
  let sniffed = 0;
  for (const resource of resources(work).filter(isCsv)) {
    if (resource.dialect !== undefined) continue;
    const path = localPaths(resource)[0];
    if (!path) continue;
    const text = new TextDecoder(
      typeof resource.encoding === 'string' ? resource.encoding : 'utf-8',
    ).decode(await fileHead(join(work.workDir, path), SAMPLE_BYTES));
    const delimiter = sniffDelimiter(text, '"');
    if (delimiter && delimiter !== ',') {
      resource.dialect = { delimiter };
      sniffed++;
    }
  }
  return { sniffed };
}

async function check(work: Work): Promise<Record<string, unknown>> {
  await writeFile(
    join(work.workDir, 'datapackage.json'),
    `${JSON.stringify(work.descriptor, null, 2)}\n`,
  );
  const report = await validate(work.workDir, { fetch: globalThis.fetch });
  work.report = report;
  await writeFile(join(work.workDir, 'validation_report.json'), JSON.stringify(report));
  if (!report.valid) {
    const messages = [
      ...report.errors,
      ...report.tasks.flatMap((task) =>
        task.errors.map((error) => ({ ...error, message: `${task.name}: ${error.message}` })),
      ),
    ];
    throw new StepFailure([
      `the data package is invalid: ${String(report.stats.errors)} errors`,
      ...messages.slice(0, 20).map((error) => error.message),
    ]);
  }
  return { errors: 0, tasks: report.stats.tasks };
}

export function revisionDir(hub: Hub, ownerid: string, dataset: string, revision: number): string {
  return join(hub.packagesDir, ownerid, dataset, String(revision));
}

async function dump(work: Work): Promise<Record<string, unknown>> {
  const target = revisionDir(work.hub, work.ownerid, work.dataset, work.revision);
  await rm(target, { recursive: true, force: true });
  await mkdir(dirname(target), { recursive: true });
  await rename(work.workDir, target);
  return {};
}

function register(work: Work): Promise<Record<string, unknown>> {
  const text = (key: string): string | null =>
    typeof work.descriptor[key] === 'string' ? work.descriptor[key] : null;
  work.hub.store.updateRevision(work, { descriptor: JSON.stringify(work.descriptor) });
  work.hub.store.publish(
    work.ownerid,
    work.dataset,
    work.revision,
    text('title'),
    text('description'),
  );
  return Promise.resolve({});
}

export const STEP_RUNNERS: Record<StepId, (work: Work) => Promise<Record<string, unknown>>> = {
  load,
  encoding,
  'csv-kind': csvKind,
  validate: check,
  dump,
  register,
};
