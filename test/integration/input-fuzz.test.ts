import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it, type TestContext } from 'vitest';
import { badKeyRecipeArb, badKeyRequest, framingBody, framingDecoded, framingExpectation, framingHeaders, framingRecipeArb } from '../helpers/fuzz-body-framing.js';
import { ANSWER_BUDGET_MS, describeAnswer, expectDetailed400, expectWellBehaved, type Answer, type FuzzRequest } from '../helpers/fuzz-http.js';
import { hostileBody, hostileExpectation, hostileNeedsDetails, hostileRecipeArb } from '../helpers/fuzz-hostile-json.js';
import {
  BODY_LIMIT_BYTES,
  CHECKED_SCHEMA,
  DAYS_PER_REQUEST,
  MAX_DATA_DEPTH,
  anyJsonArb,
  beyondDayLimit,
  conformingEventArb,
  hasLoneSurrogate,
  hasProtoKey,
  invalidBodyArb,
  jsonDepth,
  jsonText,
  schemaViolationArb,
  textFormArb,
  validBodyArb,
  validEventArb,
  type Event,
  type Json,
} from '../helpers/fuzz-ingest-bodies.js';
import { ENDPOINTS, hostileManagementArb, hostileManagementBody, invalidBodyArb as invalidManagementArb, managementTargets, oddTextArb, validBodyArb as validManagementArb, type Endpoint } from '../helpers/fuzz-management-bodies.js';
import { equalsNumber, numericOf, numericSpecArb, numericSpecValue } from '../helpers/fuzz-numeric-values.js';
import { filterFixtures, owedStatus, pathSegmentArb, queryCaseArb, queryString, soleValidValue } from '../helpers/fuzz-query-params.js';
import { asJson, expectStoredAsSent, readBack } from '../helpers/fuzz-read-back.js';
import { invalidRuleArb, validRuleArb, validRulePatchArb, type RuleFixtures } from '../helpers/fuzz-rule-bodies.js';
import { fuzz, type FuzzReport } from '../helpers/fuzz-runner.js';
import { startFuzzService, type FuzzService } from '../helpers/fuzz-service.js';
import { waitFor } from '../helpers/service-process.js';

/**
 * Property-based fuzzing of the public HTTP API of a real service process (embedded mode), over four
 * families of input: ingest bodies, event filters, notification rules (and rule evaluation on hostile
 * event values), and the management bodies. Every answer, whatever was sent, must be no 5xx, come
 * within 1 s, and carry the standard error body on a 4xx; most properties also know which answer a
 * case is owed. What a 202 accepted must read back unchanged. Afterwards the process must be healthy.
 *
 * Each property prints (and annotates) its number of cases and its seed; `FUZZ_SEED=<n>` replays a run.
 * Run counts are chosen so the file takes one to two minutes on two cores.
 */
const RUNS = {
  ingestShapes: 300,
  ingestArbitrary: 350,
  ingestHostile: 400,
  ingestFraming: 150,
  ingestBadKey: 80,
  roundTrip: 150,
  crossApp: 50,
  filters: 250,
  paths: 400,
  requestHeads: 10,
  ruleBodies: 300,
  ruleEvaluation: 150,
  management: 300,
  managementHostile: 200,
  methods: 120,
};
/**
 * Per property, shrinking included. A passing property needs a fraction of it; a failing one stops
 * here with the smallest counterexample found so far.
 */
const TIME_LIMIT_MS = 60_000;
const TEST_TIMEOUT_MS = 120_000;

const JSON_HEADERS = { 'content-type': 'application/json' };

