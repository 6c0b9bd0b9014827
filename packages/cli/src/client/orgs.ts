/**
 * The use cases of `data org create|add|remove|members|delete`: the hub's `/api/orgs`, over the
 * signed-in user's token. No terminal I/O; a refusal (a name taken, a user who is not
 * there, a member who may not, the last admin) is a RefusedError with the hub's reason.
 */
import {
  isOrgMember,
  RefusedError,
  ServerError,
  type HttpInit,
  type OrgMember,
  type OrgRole,
} from '@data/core';
import type { HubApi } from './api.js';
import { signedInCall, type SignedInCallDeps } from './signed-in.js';

/** The hub, the fetch, the signed-in token and the error of its refusal. */
export type OrgsDeps = SignedInCallDeps;

/**
 * The hub's answer to one call of these use cases (client/signed-in.ts) about the
 * organisation `org`.
 */
function call(
  deps: OrgsDeps,
  step: string,
  path: string,
  init: HttpInit,
  org: string,
): Promise<unknown> {
  return signedInCall(
    deps,
    step,
    path,
    init,
    { path: '/api/orgs', lacks: 'has no organisations' },
    { reason: 'org-change-sent', subject: org.toLowerCase() },
  );
}

const orgPath = (org: string) => `/api/orgs/${encodeURIComponent(org)}/members`;

const withBody = (method: string, body: unknown): HttpInit => ({
  method,
  headers: { 'Content-Type': 'application/json' },
  body: JSON.stringify(body),
});

/** Makes an organisation whose first admin is the signed-in user. */
export async function runOrgCreate(
  name: string,
  deps: OrgsDeps,
): Promise<{ name: string; members: OrgMember[] }> {
  const answer = await call(deps, 'org create', '/api/orgs', withBody('POST', { name }), name);
  const made = answer as { name?: unknown; members?: unknown };
  if (
    typeof made.name !== 'string' ||
    !Array.isArray(made.members) ||
    !made.members.every(isOrgMember)
  )
    throw new ServerError('org create: the hub answered something that is not an organisation');
  return { name: made.name, members: made.members };
}

/** Adds a member to an organisation, or changes a member's role. */
export async function runOrgAdd(
  org: string,
  user: string,
  role: OrgRole,
  deps: OrgsDeps,
): Promise<OrgMember> {
  const answer = await call(
    deps,
    'org add',
    `${orgPath(org)}/${encodeURIComponent(user)}`,
    withBody('PUT', { role }),
    org,
  );
  if (!isOrgMember(answer))
    throw new ServerError('org add: the hub answered something that is not a member');
  return answer;
}

/** Removes a member (or the signed-in user, leaving). */
export async function runOrgRemove(
  org: string,
  user: string,
  deps: OrgsDeps,
): Promise<{ removed: string }> {
  const answer = await call(
    deps,
    'org remove',
    `${orgPath(org)}/${encodeURIComponent(user)}`,
    { method: 'DELETE' },
    org,
  );
  const removed = (answer as { removed?: unknown }).removed;
  if (typeof removed !== 'string')
    throw new ServerError('org remove: the hub answered something that is not a removal');
  return { removed };
}

/**
 * Deletes an organisation (its admins may, once it has no datasets): its name is free
 * again. A refusal (datasets left, a revision waiting, not an admin) says why.
 */
export async function runOrgDelete(org: string, deps: OrgsDeps): Promise<{ deleted: string }> {
  const answer = await call(
    deps,
    'org delete',
    `/api/orgs/${encodeURIComponent(org)}`,
    { method: 'DELETE' },
    org,
  );
  const deleted = (answer as { deleted?: unknown }).deleted;
  if (typeof deleted !== 'string')
    throw new ServerError('org delete: the hub answered something that is not a deletion');
  return { deleted };
}

/** An organisation's members, by name: only its members may list them. */
export async function runOrgMembers(org: string, deps: OrgsDeps): Promise<OrgMember[]> {
  const answer = await call(deps, 'org members', orgPath(org), {}, org);
  if (!Array.isArray(answer) || !answer.every(isOrgMember))
    throw new ServerError('org members: the hub answered something that is not a list of members');
  return answer;
}

/**
 * The owner `data publish --owner` names: the signed-in user itself, or an organisation the
 * user may publish under (a maintainer or admin), with its id as the hub resolves it. The
 * hub decides again when it is asked to publish; asked first, a refusal says why.
 */
export async function publishOwner(
  api: Pick<HubApi, 'owner'>,
  deps: OrgsDeps,
  name: string,
  me: { id: string; username: string },
): Promise<{ id: string; username: string }> {
  const username = name.toLowerCase();
  if (username === me.username) return me;
  let members: OrgMember[];
  try {
    members = await runOrgMembers(username, deps);
  } catch (error) {
    if (error instanceof RefusedError) throw await notAnOwner(api, username);
    throw error;
  }
  const role = members.find((member) => member.user === me.username)?.role;
  if (role !== 'admin' && role !== 'maintainer')
    throw new RefusedError(
      `publish: you are ${role === undefined ? 'not a member' : `a ${role}`} of ${username}: publishing under it takes a maintainer or an admin`,
    );
  const owner = await api.owner(username);
  if (!owner) throw new RefusedError(`publish: there is no organisation "${username}" on the hub`);
  return { id: owner.id, username };
}

/**
 * Why a name whose members the hub would not list is no owner to publish under: a user
 * (another user: no one publishes under another's name), nobody, or an organisation the
 * signed-in user is not a member of (as an older hub, which does not say which, says it).
 */
async function notAnOwner(api: Pick<HubApi, 'owner'>, username: string): Promise<RefusedError> {
  const owner = await api.owner(username);
  if (!owner)
    return new RefusedError(`publish: there is no user or organisation "${username}" on the hub`);
  if (owner.kind === 'user')
    return new RefusedError(
      `publish: "${username}" is a user, not an organisation: you publish under your own name or an organisation's, never under another user's`,
    );
  return new RefusedError(
    `publish: there is no organisation "${username}" that you are a member of`,
  );
}
