/**
 * The domain's errors say what happened: a kind, a stable `code` (what `--json` shows, what
 * tests read), a message and the facts behind it. They never say what a program should do
 * about it: no exit code, and no hint that names a flag, a command or a setting of one program.
 * Each program answers them in one place: the CLI with an exit code and its hints.
 */

/** What a program tells apart to answer an error: the CLI picks its exit code by it. */
export type ErrorKind =
  | 'usage'
  | 'input'
  | 'not-found'
  | 'network'
  | 'server'
  | 'auth'
  | 'invalid-data'
  | 'refused'
  | 'interrupted';

/**
 * What happened, where a program would advise differently than for others of its kind: a
 * fact, for which the CLI has a hint naming its flags and commands.
 */
export type ErrorReason =
  /** Interrupted after a request that changes the user's tokens was sent: it may be done. */
  | 'token-change-sent'
  /** Interrupted after a request that changes an organisation was sent: it may be done. */
  | 'org-change-sent'
  /** Interrupted after a request that changes a dataset's publishers was sent: it may be done. */
  | 'publisher-change-sent'
  /** Nothing listens at the address (ECONNREFUSED). */
  | 'refused'
  /** The host name does not resolve (ENOTFOUND, EAI_AGAIN). */
  | 'unresolved'
  /** The server went quiet for longer than allowed. */
  | 'silent'
  /** The folder to write into holds files already. */
  | 'folder-not-empty'
  /** What stands at the path to write is no file. */
  | 'not-a-file'
  /** The file to write holds other bytes than those to be written. */
  | 'file-differs'
  /** The file to write is there already. */
  | 'file-exists'
  /** The hub offers no zip of a dataset. */
  | 'no-zip'
  /** A publication was still running when the wait for it ended. */
  | 'publication-unfinished'
  /** The hub named a sign-in address that is no http(s) one, and it was not opened. */
  | 'sign-in-address'
  /** No sign-in arrived in time. */
  | 'sign-in-timeout'
  /** A list of sheets with an empty item. */
  | 'sheets-list'
  /** A workbook lacks a sheet that was asked for. */
  | 'no-such-sheet'
  /** Sheets were asked for, and the package has no workbook. */
  | 'no-workbooks'
  /** A folder holds no descriptor. */
  | 'no-descriptor'
  /** What was given is not a package descriptor. */
  | 'not-a-descriptor'
  /** A dataset does not show: absent, or private and not the reader's (`signedIn`). */
  | 'no-dataset'
  /** No revision of a dataset may be read by this reader (`signedIn`). */
  | 'dataset-unreadable'
  /** A table could not be read at all: what is wrong with its data is validation's to say. */
  | 'unreadable-table'
  /** A hub would not start on its database. */
  | 'hub-database'
  /** A hub would not start on its storage. */
  | 'hub-storage'
  /** A hub listening beyond this machine has no sign-in provider. */
  | 'hub-sign-in';

export interface DataErrorOptions {
  /** The stable code, where a kind has more than one (E_TIMEOUT among network errors). */
  code?: string;
  /** What to check, true wherever the error is shown: never a flag, a command or a setting. */
  hint?: string;
  reason?: ErrorReason;
  /** Whether a token went with the request, for `no-dataset` and `dataset-unreadable`. */
  signedIn?: boolean;
  /** What a change was made to, by name (an organisation, `owner/dataset`), for a `*-change-sent`. */
  subject?: string;
  cause?: unknown;
}

/** A hint alone, or the options. */
type HintOr = string | DataErrorOptions | undefined;

const optionsOf = (given: HintOr): DataErrorOptions =>
  typeof given === 'string' ? { hint: given } : (given ?? {});

/** An error the user can act on: shown without a stack. */
export abstract class DataError extends Error {
  abstract readonly kind: ErrorKind;
  readonly code: string;
  readonly hint: string | undefined;
  readonly reason: ErrorReason | undefined;
  readonly signedIn: boolean | undefined;
  readonly subject: string | undefined;

  protected constructor(message: string, code: string, given?: HintOr) {
    const options = optionsOf(given);
    super(message, { cause: options.cause });
    this.code = options.code ?? code;
    this.hint = options.hint;
    this.reason = options.reason;
    this.signedIn = options.signedIn;
    this.subject = options.subject;
  }
}

/** What was asked cannot be: a bad argument, a bad setting, a place that is taken. */
export class UsageError extends DataError {
  readonly kind = 'usage';
  constructor(message: string, options?: HintOr) {
    super(message, 'E_USAGE', options);
  }
}

/** What was given cannot be used: a missing file, a descriptor that is none. */
export class InputError extends DataError {
  readonly kind = 'input';
  constructor(message: string, options?: HintOr) {
    super(message, 'E_INPUT', options);
  }
}

/** What was named is not there (or does not show to this reader). */
export class NotFoundError extends DataError {
  readonly kind = 'not-found';
  constructor(message: string, options?: HintOr) {
    super(message, 'E_NOT_FOUND', options);
  }
}

/** Nothing answered, or not in time: always with a hint of what to check. */
export class NetworkError extends DataError {
  readonly kind = 'network';
  constructor(
    message: string,
    cause?: unknown,
    options: HintOr = 'check the address and the network connection, then try again',
  ) {
    super(message, 'E_NETWORK', { cause, ...optionsOf(options) });
  }
}

/** A server answered, but not as the protocol says (a missing field, a form it owes). */
export class ServerError extends DataError {
  readonly kind = 'server';
  constructor(message: string, options?: HintOr) {
    super(message, 'E_API', options);
  }
}

/** A hub answered a step with an error status: the step, the status and what it said. */
export class ApiError extends DataError {
  /** A 401 is a refused credential; any other status, the server's failure. */
  readonly kind: 'auth' | 'server';
  constructor(
    readonly step: string,
    readonly status: number,
    /** What the server said, as it said it: shown escaped, never as it is. */
    readonly detail: string,
  ) {
    super(`${step}: ${String(status)} ${detail}`.trim(), status === 404 ? 'E_NOT_FOUND' : 'E_API');
    this.kind = status === 401 ? 'auth' : 'server';
  }
}

/** Credentials are missing, or were refused. */
export class AuthError extends DataError {
  readonly kind = 'auth';
  constructor(message: string, options?: HintOr) {
    super(message, 'E_AUTH', options);
  }
}

/** The data is not what it should be (a damaged download, a path outside its package). */
export class InvalidDataError extends DataError {
  readonly kind = 'invalid-data';
  constructor(message: string, options?: HintOr) {
    super(message, 'E_DATA', options);
  }
}

/**
 * A server understood what was asked and will not do it: a name that is taken, a limit
 * passed, something the credential may not do. Asking again the same way cannot help.
 */
export class RefusedError extends DataError {
  readonly kind = 'refused';
  constructor(message: string, options?: HintOr) {
    super(message, 'E_REFUSED', options);
  }
}

/** The command was stopped by Ctrl-C (SIGINT), or by SIGTERM. */
export class InterruptedError extends DataError {
  readonly kind = 'interrupted';
  constructor(by: unknown = 'SIGINT', options?: DataErrorOptions) {
    const terminated = by === 'SIGTERM';
    super(
      terminated ? 'terminated' : 'interrupted',
      terminated ? 'E_TERMINATED' : 'E_INTERRUPTED',
      options,
    );
  }
}
