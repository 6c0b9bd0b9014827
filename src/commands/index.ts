import type { Command } from 'commander';
import type { Context } from '../context.js';
import { registerValidate } from './validate.js';
import { registerHelp } from './help.js';
import { registerServe } from './serve.js';

export type ContextFor = (command: Command) => Context;
export type SetExitCode = (code: number) => void;

export function registerCommands(
  program: Command,
  contextFor: ContextFor,
  setExitCode: SetExitCode,
): void {
  registerValidate(program, contextFor, setExitCode);
  registerServe(program, contextFor, setExitCode);
  registerHelp(program, setExitCode);
}
