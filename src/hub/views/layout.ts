/** Escapes text for HTML content and attribute values. */
export function escape(text: string | number | null | undefined): string {
  return String(text ?? '')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
}

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
.readme pre { white-space: pre-wrap; font: inherit; }
header.top nav { white-space: nowrap; }
ul.providers { list-style: none; padding: 0; }
ul.providers li { margin: 10px 0; }
a.button { display: inline-block; padding: 9px 16px; border-radius: 8px; background: var(--accent); color: #fff; text-decoration: none; }
`;

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
<link rel="stylesheet" href="/static/hub.css">
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
