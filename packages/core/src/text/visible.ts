/**
 * Text from data, a descriptor or a hub, made safe to print on a terminal: control
 * characters (C0, DEL, C1, ESC among them) and Unicode's bidirectional controls are written
 * as escapes (`\x1b`, `\u202e`), as gh and kubectl do, so that a cell cannot set the
 * clipboard, clear the screen, move the cursor over earlier lines or reorder what is shown.
 */

/** DEL, C1 and the bidirectional controls; C0 is added below, with or without tab and LF. */
const BEYOND_C0 = '\\u007f-\\u009f\\u061c\\u200e\\u200f\\u202a-\\u202e\\u2066-\\u2069';
/** C0 but tab and line feed, and the rest: what text laid out in lines must not hold. */
const IN_LAYOUT = `\\u0000-\\u0008\\u000b-\\u001f${BEYOND_C0}`;
const UNSAFE_IN_LAYOUT = new RegExp(`[${IN_LAYOUT}]`, 'g');
/** The same and tab and line feed: a value shown on one line of its own. */
const UNSAFE_IN_LINE = new RegExp(`[\\u0000-\\u001f${BEYOND_C0}]`, 'g');
/**
 * The colour sequences of output/colors.ts, the only escape sequences text output writes
 * (kept, in the first group), or a character to escape.
 */
const OWN_OR_UNSAFE = new RegExp(`(\\u001b\\[(?:1|2|22|31|32|33|36|39)m)|[${IN_LAYOUT}]`, 'g');

function escape(char: string): string {
  const code = char.charCodeAt(0);
  if (char === '\n') return '\\n';
  if (char === '\t') return '\\t';
  if (char === '\r') return '\\r';
  return code <= 0xff
    ? `\\x${code.toString(16).padStart(2, '0')}`
    : `\\u${code.toString(16).padStart(4, '0')}`;
}

/** A value shown within a line: every control character escaped, tab and line feed too. */
export function visible(text: string): string {
  return text.replace(UNSAFE_IN_LINE, escape);
}

/** Text whose tabs and line feeds are its layout (a description, a table): those kept. */
export function visibleLayout(text: string): string {
  return text.replace(UNSAFE_IN_LAYOUT, escape);
}

/**
 * A copy of a JSON-like value with every string made visible, for a renderer to take as it
 * is; strings under the keys in `layout` keep their tabs and line feeds.
 */
export function visibleDeep<T>(value: T, layout: ReadonlySet<string> = new Set()): T {
  const walk = (item: unknown, key: string | undefined): unknown => {
    if (typeof item === 'string')
      return key !== undefined && layout.has(key) ? visibleLayout(item) : visible(item);
    if (Array.isArray(item)) return item.map((entry) => walk(entry, key));
    if (item === null || typeof item !== 'object') return item;
    return Object.fromEntries(
      Object.entries(item as Record<string, unknown>).map(([name, entry]) => [
        visible(name),
        walk(entry, name),
      ]),
    );
  };
  return walk(value, undefined) as T;
}

/**
 * Text on its way to stdout or stderr: what visibleLayout does, but the colour sequences
 * this program wrote itself are kept. The last net under every renderer, which make
 * values visible first.
 */
export function terminalSafe(text: string): string {
  return text.replace(OWN_OR_UNSAFE, (found: string, own?: string) => own ?? escape(found));
}
