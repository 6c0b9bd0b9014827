/**
 * The one access rule (services/access.ts), every role by every scope by every action, with
 * a store of roles in memory: what the database answers is the engines' tests' to check.
 */
import { describe, expect, it } from 'vitest';
import { may, roleOn } from '../../packages/hub/src/services/access.js';
import {
  ROLES,
  SCOPES,
  type MemberRoles,
  type Action,
  type Caller,
  type Role,
  type Scope,
} from '../../packages/hub/src/caller.js';

const ACTIONS: readonly Action[] = ['read', 'publish', 'delete', 'manage'];

/** One organisation, `org-1`, whose members are `u-<role>`; asked questions are counted. */
function roles(): MemberRoles & { asked: number } {
  const members = new Map<string, Role>(ROLES.map((role) => [`u-${role}`, role]));
  const store = {
    asked: 0,
    roleOf(orgid: string, userid: string): Promise<Role | undefined> {
      store.asked += 1;
      return Promise.resolve(orgid === 'org-1' ? members.get(userid) : undefined);
    },
  };
  return store;
}

function caller(userid: string, scope: Scope, datasets: string[] = []): Caller {
  return { userid, scope, datasets, via: scope === 'admin' ? 'session' : 'token' };
}

/** What the design says each role allows, and each scope. */
const ROLE_ALLOWS: Record<Role | 'owner' | 'none', readonly Action[]> = {
  owner: ACTIONS,
  admin: ACTIONS,
  maintainer: ['read', 'publish', 'delete'],
  reader: ['read'],
  none: [],
};
const SCOPE_ALLOWS: Record<Scope, readonly Action[]> = {
  read: ['read'],
  publish: ['read', 'publish'],
  admin: ACTIONS,
};

describe('the access rule', () => {
  const store = roles();
  for (const who of ['owner', ...ROLES, 'none'] as const)
    for (const scope of SCOPES)
      for (const action of ACTIONS) {
        const allowed = ROLE_ALLOWS[who].includes(action) && SCOPE_ALLOWS[scope].includes(action);
        it(`${who === 'none' ? 'a non-member' : who === 'owner' ? 'the owner' : `a member (${who})`} with a ${scope} credential ${allowed ? 'may' : 'may not'} ${action}`, async () => {
          const [userid, ownerid] = who === 'owner' ? ['org-1', 'org-1'] : [`u-${who}`, 'org-1'];
          expect(await may(store, caller(userid, scope), action, ownerid, 'cities')).toBe(allowed);
          // Without a dataset named, the same: only a credential limited to datasets needs one.
          expect(await may(store, caller(userid, scope), action, ownerid)).toBe(allowed);
        });
      }

  it('gives nobody anything without a caller, and asks the database nothing then', async () => {
    const counted = roles();
    for (const action of ACTIONS)
      expect(await may(counted, undefined, action, 'org-1')).toBe(false);
    expect(counted.asked).toBe(0);
    expect(await roleOn(counted, undefined, 'org-1')).toBeUndefined();
  });

  it('gives a member of one organisation nothing in another, nor in a user’s account', async () => {
    for (const action of ACTIONS) {
      expect(await may(store, caller('u-admin', 'admin'), action, 'org-2', 'cities')).toBe(false);
      expect(await may(store, caller('u-admin', 'admin'), action, 'u-reader')).toBe(false);
    }
  });

  it('lets a credential limited to datasets write only those, read as its user does, and manage nothing', async () => {
    const limited = caller('u-maintainer', 'publish', ['org-1/cities']);
    expect(await may(store, limited, 'publish', 'org-1', 'cities')).toBe(true);
    expect(await may(store, limited, 'publish', 'org-1', 'rivers')).toBe(false);
    // Without a dataset named: whether it may write one of the owner's (an upload's question).
    expect(await may(store, limited, 'publish', 'org-1')).toBe(true);
    expect(await may(store, caller('org-2', 'publish', ['org-1/cities']), 'publish', 'org-2')).toBe(
      false,
    );
    // Another owner's dataset of the same name is another dataset.
    expect(
      await may(
        store,
        caller('u-maintainer', 'publish', ['org-2/cities']),
        'publish',
        'org-1',
        'cities',
      ),
    ).toBe(false);
    expect(await may(store, limited, 'read', 'org-1', 'rivers')).toBe(true);
    expect(await may(store, limited, 'read', 'org-1')).toBe(true);
    const limitedAdmin = caller('org-1', 'admin', ['org-1/cities']);
    expect(await may(store, limitedAdmin, 'delete', 'org-1', 'cities')).toBe(true);
    expect(await may(store, limitedAdmin, 'delete', 'org-1', 'rivers')).toBe(false);
    expect(await may(store, limitedAdmin, 'manage', 'org-1')).toBe(false);
    // A trusted publisher's token: publish one dataset of its owner, nothing else.
    const trusted: Caller = {
      userid: 'org-1',
      scope: 'publish',
      datasets: ['org-1/cities'],
      via: 'trusted',
    };
    expect(await may(store, trusted, 'publish', 'org-1', 'cities')).toBe(true);
    expect(await may(store, trusted, 'delete', 'org-1', 'cities')).toBe(false);
    expect(await may(store, trusted, 'publish', 'org-1', 'rivers')).toBe(false);
    // It reads its own dataset, and nothing else its owner keeps private.
    expect(await may(store, trusted, 'read', 'org-1', 'cities')).toBe(true);
    expect(await may(store, trusted, 'read', 'org-1', 'rivers')).toBe(false);
    expect(await may(store, trusted, 'read', 'org-1')).toBe(false);
  });

  it('reads the role on every question, so that a change of role holds at once', async () => {
    let role: Role | undefined = 'maintainer';
    const changing: MemberRoles = { roleOf: () => Promise.resolve(role) };
    const ada = caller('ada', 'admin');
    expect(await may(changing, ada, 'publish', 'org-1', 'cities')).toBe(true);
    role = 'reader';
    expect(await may(changing, ada, 'publish', 'org-1', 'cities')).toBe(false);
    expect(await may(changing, ada, 'read', 'org-1', 'cities')).toBe(true);
    role = undefined;
    expect(await may(changing, ada, 'read', 'org-1', 'cities')).toBe(false);
  });

  it('tells the owner’s role as admin and a member’s as stored', async () => {
    expect(await roleOn(store, caller('org-1', 'read'), 'org-1')).toBe('admin');
    expect(await roleOn(store, caller('u-reader', 'admin'), 'org-1')).toBe('reader');
    expect(await roleOn(store, caller('stranger', 'admin'), 'org-1')).toBeUndefined();
  });
});
