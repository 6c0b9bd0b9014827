import type { DataError } from '@data/core';

export const EXIT = {
  ok: 0,
  invalid: 1,
  usage: 2,
  network: 3,
  auth: 4,
  bug: 70,
  interrupted: 130,
  /** Stopped by SIGTERM (a time limit, a service manager): 128 + 15, as shells report it. */
  terminated: 143,
  /** The reader of standard output went away (`data … | head`), as for a SIGPIPE. */
  closedOutput: 141,
} as const;

/** What each exit code means; the README's table says the same (a test holds them together). */
export const EXIT_CODE_TABLE: readonly [number, string][] = [
  [EXIT.ok, 'success: the package is valid, or the command did what it was asked'],
  [
    EXIT.invalid,
    'the package is invalid, its publication failed, a download does not match its descriptor, or the hub refused what was asked (a name taken, a cap on what you hold reached, a role or token that does not allow it)',
  ],
  [
    EXIT.usage,
    "usage error: unknown flag, or a bad argument, whether data or the hub refuses it (days past the hub's maximum, a claim it does not take), or a source that does not exist or is no usable file (a missing file, a folder where a file was named, a named pipe or device, a file you may not read, a descriptor URL that answers 404, a dataset the hub does not have or does not show you)",
  ],
  [
    EXIT.network,
    'network or server error: nothing answered, or a server failed (also while validating a remote package: no verdict on the data)',
  ],
  [
    EXIT.auth,
    'authentication required or rejected (a token the hub refuses: unknown, revoked or expired)',
  ],
  [EXIT.bug, 'internal error: a bug in data, please report it'],
  [EXIT.interrupted, 'interrupted (Ctrl-C)'],
  [
    EXIT.closedOutput,
    'standard output was closed early (e.g. piped into head): data stopped quietly',
  ],
  [EXIT.terminated, 'terminated (SIGTERM, e.g. a CI job past its time limit)'],
];

/**
 * The exit code of a failure: the one place where the CLI answers the domain's errors with
 * its codes, by their kind. Anything else escaped as a bug.
 */
export function exitCodeOf(error: DataError): number {
  switch (error.kind) {
    case 'usage':
    case 'input':
    case 'not-found':
      return EXIT.usage;
    case 'invalid-data':
    case 'refused':
      return EXIT.invalid;
    case 'network':
    case 'server':
      return EXIT.network;
    case 'auth':
      return EXIT.auth;
    case 'interrupted':
      return error.code === 'E_TERMINATED' ? EXIT.terminated : EXIT.interrupted;
  }
}
