import { readFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';

/**
 * Where a service process spent its CPU time, from the V8 profiles `npm run bench -- --profile`
 * writes (bench/results/profiles/*.cpuprofile): self time by package or source folder, the hottest
 * functions, and this repository's functions by total time. run.ts writes these summaries to
 * bench/results/profiles/SUMMARY-<modes>-<shapes>.txt after a profiled run; bench/NOTES.md cites them as the evidence
 * for what limits throughput. Also usable on its own:
 *
 *   node --import tsx bench/profile-summary.ts [--top N] FILE.cpuprofile...
 */

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
}

interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  children?: number[];
}

interface Profile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

/** A frame's owner: an npm package, a folder of this repository, Node itself, or V8's own states. */
function owner(frame: CallFrame): string {
  const { url, functionName } = frame;
  if (!url) return functionName.startsWith('(') ? functionName : '(native)';
  const modules = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (modules) return modules[1]!;
  if (url.startsWith('node:')) return `node:${url.slice(5).split('/')[0]}`;
  // dist/ is src/ compiled, file for file: the built service's frames are named by their source folder.
  const repo = /\/(src|dist|bench|test)\/(.*)$/.exec(url);
  if (repo) return `${repo[1] === 'dist' ? 'src' : repo[1]}/${path.dirname(repo[2]!)}`;
  return url;
}

export function summariseProfile(file: string, top: number): string {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const selfMicros = new Map<number, number>();
  profile.samples.forEach((id, i) => selfMicros.set(id, (selfMicros.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)));
  const total = profile.endTime - profile.startTime;

  const byOwner = new Map<string, number>();
  const byFunction = new Map<string, number>();
  for (const [id, micros] of selfMicros) {
    const frame = byId.get(id)!.callFrame;
    byOwner.set(owner(frame), (byOwner.get(owner(frame)) ?? 0) + micros);
    const name = `${frame.functionName || '(anonymous)'} ${owner(frame)}${frame.url ? `:${frame.lineNumber + 1}` : ''}`;
    byFunction.set(name, (byFunction.get(name) ?? 0) + micros);
  }
  // Inclusive ("total") time of this repository's functions: a sample counts once for every distinct
  // src/ function on its stack (dist/ for the built service). Only synchronous work shows: what a
  // handler awaits runs later, from another stack (a socket callback), and is charged to that stack
  // instead.
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const inclusive = new Map<string, number>();
  for (const [id, micros] of selfMicros) {
    const seen = new Set<string>();
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      const frame = byId.get(at)!.callFrame;
      if (!/\/(src|dist)\//.test(frame.url) || frame.url.includes('node_modules')) continue;
      const name = `${frame.functionName || '(anonymous)'} ${owner(frame)}:${frame.lineNumber + 1}`;
      if (seen.has(name)) continue;
      seen.add(name);
      inclusive.set(name, (inclusive.get(name) ?? 0) + micros);
    }
  }
  // Shares of busy time: idle time only says how much load there was, not where the work went.
  const busy = total - (byOwner.get('(idle)') ?? 0);
  byOwner.delete('(idle)');
  byFunction.delete('(idle) (idle)');
  const pct = (micros: number): string => `${((micros / busy) * 100).toFixed(1).padStart(5)} %`;
  const list = (m: Map<string, number>): string[] =>
    [...m.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([name, micros]) => `  ${pct(micros)}  ${name}`);
  return [
    `${path.basename(file)}: ${(total / 1e6).toFixed(1)} s profiled, ${(busy / 1e6).toFixed(1)} s busy; shares below are of the busy time`,
    'self time by owner:',
    ...list(byOwner),
    'hottest functions (self time):',
    ...list(byFunction),
    'src/ functions by total time (synchronous part only):',
    ...list(inclusive),
  ].join('\n');
}

// Run as a script (not imported by run.ts): summarise the files named on the command line.
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const { values, positionals } = parseArgs({ options: { top: { type: 'string', default: '25' } }, allowPositionals: true });
  if (positionals.length === 0) {
    process.stderr.write('usage: node --import tsx bench/profile-summary.ts [--top N] FILE.cpuprofile...\n');
    process.exit(2);
  }
  for (const file of positionals) process.stdout.write(`${summariseProfile(file, Number(values.top))}\n\n`);
}
