/**
 * A resource a hub derived from another (`"datahub": {"type": "derived/csv"}` and the like):
 * a copy in another format, made anew by the hub at each publication.
 */
export function isDerived(resource: unknown): boolean {
  const type = (resource as { datahub?: { type?: unknown } } | null)?.datahub?.type;
  return typeof type === 'string' && type.startsWith('derived/');
}
