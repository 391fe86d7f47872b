import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { envSchema, loadConfig } from '../../src/config.js';

/** `.env.example` is the operator's reference: it must name exactly what the schema reads. */
function parseEnvExample(): Map<string, string> {
  const text = readFileSync(new URL('../../.env.example', import.meta.url), 'utf8');
  const entries = new Map<string, string>();
  for (const line of text.split('\n')) {
    const match = /^([A-Z][A-Z0-9_]*)=(.*)$/.exec(line.trim());
    if (match) entries.set(match[1]!, match[2]!);
  }
  return entries;
}

describe('.env.example', () => {
  const example = parseEnvExample();

  it('documents every variable of the config schema and no other', () => {
    expect([...example.keys()].sort()).toEqual(Object.keys(envSchema.shape).sort());
  });

  it('shows each default exactly as the schema applies it', () => {
    const fromExample = loadConfig(Object.fromEntries(example));
    expect(fromExample).toEqual(loadConfig({}));
  });

  it('gives every variable an explanatory comment just above it', () => {
    const lines = readFileSync(new URL('../../.env.example', import.meta.url), 'utf8').split('\n');
    const grouped = new Set(['RATE_LIMIT_POINTS', 'RATE_LIMIT_DURATION_S']);
    for (const [i, line] of lines.entries()) {
      const name = /^([A-Z][A-Z0-9_]*)=/.exec(line)?.[1];
      if (!name || grouped.has(name)) continue;
      expect(lines[i - 1], `comment above ${name}`).toMatch(/^# \S/);
    }
  });
});

describe('README configuration table', () => {
  it('has a row for every variable of the config schema and no other', () => {
    const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
    const section = readme.slice(readme.indexOf('## Configuration'), readme.indexOf('## Operating it'));
    const rows = [...section.matchAll(/^\| `([A-Z][A-Z0-9_]*)` \|/gm)].map((m) => m[1]);
    expect(rows.sort()).toEqual(Object.keys(envSchema.shape).sort());
  });
});
