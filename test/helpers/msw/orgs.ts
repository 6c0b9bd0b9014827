/** The hub's organisations API (/api/orgs), kept in memory as a hub keeps it, for one test. */
import { http, HttpResponse } from 'msw';
import type { OrgMember, OrgRole } from '../../../packages/core/src/index.js';
import { ADA, HUB } from './hub.js';

/** What the stand-in hub holds: the users who signed in, each organisation's members. */
export interface OrgHub {
  users: Set<string>;
  orgs: Map<string, OrgMember[]>;
  /** The signed-in user the requests come from. */
  me: string;
  /** How many datasets an organisation has (none when not set): it is deleted only with none. */
  datasets?: Map<string, number>;
}

export function orgHub(users: string[] = [ADA.username, 'grace', 'rob']): OrgHub {
  return { users: new Set(users), orgs: new Map(), me: ADA.username };
}

const refuse = (status: number, error: string) => HttpResponse.json({ error }, { status });

/** /api/orgs as the hub answers it, with its refusals. */
export function orgsApi(state: OrgHub) {
  const mine = (org: string) => {
    const members = state.orgs.get(org.toLowerCase());
    return members?.some((member) => member.user === state.me) ? members : undefined;
  };
  return [
    // Each name is a user's or an organisation's, and /auth/resolve says which.
    http.get(`${HUB}/auth/resolve`, ({ request }) => {
      const name = new URL(request.url).searchParams.get('username') ?? '';
      if (state.users.has(name)) return HttpResponse.json({ userid: `id-${name}`, kind: 'user' });
      if (state.orgs.has(name))
        return HttpResponse.json({ userid: `id-${name}`, kind: 'organisation' });
      return HttpResponse.json({ userid: null });
    }),
    http.post(`${HUB}/api/orgs`, async ({ request }) => {
      const { name } = (await request.json()) as { name: string };
      const lower = name.toLowerCase();
      if (state.users.has(lower) || state.orgs.has(lower))
        return refuse(409, `the name "${lower}" is taken by a user or an organisation`);
      const members: OrgMember[] = [{ user: state.me, role: 'admin' }];
      state.orgs.set(lower, members);
      return HttpResponse.json({ name: lower, members }, { status: 201 });
    }),
    http.get(`${HUB}/api/orgs/:org/members`, ({ params }) => {
      const org = String(params.org);
      const members = mine(org);
      return members
        ? HttpResponse.json(members)
        : refuse(404, `no organisation "${org}" of yours`);
    }),
    http.put(`${HUB}/api/orgs/:org/members/:user`, async ({ params, request }) => {
      const [org, user] = [String(params.org), String(params.user).toLowerCase()];
      const members = mine(org);
      if (!members) return refuse(404, `no organisation "${org}" of yours`);
      if (members.find((member) => member.user === state.me)?.role !== 'admin')
        return refuse(403, `only an admin of ${org} may change its members`);
      if (state.orgs.has(user))
        return refuse(
          400,
          `"${user}" is an organisation: an organisation cannot be a member of another, only users can`,
        );
      if (!state.users.has(user))
        return refuse(404, `there is no user "${user}" on this hub: they must sign in once first`);
      const { role } = (await request.json()) as { role: OrgRole };
      const kept = members.filter((member) => member.user !== user);
      state.orgs.set(
        org,
        [...kept, { user, role }].sort((a, b) => a.user.localeCompare(b.user)),
      );
      return HttpResponse.json({ user, role });
    }),
    http.delete(`${HUB}/api/orgs/:org/members/:user`, ({ params }) => {
      const [org, user] = [String(params.org), String(params.user).toLowerCase()];
      const members = mine(org);
      if (!members) return refuse(404, `no organisation "${org}" of yours`);
      const admins = members.filter((member) => member.role === 'admin');
      if (admins.length === 1 && admins[0]?.user === user)
        return refuse(409, `${user} is the last admin of ${org}: make another member admin first`);
      state.orgs.set(
        org,
        members.filter((member) => member.user !== user),
      );
      return HttpResponse.json({ removed: user });
    }),
    http.delete(`${HUB}/api/orgs/:org`, ({ params }) => {
      const org = String(params.org).toLowerCase();
      const members = mine(org);
      if (!members) return refuse(404, `no organisation "${org}" of yours`);
      if (members.find((member) => member.user === state.me)?.role !== 'admin')
        return refuse(403, `only an admin of ${org} may change its members`);
      const datasets = state.datasets?.get(org) ?? 0;
      if (datasets > 0)
        return refuse(
          409,
          `${org} has ${String(datasets)} datasets: delete each first (data delete ${org}/DATASET; data list ${org} lists them), then the organisation`,
        );
      state.orgs.delete(org);
      return HttpResponse.json({ deleted: org });
    }),
  ];
}
