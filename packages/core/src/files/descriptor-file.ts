import { stat } from 'node:fs/promises';
import { join } from 'node:path';

/** The names a package's descriptor may have in its folder, JSON first. */
export const DESCRIPTOR_NAMES = ['datapackage.json', 'datapackage.yaml', 'datapackage.yml'];

/** Whether a descriptor's path or URL says it is YAML. */
export function isYamlPath(path: string): boolean {
  return /\.ya?ml$/i.test(path.replace(/[?#].*$/, ''));
}

/** Whether a path or URL names a descriptor file (JSON or YAML) rather than data. */
export function isDescriptorPath(path: string): boolean {
  return /\.(json|ya?ml)$/i.test(path.replace(/[?#].*$/, ''));
}

/** A folder holds more than one descriptor: which one is meant cannot be guessed. */
export class DescriptorClash extends Error {
  override readonly name = 'DescriptorClash';
}

/**
 * The descriptor file of a folder: datapackage.json, datapackage.yaml or datapackage.yml;
 * undefined when there is none, DescriptorClash when there are several.
 */
export async function descriptorIn(folder: string): Promise<string | undefined> {
  const found: string[] = [];
  for (const name of DESCRIPTOR_NAMES)
    if ((await stat(join(folder, name)).catch(() => undefined))?.isFile()) found.push(name);
  if (found.length > 1)
    throw new DescriptorClash(
      `"${folder}" holds ${found.join(' and ')}: keep the one that describes the package`,
    );
  return found[0] === undefined ? undefined : join(folder, found[0]);
}

/**
 * The descriptor of a folder the user named as a package, or the error `fail` makes of why
 * there is none to take (`missing`: there is none at all, rather than several).
 */
export async function packageDescriptor(
  folder: string,
  fail: (message: string, missing: boolean) => Error,
): Promise<string> {
  let found: string | undefined;
  try {
    found = await descriptorIn(folder);
  } catch (error) {
    if (error instanceof DescriptorClash) throw fail(error.message, false);
    throw error;
  }
  if (!found)
    throw fail(`"${folder}" is a folder without a datapackage.json (or datapackage.yaml)`, true);
  return found;
}

/** Aliases a YAML descriptor may expand: each may copy a whole branch, so few are enough. */
const MAX_YAML_ALIASES = 100;

export type ParsedText = { ok: true; value: unknown } | { ok: false; message: string };

/** Brackets and braces a YAML descriptor may nest: far past a descriptor's own few. */
const MAX_YAML_NESTING = 256;

/**
 * How deep the flow collections (`[`, `{`) of YAML text nest, quoted text (a quote where a
 * scalar may begin) and comments left out. The YAML library holds a token of some hundred
 * bytes for each level before it gives up at its stack's end: 2 MB of brackets held 1.2 GB.
 */
function flowNesting(text: string): number {
  let depth = 0;
  let deepest = 0;
  const after = (i: number, pattern: RegExp): boolean => i === 0 || pattern.test(text[i - 1] ?? '');
  for (let i = 0; i < text.length; i++) {
    const char = text[i];
    if (char === '[' || char === '{') deepest = Math.max(deepest, ++depth);
    else if (char === ']' || char === '}') depth = Math.max(0, depth - 1);
    else if ((char === '"' || char === "'") && after(i, /[\s[{,:?-]/)) {
      for (i++; i < text.length && text[i] !== char; i++) if (char === '"' && text[i] === '\\') i++;
    } else if (char === '#' && after(i, /\s/)) {
      while (i < text.length && text[i] !== '\n') i++;
    }
  }
  return deepest;
}

/**
 * YAML descriptor text as the same value JSON would give, or why it cannot be read, with
 * its line and column. The YAML library is loaded only for YAML descriptors.
 */
export async function parseYaml(text: string): Promise<ParsedText> {
  if (flowNesting(text) > MAX_YAML_NESTING)
    return {
      ok: false,
      message: `its brackets nest more than ${String(MAX_YAML_NESTING)} levels deep, deeper than a descriptor does`,
    };
  const { parse, YAMLParseError } = await import('yaml');
  try {
    return {
      ok: true,
      value: parse(text.replace(/^\uFEFF/, ''), { maxAliasCount: MAX_YAML_ALIASES }) as unknown,
    };
  } catch (error) {
    // The library's guard against "billion laughs", thrown as a plain ReferenceError.
    if (error instanceof ReferenceError && /alias count/i.test(error.message))
      return {
        ok: false,
        message: `it names aliases more than ${String(MAX_YAML_ALIASES)} times (an alias bomb), more than a descriptor does`,
      };
    if (!(error instanceof YAMLParseError)) throw error;
    const [at] = error.linePos ?? [];
    const first = error.message.split('\n')[0]?.replace(/ at line \d+, column \d+:?$/, '') ?? '';
    return {
      ok: false,
      message: at ? `${first} at line ${String(at.line)} column ${String(at.col)}` : first,
    };
  }
}

/** YAML that cannot be read: the message gives its line and column. */
export class YamlSyntaxError extends Error {
  override readonly name = 'YamlSyntaxError';
}

/**
 * A descriptor file's value, JSON or YAML by its name; throws with why it cannot be read
 * (YamlSyntaxError, SyntaxError, or the file system's error).
 */
export async function readDescriptorFile(file: string): Promise<unknown> {
  const { readFile } = await import('node:fs/promises');
  const text = await readFile(file, 'utf8');
  if (!isYamlPath(file)) return JSON.parse(text.replace(/^\uFEFF/, '')) as unknown;
  const parsed = await parseYaml(text);
  if (!parsed.ok) throw new YamlSyntaxError(parsed.message);
  return parsed.value;
}
