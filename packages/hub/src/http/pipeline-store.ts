import type { ServerResponse } from 'node:http';
import type { Hub } from '../context.js';
import { callerOf, serviceCaller } from './callers.js';
import { credentialRefusal, may } from '../services/access.js';
import { HttpError } from '../http-error.js';
import { readJson, sendJson, type Request } from './request.js';
import { flowId, initialPipelines, statusOf } from '../services/pipeline/steps.js';
import type { Dataset, Revision } from '../engines/metadata/types.js';
import type { ChangeSummary, FlowSpec, SourceUploadAnswer } from '@data/core';
import { flowSpecErrors, localPaths, type Resource } from '@data/core';
import { packagePath } from '../engines/storage/types.js';
import type { Caller } from '../caller.js';
import { datasetObjects, objectKeyOfUrl, quotaMessage, wasSent } from '../services/objects.js';

// The flow spec and its checks are the protocol's, in core (protocol/), shared with the client.

/**
 * What makes two publications the same: the descriptor, the bytes of every file (their
 * object keys, not the URLs, which are signed anew each time) and the findability asked.
 * Undefined when a file's object cannot be told from its URL.
 */
function fingerprint(spec: FlowSpec): string | undefined {
  const input = spec.inputs[0];
  if (!input) return undefined;
  const files: Record<string, string> = {};
  for (const [path, url] of Object.entries(input.parameters['resource-mapping'])) {
    const key = typeof url === 'string' ? objectKeyOfUrl(url) : undefined;
    if (!key) return undefined;
    files[path] = key;
  }
  return JSON.stringify([input.parameters.descriptor, files, spec.meta.findability ?? null]);
}

/**
 * The published revision when the newest revision is it and was made from this same
 * package: publishing it again would only make a copy (`meta.force` makes one anyway).
 */
async function unchangedRevision(
  hub: Hub,
  ownerid: string,
  spec: FlowSpec,
): Promise<number | undefined> {
  const dataset = await hub.store.dataset(ownerid, spec.meta.dataset);
  const latest = await hub.store.revision(ownerid, spec.meta.dataset, 'latest');
  if (latest?.state !== 'SUCCEEDED' || dataset?.published_revision !== latest.revision)
    return undefined;
  const wanted = fingerprint(spec);
  return wanted !== undefined && wanted === fingerprint(JSON.parse(latest.spec) as FlowSpec)
    ? latest.revision
    : undefined;
}

/**
 * Why a credential limited to some datasets may not publish this spec: a local file of its
 * descriptor that names no object (the pipeline would take the owner's last upload at that
 * path, maybe of another dataset), or an object it neither sent for this dataset nor finds
 * in the dataset's own revisions (named by a digest it knows, the owner's object of another
 * dataset would be published in its own). Undefined for any other credential.
 */
async function unsentFile(
  hub: Hub,
  caller: Caller,
  spec: FlowSpec,
  owner: string,
): Promise<string | undefined> {
  if (caller.datasets.length === 0) return undefined;
  const { ownerid, dataset } = spec.meta;
  const input = spec.inputs[0];
  const list: unknown = input?.parameters.descriptor.resources;
  const resources = Array.isArray(list) ? (list as Resource[]) : [];
  const mapping = input?.parameters['resource-mapping'] ?? {};
  const own = await datasetObjects(hub, ownerid, dataset);
  for (const path of new Set(resources.flatMap(localPaths))) {
    const url = mapping[path];
    const key = typeof url === 'string' ? objectKeyOfUrl(url) : undefined;
    if (key === undefined)
      return `"${path}" has no object in the resource mapping: a token limited to datasets names each file it sent`;
    if (!own.has(key) && !(await wasSent(hub, { ownerid, dataset, key })))
      return `"${path}" was not sent by a token for ${owner}/${dataset}: upload it for this dataset first`;
  }
  return undefined;
}

