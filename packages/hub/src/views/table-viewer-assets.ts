/**
 * The table viewer's look and its bit of script (views/table-viewer.ts draws its HTML): the
 * hub's stylesheet and script include them (layout.ts).
 */

export const VIEWER_STYLES = `
.viewer [role=tablist] { display: flex; gap: 4px; flex-wrap: wrap; border-bottom: 1px solid var(--line); margin: 0 0 14px; }
.viewer [role=tab] { padding: 7px 14px; border: 1px solid transparent; border-bottom: 0; border-radius: 8px 8px 0 0; text-decoration: none; margin-bottom: -1px; max-width: 100%; overflow-wrap: anywhere; }
.viewer [role=tab][aria-selected=true] { background: #fff; border-color: var(--line); color: var(--ink); font-weight: 600; }
.viewer [role=tab]:focus-visible, .viewer a:focus-visible, .viewer .scroll:focus-visible { outline: 3px solid var(--accent); outline-offset: 1px; }
.viewer form.query { display: grid; gap: 10px; margin: 0 0 12px; }
.viewer .search { display: flex; gap: 8px; align-items: center; flex-wrap: wrap; }
.viewer .search label { font-weight: 600; }
.viewer .search input { flex: 1 1 12em; min-width: 0; }
.viewer details.filters summary { cursor: pointer; color: var(--accent); }
.viewer .filter-grid { display: grid; grid-template-columns: repeat(auto-fill, minmax(200px, 1fr)); gap: 10px 16px; margin: 10px 0; }
.viewer .filter-grid label { display: block; font-size: 13px; color: var(--muted); overflow-wrap: anywhere; }
.viewer .filter-grid input, .viewer .filter-grid select { width: 100%; padding: 7px 10px; border: 1px solid var(--line); border-radius: 8px; font: inherit; background: #fff; }
.viewer .actions { display: flex; gap: 16px; align-items: center; }
.viewer .notice { background: #fef7e0; border: 1px solid #f3e2a8; border-radius: 8px; padding: 8px 12px; }
/* The box that scrolls holds its visually hidden labels too, or they would widen the page. */
.viewer .scroll { position: relative; }
.viewer table.rows { width: auto; min-width: 100%; }
.viewer table.rows th { white-space: nowrap; }
.viewer table.rows th a { color: var(--ink); }
.viewer table.rows th .type { display: block; font-weight: 400; font-size: 12px; color: var(--muted); }
.viewer table.rows th .about { display: block; font-weight: 400; font-size: 12px; color: var(--muted); white-space: normal; max-width: 18em; }
.viewer table.rows td.stats { background: #fafbfc; font-size: 12px; color: var(--muted); min-width: 9em; }
.viewer td.stats ol { margin: 4px 0 0; padding-left: 18px; }
.viewer td.stats svg { display: block; width: 100%; max-width: 10em; height: 28px; margin-top: 4px; }
.viewer td.stats svg path { fill: var(--accent); opacity: 0.75; }
.viewer table.rows td { max-width: 24em; overflow-wrap: break-word; }
.viewer td.number { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
.viewer td > time { white-space: nowrap; font-variant-numeric: tabular-nums; }
.viewer .missing { color: var(--muted); }
.viewer .bool { display: inline-block; padding: 0 8px; border-radius: 999px; font-size: 12px; font-weight: 600; }
.viewer .bool.true { background: #e6f4ea; color: var(--ok); }
.viewer .bool.false { background: #f1f3f7; color: var(--muted); }
.viewer .cut { color: var(--muted); font-style: italic; }
.viewer nav.pager .off { color: var(--muted); }
.viewer p.state { margin: 0 0 8px; font-weight: 600; overflow-wrap: anywhere; }
.viewer p.state a.undo { display: inline-block; min-width: 24px; text-align: center; text-decoration: none; font-weight: 400; }
.viewer p.columns { margin: 0 0 8px; font-size: 13px; color: var(--muted); }
.viewer #table-viewer:focus { outline: none; }
.viewer #table-viewer:focus-visible { outline: 3px solid var(--accent); outline-offset: 4px; }
`;

/**
 * Tabs as the ARIA Authoring Practices have them (manual activation): the arrow keys, Home and
 * End move among the tabs, Enter or Space opens one; Tab leaves the list from the tab shown.
 * Without it every tab is a link the Tab key reaches.
 */
export const VIEWER_SCRIPT = `for (const list of document.querySelectorAll('[role=tablist]')) {
  const tabs = [...list.querySelectorAll('[role=tab]')];
  for (const tab of tabs) if (tab.getAttribute('aria-selected') !== 'true') tab.tabIndex = -1;
  list.addEventListener('keydown', (event) => {
    const at = tabs.indexOf(document.activeElement);
    if (at === -1) return;
    const to = { ArrowRight: at + 1, ArrowDown: at + 1, ArrowLeft: at - 1, ArrowUp: at - 1, Home: 0, End: tabs.length - 1 }[event.key];
    if (event.key === ' ') { event.preventDefault(); tabs[at].click(); return; }
    if (to === undefined) return;
    event.preventDefault();
    const next = tabs[(to + tabs.length) % tabs.length];
    tabs[at].tabIndex = -1;
    next.tabIndex = 0;
    next.focus();
  });
}
// After a view chosen with the viewer's controls, the focus is on the control used, on the new
// page: the tab, the header's sort link, the pager's link; else (a search or filters sent, a
// link the new page has not) on the panel. Remembered for the next page of this tab only.
// The script brings the panel into view itself: its links and form lose the #table-viewer
// that does it without script, as a page opened at a fragment moves the focus to its target
// (or to nothing) once loaded, after this script.
const FOCUS = 'data.viewer.focus';
const PANEL = '#table-viewer';
const remember = (value) => {
  try { sessionStorage.setItem(FOCUS, JSON.stringify(value)); } catch {}
};
const unanchored = (address) => (address.endsWith(PANEL) ? address.slice(0, -PANEL.length) : address);
for (const viewer of document.querySelectorAll('.viewer')) {
  for (const link of viewer.querySelectorAll('a[href]')) link.href = unanchored(link.href);
  for (const form of viewer.querySelectorAll('form')) form.action = unanchored(form.action);
  viewer.addEventListener('click', (event) => {
    const link = event.target instanceof Element ? event.target.closest('a[href]') : null;
    if (link) remember({ href: link.href, id: link.id });
  });
  viewer.addEventListener('submit', () => remember({ path: location.pathname, id: '' }));
}
try {
  const stored = JSON.parse(sessionStorage.getItem(FOCUS) ?? 'null');
  sessionStorage.removeItem(FOCUS);
  const panel = document.querySelector(PANEL);
  if (panel && stored && (stored.href === location.href || stored.path === location.pathname)) {
    const control = stored.id ? document.getElementById(stored.id) : null;
    panel.scrollIntoView();
    (control ?? panel).focus({ preventScroll: true });
    // A sorted column's header brought into sight in the table's own scroll, on a phone.
    if (control && control.id.startsWith('sort-'))
      control.scrollIntoView({ block: 'nearest', inline: 'nearest' });
  }
} catch {}
// The address of a view keeps what is set: the filters left empty are not sent.
for (const form of document.querySelectorAll('form.query')) {
  form.addEventListener('formdata', (event) => {
    for (const [name, value] of [...event.formData]) if (value === '') event.formData.delete(name);
  });
}
`;
