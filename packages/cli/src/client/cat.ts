import type { HttpFetch } from '@data/core';
import { ApiError } from '@data/core';

/** Which table `data cat` reads, and whether its values are typed (for JSON) or as written. */
export interface CatOptions {
  /** A package folder or descriptor, a data file, - (standard input), owner/dataset or a URL. */
  source: string;
  /** Which resource of a package (default: the first). */
  resource?: string | undefined;
  typed: boolean;
}

export interface CatDeps {
  /** What `-` reads: opened only then. */
  stdin: () => AsyncIterable<Uint8Array>;
  /** Carries the hub's token to the hub and nowhere else. */
  fetch: HttpFetch;
  /** The hub's site, where owner/dataset is read (it throws where no hub is set up right). */
  site: () => string;
  /** Whether a token went with this URL: for the hint when a dataset does not show. */
  signedIn: (url: string) => boolean;
  /** Whether a name is read here rather than from the hub. */
  isLocal: (input: string) => boolean;
  signal: AbortSignal;
}

/** What the table is made of, as it is read: its column names once, then each row. */
export interface CatEvents {
  header: (names: string[]) => void;
  row: (values: unknown[]) => void;
  /** False once no more rows are wanted (a closed output). */
  readonly open: boolean;
}

/**
 * The use case of `data cat`: the table found and read, row by row. The header is the
 * schema's field names, else the file's labels, else field1…fieldN; it comes once, before
 * the first row, or alone for a table with none.
 */
export async function runCat(options: CatOptions, deps: CatDeps, events: CatEvents): Promise<void> {
  const { catSource, readRows } = await import('@data/core');
  const { parseTarget, noSuchDataset } = await import('./get.js');
  const targetOf = (input: string) => {
    try {
      return parseTarget(input, deps.site());
    } catch {
      return undefined;
    }
  };
  const source = await catSource(options.source, options.resource, {
    stdin: deps.stdin,
    fetch: deps.fetch,
    descriptorUrlOf: targetOf,
    isLocal: deps.isLocal,
  }).catch((error: unknown) => {
    const target = targetOf(options.source);
    if (target && error instanceof ApiError && error.status === 404)
      throw noSuchDataset(target, deps.signedIn(target.url));
    throw error;
  });
  const schemaNames = (
    (source.resource.schema as { fields?: { name: string }[] } | undefined)?.fields ?? []
  ).map((field) => field.name);
  let labels: string[] | undefined;
  let started = false;
  const begin = (width: number) => {
    if (started) return;
    started = true;
    const names = schemaNames.length > 0 ? schemaNames : (labels ?? []);
    events.header(
      names.length > 0 ? names : Array.from({ length: width }, (_, i) => `field${String(i + 1)}`),
    );
  };
  await readRows(
    source.resource,
    source.base,
    { fetch: source.fetch, signal: deps.signal, typed: options.typed },
    {
      labels: (found) => (labels = found.length > 0 ? found : undefined),
      row: (values) => {
        begin(values.length);
        events.row(values);
      },
      get open() {
        return events.open;
      },
    },
  );
  begin(0);
}
