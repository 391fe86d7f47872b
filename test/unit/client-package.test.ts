import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const PACKAGE = path.join(ROOT, 'clients/js');
const out = mkdtempSync(path.join(tmpdir(), 'client-build-'));
afterAll(() => rmSync(out, { recursive: true, force: true }));

/** The client library builds as published: its own tsconfig (browsers' DOM types, no Node types), JavaScript and declarations. */
describe('the client library package (clients/js)', { timeout: 120_000 }, () => {
  it('builds with its own tsconfig into what its package.json exports', async () => {
    await promisify(execFile)(path.join(ROOT, 'node_modules/.bin/tsc'), ['-p', path.join(PACKAGE, 'tsconfig.json'), '--outDir', out]);
    const pkg = JSON.parse(readFileSync(path.join(PACKAGE, 'package.json'), 'utf8')) as { exports: { '.': { types: string; default: string } }; dependencies?: unknown };
    for (const file of [pkg.exports['.'].default, pkg.exports['.'].types]) expect(readFileSync(path.join(out, path.relative('dist', file)), 'utf8').length).toBeGreaterThan(0);
    // Nothing to install beside it: it runs on the platform's fetch, crypto and CompressionStream.
    expect(pkg.dependencies).toBeUndefined();
    const built = (await import(path.join(out, 'index.js'))) as { EventAlertingClient?: unknown };
    expect(typeof built.EventAlertingClient).toBe('function');
  });
});
