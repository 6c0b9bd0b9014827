/**
 * Ours: `/api/orgs`, organisations and their members (`data org create|add|remove|members`).
 * An organisation's members are its members' business: to anyone else it answers as a
 * missing one. Who may do what is the access rule's (services/access.ts): members are read
 * by any member, and managed by its admins.
 */
import type { ServerResponse } from 'node:http';
import type { Hub } from '../context.js';
import type { User } from '../engines/metadata/types.js';
import { HttpError } from '../http-error.js';
import { isReservedName, USERNAME } from '../names.js';
import { credentialRefusal, may } from '../services/access.js';
import { revokeTradedTokens } from '../services/publishers.js';
import { ROLES, type Caller, type Role } from '../caller.js';
import { callerOf } from './callers.js';
import { isObject, readJson, sendJson, type Request } from './request.js';

/** The signed-in caller; a request without a live credential is refused. */
async function signedIn(hub: Hub, request: Request): Promise<Caller> {
  const caller = await callerOf(hub, request);
  if (!caller) throw new HttpError(401, 'sign in (data login) to manage organisations');
  return caller;
}

/**
 * An organisation the caller may read (is a member of), by its name in any case; anything
 * else (no such owner, a user, an organisation of others) is the same 404.
 */
async function memberOrganisation(hub: Hub, caller: Caller, name: string): Promise<User> {
  const org = await hub.store.userByName(name.toLowerCase());
  if (
    org?.kind !== 'organisation' ||
    !(await may(hub.store.organisations, caller, 'read', org.userid))
  )
    throw new HttpError(404, `no organisation "${name}" of yours`);
  return org;
}

/** The organisation, when the caller may manage its members (an admin, a full credential). */
async function managedOrganisation(hub: Hub, caller: Caller, name: string): Promise<User> {
  const org = await memberOrganisation(hub, caller, name);
  if (!(await may(hub.store.organisations, caller, 'manage', org.userid)))
    throw new HttpError(
      403,
      credentialRefusal(
        caller,
        'manage',
        org.userid,
        undefined,
        org.username,
        `changing the members of ${org.username}`,
      ) ?? `only an admin of ${org.username} may change its members`,
    );
  return org;
}

/**
 * A user (never an organisation) by name in any case; a 404 that says so when there is none,
 * a 400 that says an organisation is no member when the name is an organisation's.
 */
async function existingUser(hub: Hub, name: string): Promise<User> {
  const user = await hub.store.userByName(name.toLowerCase());
  if (user?.kind === 'organisation')
    throw new HttpError(
      400,
      `"${user.username}" is an organisation: an organisation cannot be a member of another, only users can`,
    );
  if (!user)
    throw new HttpError(
      404,
      `there is no user "${name}" on this hub: they must sign in once first`,
    );
  return user;
}

/** `POST /api/orgs` `{name}`: makes an organisation whose one admin is the caller. */
export async function create(hub: Hub, request: Request, response: ServerResponse): Promise<void> {
  const caller = await signedIn(hub, request);
  // Making an organisation acts for the user as a whole: a sign-in or a full admin token.
  if (!(await may(hub.store.organisations, caller, 'manage', caller.userid)))
    throw new HttpError(
      403,
      credentialRefusal(
        caller,
        'manage',
        caller.userid,
        undefined,
        'organisations',
        'making an organisation',
      ) ?? 'this token may not make organisations: sign in, or use an admin token',
    );
  const body = await readJson(request);
  const asked = isObject(body) && typeof body.name === 'string' ? body.name.trim() : '';
  const name = asked.toLowerCase();
  if (!USERNAME.test(name))
    throw new HttpError(
      400,
      'an organisation name is like a user name: letters, digits, "-" and "_", starting with a letter or digit, at most 39 characters',
    );
  if (isReservedName(name)) throw new HttpError(400, `"${name}" is reserved on this hub`);
  // A cap on names one user holds (squatting): counted among the organisations they made
  // that still exist (not those others made them an admin of), as the organisation is
  // made, in one transaction: racing requests never pass it.
  const most = hub.options.caps.maxOrganisationsPerUser;
  const made = await hub.store.organisations.make(name, caller.userid, most);
  if ('refused' in made && made.refused === 'full')
    throw new HttpError(
      403,
      `you have made ${String(most)} organisations, the most this hub allows one user to make: delete one you no longer need (data org delete ORG)`,
    );
  if ('refused' in made)
    throw new HttpError(409, `the name "${name}" is taken by a user or an organisation`);
  const admin = await hub.store.userById(caller.userid);
  sendJson(response, 201, { name, members: [{ user: admin?.username ?? '', role: 'admin' }] });
}

