import { EXIT } from './exit-codes.js';

interface CliErrorOptions {
  code: string;
  exitCode: number;
  hint?: string;
  cause?: unknown;
}

/** An error the user can act on: printed without a stack, mapped to an exit code. */
export class CliError extends Error {
  readonly code: string;
  readonly exitCode: number;
  readonly hint: string | undefined;

  constructor(message: string, options: CliErrorOptions) {
    super(message, { cause: options.cause });
    this.code = options.code;
    this.exitCode = options.exitCode;
    this.hint = options.hint;
  }
}

export class UsageError extends CliError {
  constructor(message: string, hint?: string) {
    super(message, { code: 'E_USAGE', exitCode: EXIT.usage, ...(hint ? { hint } : {}) });
  }
}

export class InputError extends CliError {
  constructor(message: string, hint?: string) {
    super(message, { code: 'E_INPUT', exitCode: EXIT.usage, ...(hint ? { hint } : {}) });
  }
}

/** Nothing answered, or not in time: exit 3, always with a hint of what to check. */
export class NetworkError extends CliError {
  constructor(
    message: string,
    cause?: unknown,
    hint = 'check the address and the network connection, then try again',
  ) {
    super(message, { code: 'E_NETWORK', exitCode: EXIT.network, cause, hint });
  }
}

/** The command was stopped by Ctrl-C (SIGINT), or by SIGTERM. */
export class InterruptedError extends CliError {
  constructor(by: unknown = 'SIGINT') {
    if (by === 'SIGTERM') super('terminated', { code: 'E_TERMINATED', exitCode: EXIT.terminated });
    else super('interrupted', { code: 'E_INTERRUPTED', exitCode: EXIT.interrupted });
  }
}

export class AuthError extends CliError {
  constructor(message: string, hint = 'run `data login`, or set DATA_TOKEN') {
    super(message, { code: 'E_AUTH', exitCode: EXIT.auth, hint });
  }
}

/** A hub answered a step with an error status: the step, the status and what it said. */
export class ApiError extends CliError {
  constructor(
    readonly step: string,
    readonly status: number,
    detail: string,
  ) {
    super(`${step}: ${String(status)} ${detail}`.trim(), {
      code: status === 404 ? 'E_NOT_FOUND' : 'E_API',
      exitCode: status === 401 ? EXIT.auth : EXIT.network,
    });
  }
}
