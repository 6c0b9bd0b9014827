import { InputError } from '../errors.js';
import { isObject } from '../validator/descriptor/rules.js';
import type { ResourceDescriptor } from '../validator/descriptor/types.js';

/** A descriptor as cat, diff and info read it: an object whose resources are objects. */
type PackageShape = Record<string, unknown> & { resources?: ResourceDescriptor[] };

function shapeProblem(value: unknown): string | undefined {
  if (!isObject(value)) return 'it is not an object';
  const { resources } = value;
  if (resources === undefined) return undefined;
  if (!Array.isArray(resources)) return '"resources" is not a list';
  for (const [index, resource] of resources.entries()) {
    if (!isObject(resource)) return `resource ${String(index + 1)} is not an object`;
    const { path } = resource;
    const paths: unknown[] = Array.isArray(path) ? path : [path];
    if (path !== undefined && !paths.every((part) => typeof part === 'string'))
      return `the "path" of resource ${String(index + 1)} is not text`;
  }
  return undefined;
}

/**
 * The descriptor read from `where` (a file or a URL), if its shape lets its tables be read;
 * else an error saying what is wrong, exit 2 as for a descriptor that is not JSON or YAML.
 * The rest is validate's to judge: the commands that show or compare data read what they can.
 */
export function packageShape(value: unknown, where: string): PackageShape {
  const problem = shapeProblem(value);
  if (problem === undefined) return value as PackageShape;
  throw new InputError(`${where} is not a package descriptor: ${problem}`, {
    hint: 'validating it says what is wrong with it',
    reason: 'not-a-descriptor',
  });
}
