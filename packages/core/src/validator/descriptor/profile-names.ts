/** The profiles a descriptor is checked against, by `<name>/<version>`. */
export const PROFILE_KEYS = [
  'package/1',
  'package/2',
  'resource/1',
  'resource/2',
  'schema/1',
  'schema/2',
  'dialect/1',
  'dialect/2',
] as const;

/** `package/1` as a name a module can export, and back. */
export const exportName = (key: string): string => key.replace('/', '_v');
export const exportKey = (name: string): string => name.replace('_v', '/');
