import { readdir } from 'node:fs/promises';
import { basename, join, relative, sep } from 'node:path';
import type { ResourceDescriptor, SchemaDescriptor } from '../validator/descriptor/types.js';
import { SourceFailure } from '../validator/location.js';
import { inferResourceSchema } from '../validator/resource.js';
import { nameFromFile } from '../validator/source.js';
import { readRows } from '../validator/rows.js';

/** Files that describe a folder rather than hold its data. */
const NOT_DATA = /^(datapackage\.json|readme(\..*)?|licen[cs]e(\..*)?|\.gitignore)$/i;

/** The data files under a folder, relative, sorted; hidden files and folders are skipped. */
export async function dataFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries
    .filter((entry) => entry.isFile())
    .map((entry) => relative(dir, join(entry.parentPath, entry.name)).split(sep).join('/'))
    .filter((path) => !path.split('/').some((part) => part.startsWith('.')))
    .filter((path) => !path.split('/').includes('node_modules'))
    .filter((path) => !NOT_DATA.test(basename(path)))
    .sort();
}

/** A name for each path: from its file name, made unique with its folders when it must be. */
function resourceNames(paths: string[]): Map<string, string> {
  const names = new Map<string, string>();
  const taken = new Set<string>();
  for (const path of paths) {
    let name = nameFromFile(basename(path));
    if (taken.has(name)) name = nameFromFile(path.replace(/\//g, '-'));
    for (let suffix = 2; taken.has(name); suffix++)
      name = `${nameFromFile(basename(path))}-${String(suffix)}`;
    taken.add(name);
    names.set(path, name);
  }
  return names;
}

const KEY_NAME = /^(id|key|code|.*_id|.*_code)$/i;

/**
 * A primary key candidate: the first field named like a key (id, code, …_id) whose values,
 * read in full, are all present and all different.
 */
async function keyCandidate(
  resource: ResourceDescriptor,
  dir: string,
  schema: SchemaDescriptor,
): Promise<string | undefined> {
  const index = schema.fields.findIndex(
    (field) => KEY_NAME.test(field.name) && ['integer', 'string'].includes(field.type ?? 'string'),
  );
  const field = schema.fields[index];
  if (!field) return undefined;
  const seen = new Set<string>();
  let unique = true;
  await readRows(
    { ...resource, schema },
    { dir },
    { fetch: () => Promise.reject(new Error('local only')), typed: false },
    {
      labels: () => undefined,
      row: (values) => {
        const value = values[index];
        if (typeof value !== 'string' || value === '' || seen.has(value)) unique = false;
        else if (seen.size < 1_000_000) seen.add(value);
        else unique = false;
      },
      get open() {
        return unique;
      },
    },
  );
  return unique && seen.size > 0 ? field.name : undefined;
}

export interface Draft {
  name: string;
  resources: ResourceDescriptor[];
}

/** A descriptor for the data files of a folder, each table's schema inferred as validation infers it. */
export async function draftPackage(dir: string, name: string): Promise<Draft> {
  const paths = await dataFiles(dir);
  const names = resourceNames(paths);
  const resources: ResourceDescriptor[] = [];
  for (const path of paths) {
    const resource: ResourceDescriptor = { name: names.get(path) ?? 'data', path };
    const schema = await inferResourceSchema(resource, dir).catch((error: unknown) => {
      if (error instanceof SourceFailure)
        throw new SourceFailure(error.type, `${path}: ${error.note}`);
      throw error;
    });
    if (schema) {
      const key = await keyCandidate(resource, dir, schema);
      resources.push({ ...resource, schema: key ? { ...schema, primaryKey: [key] } : schema });
    } else resources.push(resource);
  }
  return { name, resources };
}
