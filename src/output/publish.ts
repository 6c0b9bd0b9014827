import type { PublishEvent, PublishResult } from '../client/publish.js';
import type { Palette } from './colors.js';

export function megabytes(bytes: number): string {
  return `${(bytes / 1e6).toFixed(bytes < 1e7 ? 2 : 1)} MB`;
}

/** Turns publish events into one progress line (terminal) or plain log lines. */
export function publishProgress(
  update: (text: string) => void,
  log: (line: string) => void,
): (event: PublishEvent) => void {
  const sent = new Map<string, number>();
  let total = 0;
  let lastState = '';
  return (event) => {
    switch (event.type) {
      case 'hashing':
        if (sent.size === 0) update(`hashing ${event.path}`);
        break;
      case 'file':
        if (event.exists) log(`already stored ${event.path}`);
        else total += event.bytes;
        break;
      case 'progress': {
        sent.set(event.path, event.sent);
        const done = [...sent.values()].reduce((a, b) => a + b, 0);
        update(
          `uploading ${megabytes(done)} of ${megabytes(total)} (${total > 0 ? String(Math.floor((done / total) * 100)) : '100'}%) · ${event.path}`,
        );
        break;
      }
      case 'uploaded':
        log(`uploaded ${event.path}`);
        break;
      case 'submitted':
        log(`submitted revision ${event.flowId.split('/').pop() ?? ''}`);
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
export function publishSummary(result: PublishResult, colors: Palette): string {
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
