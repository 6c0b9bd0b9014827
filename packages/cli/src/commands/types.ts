import type { Command } from 'commander';
import type { Context } from '../context.js';

/** The context of the command being run, built once its options are parsed. */
export type ContextFor = (command: Command) => Context;
/** Where a command's action leaves its exit code. */
export type SetExitCode = (code: number) => void;
