import type { TokenRecord } from '@data/core';
import { escape, page } from './layout.js';

/**
 * A time as the page shows it, to the minute in UTC, as `data token list` does (2026-11-27
 * 00:42 UTC), in a `<time>` that keeps the whole value: a token made to live a day has its
 * day and hour to be told apart by.
 */
function minute(iso: string | null): string {
  if (iso === null) return '<span class="muted">never</span>';
  return `<time datetime="${escape(iso)}">${escape(`${iso.slice(0, 16).replace('T', ' ')} UTC`)}</time>`;
}

/** Whether the hub refuses the token from now on, by its expiry. */
function expired(record: TokenRecord, now: Date): boolean {
  const expires = Date.parse(record.expires);
  return Number.isFinite(expires) && expires <= now.getTime();
}

/** A token's datasets as the page shows them: every one it may publish to, or "any". */
function datasets(record: TokenRecord): string {
  if (record.datasets.length === 0) return '<span class="muted">any</span>';
  return record.datasets.map((pair) => `<code>${escape(pair)}</code>`).join(', ');
}

/**
 * The signed-in user's tokens (`/settings/tokens`): what each may do, when it was made, last
 * used and expires, and a button that revokes it (a form posted with the page's CSRF value).
 */
export function tokensPage(options: {
  viewer: string;
  tokens: readonly TokenRecord[];
  csrf: string;
  /** Just revoked one (the address says so: any link may, so the notice names no token). */
  revoked?: boolean | undefined;
  now?: Date | undefined;
}): string {
  const { tokens, csrf } = options;
  const now = options.now ?? new Date();
  const notice = options.revoked ? `<p class="badge" role="status">Token revoked.</p>` : '';
  const rows = tokens.map(
    (record) =>
      `<tr><th scope="row">${escape(record.name)}</th><td>${escape(record.scope)}</td><td>${datasets(record)}</td>` +
      `<td>${minute(record.created)}</td><td>${minute(record.last_used)}</td>` +
      `<td>${minute(record.expires)}${expired(record, now) ? ' <span class="badge bad">expired</span>' : ''}</td>` +
      `<td><form method="post" action="/settings/tokens/revoke">` +
      `<input type="hidden" name="csrf" value="${escape(csrf)}">` +
      `<input type="hidden" name="name" value="${escape(record.name)}">` +
      `<button type="submit" aria-label="${escape(`Revoke ${record.name}`)}">Revoke</button></form></td></tr>`,
  );
  const table =
    tokens.length === 0
      ? '<p class="muted">You have no tokens. Make one with <code>data token create NAME --scope read|publish|admin</code>.</p>'
      : `<div class="scroll" tabindex="0" role="region" aria-label="Your tokens"><table><caption class="hidden">Your tokens</caption><thead><tr><th scope="col">Name</th><th scope="col">Scope</th><th scope="col">May publish to</th><th scope="col">Made</th><th scope="col">Last used</th><th scope="col">Expires</th><th scope="col"><span class="muted">Revoke</span></th></tr></thead><tbody>${rows.join('')}</tbody></table></div>`;
  return page(
    'Your tokens',
    `<div class="card"><h1>Your tokens</h1>${notice}<p class="muted">Tokens let programs (a CI job, a script) act for you: <code>read</code> reads what you may read, <code>publish</code> also publishes (only to the datasets named, when any are), <code>admin</code> does all you can. A revoked or expired token is refused at once. Times are in UTC.</p>${table}</div>`,
    '',
    options.viewer,
  );
}
