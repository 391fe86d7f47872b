/**
 * Reads the Prometheus text exposition format (what GET /metrics serves) into samples, keyed by
 * series: `name{a="1",b="2"}` with the labels sorted by name, so two scrapes can be compared series
 * by series.
 */
export interface Sample {
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly value: number;
}

export function parseMetrics(text: string): Map<string, Sample> {
  const samples = new Map<string, Sample>();
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    // Greedy up to the last `}`: a label value may hold braces (route templates like /v1/apps/{appId}).
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)(?:\s+\d+)?$/.exec(line);
    if (!match) throw new Error(`not a sample line: ${line}`);
    const [, name, labelText, value] = match;
    const labels: Record<string, string> = {};
    for (const label of (labelText ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)) {
      labels[label[1]!] = label[2]!.replace(/\\(.)/g, (_, c: string) => (c === 'n' ? '\n' : c));
    }
    samples.set(seriesKey(name!, labels), { name: name!, labels, value: Number(value) });
  }
  return samples;
}

export function seriesKey(name: string, labels: Readonly<Record<string, string>> = {}): string {
  const parts = Object.keys(labels)
    .sort()
    .map((key) => `${key}=${JSON.stringify(labels[key])}`);
  return `${name}{${parts.join(',')}}`;
}

/**
 * How much each series moved from `before` to `after` (a series absent before counts from 0), for the
 * series `include` selects; series that did not move are left out.
 */
export function movedSeries(before: Map<string, Sample>, after: Map<string, Sample>, include: (sample: Sample) => boolean): Record<string, number> {
  const moved: Record<string, number> = {};
  for (const [key, sample] of after) {
    if (!include(sample)) continue;
    const delta = sample.value - (before.get(key)?.value ?? 0);
    if (delta !== 0) moved[key] = delta;
  }
  return moved;
}
