import type { Resource } from './types.js';

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/**
 * The resources of a descriptor, typed: the entries of its `resources` that are objects, in
 * order (none when it has no list). Their properties are as written: what a property holds
 * is validation's to check, so code that reads a descriptor not validated yet reads a
 * property's type before relying on it, as the helpers of model/ do.
 */
export function resourcesOf(descriptor: unknown): Resource[] {
  if (!isObject(descriptor) || !Array.isArray(descriptor.resources)) return [];
  return descriptor.resources.filter(isObject) as Resource[];
}

/** A resource's name, as text (a name that is not text is shown as written). */
export function resourceName(resource: Resource): string {
  return typeof resource.name === 'string' ? resource.name : String(resource.name);
}
