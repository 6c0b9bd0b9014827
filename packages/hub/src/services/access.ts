/**
 * The one access rule of the hub: what a caller may do to an owner's datasets. Every route
 * asks it; nothing else compares a caller with an owner.
 *
 * A caller's role on an owner: the owner itself may do everything; in an organisation, an
 * admin reads, publishes, deletes and manages members, a maintainer reads, publishes and
 * deletes, a reader reads; anyone else nothing (the public datasets anyone reads are not a
 * matter of roles). The credential's scope caps the role: `read` reads, `publish` reads and
 * publishes, `admin` is all the user can do. A credential limited to some datasets writes
 * (publishes, deletes) only those, and manages nothing (a trusted publisher's token also reads
 * only its one dataset); asked of an owner without a dataset
 * named (an upload's authorization), it may write when one of its datasets is the owner's.
 *
 * Roles are read from the database on every question, never cached, so that a change of
 * role holds at once on every hub process.
 */
import type { Action, Caller, MemberRoles, Role, Scope } from '../caller.js';
import { challengeScope } from '../challenge.js';

const ROLE_ALLOWS: Readonly<Record<Role, readonly Action[]>> = {
  admin: ['read', 'publish', 'delete', 'manage'],
  maintainer: ['read', 'publish', 'delete'],
  reader: ['read'],
};

const SCOPE_ALLOWS: Readonly<Record<Scope, readonly Action[]>> = {
  read: ['read'],
  publish: ['read', 'publish'],
  admin: ['read', 'publish', 'delete', 'manage'],
};

/**
 * Whether a credential's `ownerid/dataset` pair names this dataset: the owner's id exactly,
 * the dataset's name in any case (a token made for World-Cities publishes world-cities).
 */
function names(pair: string, ownerid: string, dataset: string): boolean {
  const slash = pair.indexOf('/');
  return (
    pair.slice(0, slash) === ownerid &&
    pair.slice(slash + 1).toLowerCase() === dataset.toLowerCase()
  );
}

/** Whether a credential of this scope and these datasets may ask for this action at all. */
function credentialAllows(
  caller: Caller,
  action: Action,
  ownerid: string,
  dataset: string | undefined,
): boolean {
  if (!SCOPE_ALLOWS[caller.scope].includes(action)) return false;
  // A CI job's traded token stands for the workflow, not for a person: it reads only the one
  // dataset it may publish, not the rest of what its owner keeps private.
  if (action === 'read' && caller.via === 'trusted')
    return dataset !== undefined && caller.datasets.some((pair) => names(pair, ownerid, dataset));
  if (action === 'read' || caller.datasets.length === 0) return true;
  if (action === 'manage') return false;
  // Without a dataset named, the question is whether it may write any dataset of the owner.
  return dataset === undefined
    ? caller.datasets.some((pair) => pair.startsWith(`${ownerid}/`))
    : caller.datasets.some((pair) => names(pair, ownerid, dataset));
}

/** The least scope that allows each action. */
const LEAST_SCOPE: Readonly<Record<Action, Scope>> = {
  read: 'read',
  publish: 'publish',
  delete: 'admin',
  manage: 'admin',
};

const DOING: Readonly<Record<Action, string>> = {
  read: 'reading',
  publish: 'publishing',
  delete: 'deleting',
  manage: 'managing',
};

/**
 * Why the credential itself may not do this, whatever its user's role: its scope ("this
 * token's scope is read; deleting ada/cities needs the admin scope"), or the datasets it was
 * made for; undefined when the credential allows it, and the role is then the question. Asked
 * first, whoever the owner (the caller, or an organisation), so that a refusal names the
 * credential's limit, not a role the caller may well have. `target` names what was asked (by
 * owner names); `doing`, the whole act when the action's word is not it ("making an
 * organisation").
 */
export function credentialRefusal(
  caller: Caller,
  action: Action,
  ownerid: string,
  dataset: string | undefined,
  target: string,
  doing = `${DOING[action]} ${target}`,
): string | undefined {
  if (credentialAllows(caller, action, ownerid, dataset)) return undefined;
  challengeScope(LEAST_SCOPE[action]);
  const manager = 'a sign-in or an admin token limited to no dataset';
  if (!SCOPE_ALLOWS[caller.scope].includes(action))
    return action === 'manage'
      ? `this token's scope is ${caller.scope}; ${doing} takes ${manager}`
      : `this token's scope is ${caller.scope}; ${doing} needs the ${LEAST_SCOPE[action]} scope`;
  if (action === 'manage')
    return `this token is limited to some datasets; ${doing} takes ${manager}`;
  return `this token may ${action} only the datasets it was made for, and ${target} is not one of them`;
}

/** The caller's role on an owner: `admin` for the owner itself, else the member's role. */
export async function roleOn(
  store: MemberRoles,
  caller: Caller | undefined,
  ownerid: string,
): Promise<Role | undefined> {
  if (!caller) return undefined;
  if (caller.userid === ownerid) return 'admin';
  return await store.roleOf(ownerid, caller.userid);
}

/**
 * Whether the caller may do this to the owner's datasets (to `dataset` when it is named; to
 * one of them at least when it is not).
 * `read` here is the reading of what the owner keeps private; what is public needs no rule.
 */
export async function may(
  store: MemberRoles,
  caller: Caller | undefined,
  action: Action,
  ownerid: string,
  dataset?: string,
): Promise<boolean> {
  if (!caller || !credentialAllows(caller, action, ownerid, dataset)) return false;
  const role = await roleOn(store, caller, ownerid);
  return role !== undefined && ROLE_ALLOWS[role].includes(action);
}
