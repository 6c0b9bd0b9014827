import type { PlannedResource, PublishEvent, PublishResult } from '../client/publish.js';
import type { Palette } from '@data/core';
import { TransferLine } from './transfer-line.js';
import { visibleDeep } from '@data/core';
import { counted } from '@data/core';
import { humanBytes, Meter } from './units.js';

/** Turns publish events into one progress line (terminal) and plain log lines. */
export function publishProgress(
  update: (text: string) => void,
  log: (line: string) => void,
): (event: PublishEvent) => void {
  const transfers = new TransferLine('uploading', update);
  const hashed = new Map<string, Meter>();
  let uploading = false;
  let lastState = '';
  return (received) => {
    // Paths, step titles and states come from the package and the hub.
    const event = visibleDeep(received);
    switch (event.type) {
      case 'plan':
        transfers.plan(event.files);
        break;
      case 'hashing': {
        if (uploading) break;
        const meter = hashed.get(event.path) ?? new Meter();
        hashed.set(event.path, meter);
        update(
          event.read === undefined
            ? `hashing ${event.path}`
            : `hashing ${event.path} · ${meter.describe(event.read, event.bytes)}`,
        );
        break;
      }
      case 'file':
        if (event.exists) {
          transfers.skip(event.path);
          log(`already stored ${event.path}`);
        } else transfers.size(event.path, event.bytes);
        break;
      case 'progress':
        uploading = true;
        transfers.progress(event.path, event.sent);
        break;
      case 'uploaded':
        transfers.finish(event.path);
        log(`uploaded ${event.path}`);
        break;
      case 'submitted':
        if (!event.unchanged) log(`submitted revision ${event.flowId.split('/').pop() ?? ''}`);
        break;
      case 'status': {
        const steps = Object.values(event.status.pipelines).map(
          (step) => `${step.title}: ${step.status}`,
        );
        const current = Object.values(event.status.pipelines).find(
          (step) => step.status === 'INPROGRESS',
        );
        update(`publishing: ${current?.title ?? event.status.state}`);
        const state = `${event.status.state} ${steps.join(', ')}`;
        if (state !== lastState)
          log(`${event.status.state.toLowerCase()}${current ? `: ${current.title}` : ''}`);
        lastState = state;
        break;
      }
    }
  };
}

/** The end of a publication: the dataset's URL, or each failed step and its log. */
export function publishSummary(published: PublishResult, colors: Palette): string {
  const result = visibleDeep(published);
  if (result.unchanged)
    return `${colors.green('✔ nothing changed')} since revision ${String(result.revision)}: ${result.url} is published as it is (--force makes a new revision)\n`;
  if (result.state === 'SUCCEEDED')
    return `${colors.green('✔ published')} ${result.url} (revision ${String(result.revision)})\n`;
  if (result.state !== 'FAILED')
    return `submitted ${result.owner}/${result.dataset} revision ${String(result.revision)} (${result.state.toLowerCase()}): ${result.url}\n`;
  const lines = [
    colors.red(
      `✖ publication of ${result.owner}/${result.dataset} revision ${String(result.revision)} failed`,
    ),
  ];
  for (const step of Object.values(result.status?.pipelines ?? {})) {
    if (step.status !== 'FAILED') continue;
    lines.push(`  ${colors.bold(step.title)}: failed`);
    for (const entry of step.error_log ?? []) lines.push(`    ${entry}`);
  }
  return `${lines.join('\n')}\n`;
}

/** A dry run of a dataset the hub does not have: every resource it would have, all new. */
export function newDatasetText(
  dataset: string,
  planned: PlannedResource[],
  colors: Palette,
): string {
  const resources = visibleDeep(planned);
  const lines = [
    `${visibleDeep(dataset)} is not published yet: publishing makes a new dataset of ${counted(resources.length, 'resource')}`,
  ];
  for (const resource of resources) {
    const facts = [
      'new',
      resource.rows === null ? undefined : counted(resource.rows, 'row'),
      resource.bytes === null ? undefined : humanBytes(resource.bytes),
    ].filter((fact): fact is string => fact !== undefined);
    const where =
      resource.path === null
        ? ' (rows in the descriptor)'
        : ` (${[resource.path].flat().join(', ')})`;
    lines.push(`${colors.green('+')} ${colors.bold(resource.name)}: ${facts.join(', ')}${where}`);
  }
  lines.push('nothing was uploaded (--dry-run)');
  return `${lines.join('\n')}\n`;
}
