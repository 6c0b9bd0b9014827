import type { Command } from 'commander';
import type { Context } from '../context.js';
import { registerValidate } from './validate.js';
import { registerHelp } from './help.js';
import { registerServe } from './serve.js';
import { registerLogin } from './login.js';
import { registerLogout } from './logout.js';
import { registerWhoami } from './whoami.js';
import { registerPublish } from './publish.js';
import { registerGet } from './get.js';
import { registerInfo } from './info.js';
import { registerCat } from './cat.js';
import { registerSearch } from './search.js';
import { registerList } from './list.js';
import { registerHistory } from './history.js';
import { registerDelete } from './delete.js';
import { registerConfig } from './config.js';
import { registerCompletion } from './completion.js';
import { registerInit } from './init.js';

export type ContextFor = (command: Command) => Context;
export type SetExitCode = (code: number) => void;

export function registerCommands(
  program: Command,
  contextFor: ContextFor,
  setExitCode: SetExitCode,
): void {
  registerInit(program, contextFor, setExitCode);
  registerValidate(program, contextFor, setExitCode);
  registerLogin(program, contextFor, setExitCode);
  registerLogout(program, contextFor, setExitCode);
  registerWhoami(program, contextFor, setExitCode);
  registerPublish(program, contextFor, setExitCode);
  registerGet(program, contextFor, setExitCode);
  registerInfo(program, contextFor, setExitCode);
  registerCat(program, contextFor, setExitCode);
  registerSearch(program, contextFor, setExitCode);
  registerList(program, contextFor, setExitCode);
  registerHistory(program, contextFor, setExitCode);
  registerDelete(program, contextFor, setExitCode);
  registerConfig(program, contextFor, setExitCode);
  registerCompletion(program, contextFor, setExitCode);
  registerServe(program, contextFor, setExitCode);
  registerHelp(program, setExitCode);
}
