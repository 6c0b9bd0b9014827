import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';

export interface Sample {
  name: string;
  labels: Record<string, string>;
  /** null for NaN or an infinity, which JSON cannot hold. */
  value: number | null;
}

/** Reads the text format with the Prometheus project's Python client (Debian's python3-prometheus-client). */
const PARSE = `
import json, math, sys
from prometheus_client.parser import text_string_to_metric_families
print(json.dumps([
    {"name": s.name, "labels": s.labels, "value": s.value if math.isfinite(s.value) else None}
    for family in text_string_to_metric_families(sys.stdin.read())
    for s in family.samples
]))
`;

const PYTHON = '/usr/bin/python3';

export function prometheusParserInstalled(): boolean {
  return (
    existsSync(PYTHON) &&
    spawnSync(PYTHON, ['-c', 'import prometheus_client'], { stdio: 'ignore' }).status === 0
  );
}

/** Every sample of a scrape, parsed as Prometheus parses it; throws on text it refuses. */
export function parsePrometheus(text: string): Sample[] {
  const parsed = spawnSync(PYTHON, ['-c', PARSE], { input: text, encoding: 'utf8' });
  if (parsed.status !== 0)
    throw new Error(`the Prometheus parser refused the metrics: ${parsed.stderr}`);
  return JSON.parse(parsed.stdout) as Sample[];
}