/** `GET /api/orgs/:org/members`: `[{user, role}]`, to its members only. */
export async function members(
  hub: Hub,
  request: Request,
  response: ServerResponse,
  orgName: string,
): Promise<void> {
  const org = await memberOrganisation(hub, await signedIn(hub, request), orgName);
  const list = await hub.store.organisations.members(org.userid);
  sendJson(
    response,
    200,
    list.map((member) => ({ user: member.username, role: member.role })),
  );
}

const isRole = (value: unknown): value is Role => ROLES.includes(value as Role);

/** `PUT /api/orgs/:org/members/:user` `{role}`: adds a member, or changes a member's role. */
export async function setMember(
  hub: Hub,
  request: Request,
  response: ServerResponse,
  orgName: string,
  userName: string,
): Promise<void> {
  const org = await managedOrganisation(hub, await signedIn(hub, request), orgName);
  const body = await readJson(request);
  const role = isObject(body) ? body.role : undefined;
  if (!isRole(role)) throw new HttpError(400, `"role" must be one of ${ROLES.join(', ')}`);
  const user = await existingUser(hub, userName);
  const done = await hub.store.organisations.setRole(org.userid, user.userid, role);
  if (done === 'last-admin')
    throw new HttpError(
      409,
      `${user.username} is the last admin of ${org.username}: make another member admin first`,
    );
  sendJson(response, 200, { user: user.username, role });
}

/** `DELETE /api/orgs/:org/members/:user`: by an admin, or a member leaving. */
export async function removeMember(
  hub: Hub,
  request: Request,
  response: ServerResponse,
  orgName: string,
  userName: string,
): Promise<void> {
  const caller = await signedIn(hub, request);
  const org = await memberOrganisation(hub, caller, orgName);
  const user = await existingUser(hub, userName);
  const roles = hub.store.organisations;
  const leaving =
    user.userid === caller.userid && (await may(roles, caller, 'manage', caller.userid));
  if (!leaving) await managedOrganisation(hub, caller, orgName);
  const done = await roles.remove(org.userid, user.userid);
  if (done === 'not-member')
    throw new HttpError(404, `${user.username} is not a member of ${org.username}`);
  if (done === 'last-admin')
    throw new HttpError(
      409,
      user.userid === caller.userid
        ? `you are the last admin of ${org.username}: make another member admin first, or delete ${org.username} (data org delete ${org.username}) once it has no datasets`
        : `${user.username} is the last admin of ${org.username}: make another member admin first`,
    );
  sendJson(response, 200, { removed: user.username });
}

/**
 * `DELETE /api/orgs/:org`: by an admin, once it has no datasets and no revision waiting. Its
 * members, uploads, holdings and trusted publishers go with it (the tokens those traded die
 * at once), and its name is free again; a token limited to one of its datasets names an
 * owner that is no more, and can publish nowhere, not even to a new owner of the name.
 */
export async function deleteOrganisation(
  hub: Hub,
  request: Request,
  response: ServerResponse,
  orgName: string,
): Promise<void> {
  const org = await managedOrganisation(hub, await signedIn(hub, request), orgName);
  const done = await hub.store.organisations.delete(org.userid);
  if ('refused' in done && done.refused === 'missing')
    throw new HttpError(404, `no organisation "${orgName}" of yours`);
  if ('refused' in done)
    throw new HttpError(
      409,
      done.refused === 'datasets'
        ? `${org.username} has ${plural(done.count, 'dataset')}: delete each first (data delete ${org.username}/DATASET; data list ${org.username} lists them), then the organisation`
        : `${org.username} has ${plural(done.count, 'revision')} waiting to be published: wait until ${done.count === 1 ? 'it is' : 'they are'} published or failed, delete the dataset, then the organisation`,
    );
  for (const id of done.publishers) await revokeTradedTokens(hub.store, id);
  sendJson(response, 200, { deleted: org.username });
}

const plural = (count: number, noun: string) => `${String(count)} ${noun}${count === 1 ? '' : 's'}`;
