import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { API_TAGS } from '../../src/http/openapi.js';
import { v1OpenApiDocument } from '../helpers/dashboard-types.js';

/**
 * The OpenAPI document as GET /v1/openapi.json serves it, read the way client generators and their users
 * read it: redocly's strict rules and redocly.yaml's additions (a description on every operation and
 * parameter, a defined tag on each, license and contact) with no error and no warning; and what a client
 * needs to retry and pace itself documented on the operations that give it.
 */
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const scratch = mkdtempSync(path.join(tmpdir(), 'openapi-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

type Operation = {
  operationId: string;
  tags: string[];
  parameters: Array<{ name: string; in: string }>;
  responses: Record<string, { headers?: Record<string, unknown> }>;
  security: unknown[];
  requestBody?: unknown;
};
const document = (await v1OpenApiDocument()) as unknown as { paths: Record<string, Record<string, Operation>>; tags: Array<{ name: string }> };
const operations = Object.values(document.paths).flatMap((methods) => Object.values(methods));

describe('the OpenAPI document', { timeout: 60_000 }, () => {
  it('passes redocly lint with redocly.yaml: no error, no warning', () => {
    const file = path.join(scratch, 'openapi.json');
    writeFileSync(file, JSON.stringify(document));
    const run = spawnSync(path.join(ROOT, 'node_modules/.bin/redocly'), ['lint', '--config', path.join(ROOT, 'redocly.yaml'), '--format', 'json', file], { encoding: 'utf8' });
    expect(run.error).toBeUndefined();
    const report = JSON.parse(run.stdout) as { totals: { errors: number; warnings: number }; problems: Array<{ ruleId: string; message: string }> };
    expect(report.problems.map((p) => `${p.ruleId}: ${p.message}`)).toEqual([]);
    expect(report.totals).toEqual(expect.objectContaining({ errors: 0, warnings: 0 }));
    expect(run.status).toBe(0);
  });

  it('uses one tag style, and lists exactly the tags in use', () => {
    const used = new Set(operations.flatMap((o) => o.tags));
    expect(document.tags.map((t) => t.name).sort()).toEqual([...used].sort());
    for (const tag of Object.keys(API_TAGS)) expect(tag).toMatch(/^[a-z]+(-[a-z]+)*$/);
  });

  it('documents what a client needs to retry: Retry-After on 429 and 503, the budget headers, Idempotency-Key on ingest, 415 beside every body', () => {
    for (const operation of operations.filter((o) => o.security.length > 0)) {
      expect(Object.keys(operation.responses['429']?.headers ?? {}).sort(), operation.operationId).toEqual(['RateLimit', 'RateLimit-Policy', 'Retry-After']);
      expect(Object.keys(operation.responses['503']?.headers ?? {}), operation.operationId).toEqual(['Retry-After']);
      const success = Object.entries(operation.responses).find(([status]) => status.startsWith('2'))![1];
      expect(Object.keys(success.headers ?? {}).sort(), operation.operationId).toEqual(['RateLimit', 'RateLimit-Policy']);
    }
    for (const operation of operations.filter((o) => o.requestBody !== undefined)) expect(Object.keys(operation.responses), operation.operationId).toContain('415');
    const ingest = document.paths['/v1/ingest']!.post!;
    expect(ingest.parameters).toContainEqual(expect.objectContaining({ name: 'Idempotency-Key', in: 'header', required: false }));
  });
});
