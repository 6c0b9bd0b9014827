/**
 * Who a request comes from and what the credential it carries allows: the one shape that
 * sign-in sessions, named tokens and trusted publishers' tokens all come down to, and that
 * the access rule (services/access.ts) judges.
 */

/** How much a credential allows, each including the one before it. */
export const SCOPES = ['read', 'publish', 'admin'] as const;
export type Scope = (typeof SCOPES)[number];

/** A member's role in an organisation, each including the one after it. */
export const ROLES = ['admin', 'maintainer', 'reader'] as const;
export type Role = (typeof ROLES)[number];

/** What a caller may ask to do to an owner's datasets. */
export type Action = 'read' | 'publish' | 'delete' | 'manage';

export interface Caller {
  /** The user the credential acts for (for a trusted publisher's token: the dataset's owner). */
  readonly userid: string;
  readonly scope: Scope;
  /** The `ownerid/dataset` pairs a credential may publish to; empty when it is not limited. */
  readonly datasets: readonly string[];
  /** How the caller proved who they are. */
  readonly via: 'session' | 'token' | 'trusted';
}

/** What the access rule reads: a user's role in an organisation, if they are its member. */
export interface MemberRoles {
  roleOf(orgid: string, userid: string): Promise<Role | undefined>;
}
