/**
 * What an organisation's page (`/<org>`) adds to its listing of datasets, for its members
 * only: who its members are and their roles.
 */
import type { Role } from '../caller.js';
import { escape } from './escape.js';

/** What each role may do, as the page says it. */
const ROLE_TEXT: Record<Role, string> = {
  admin: 'reads, publishes, deletes, manages members',
  maintainer: 'reads, publishes, deletes',
  reader: 'reads',
};

/** The intro of an organisation's page for one of its members: their role, and the members. */
export function organisationIntro(
  org: string,
  members: readonly { username: string; role: Role }[],
  viewerRole: Role,
): string {
  const rows = members
    .map(
      (member) =>
        `<tr><td><a href="/${encodeURIComponent(member.username)}">${escape(member.username)}</a></td><td>${escape(member.role)}</td><td class="muted">${escape(ROLE_TEXT[member.role])}</td></tr>`,
    )
    .join('');
  return `<p class="muted">An organisation. You are its ${escape(viewerRole)}: its private and unlisted datasets are listed too, which only its members see.</p>
<section aria-labelledby="members"><h2 id="members">Members</h2>
<table><caption class="muted">Who may do what to this organisation’s datasets</caption>
<thead><tr><th scope="col">Member</th><th scope="col">Role</th><th scope="col">May</th></tr></thead>
<tbody>${rows}</tbody></table>
${viewerRole === 'admin' ? `<p class="muted">Add or remove members with <code>data org add ${escape(org)} USER --role ROLE</code> and <code>data org remove ${escape(org)} USER</code>.</p>` : ''}</section>`;
}
