/** The part of datapackage-js (the Frictionless JavaScript library, untyped) the tests use. */
declare module 'datapackage' {
  interface ResourceDescriptor {
    name: string;
    path?: string;
    format?: string;
    bytes?: number;
    hash?: string;
    datahub?: { type?: string; derivedFrom?: string[] };
  }

  export class Resource {
    readonly name: string;
    readonly tabular: boolean;
    readonly source: string;
    readonly descriptor: ResourceDescriptor;
    read(options?: { keyed?: boolean }): Promise<Record<string, unknown>[]>;
    rawRead(): Promise<Buffer>;
  }

  export class Package {
    static load(descriptor: string | object, options?: { basePath?: string }): Promise<Package>;
    readonly valid: boolean;
    readonly errors: Error[];
    readonly descriptor: { name?: string; resources: ResourceDescriptor[] };
    readonly resources: Resource[];
    getResource(name: string): Resource | null;
  }

  const datapackage: { Package: typeof Package; Resource: typeof Resource };
  export default datapackage;
}
