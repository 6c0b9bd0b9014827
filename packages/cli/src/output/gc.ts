import type { GcReport } from '@data/hub';
import { humanBytes } from './units.js';
import { counted } from '@data/core';

/** What `data serve-gc` removed, or would remove, in a line. */
export function gcSummary(report: GcReport): string {
  const { objects, staged, holdings } = report;
  const verb = report.dryRun ? 'would remove' : 'removed';
  return `${verb} ${counted(objects.count, 'stored file')} (${humanBytes(objects.bytes)}) and ${counted(staged.count, 'staged upload')} (${humanBytes(staged.bytes)}); quotas ${report.dryRun ? 'would go' : 'went'} down by ${humanBytes(holdings.bytes)} (${counted(holdings.count, 'holding')})\n`;
}
