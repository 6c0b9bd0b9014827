import { reportError } from '../report/errors.js';
import type { ReportError } from '../report/types.js';
import { locate, readText, SourceFailure, type Base, type Fetch } from '../location.js';
import { unsafeReason } from '../../model/paths.js';
import { jsonErrorOffset } from './json-position.js';
import { isYamlPath, parseYaml } from '../../files/descriptor-file.js';
import type { PackageDescriptor, StandardVersion } from './types.js';

export type Loaded = { ok: true; value: unknown } | { ok: false; error: ReportError };

/**
 * Parses descriptor text, JSON or YAML (by its path); a syntax error becomes a package error
 * with line and column.
 */
export async function parseDescriptor(
  text: string,
  what = 'descriptor',
  yaml = false,
): Promise<Loaded> {
  if (yaml) {
    const parsed = await parseYaml(text);
    return parsed.ok
      ? parsed
      : {
          ok: false,
          error: reportError(
            'package-error',
            `cannot parse the ${what} as YAML: ${parsed.message}`,
          ),
        };
  }
  try {
    return { ok: true, value: JSON.parse(text.replace(/^\uFEFF/, '')) as unknown };
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return {
      ok: false,
      error: reportError(
        'package-error',
        `cannot parse the ${what} as JSON: ${withPosition(message, text)}`,
      ),
    };
  }
}

function withPosition(message: string, text: string): string {
  const clean = message
    .replace(/\s*\(line \d+ column \d+\)$/, '')
    .replace(/, (\.\.\.)?".*" is not valid JSON$/s, '');
  const found = /position (\d+)/.exec(message);
  const position = found ? Number(found[1]) : Math.max(0, jsonErrorOffset(text));
  const before = text.slice(0, position).split('\n');
  const line = before.length;
  const column = (before.at(-1)?.length ?? 0) + 1;
  return `${clean} at line ${String(line)} column ${String(column)}`;
}

/** Replaces schema and dialect references (paths or URLs) with the JSON they point to. */
export async function resolveReferences(
  descriptor: PackageDescriptor,
  version: StandardVersion,
  base: Base,
  fetch: Fetch,
): Promise<ReportError[]> {
  const errors: ReportError[] = [];
  if (!Array.isArray(descriptor.resources)) return errors;
  for (const resource of descriptor.resources) {
    if (resource === null || typeof resource !== 'object') continue;
    for (const property of ['schema', 'dialect'] as const) {
      const reference = resource[property];
      if (typeof reference !== 'string' || unsafeReason(reference, version)) continue;
      const type = property === 'schema' ? 'schema-error' : 'dialect-error';
      try {
        const loaded = await parseDescriptor(
          await readText(locate(reference, base), fetch),
          `${property} "${reference}"`,
          isYamlPath(reference),
        );
        if (loaded.ok) (resource as Record<string, unknown>)[property] = loaded.value;
        else errors.push(reportError(type, loaded.error.note));
      } catch (error) {
        const note = error instanceof SourceFailure ? error.note : String(error);
        errors.push(reportError(type, `cannot load ${property} "${reference}": ${note}`));
      }
    }
  }
  return errors;
}
