/** The setting of the hub that an operator must change, where it is one. */
export type HubSetting = 'database' | 'storage' | 'sign-in';

/**
 * The hub will not start as configured: the operator must change something (`setting`). The
 * hint names no flag: whoever starts the hub (`data serve`) says which of its own to change.
 * A module of its own, which the index exports without loading the server (start.ts).
 */
export class HubRefused extends Error {
  override readonly name = 'HubRefused';
  constructor(
    message: string,
    readonly hint: string,
    readonly setting?: HubSetting,
  ) {
    super(message);
  }
}
