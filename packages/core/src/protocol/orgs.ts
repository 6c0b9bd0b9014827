/**
 * The wire types of `/api/orgs` (issue 49): organisations' members and their roles, shared
 * by the hub that answers them and the client that reads them.
 */

/** A member's role: `admin` may do all (members too), `maintainer` read, publish and delete, `reader` read. */
export const ORG_ROLES = ['admin', 'maintainer', 'reader'] as const;
export type OrgRole = (typeof ORG_ROLES)[number];

/** A member, as `GET /api/orgs/:org/members` lists them and `data org members --json` prints them. */
export interface OrgMember {
  user: string;
  role: OrgRole;
}

/** The shape of an owner's name, a user's or an organisation's (any case: the hub lowers it). */
export const OWNER_NAME = /^[A-Za-z0-9][A-Za-z0-9_-]{0,38}$/;

export function isOrgMember(value: unknown): value is OrgMember {
  if (typeof value !== 'object' || value === null) return false;
  const { user, role } = value as Record<string, unknown>;
  return typeof user === 'string' && ORG_ROLES.includes(role as OrgRole);
}
