import { STATUS_CODES } from 'node:http';
import { CHART_STYLES } from './chart.js';
import { DIFF_STYLES } from './diff.js';
import { escape } from './escape.js';
import { VIEWER_SCRIPT, VIEWER_STYLES } from './table-viewer-assets.js';

export { escape };

export const STYLESHEET = `
:root { --ink: #1d2433; --muted: #5b6577; --line: #e3e7ee; --accent: #0b6bcb; --ok: #137333; --bad: #b3261e; --bg: #f7f8fa; }
* { box-sizing: border-box; }
body { margin: 0; font: 15px/1.55 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: var(--ink); background: var(--bg); }
header.top { background: #fff; border-bottom: 1px solid var(--line); }
header.top .bar { max-width: 1040px; margin: 0 auto; padding: 14px 24px; display: flex; gap: 24px; align-items: center; }
header.top a.brand { font-weight: 700; font-size: 18px; color: var(--ink); text-decoration: none; letter-spacing: -0.01em; }
header.top form { flex: 1; display: flex; }
main { max-width: 1040px; margin: 0 auto; padding: 28px 24px 64px; }
a { color: var(--accent); }
h1 { font-size: 28px; margin: 0 0 4px; letter-spacing: -0.02em; }
h2 { font-size: 18px; margin: 32px 0 12px; }
.muted { color: var(--muted); }
input[type=search], input[type=text], input[type=email] { flex: 1; padding: 9px 12px; border: 1px solid var(--line); border-radius: 8px; font: inherit; width: 100%; }
button { padding: 9px 16px; border: 0; border-radius: 8px; background: var(--accent); color: #fff; font: inherit; cursor: pointer; }
.card { background: #fff; border: 1px solid var(--line); border-radius: 12px; padding: 18px 20px; margin-bottom: 14px; }
.card h3 { margin: 0 0 4px; font-size: 17px; }
.badge { display: inline-block; padding: 2px 10px; border-radius: 999px; font-size: 12px; font-weight: 600; }
.badge.ok { background: #e6f4ea; color: var(--ok); } .badge.bad { background: #fce8e6; color: var(--bad); } .badge.wait { background: #fef7e0; color: #8a6100; }
table { border-collapse: collapse; width: 100%; background: #fff; font-size: 14px; }
th, td { text-align: left; padding: 7px 10px; border-bottom: 1px solid var(--line); vertical-align: top; }
th { background: #f1f3f7; font-weight: 600; }
.scroll { overflow-x: auto; border: 1px solid var(--line); border-radius: 10px; }
.readme { background: #fff; border: 1px solid var(--line); border-radius: 12px; padding: 4px 20px; }
code { background: #f1f3f7; padding: 1px 5px; border-radius: 4px; }
footer { color: var(--muted); font-size: 13px; text-align: center; padding: 24px; }
.narrow { max-width: 420px; margin: 40px auto; }
.readme pre { background: #f1f3f7; padding: 10px 12px; border-radius: 8px; overflow-x: auto; }
.diff { background: #f1f3f7; padding: 10px 12px; border-radius: 8px; overflow-x: auto; font-size: 0.9rem; }
header.top nav { white-space: nowrap; }
ul.providers { list-style: none; padding: 0; }
ul.providers li { margin: 10px 0; }
a.button { display: inline-block; padding: 9px 16px; border-radius: 8px; background: var(--accent); color: #fff; text-decoration: none; }
ul.cards { list-style: none; padding: 0; margin: 0; }
.card h2.title { margin: 0 0 4px; font-size: 17px; }
.facts { color: var(--muted); font-size: 14px; margin: 6px 0 0; }
dl.facts { display: grid; grid-template-columns: repeat(auto-fill, minmax(220px, 1fr)); gap: 10px 24px; background: #fff; border: 1px solid var(--line); border-radius: 12px; padding: 16px 20px; color: var(--ink); }
dl.facts dt { font-size: 12px; text-transform: uppercase; letter-spacing: 0.04em; color: var(--muted); }
dl.facts dd { margin: 2px 0 0; overflow-wrap: anywhere; }
nav.sorts, nav.pager { margin: 12px 0; display: flex; gap: 16px; flex-wrap: wrap; align-items: center; }
.lead { font-size: 17px; }
.get { display: flex; gap: 8px; align-items: center; flex-wrap: wrap; }
.get code { padding: 8px 12px; font-size: 14px; }
button.copy { padding: 6px 12px; }
td.number { text-align: right; white-space: nowrap; }
th[scope=row] { font-weight: 600; background: #fff; }
.hidden { position: absolute; width: 1px; height: 1px; overflow: hidden; clip-path: inset(50%); white-space: nowrap; }
details.schema { margin: 8px 0 24px; }
details.schema summary { cursor: pointer; color: var(--accent); }
.alert { border-color: #f4c7c3; background: #fdf3f2; }
ul.errors > li { margin: 6px 0; }
figure.chart { margin: 0 0 24px; background: #fff; border: 1px solid var(--line); border-radius: 12px; padding: 12px 16px; }
figure.chart svg { width: 100%; height: auto; }
figure.chart figcaption { font-weight: 600; margin-bottom: 6px; }
.legend { display: flex; gap: 16px; flex-wrap: wrap; font-size: 13px; }
.swatch { display: inline-block; width: 12px; height: 12px; border-radius: 3px; margin-right: 6px; vertical-align: -1px; }
.readme img { max-width: 100%; }
.readme { overflow-wrap: anywhere; }
.readme table { width: auto; display: block; overflow-x: auto; }
@media (max-width: 600px) { main { padding: 20px 14px 48px; } header.top .bar { padding: 12px 14px; gap: 12px; } h1 { font-size: 23px; } }
${CHART_STYLES}
${DIFF_STYLES}
${VIEWER_STYLES}
`;

