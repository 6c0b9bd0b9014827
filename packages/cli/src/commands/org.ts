import { InvalidArgumentError, Option, type Command } from 'commander';
import { ORG_ROLES, OWNER_NAME, visibleDeep, type OrgMember, type OrgRole } from '@data/core';
import type { Palette } from '@data/core';
import type { Context } from '../context.js';
import type { OrgsDeps } from '../client/orgs.js';
import { requireToken, signedInDeps, writeJson } from './auth-common.js';
import type { ContextFor, SetExitCode } from './types.js';

/** An owner name as the hub takes it: a user's or an organisation's, in any case. */
function ownerName(kind: string) {
  return (value: string): string => {
    if (!OWNER_NAME.test(value))
      throw new InvalidArgumentError(
        `${kind} names are letters, digits, "-" and "_", starting with a letter or digit, at most 39 characters`,
      );
    return value;
  };
}

export function registerOrg(
  program: Command,
  contextFor: ContextFor,
  setExitCode: SetExitCode,
): void {
  const org = program
    .command('org')
    .summary('organisations: datasets a team publishes together, with roles for its members');
  org
    .command('create')
    .summary('make an organisation, with you as its admin')
    .argument(
      '<org>',
      'its name: it shares the names of users, and none may be taken',
      ownerName('organisation'),
    )
    .addHelpText('after', '\nExamples:\n  data org create acme\n  data publish --owner acme')
    .action(async (name: string, _options: unknown, command: Command) => {
      setExitCode(await createOrg(name, contextFor(command)));
    });
  org
    .command('add')
    .summary("add a member to an organisation, or change a member's role (admins only)")
    .argument('<org>', 'the organisation', ownerName('organisation'))
    .argument('<user>', 'a user who has signed in to the hub once', ownerName('user'))
    .addOption(
      new Option(
        '--role <role>',
        'admin (all, members too), maintainer (read, publish, delete) or reader (read)',
      )
        .choices(ORG_ROLES)
        .makeOptionMandatory(),
    )
    .addHelpText('after', '\nExamples:\n  data org add acme grace --role maintainer')
    .action(async (name: string, user: string, options: { role: OrgRole }, command: Command) => {
      setExitCode(await addMember(name, user, options.role, contextFor(command)));
    });
  org
    .command('remove')
    .summary('remove a member from an organisation (admins; or yourself, to leave)')
    .argument('<org>', 'the organisation', ownerName('organisation'))
    .argument('<user>', 'the member', ownerName('user'))
    .action(async (name: string, user: string, _options: unknown, command: Command) => {
      setExitCode(await removeMember(name, user, contextFor(command)));
    });
  org
    .command('delete')
    .summary('delete an organisation with no datasets (admins only): its name is free again')
    .argument('<org>', 'the organisation', ownerName('organisation'))
    .addHelpText(
      'after',
      '\nDelete its datasets first (data delete ORG/DATASET).\n\nExamples:\n  data org delete acme',
    )
    .action(async (name: string, _options: unknown, command: Command) => {
      setExitCode(await deleteOrg(name, contextFor(command)));
    });
  org
    .command('members')
    .summary("an organisation's members and their roles (to its members)")
    .argument('<org>', 'the organisation', ownerName('organisation'))
    .action(async (name: string, _options: unknown, command: Command) => {
      setExitCode(await listMembers(name, contextFor(command)));
    });
}

async function deps(ctx: Context): Promise<OrgsDeps> {
  return signedInDeps(ctx, await requireToken(ctx), { role: '--role' });
}

export async function createOrg(name: string, ctx: Context): Promise<number> {
  const { runOrgCreate } = await import('../client/orgs.js');
  const made = await runOrgCreate(name, await deps(ctx));
  if (ctx.globals.json) writeJson(ctx, made);
  else {
    // Names from the hub, made visible (control characters escaped) before they are printed.
    const shown = visibleDeep(made.name);
    ctx.io.stdout.write(
      `made the organisation ${shown}, with you as its admin: add members with data org add ${shown} USER --role maintainer\n`,
    );
  }
  return 0;
}

export async function addMember(
  org: string,
  user: string,
  role: OrgRole,
  ctx: Context,
): Promise<number> {
  const { runOrgAdd } = await import('../client/orgs.js');
  const member = await runOrgAdd(org, user, role, await deps(ctx));
  if (ctx.globals.json) writeJson(ctx, member);
  else {
    const shown = visibleDeep(member);
    ctx.io.stdout.write(`${shown.user} is now ${shown.role} of ${org.toLowerCase()}\n`);
  }
  return 0;
}

export async function removeMember(org: string, user: string, ctx: Context): Promise<number> {
  const { runOrgRemove } = await import('../client/orgs.js');
  const result = await runOrgRemove(org, user, await deps(ctx));
  if (ctx.globals.json) writeJson(ctx, result);
  else ctx.io.stdout.write(`removed ${visibleDeep(result.removed)} from ${org.toLowerCase()}\n`);
  return 0;
}

export async function deleteOrg(org: string, ctx: Context): Promise<number> {
  const { runOrgDelete } = await import('../client/orgs.js');
  const result = await runOrgDelete(org, await deps(ctx));
  if (ctx.globals.json) writeJson(ctx, result);
  else ctx.io.stdout.write(`deleted the organisation ${visibleDeep(result.deleted)}\n`);
  return 0;
}

/**
 * The members, made visible first: an aligned table under a heading on a terminal, tab-
 * separated lines with no heading in a pipe, as the other lists.
 */
async function renderMembers(
  members: readonly OrgMember[],
  tty: boolean,
  colors: Palette,
): Promise<string> {
  const rows = visibleDeep(members).map((member) => [member.user, member.role]);
  if (!tty) return rows.map((row) => `${row.join('\t')}\n`).join('');
  const { alignedTable } = await import('../output/info.js');
  return `${alignedTable([['user', 'role'], ...rows], colors, '').join('\n')}\n`;
}

export async function listMembers(org: string, ctx: Context): Promise<number> {
  const { runOrgMembers } = await import('../client/orgs.js');
  const members = await runOrgMembers(org, await deps(ctx));
  if (ctx.globals.json) writeJson(ctx, members);
  else ctx.io.stdout.write(await renderMembers(members, ctx.io.isStdoutTTY, ctx.colors));
  return 0;
}