describe('input fuzz against a real service process', () => {
  let service: FuzzService;
  const reports: FuzzReport[] = [];

  beforeAll(async () => {
    service = await startFuzzService();
  });
  afterAll(async () => {
    const cases = reports.reduce((sum, r) => sum + r.cases, 0);
    console.log(`[input-fuzz] ${cases} cases in ${reports.length} properties, ${service?.client.sent ?? 0} requests`);
    await service?.stop();
  });

  const send = (request: FuzzRequest): Promise<Answer> => service.client.send(request);
  const wellBehaved = (answer: Answer, context: string): void => expectWellBehaved(answer, context, () => service.serverErrors());
  const ingest = (apiKey: string, body: Buffer | string, headers: Record<string, string> = JSON_HEADERS) =>
    send({ method: 'POST', path: '/v1/ingest', headers: { 'x-api-key': apiKey, ...headers }, body });
  const withSecret = (method: string, path: string, body?: Buffer | string) =>
    send({ method, path, headers: { ...service.auth, ...(body === undefined ? {} : JSON_HEADERS) }, ...(body === undefined ? {} : { body }) });
  /** A fuzz property with this file's time limit, its report kept for the summary whether it passes or fails. */
  const property = <T>(annotate: TestContext['annotate'], name: string, arbitrary: fc.Arbitrary<T>, predicate: (value: T) => Promise<void>, numRuns: number) =>
    fuzz({ annotate }, name, arbitrary, predicate, { numRuns, timeLimitMs: TIME_LIMIT_MS, onReport: (report) => reports.push(report) });
  let caseNumber = 0;
  /** An event name no other case uses, so that a case reads back exactly its own events. */
  const uniqueName = (prefix: string) => `${prefix}.${++caseNumber}.${Date.now().toString(36)}`;

  const expectAccepted = (answer: Answer, count: number, context: string): string[] => {
    expect(answer.status, `${context}\n→ ${describeAnswer(answer)}`).toBe(202);
    expect(answer.json.accepted, context).toBe(count);
    const ids = answer.json.events.map((e: { id: string }) => e.id);
    expect(new Set(ids).size, context).toBe(count);
    return ids;
  };

  describe('ingest bodies', () => {
    it('accepts every valid event and batch, and refuses each one-place mistake with a detailed 400', { timeout: TEST_TIMEOUT_MS }, async ({ annotate }) => {
      const app = await service.newApp('ingest shapes');
      await service.call('POST', `/v1/apps/${app.id}/schemas`, CHECKED_SCHEMA, 201);
      const cases = fc.oneof(
        { weight: 3, arbitrary: fc.record({ body: validBodyArb, form: textFormArb }).map((c) => ({ ...c, label: 'valid', owed: 202 as const, detailPath: undefined })) },
        { weight: 4, arbitrary: fc.tuple(invalidBodyArb, textFormArb).map(([c, form]) => ({ ...c, form, owed: 400 as const, detailPath: undefined })) },
        { weight: 1, arbitrary: fc.record({ body: fc.array(conformingEventArb, { minLength: 1, maxLength: 3 }), form: textFormArb }).map((c) => ({ ...c, label: 'fits its schema', owed: 202 as const, detailPath: undefined })) },
        {
          weight: 1,
          arbitrary: fc.tuple(fc.array(conformingEventArb, { minLength: 1, maxLength: 3 }), schemaViolationArb, fc.nat(), fc.boolean(), textFormArb).map(([events, violation, at, single, form]) => {
            const index = at % events.length;
            const bad = events.map((e, i) => (i === index ? violation.apply(e) : e));
            return single
              ? { body: bad[index], form, label: 'breaks its schema', owed: 400 as const, detailPath: violation.path }
              : { body: bad, form, label: 'breaks its schema (batch)', owed: 400 as const, detailPath: `${index}.${violation.path}` };
          }),
        },
      );
      await property(annotate, 'ingest: valid and one-mistake bodies', cases, async (c) => {
        const bytes = Buffer.from(jsonText(c.body, c.form), 'utf8');
        const answer = await ingest(app.apiKey, bytes);
        const context = `POST /v1/ingest, ${c.label}, ${c.form}, ${bytes.length} bytes`;
        wellBehaved(answer, context);
        if (bytes.length > BODY_LIMIT_BYTES) return expect(answer.status, context).toBe(413);
        // A well-formed batch over too many days is refused at its first event beyond them.
        const beyond = c.owed === 202 && Array.isArray(c.body) ? beyondDayLimit(c.body) : undefined;
        if (beyond !== undefined) {
          expectDetailed400(answer, context);
          expect(answer.json.details, context).toContainEqual(expect.objectContaining({ path: `${beyond}.timestamp` }));
          return;
        }
        if (c.owed === 202) {
          expectAccepted(answer, Array.isArray(c.body) ? c.body.length : 1, context);
          return;
        }
        expectDetailed400(answer, context);
        if (c.detailPath !== undefined) expect(answer.json.details, context).toContainEqual(expect.objectContaining({ path: c.detailPath }));
      }, RUNS.ingestShapes);
    });

    it('answers arbitrary JSON as a body, as data, as metadata and in a batch as documented', { timeout: TEST_TIMEOUT_MS }, async ({ annotate }) => {
      const app = await service.newApp('ingest arbitrary');
      const objectArb = fc.dictionary(fc.string({ maxLength: 8 }), anyJsonArb, { maxKeys: 6 });
      const cases = fc.oneof(
        anyJsonArb.map((value) => ({ where: 'body' as const, value })),
        fc.oneof(anyJsonArb, objectArb).map((value) => ({ where: 'data' as const, value })),
        fc.oneof(anyJsonArb, objectArb).map((value) => ({ where: 'metadata' as const, value })),
        anyJsonArb.map((value) => ({ where: 'batch' as const, value })),
      );
      await property(annotate, 'ingest: arbitrary JSON', cases, async (c) => {
        const name = uniqueName('any');
        const body = c.where === 'body' ? c.value : c.where === 'batch' ? [{ event: name }, c.value] : { event: name, [c.where]: c.value };
        const answer = await ingest(app.apiKey, JSON.stringify(body));
        const context = `POST /v1/ingest with arbitrary JSON as ${c.where}`;
        wellBehaved(answer, context);
        expect([202, 400, 413], `${context}\n→ ${describeAnswer(answer)}`).toContain(answer.status);
        if (c.where !== 'data') return;
        const value = asJson(c.value);
        const keepable = typeof value === 'object' && value !== null && !Array.isArray(value) && !hasProtoKey(value) && !hasLoneSurrogate(value) && jsonDepth(value) <= MAX_DATA_DEPTH;
        expect(answer.status, `${context}: ${keepable ? 'an object it can keep' : 'not an object it can keep'}\n→ ${describeAnswer(answer)}`).toBe(keepable ? 202 : 400);
      }, RUNS.ingestArbitrary);
    });

    it('refuses what it cannot keep as sent (depth, __proto__, lone surrogates, 1e400, bad UTF-8) and keeps the merely odd', { timeout: TEST_TIMEOUT_MS }, async ({ annotate }) => {
      const app = await service.newApp('ingest hostile');
      await property(annotate, 'ingest: hostile values', hostileRecipeArb, async (recipe) => {
        const name = uniqueName('hostile');
        const body = hostileBody(recipe, name);
        const answer = await ingest(app.apiKey, body);
        const owed = hostileExpectation(recipe);
        const context = `POST /v1/ingest, ${JSON.stringify(recipe)}, ${body.length} bytes, owed ${owed}`;
        wellBehaved(answer, context);
        if (owed === 400) return hostileNeedsDetails(recipe) ? expectDetailed400(answer, context) : expect(answer.status, `${context}\n→ ${describeAnswer(answer)}`).toBe(400);
        if (owed === 202) expect(answer.status, `${context}\n→ ${describeAnswer(answer)}`).toBe(202);
        else expect([202, 400], `${context}\n→ ${describeAnswer(answer)}`).toContain(answer.status);
        if (answer.status !== 202) return expectDetailed400(answer, context);
        // What was accepted reads back as the sent text parses.
        const sent = JSON.parse(body.toString('utf8')) as Event | Event[];
        const events = Array.isArray(sent) ? sent : [sent];
        const read = await readBack(service, app.id, name, expectAccepted(answer, events.length, context));
        events.forEach((event, i) => expectStoredAsSent(read.get(answer.json.events[i].id), event, {}, context));
      }, RUNS.ingestHostile);
    });

    it('reads JSON under every content type, encoding and size around the 1 MiB limit as documented', { timeout: TEST_TIMEOUT_MS }, async ({ annotate }) => {
      const app = await service.newApp('ingest framing');
      await property(annotate, 'ingest: content types, encodings, sizes', framingRecipeArb, async (recipe) => {
        const name = uniqueName('frame');
        const body = framingBody(recipe, name);
        const answer = await send({ method: 'POST', path: '/v1/ingest', headers: { 'x-api-key': app.apiKey, ...framingHeaders(recipe) }, body, chunked: recipe.chunked });
        const owed = framingExpectation(recipe);
        const context = `POST /v1/ingest, ${JSON.stringify(recipe)}, ${body.length} bytes sent, owed ${[...owed].join(' or ')}`;
        wellBehaved(answer, context);
        expect([...owed], `${context}\n→ ${describeAnswer(answer)}`).toContain(answer.status);
        if (answer.status !== 202) return;
        const [id] = expectAccepted(answer, 1, context);
        const read = await readBack(service, app.id, name, [id!]);
        expect(read.get(id!).data, context).toStrictEqual(JSON.parse(framingDecoded(recipe, name).toString('utf8')).data);
      }, RUNS.ingestFraming);
    });

    it('answers a bad API key with 401 without reading the body', { timeout: TEST_TIMEOUT_MS }, async ({ annotate }) => {
      const app = await service.newApp('ingest keys');
      const doomed = await service.newApp('ingest deleted');
      await service.call('DELETE', `/v1/apps/${doomed.id}`, undefined, 204);
      const keys = { valid: app.apiKey, clientSecret: service.auth.authorization.slice('Bearer '.length), deletedApp: doomed.apiKey };
      await property(annotate, 'ingest: bad API keys', badKeyRecipeArb, async (recipe) => {
        const { headers, body } = badKeyRequest(recipe, keys);
        const answer = await send({ method: 'POST', path: '/v1/ingest', headers, body });
        const context = `POST /v1/ingest, ${JSON.stringify(recipe)}, ${body.length} bytes`;
        wellBehaved(answer, context);
        expect(answer.status, `${context}\n→ ${describeAnswer(answer)}`).toBe(401);
      }, RUNS.ingestBadKey);
    });
  });

  it('reads back exactly what a 202 accepted: data, metadata over the defaults, level, customer, instant', { timeout: TEST_TIMEOUT_MS }, async ({ annotate }) => {
    const app = await service.newApp('round trip');
    const defaults = { env: 'fuzz', region: 'eu-1', constructor: 'default wins unless sent' };
    await service.call('PUT', `/v1/apps/${app.id}/default-metadata`, defaults, 200);
    const specialData = fc.oneof(
      fc.integer({ min: 1, max: MAX_DATA_DEPTH - 1 }).map((levels) => ({ deep: Array.from({ length: levels - 1 }).reduce<Json>((inner) => [inner], []) })),
      fc.constantFrom<Record<string, Json>>(
        { tiny: 5e-324, huge: Number.MAX_VALUE, negative: -0, safe: Number.MAX_SAFE_INTEGER, unsafe: -Number.MAX_SAFE_INTEGER - 2, float: 0.1 + 0.2 },
        { emoji: '😀🎉', nul: 'a\u0000b', rtl: '\u202eevil', bom: '\ufeffx', escapes: '"\\/\b\f\n\r\t', '': 'empty key', 'a.b': 'dotted', ' ': 'space' },
        { constructor: 1, toString: 'x', hasOwnProperty: null, valueOf: [], prototype: {} },
      ),
      fc.integer({ min: 1_000, max: 60_000 }).map((n) => ({ long: 'ü'.repeat(n) })),
    );
    const eventArb = fc.tuple(validEventArb, fc.option(specialData, { nil: undefined })).map(([event, data]): Event => (data === undefined ? event : { ...event, data }));
    // Bodies over the limit are another property's business (and a 413 reads nothing back).
    const cases = fc
      .record({ events: fc.array(eventArb, { minLength: 1, maxLength: 4 }), single: fc.boolean(), form: textFormArb })
      .filter((c) => Buffer.byteLength(jsonText(c.single ? c.events[0] : c.events, c.form)) <= BODY_LIMIT_BYTES - 1_024);
    await property(annotate, 'round trip: what a 202 accepted is what a read returns', cases, async (c) => {
      const name = uniqueName('rt');
      const events = c.events.map((event) => ({ ...event, event: `${name}.${event.event as string}`.slice(0, 200) }));
      const body = c.single ? events[0]! : events;
      const sentEvents = c.single ? [events[0]!] : events;
      const bytes = Buffer.from(jsonText(body, c.form), 'utf8');
      const answer = await ingest(app.apiKey, bytes);
      const context = `round trip of ${sentEvents.length} event(s), ${c.form}, ${bytes.length} bytes`;
      wellBehaved(answer, context);
      const ids = expectAccepted(answer, sentEvents.length, context);
      const byName = new Map<string, string[]>();
      sentEvents.forEach((event, i) => byName.set(event.event, [...(byName.get(event.event) ?? []), ids[i]!]));
      const read = new Map<string, any>();
      for (const [type, typeIds] of byName) for (const [id, item] of await readBack(service, app.id, type, typeIds)) read.set(id, item);
      sentEvents.forEach((event, i) => expectStoredAsSent(read.get(ids[i]!), event, defaults, context));
    }, RUNS.roundTrip);
  });

  it("never fails one app's valid request because of another app's request sent at the same moment", { timeout: TEST_TIMEOUT_MS }, async ({ annotate }) => {
    const attacker = await service.newApp('attacker');
    const victim = await service.newApp('victim');
    // A hundred events over as many days as one request may fall on (31), or over more (refused): a
    // store that partitions by day sees every day of a batch at once. The days lie within 200 days from
    // 2000-01-01, each a partition of its own, so that the runs together leave a bounded number of
    // partitions (every one is visited when an app is deleted).
    const SPREAD_BASE = Date.UTC(2000, 0, 1, 12);
    const spreadBatch = fc.record({ kind: fc.constant('spread' as const), first: fc.nat({ max: 100 }), days: fc.integer({ min: 2, max: 100 }) });
    const attack = fc.oneof(hostileRecipeArb.map((recipe) => ({ kind: 'hostile' as const, recipe })), spreadBatch);
    const cases = fc.record({ attacks: fc.array(attack, { minLength: 1, maxLength: 3 }), victims: fc.integer({ min: 1, max: 3 }) });
    await property(annotate, "cross-app: another app's request never fails this one", cases, async (c) => {
      const attacks = c.attacks.map((a) => {
        if (a.kind === 'hostile') return { label: JSON.stringify(a.recipe), spread: false, owed: undefined, body: hostileBody(a.recipe, uniqueName('attack')) };
        const name = uniqueName('spread');
        const events = Array.from({ length: 100 }, (_, i) => ({ event: name, timestamp: new Date(SPREAD_BASE + (a.first + (i % a.days)) * 86_400_000).toISOString() }));
        const owed = a.days <= DAYS_PER_REQUEST ? 202 : 400;
        return { label: `100 events over ${a.days} days from 2000-01-01 + ${a.first} days`, spread: true, owed, body: Buffer.from(JSON.stringify(events)) };
      });
      const victims = Array.from({ length: c.victims }, (_, i) => JSON.stringify({ event: 'victim.ok', data: { i } }));
      const answers = await Promise.all([...attacks.map((a) => ingest(attacker.apiKey, a.body)), ...victims.map((body) => ingest(victim.apiKey, body))]);
      const context = `at once: ${attacks.map((a) => a.label).join(' | ')} and ${victims.length} valid event(s) of another app`;
      // The point is the other app: its valid events are accepted whatever arrives beside them.
      answers.slice(attacks.length).forEach((answer) => {
        wellBehaved(answer, `${context}\nthe other app's valid event`);
        expect(answer.status, `${context}\nthe other app's valid event → ${describeAnswer(answer)}`).toBe(202);
      });
      // What each hostile body itself is owed is the hostile-values property's business; a spread batch
      // gets its 202 within the day limit and a 400 beyond it.
      attacks.forEach((a, i) => {
        expect(answers[i]!.ms, `${context}\n${a.label}: answered in ${answers[i]!.ms.toFixed(0)} ms`).toBeLessThan(ANSWER_BUDGET_MS);
        if (a.owed !== undefined) expect(answers[i]!.status, `${context}\n${a.label} → ${describeAnswer(answers[i]!)}`).toBe(a.owed);
      });
    }, RUNS.crossApp);
  });

  describe('event filters', () => {
    it('answers any query with 200 and matching items, or the standard 400', { timeout: TEST_TIMEOUT_MS }, async ({ annotate }) => {
      const app = await service.newApp('filters');
      const fixtures = await filterFixtures(service, app.id, app.apiKey);
      const list = (query: string) => send({ method: 'GET', path: `/v1/apps/${app.id}/events${query}`, headers: service.auth });
      await property(annotate, 'event filters', queryCaseArb(fixtures), async (c) => {
        const query = queryString(c);
        const answer = await list(query);
        const context = `GET /v1/apps/{app}/events${query.slice(0, 600)}`;
        wellBehaved(answer, context);
        expect([200, 400], `${context}\n→ ${describeAnswer(answer)}`).toContain(answer.status);
        const owed = owedStatus(c);
        if (owed !== null) expect(answer.status, `${context}\n→ ${describeAnswer(answer)}`).toBe(owed);
        if (answer.status !== 200) return;
        const { items, nextCursor } = answer.json;
        expect(nextCursor === null || typeof nextCursor === 'string', context).toBe(true);
        const limit = soleValidValue(c, 'limit') ?? (c.raw.length === 0 && !c.params.some((p) => p.name === 'limit') ? '25' : undefined);
        if (limit !== undefined) expect(items.length, context).toBeLessThanOrEqual(Number(limit));
        const level = soleValidValue(c, 'level');
        const type = soleValidValue(c, 'type');
        const customer = soleValidValue(c, 'customer_id');
        const from = soleValidValue(c, 'from');
        const to = soleValidValue(c, 'to');
        for (const item of items) {
          if (level !== undefined) expect(item.level, context).toBe(level);
          if (type !== undefined) expect(item.event, context).toBe(type);
          if (customer !== undefined) expect(item.customer_id, context).toBe(customer);
          if (from !== undefined) expect(Date.parse(item.timestamp), context).toBeGreaterThanOrEqual(Date.parse(from));
          if (to !== undefined) expect(Date.parse(item.timestamp), context).toBeLessThan(Date.parse(to));
        }
        // The next page continues strictly after this one.
        if (nextCursor === null || owed !== 200) return;
        const params = c.params.filter((p) => p.name !== 'cursor');
        const next = await list(queryString({ params: [...params, { name: 'cursor', value: nextCursor, valid: true }], raw: [] }));
        wellBehaved(next, `${context} (next page)`);
        expect(next.status, `${context} (next page)\n→ ${describeAnswer(next)}`).toBe(200);
        const seen = new Set(items.map((item: { id: string }) => item.id));
        for (const item of next.json.items) expect(seen.has(item.id), `${context}: ${item.id} on two pages`).toBe(false);
      }, RUNS.filters);
    });
  });

  describe('request lines', () => {
    it('answers malformed, unknown and odd ids in every path with 2xx, 404 or the standard 400', { timeout: TEST_TIMEOUT_MS }, async ({ annotate }) => {
      const app = await service.newApp('paths');
      const destination = await service.newDestination(app.id, 'webhook');
      const rule = await service.call('POST', `/v1/apps/${app.id}/notification-rules`, { name: 'paths', eventName: 'paths', actions: [{ destinationId: destination.id }] }, 201);
      const schema = await service.call('POST', `/v1/apps/${app.id}/schemas`, { eventName: 'paths', fields: [{ name: 'a', type: 'string' }] }, 201);
      const templates: Array<{ method: string; path: (segment: string) => string; body?: unknown; real: string[] }> = [
        { method: 'GET', path: (s) => `/v1/apps/${s}`, real: [app.id, app.slug] },
        { method: 'GET', path: (s) => `/v1/apps/${s}/events?limit=1`, real: [app.id, app.slug] },
        { method: 'GET', path: (s) => `/v1/apps/${s}/default-metadata`, real: [app.id] },
        { method: 'PATCH', path: (s) => `/v1/apps/${s}`, body: { name: 'paths renamed' }, real: [app.id] },
        { method: 'GET', path: (s) => `/v1/apps/${app.id}/notification-rules/${s}`, real: [rule.id] },
        { method: 'PATCH', path: (s) => `/v1/apps/${app.id}/notification-rules/${s}`, body: { enabled: false }, real: [rule.id] },
        { method: 'DELETE', path: (s) => `/v1/apps/${app.id}/notification-rules/${s}`, real: [] },
        { method: 'GET', path: (s) => `/v1/apps/${app.id}/destinations/${s}`, real: [destination.id] },
        { method: 'PATCH', path: (s) => `/v1/apps/${app.id}/destinations/${s}`, body: { label: 'renamed' }, real: [destination.id] },
        { method: 'DELETE', path: (s) => `/v1/apps/${app.id}/destinations/${s}`, real: [destination.id] },
        { method: 'GET', path: (s) => `/v1/apps/${app.id}/schemas/by-event-name/${s}`, real: ['paths'] },
        { method: 'PATCH', path: (s) => `/v1/apps/${app.id}/schemas/${s}`, body: { description: 'odd path' }, real: [schema.id] },
        { method: 'GET', path: (s) => `/v1/apps/${app.id}/deliveries?ruleId=${s}`, real: [rule.id] },
        { method: 'DELETE', path: (s) => `/v1/client-secrets/${s}`, real: [] },
      ];
      const cases = fc.nat({ max: templates.length - 1 }).chain((i) => pathSegmentArb(templates[i]!.real.length > 0 ? templates[i]!.real : [app.id]).map((segment) => ({ template: i, segment })));
      await property(annotate, 'paths: malformed and unknown ids', cases, async (c) => {
        const template = templates[c.template]!;
        const path = template.path(c.segment);
        const answer = await withSecret(template.method, path, template.body === undefined ? undefined : JSON.stringify(template.body));
        const context = `${template.method} ${path.slice(0, 300)}`;
        wellBehaved(answer, context);
        expect([200, 204, 400, 404, 409], `${context}\n→ ${describeAnswer(answer)}`).toContain(answer.status);
      }, RUNS.paths);
    });

    it('answers a request head over the HTTP limits with a 4xx and the standard error body', { timeout: TEST_TIMEOUT_MS }, async ({ annotate }) => {
      const cases = fc.record({ where: fc.constantFrom('url', 'header'), length: fc.integer({ min: 17_000, max: 80_000 }) });
      await property(annotate, 'request heads over the limits', cases, async (c) => {
        const long = 'q'.repeat(c.length);
        const answer = await send({
          method: 'GET',
          path: c.where === 'url' ? `/v1/apps/x/events?type=${long}` : '/v1/apps',
          headers: { ...service.auth, ...(c.where === 'header' ? { 'x-padding': long } : {}) },
        });
        const context = `GET with a ${c.length}-character ${c.where}`;
        wellBehaved(answer, context);
        expect(answer.status, `${context}\n→ ${describeAnswer(answer)}`).toBeGreaterThanOrEqual(400);
      }, RUNS.requestHeads);
    });
  });

  describe('notification rules', () => {
    it('creates and updates every valid rule as sent, and refuses each one-place mistake with a detailed 400', { timeout: TEST_TIMEOUT_MS }, async ({ annotate }) => {
      const app = await service.newApp('rule bodies');
      const other = await service.newApp('rule bodies, other app');
      const fixtures: RuleFixtures = {
        destinations: [await service.newDestination(app.id, 'webhook'), await service.newDestination(app.id, 'slack'), await service.newDestination(app.id, 'discord')],
        foreignDestinationId: (await service.newDestination(other.id, 'webhook')).id,
      };
      const existing = await service.call('POST', `/v1/apps/${app.id}/notification-rules`, { name: 'patched by the fuzzer', eventName: 'patched' }, 201);
      const base = `/v1/apps/${app.id}/notification-rules`;
      const cases = fc.oneof(
        validRuleArb(fixtures).map((body) => ({ method: 'POST', path: base, body, owed: 201, label: 'valid rule' })),
        invalidRuleArb(fixtures, validRuleArb(fixtures)).map((c) => ({ method: 'POST', path: base, body: c.body, owed: 400, label: c.label })),
        validRulePatchArb(fixtures).map((body) => ({ method: 'PATCH', path: `${base}/${existing.id}`, body, owed: 200, label: 'valid change' })),
        invalidRuleArb(fixtures, validRulePatchArb(fixtures)).map((c) => ({ method: 'PATCH', path: `${base}/${existing.id}`, body: c.body, owed: 400, label: c.label })),
        fc.tuple(validRulePatchArb(fixtures), fc.uuid()).map(([body, id]) => ({ method: 'PATCH', path: `${base}/${id}`, body, owed: 404, label: 'unknown rule' })),
        fc.jsonValue({ stringUnit: 'binary' }).map((body) => ({ method: 'POST', path: base, body, owed: 0, label: 'arbitrary JSON' })),
      );
      await property(annotate, 'rule bodies', cases, async (c) => {
        const answer = await withSecret(c.method, c.path, JSON.stringify(c.body));
        const context = `${c.method} ${c.path.replace(app.id, '{app}')} (${c.label}): ${JSON.stringify(c.body).slice(0, 600)}`;
        wellBehaved(answer, context);
        if (c.owed === 0) return expect([201, 400], `${context}\n→ ${describeAnswer(answer)}`).toContain(answer.status);
        if (c.owed === 400) return expectDetailed400(answer, context);
        expect(answer.status, `${context}\n→ ${describeAnswer(answer)}`).toBe(c.owed);
        if (c.owed === 404) return;
        // The rule reads back as it was sent.
        const sent = c.body as Record<string, any>;
        const read = await service.call('GET', `${base}/${answer.json.id}`, undefined, 200);
        expect(read, context).toStrictEqual(answer.json);
        if (sent.name !== undefined) expect(read.name, context).toBe(sent.name.trim());
        if (sent.eventName !== undefined) expect(read.eventName, context).toBe(sent.eventName);
        if (sent.conditions !== undefined) {
          const conditions = read.conditions.map(({ id: _id, ...rest }: Record<string, unknown>) => rest);
          expect(conditions, context).toStrictEqual(asJson(sent.conditions.map(({ id: _id, ...rest }: Record<string, unknown>) => rest)));
        }
        if (sent.actions !== undefined) {
          const actions = read.actions.map((a: any) => ({ destinationId: a.destinationId, enabled: a.enabled }));
          expect(actions, context).toStrictEqual(sent.actions.map((a: any) => ({ destinationId: a.destinationId.toLowerCase(), enabled: a.enabled ?? true })));
        }
      }, RUNS.ruleBodies);
    });

    it('evaluates numeric conditions on hostile event values promptly and counts exactly the documented matches', { timeout: TEST_TIMEOUT_MS }, async ({ annotate }) => {
      const app = await service.newApp('rule evaluation');
      const webhook = await service.newDestination(app.id, 'webhook');
      const slack = await service.newDestination(app.id, 'slack');
      const eventName = 'hostile.numeric';
      type Values = { amount: unknown; total: unknown; meta: unknown };
      const rules: Array<{ name: string; conditions: unknown[]; matches: (v: Values) => boolean; destinationId: string }> = [
        { name: 'amount > 100', conditions: [{ field: 'amount', operator: 'greater_than', value: 100 }], matches: (v) => (numericOf(v.amount) ?? -Infinity) > 100, destinationId: slack.id },
        { name: 'amount = 1', conditions: [{ field: 'amount', operator: 'equals', value: 1 }], matches: (v) => equalsNumber(v.amount, 1), destinationId: webhook.id },
        { name: 'total >= "5"', conditions: [{ field: 'order.total', operator: 'greater_than_or_equal', value: '5' }], matches: (v) => (numericOf(v.total) ?? -Infinity) >= 5, destinationId: webhook.id },
        { name: 'metadata < 10', conditions: [{ field: 'metadata.amount', operator: 'less_than', value: 10 }], matches: (v) => (numericOf(v.meta) ?? Infinity) < 10, destinationId: webhook.id },
        { name: 'every event', conditions: [], matches: () => true, destinationId: webhook.id },
      ];
      const created = await Promise.all(
        rules.map((r) => service.call('POST', `/v1/apps/${app.id}/notification-rules`, { name: r.name, eventName, conditions: r.conditions, actions: [{ destinationId: r.destinationId }] }, 201)),
      );
      const expected = rules.map(() => 0);
      const metaSpec = fc.oneof(
        numericSpecArb.filter((s) => s.kind === 'digits' ? s.sign.length + s.n + s.tail.length <= 1000 : ['string', 'number', 'boolean'].includes(typeof s.value) && (typeof s.value !== 'string' || s.value.length <= 1000)),
        fc.constant(undefined),
      );
      const eventArb = fc.record({ amount: numericSpecArb, total: fc.option(numericSpecArb, { nil: undefined }), meta: metaSpec });
      await property(annotate, 'rule evaluation on hostile values', fc.array(eventArb, { minLength: 1, maxLength: 4 }), async (specs) => {
        // As the service will parse them (JSON has no -0).
        const values = specs.map((s) => ({
          amount: asJson(numericSpecValue(s.amount)),
          total: s.total === undefined ? undefined : asJson(numericSpecValue(s.total)),
          meta: s.meta === undefined ? undefined : asJson(numericSpecValue(s.meta)),
        }));
        const events = values.map((v) => ({ event: eventName, data: { amount: v.amount, ...(v.total === undefined ? {} : { order: { total: v.total } }) }, ...(v.meta === undefined ? {} : { metadata: { amount: v.meta } }) }));
        const body = JSON.stringify(events);
        const answer = await ingest(app.apiKey, body);
        const context = `POST /v1/ingest, ${events.length} events with amount ${values.map((v) => JSON.stringify(v.amount).slice(0, 40)).join(', ')}, ${body.length} bytes`;
        wellBehaved(answer, context);
        if (body.length > BODY_LIMIT_BYTES) return expect(answer.status, context).toBe(413);
        expectAccepted(answer, events.length, context);
        values.forEach((v) => rules.forEach((r, i) => (expected[i]! += r.matches(v) ? 1 : 0)));
        // Rules run in this process after the 202: a stall in them shows as a slow probe.
        wellBehaved(await send({ method: 'GET', path: '/healthz' }), `GET /healthz right after ${context}`);
      }, RUNS.ruleEvaluation);
      const counts = async () => Promise.all(created.map(async (rule) => (await service.call('GET', `/v1/apps/${app.id}/notification-rules/${rule.id}`, undefined, 200)).triggerCount as number));
      const started = Date.now();
      await waitFor(async () => (await counts())[rules.length - 1] === expected[rules.length - 1], 30_000, `every event evaluated (${expected[rules.length - 1]} triggers of the catch-all rule)`, 50);
      console.log(`[input-fuzz] rule evaluation caught up ${Date.now() - started} ms after the last event`);
      expect(Object.fromEntries((await counts()).map((n, i) => [rules[i]!.name, n]))).toEqual(Object.fromEntries(expected.map((n, i) => [rules[i]!.name, n])));
    });
  });

  describe('management bodies', () => {
    it('accepts every valid body, refuses each one-place mistake with a detailed 400, and survives odd text', { timeout: TEST_TIMEOUT_MS }, async ({ annotate }) => {
      const targets = await managementTargets(service);
      const fixtures = { receiverUrl: service.receiver.baseUrl };
      const textFields: Record<Endpoint, string> = { createApp: 'name', updateApp: 'name', createSchema: 'description', updateSchema: 'description', createDestination: 'label', updateDestination: 'label', createSecret: 'label', putDefaultMetadata: 'note' };
      const cases = fc.constantFrom(...ENDPOINTS).chain((endpoint) =>
        fc.oneof(
          validManagementArb(endpoint, fixtures).map((body) => ({ endpoint, body, label: 'valid', owed: 'success' as const })),
          invalidManagementArb(endpoint, fixtures).map((c) => ({ endpoint, body: c.body, label: c.label, owed: 400 as const })),
          fc.tuple(validManagementArb(endpoint, fixtures), oddTextArb).map(([body, text]) => ({ endpoint, body: { ...body, [textFields[endpoint]]: text }, label: 'odd text', owed: 'any' as const })),
        ),
      );
      await property(annotate, 'management bodies', cases, async (c) => {
        const target = targets[c.endpoint];
        const answer = await withSecret(target.method, target.path, JSON.stringify(c.body));
        const context = `${target.method} ${target.path} (${c.endpoint}, ${c.label}): ${JSON.stringify(c.body).slice(0, 600)}`;
        wellBehaved(answer, context);
        if (c.owed === 400) return expectDetailed400(answer, context);
        if (c.owed === 'any') return expect([target.success, 400, 409], `${context}\n→ ${describeAnswer(answer)}`).toContain(answer.status);
        // A valid body may still name a slug or event name already taken.
        expect([target.success, 409], `${context}\n→ ${describeAnswer(answer)}`).toContain(answer.status);
        if (c.endpoint === 'putDefaultMetadata') expect(answer.json, context).toStrictEqual(asJson(c.body));
      }, RUNS.management);
    });

    it('refuses hostile JSON in any management body with a detailed 400', { timeout: TEST_TIMEOUT_MS }, async ({ annotate }) => {
      const targets = await managementTargets(service);
      await property(annotate, 'management bodies with hostile JSON', hostileManagementArb({ receiverUrl: service.receiver.baseUrl }), async (c) => {
        const target = targets[c.endpoint];
        const body = hostileManagementBody(c);
        const answer = await withSecret(target.method, target.path, body);
        const context = `${target.method} ${target.path} (${c.endpoint}) with ${c.kind}${c.kind === 'deep' ? ` (${c.levels} levels)` : ''}: ${body.toString('utf8').slice(0, 400)}`;
        wellBehaved(answer, context);
        expectDetailed400(answer, context);
      }, RUNS.managementHostile);
    });
  });

  it('answers a known path called with a method it does not serve with 405 and Allow', { timeout: TEST_TIMEOUT_MS }, async ({ annotate }) => {
    const app = await service.newApp('methods');
    const document = await service.call('GET', '/v1/openapi.json', undefined, 200);
    // Every documented path, its parameters filled in (ids that exist nowhere, so nothing is changed by mistake).
    const served = Object.entries(document.paths as Record<string, Record<string, unknown>>).map(([template, operations]) => ({
      path: template.replace(/\{appId\}/g, app.id).replace(/\{[A-Za-z]+\}/g, '01900000-0000-7000-8000-000000000000'),
      methods: Object.keys(operations).map((m) => m.toUpperCase()),
    }));
    const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];
    const cases = fc
      .constantFrom(...served.filter((route) => METHODS.some((m) => !route.methods.includes(m))))
      .chain((route) => fc.record({ route: fc.constant(route), method: fc.constantFrom(...METHODS.filter((m) => !route.methods.includes(m))) }));
    await property(annotate, 'wrong methods on known paths', cases, async (c) => {
      const answer = await send({ method: c.method, path: c.route.path, headers: { ...service.auth, 'x-api-key': 'svc_live_unused', ...JSON_HEADERS }, body: '{}' });
      const context = `${c.method} ${c.route.path} (serves ${c.route.methods.join(', ')})`;
      wellBehaved(answer, context);
      expect(answer.status, `${context}\n→ ${describeAnswer(answer)}`).toBe(405);
      const allow = String(answer.headers.allow ?? '').split(',').map((m) => m.trim().toUpperCase());
      for (const method of c.route.methods) expect(allow, `${context}: Allow ${answer.headers.allow}`).toContain(method);
      expect(allow, context).not.toContain(c.method);
    }, RUNS.methods);
  });

  it('is healthy after all of it: probes answer 200, and a fresh event is accepted and read back', async ({ annotate }) => {
    for (const probe of ['/healthz', '/readyz']) {
      const answer = await send({ method: 'GET', path: probe });
      expect(answer.status, `${probe} → ${describeAnswer(answer)}`).toBe(200);
      expect(answer.ms).toBeLessThan(ANSWER_BUDGET_MS);
    }
    const app = await service.newApp('after the fuzz');
    const event: Event = { event: 'after.fuzz', level: 'success', customer_id: 'c-after', data: { ok: true, n: 42, list: ['a', { b: null }] }, metadata: { phase: 'after' } };
    const answer = await ingest(app.apiKey, JSON.stringify(event));
    const [id] = expectAccepted(answer, 1, 'the fresh event');
    const read = await readBack(service, app.id, 'after.fuzz', [id!]);
    expectStoredAsSent(read.get(id!), event, {}, 'the fresh event');
    await annotate(`${reports.reduce((sum, r) => sum + r.cases, 0)} fuzz cases before this check`);
  });
});