/** A table, in the accent colour: the pages' icon, so that browsers do not ask for one in vain. */
export const FAVICON = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16"><rect width="16" height="16" rx="3" fill="#0b6bcb"/><path d="M3 5h10M3 8h10M3 11h10M6 3v10" stroke="#fff" stroke-width="1.2"/></svg>`;

/** Progressive: without it the page works; with it, the copy buttons copy. No inline script. */
export const SCRIPT = `for (const button of document.querySelectorAll('button.copy')) {
  button.hidden = false;
  button.addEventListener('click', async () => {
    try {
      await navigator.clipboard.writeText(button.dataset.copy);
      button.textContent = 'Copied';
    } catch {
      button.textContent = 'Select and copy';
    }
    setTimeout(() => { button.textContent = 'Copy'; }, 2000);
  });
}
${VIEWER_SCRIPT}`;

/** Who is signed in on a page, if anyone: the header offers sign in or sign out. */
const noViewer: string | undefined = undefined;

export function page(title: string, body: string, query = '', viewer = noViewer): string {
  const account = viewer
    ? `<nav><a href="/auth/logout">Sign out ${escape(viewer)}</a></nav>`
    : '<nav><a href="/auth/login">Sign in</a></nav>';
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escape(title)}</title>
<link rel="icon" href="/static/favicon.svg" type="image/svg+xml">
<link rel="stylesheet" href="/static/hub.css">
<script src="/static/hub.js" defer></script>
</head>
<body>
<header class="top"><div class="bar">
<a class="brand" href="/">data hub</a>
<form action="/" method="get" role="search"><input type="search" name="q" value="${escape(query)}" placeholder="Search datasets" aria-label="Search datasets"></form>
${account}
</div></header>
<main>
${body}
</main>
<footer>Published with <code>data publish</code>. Fetch any dataset with <code>data get owner/dataset</code>.</footer>
</body>
</html>`;
}

/**
 * The page of a refusal a browser meets on a form of the site (a form sent from a page left
 * open too long, a sign-in link used twice): the reason, and a link to where it may go on.
 */
export function errorPage(
  status: number,
  reason: string,
  back: { href: string; label: string },
): string {
  const title = STATUS_CODES[status] ?? 'Error';
  const said = reason.charAt(0).toUpperCase() + reason.slice(1);
  return page(
    title,
    `<h1>${escape(title)}</h1><p role="alert">${escape(said.replace(/\.?$/, '.'))}</p><p><a href="${escape(back.href)}">${escape(back.label)}</a></p>`,
  );
}

export function notFoundPage(): string {
  return page(
    'Not found',
    '<h1>Not found</h1><p class="muted">There is no such page, or it is private.</p>',
  );
}