export async function upload(hub: Hub, request: Request, response: ServerResponse): Promise<void> {
  const caller = await serviceCaller(hub, request, 'source');
  if (!caller)
    return sendJson(response, 401, {
      success: false,
      errors: ['a valid source service token is required'],
    } satisfies SourceUploadAnswer);
  const body = await readJson(request, hub.options.limits.specBytes);
  const errors = flowSpecErrors(body);
  if (errors.length > 0)
    return sendJson(response, 400, { success: false, errors } satisfies SourceUploadAnswer);
  const spec = body as FlowSpec;
  const { ownerid, dataset } = spec.meta;
  // The owner may be the caller, or an organisation the caller may publish to.
  if (!(await may(hub.store.organisations, caller, 'publish', ownerid, dataset))) {
    const owner = (await hub.store.userById(ownerid))?.username ?? ownerid;
    return sendJson(response, 403, {
      success: false,
      // The credential's own limit first (its scope, its datasets), under any owner.
      errors: [
        credentialRefusal(caller, 'publish', ownerid, dataset, `${owner}/${dataset}`) ??
          (ownerid === caller.userid
            ? `this token may not publish ${owner}/${dataset}`
            : '"meta.ownerid" is not the owner of the token, nor an organisation it may publish to'),
      ],
    } satisfies SourceUploadAnswer);
  }
  const owner = (await hub.store.userById(ownerid))?.username ?? ownerid;
  const unsent = await unsentFile(hub, caller, spec, owner);
  if (unsent !== undefined)
    return sendJson(response, 403, {
      success: false,
      errors: [unsent],
    } satisfies SourceUploadAnswer);
  const same = spec.meta.force === true ? undefined : await unchangedRevision(hub, ownerid, spec);
  if (same !== undefined)
    return sendJson(response, 200, {
      success: true,
      dataset_id: `${ownerid}/${dataset}`,
      flow_id: flowId({ ownerid, dataset, revision: same }),
      errors: [],
      unchanged: true,
    } satisfies SourceUploadAnswer);
  const created = await hub.store.createRevision({
    ownerid,
    dataset,
    findability: spec.meta.findability ?? null,
    spec: JSON.stringify(spec),
    pipelines: JSON.stringify(initialPipelines()),
    requestId: request.id,
    limits: hub.options,
  });
  if ('existing' in created)
    return sendJson(response, 409, {
      success: false,
      errors: [
        `you already have a dataset "${created.existing}", and names must differ in more than case: publish to "${created.existing}" or choose another name`,
      ],
    } satisfies SourceUploadAnswer);
  if ('refused' in created)
    return sendJson(response, 403, {
      success: false,
      errors: [
        created.refused === 'datasets'
          ? `Max datasets for user exceeded plan limit (${String(hub.options.maxDatasets)})`
          : quotaMessage(hub),
      ],
    } satisfies SourceUploadAnswer);
  const revision = created.revision;
  hub.enqueue();
  sendJson(response, 200, {
    success: true,
    dataset_id: `${ownerid}/${dataset}`,
    flow_id: flowId({ ownerid, dataset, revision }),
    errors: [],
  } satisfies SourceUploadAnswer);
}

/**
 * Whether the caller (a sign-in, a named token, a trusted publisher's token or a source
 * service token) may read this private dataset of the owner's. The dataset is named: a
 * trusted publisher's token reads only the one it publishes.
 */
async function mayRead(
  hub: Hub,
  request: Request,
  ownerid: string,
  dataset: string,
): Promise<boolean> {
  const caller = (await callerOf(hub, request)) ?? (await serviceCaller(hub, request, 'source'));
  return await may(hub.store.organisations, caller, 'read', ownerid, dataset);
}

/**
 * A revision's change summary as the asker may see it: none while it is being made, and none
 * when it compares with a revision the asker may not see (its counts would tell of it).
 */
export function shownChanges(
  revision: Revision,
  visible: ReadonlySet<number>,
): ChangeSummary | null {
  if (!revision.changes) return null;
  const summary = JSON.parse(revision.changes) as ChangeSummary;
  return summary.since === null || visible.has(summary.since) ? summary : null;
}

/**
 * Whether others may see a revision: one meant to be public, unless the dataset they would
 * learn about has since been made private. The owner sees every revision.
 */
