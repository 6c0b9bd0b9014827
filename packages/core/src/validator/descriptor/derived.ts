/**
 * A resource a hub derived from another (`"datahub": {"type": "derived/csv"}` and the like):
 * a copy in another format, made anew by the hub at each publication.
 */
export function isDerived(resource: unknown): boolean {
  const type = (resource as { datahub?: { type?: unknown } } | null)?.datahub?.type;
  return typeof type === 'string' && type.startsWith('derived/');
}

type Resource = Record<string, unknown>;

/**
 * The resource a hub derived of type `type` (`derived/csv`, `derived/zip`…), from the
 * resource named `source` when given.
 */
export function derivedOf(
  resources: readonly Resource[],
  type: string,
  source?: unknown,
): Resource | undefined {
  return resources.find((candidate) => {
    const datahub = candidate.datahub as { type?: unknown; derivedFrom?: unknown } | undefined;
    if (datahub?.type !== type) return false;
    return (
      source === undefined ||
      (Array.isArray(datahub.derivedFrom) && datahub.derivedFrom[0] === source)
    );
  });
}