export function visibleToOthers(found: Dataset, revision: Revision): boolean {
  const meant =
    revision.findability ?? (found.published_revision == null ? 'published' : found.findability);
  const meantPublic = meant === 'published' || meant === 'unlisted';
  return meantPublic && (found.findability !== 'private' || found.published_revision === null);
}

export async function status(
  hub: Hub,
  request: Request,
  response: ServerResponse,
  ownerid: string,
  dataset: string,
  which: string,
): Promise<void> {
  // What the asker may not see is answered exactly as what is not there.
  const missing = new HttpError(404, `no revision "${which}" of ${ownerid}/${dataset}`);
  const found = await hub.store.dataset(ownerid, dataset);
  if (found && which === 'revisions') {
    if (await history(hub, request, response, found)) return;
    throw missing;
  }
  const revision = found ? await hub.store.revision(ownerid, dataset, which) : undefined;
  const visible =
    found &&
    revision &&
    ((await mayRead(hub, request, ownerid, found.name)) || visibleToOthers(found, revision));
  if (!revision || !visible) throw missing;
  sendJson(response, 200, statusOf(revision));
}

/**
 * Ours: `/source/<ownerid>/<dataset>/revisions`, every revision the caller may see, newest
 * first; false, with nothing sent, when the caller may see none.
 */
async function history(
  hub: Hub,
  request: Request,
  response: ServerResponse,
  found: Dataset,
): Promise<boolean> {
  const owner = await mayRead(hub, request, found.ownerid, found.name);
  const shown = (await hub.store.revisions(found.ownerid, found.name)).filter(
    (revision) => owner || visibleToOthers(found, revision),
  );
  const visible = new Set(shown.map((revision) => revision.revision));
  const revisions = shown.map((revision) => ({
    revision: revision.revision,
    state: revision.state,
    findability:
      revision.findability ??
      (revision.revision === found.published_revision ? found.findability : null),
    published: revision.revision === found.published_revision,
    created: revision.created,
    modified: revision.modified,
    changes: shownChanges(revision, visible),
  }));
  if (revisions.length === 0) return false;
  sendJson(response, 200, { dataset: `${found.ownerid}/${found.name}`, revisions });
  return true;
}

/** Ours: `DELETE /source/<ownerid>/<dataset>` by its owner or a member who may delete it. */
export async function remove(
  hub: Hub,
  request: Request,
  response: ServerResponse,
  ownerid: string,
  dataset: string,
): Promise<void> {
  const caller = await callerOf(hub, request);
  if (!caller) throw new HttpError(401, 'sign in to delete a dataset');
  const found = await hub.store.dataset(ownerid, dataset);
  const roles = hub.store.organisations;
  // A private dataset the caller may not read is not there, as for every other read.
  if (
    !found ||
    (found.findability === 'private' && !(await may(roles, caller, 'read', ownerid, found.name)))
  )
    throw new HttpError(404, `no dataset ${ownerid}/${dataset}`);
  if (!(await may(roles, caller, 'delete', ownerid, dataset))) {
    const owner = (await hub.store.userById(ownerid))?.username ?? ownerid;
    throw new HttpError(
      403,
      credentialRefusal(caller, 'delete', ownerid, found.name, `${owner}/${found.name}`) ??
        'only its owner, or a maintainer of its organisation, may delete it',
    );
  }
  await hub.store.deleteDataset(ownerid, dataset);
  // The revisions' own files go; the objects stay, held by the owner (and maybe by others).
  // The dataset is gone either way: files left by a failure here are only logged.
  await hub.storage
    .deletePrefix(packagePath(ownerid, dataset))
    .catch((error: unknown) => hub.log(`deleting ${ownerid}/${dataset}: ${String(error)}`));
  await hub.copies
    .forget(ownerid, dataset)
    .catch((error: unknown) =>
      hub.log(`deleting copies of ${ownerid}/${dataset}: ${String(error)}`),
    );
  sendJson(response, 200, { deleted: `${ownerid}/${dataset}` });
}
