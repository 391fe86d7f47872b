import fc from 'fast-check';
import type { Json } from './fuzz-ingest-bodies.js';
import type { FuzzService } from './fuzz-service.js';
import { displayNameArb, eventNameArb, fieldNameArb, injectionTextArb, slugArb, storableTextArb } from './fuzz-text.js';

/**
 * Bodies of the management endpoints (apps, schemas, destinations, client secrets, default
 * metadata), each valid by construction or wrong in one named field, and hostile JSON (`__proto__`,
 * lone surrogates, `1e400`, deep nesting, bytes that are not UTF-8) spliced into a valid body.
 */

export type Endpoint = 'createApp' | 'updateApp' | 'createSchema' | 'updateSchema' | 'createDestination' | 'updateDestination' | 'createSecret' | 'putDefaultMetadata';
export const ENDPOINTS: readonly Endpoint[] = ['createApp', 'updateApp', 'createSchema', 'updateSchema', 'createDestination', 'updateDestination', 'createSecret', 'putDefaultMetadata'];

type Body = Record<string, Json>;

/**
 * Addresses a destination may point at here: loopback in its many spellings (allowed by
 * OUTBOUND_ALLOW_PRIVATE), never a name a resolver outside this machine would be asked about.
 */
function urlArb(receiverUrl: string): fc.Arbitrary<string> {
  const host = fc.constantFrom('127.0.0.1', '127.1.2.3', '[::1]', 'localhost', '2130706433', '0x7f.1', '017700000001', '[::ffff:127.0.0.1]');
  const path = fc.array(fc.stringMatching(/^[A-Za-z0-9._~-]{1,12}$/), { maxLength: 4 }).map((segments) => `/${segments.join('/')}`);
  return fc.oneof(
    path.map((p) => `${receiverUrl}${p}`),
    fc
      .tuple(fc.constantFrom('http', 'https', 'HTTP'), host, fc.option(fc.integer({ min: 1, max: 65_535 }), { nil: undefined }), path, fc.option(fc.stringMatching(/^[a-z]{1,5}=[a-z0-9]{0,8}$/), { nil: undefined }))
      .map(([scheme, h, port, p, query]) => `${scheme}://${h}${port === undefined ? '' : `:${port}`}${p}${query === undefined ? '' : `?${query}`}`),
  );
}

const emailArb = fc
  .tuple(fc.stringMatching(/^[a-z0-9]{1,20}$/), fc.option(fc.stringMatching(/^[a-z0-9]{1,10}$/), { nil: undefined }), fc.array(fc.stringMatching(/^[a-z0-9]{1,10}$/), { minLength: 1, maxLength: 2 }), fc.stringMatching(/^[a-z]{2,6}$/))
  .map(([local, more, labels, tld]) => `${local}${more === undefined ? '' : `.${more}`}@${labels.join('.')}.${tld}`);

const schemaFieldArb = fc
  .record({
    id: fc.option(fc.stringMatching(/^[A-Za-z0-9._:-]{1,100}$/), { nil: undefined }),
    name: fieldNameArb,
    type: fc.constantFrom('string', 'number', 'boolean', 'enum'),
    required: fc.option(fc.boolean(), { nil: undefined }),
    enumValues: fc.uniqueArray(storableTextArb(200).filter((s) => s.length >= 1), { minLength: 1, maxLength: 6 }),
  })
  .map(({ enumValues, ...field }) => JSON.parse(JSON.stringify({ ...field, ...(field.type === 'enum' ? { enumValues } : {}) })) as Body);

const fieldListArb = (minLength: number) =>
  fc
    .uniqueArray(schemaFieldArb, { selector: (f) => f.name, minLength, maxLength: 6 })
    .filter((fields) => {
      const ids = fields.map((f) => f.id).filter((id) => id !== undefined);
      return new Set(ids).size === ids.length;
    });

const metadataValueArb = fc.oneof(storableTextArb(1000), fc.double({ noNaN: true, noDefaultInfinity: true }), fc.boolean());

/** What a management suite owns to aim its bodies at. */
export interface ManagementFixtures {
  readonly receiverUrl: string;
}

/** A body each endpoint accepts (a duplicate slug or event name aside, which is a 409). */
export function validBodyArb(endpoint: Endpoint, fixtures: ManagementFixtures): fc.Arbitrary<Body> {
  const partial = (arb: fc.Arbitrary<Body>) => arb.chain((body) => fc.subarray(Object.keys(body)).map((keys) => Object.fromEntries(keys.map((k) => [k, body[k]!]))));
  const loose = (arb: fc.Arbitrary<Record<string, unknown>>) => arb.map((body) => JSON.parse(JSON.stringify(body)) as Body);
  switch (endpoint) {
    case 'createApp':
      return loose(fc.record({ name: displayNameArb, slug: slugArb }, { requiredKeys: ['name'] }));
    case 'updateApp':
      return partial(loose(fc.record({ name: displayNameArb, slug: slugArb })));
    case 'createSchema':
      return loose(fc.record({ eventName: eventNameArb, description: storableTextArb(2000), fields: fieldListArb(1), metadataFields: fieldListArb(0) }, { requiredKeys: ['eventName', 'fields'] }));
    case 'updateSchema':
      return partial(loose(fc.record({ description: storableTextArb(2000), fields: fieldListArb(1), metadataFields: fieldListArb(0) })));
    case 'createDestination':
      return fc.oneof(
        loose(fc.record({ type: fc.constantFrom('slack', 'discord', 'webhook'), label: displayNameArb, url: urlArb(fixtures.receiverUrl) })),
        loose(fc.record({ type: fc.constant('email'), label: displayNameArb, email: emailArb })),
      );
    case 'updateDestination':
      // The destination PATCHed here is a webhook: it takes a url, never an email.
      return partial(loose(fc.record({ label: displayNameArb, url: urlArb(fixtures.receiverUrl) })));
    case 'createSecret':
      return loose(fc.record({ label: displayNameArb, scopes: fc.constantFrom(['read'], ['write'], ['read', 'write'], ['write', 'read']) }, { requiredKeys: ['label'] }));
    case 'putDefaultMetadata':
      return fc.dictionary(fieldNameArb, metadataValueArb, { maxKeys: 50 });
  }
}

const nonString = fc.oneof(fc.integer(), fc.boolean(), fc.constant(null), fc.constant([]), fc.constant({}));
const nonArray = fc.oneof(fc.string({ maxLength: 5 }), fc.integer(), fc.constant(null), fc.constant({}));

/** For each field an endpoint takes, values it must refuse. */
function wrongValues(endpoint: Endpoint): Record<string, fc.Arbitrary<Json>> {
  const name = fc.oneof(fc.constantFrom('', '   ', 'n'.repeat(201), 'line\nbreak', 'nul\u0000', '\u001b[31m'), nonString);
  const slug = fc.oneof(fc.constantFrom('', 'Upper', '-lead', 'a_b', 'a b', 's'.repeat(64), 'é', '01234567-89ab-cdef-0123-456789abcdef'), nonString);
  const eventName = fc.oneof(fc.constantFrom('', 'a b', 'é', 'e'.repeat(201), '*'), nonString);
  const description = fc.oneof(fc.constantFrom('d'.repeat(2001), 'nul\u0000'), fc.integer(), fc.constant(null), fc.constant([]));
  // A dot is a mistake in a data field's name only: metadata is flat, and `service.name` is one key.
  const fields = (min: number, badName: string) =>
    fc.oneof(
      nonArray,
      min > 0 ? fc.constant([]) : fc.constant([{}]),
      fc.constant([{ name: 'a', type: 'string' }, { name: 'a', type: 'number' }]),
      fc.constant([{ name: 'a', type: 'enum' }]),
      fc.constant([{ name: 'a', type: 'enum', enumValues: [] }]),
      fc.constant([{ name: 'a', type: 'enum', enumValues: ['x', 'x'] }]),
      fc.constant([{ name: 'a', type: 'string', enumValues: ['x'] }]),
      fc.constant([{ name: badName, type: 'string' }]),
      fc.constant([{ name: 'a', type: 'date' }]),
      fc.constant([{ name: 'a', type: 'string', required: 'yes' }]),
      fc.constant([{ name: 'a', type: 'string', extra: 1 }]),
      fc.constant([{ id: 'x', name: 'a', type: 'string' }, { id: 'x', name: 'b', type: 'string' }]),
      fc.constant(Array.from({ length: 101 }, (_, i) => ({ name: `f${i}`, type: 'string' }))),
    );
  const url = fc.oneof(fc.constantFrom('', 'ftp://127.0.0.1/x', 'javascript:alert(1)', 'not a url', '//127.0.0.1/x', 'http://', `http://127.0.0.1/${'p'.repeat(2050)}`, 'file:///etc/passwd'), nonString);
  const email = fc.oneof(fc.constantFrom('', 'x', '@x.org', 'a@', 'a b@c.org', `${'l'.repeat(320)}@x.org`), nonString);
  switch (endpoint) {
    case 'createApp':
    case 'updateApp':
      return { name, slug };
    case 'createSchema':
      return { eventName, description, fields: fields(1, 'a.b'), metadataFields: fields(0, '.a') };
    case 'updateSchema':
      return { description, fields: fields(1, 'a.b'), metadataFields: fields(0, '.a') };
    case 'createDestination':
      return { type: fc.oneof(fc.constantFrom('sms', 'Slack', ''), nonString), label: name, url, email };
    case 'updateDestination':
      return { label: name, url, type: fc.constantFrom('slack', 'webhook'), email: fc.constant('ops@example.org') };
    case 'createSecret':
      return { label: fc.oneof(fc.constantFrom('', '   ', 'l'.repeat(201)), nonString), scopes: fc.oneof(fc.constantFrom<Json>([], ['admin'], ['read', 'read'], 'read', ['READ']), fc.constant(null)) };
    case 'putDefaultMetadata':
      return {
        nested: fc.oneof(fc.constant({ a: 1 }), fc.constant([1]), fc.constant(null), fc.constant('m'.repeat(1001)), fc.constant('nul\u0000')),
        '': fc.constant('empty key'),
        '.a': fc.constant('leading dot'),
        'a b': fc.constant('space in key'),
        '-x': fc.constant('leading hyphen'),
      };
  }
}

/**
 * A valid body with one field made wrong, an unknown field added (every body is a strict object but
 * the metadata map), or not an object at all. Every one of them is a 400.
 */
export function invalidBodyArb(endpoint: Endpoint, fixtures: ManagementFixtures): fc.Arbitrary<{ label: string; body: Json }> {
  const wrong = wrongValues(endpoint);
  const options: Array<fc.Arbitrary<{ label: string; body: Json }>> = Object.entries(wrong).map(([field, values]) =>
    fc.tuple(validBodyArb(endpoint, fixtures), values).map(([body, value]) => ({ label: `${field}: ${fc.stringify(value).slice(0, 60)}`, body: { ...body, [field]: value } })),
  );
  options.push(fc.oneof(fc.string({ maxLength: 10 }), fc.integer(), fc.constant(null), fc.array(fc.integer(), { maxLength: 2 })).map((body) => ({ label: 'not an object', body })));
  if (endpoint === 'putDefaultMetadata') {
    options.push(fc.dictionary(fieldNameArb, fc.integer(), { minKeys: 51, maxKeys: 55 }).map((body) => ({ label: 'more than 50 keys', body })));
  } else {
    options.push(
      fc
        .tuple(validBodyArb(endpoint, fixtures), fc.oneof(fc.string({ maxLength: 10 }), fc.constantFrom('id', 'accountId', 'apiKey', 'verified', 'signingSecret', 'createdAt')))
        .filter(([body, key]) => !(key in body) && !Object.keys(wrongValues(endpoint)).includes(key) && key !== '__proto__')
        .map(([body, key]) => ({ label: `unknown field ${key}`, body: { ...body, [key]: 1 } })),
    );
  }
  return fc.oneof(...options);
}

export type HostileKind = 'proto' | 'surrogate' | 'non-finite' | 'deep' | 'utf8';

export interface HostileManagementCase {
  readonly endpoint: Endpoint;
  readonly kind: HostileKind;
  /** Levels, for `deep`. */
  readonly levels: number;
  readonly base: Body;
}

export function hostileManagementArb(fixtures: ManagementFixtures): fc.Arbitrary<HostileManagementCase> {
  return fc.constantFrom(...ENDPOINTS).chain((endpoint) =>
    fc.record({
      endpoint: fc.constant(endpoint),
      kind: fc.constantFrom<HostileKind>('proto', 'surrogate', 'non-finite', 'deep', 'utf8'),
      levels: fc.oneof(fc.integer({ min: 30, max: 100 }), fc.integer({ min: 1, max: 5_000 })),
      base: validBodyArb(endpoint, fixtures),
    }),
  );
}

const MARK = '@@hostile@@';

/** The text field of each body that carries the hostile value (for default metadata, one more key). */
const TEXT_FIELD: Readonly<Record<Endpoint, string>> = {
  createApp: 'name',
  updateApp: 'name',
  createSchema: 'description',
  updateSchema: 'description',
  createDestination: 'label',
  updateDestination: 'label',
  createSecret: 'label',
  putDefaultMetadata: 'note',
};

/**
 * The bytes of a hostile case: the valid body with one hostile piece spliced in where a string
 * value (or, for `__proto__`, a key) would go.
 */
export function hostileManagementBody(c: HostileManagementCase): Buffer {
  const body: Body = { ...c.base };
  if (c.kind === 'proto') body[MARK] = 1;
  else body[TEXT_FIELD[c.endpoint]] = MARK;
  const text = JSON.stringify(body);
  const [before, after] = (c.kind === 'proto' ? text.split(`"${MARK}":1`) : text.split(`"${MARK}"`)) as [string, string];
  const piece = (() => {
    switch (c.kind) {
      case 'proto':
        return Buffer.from('"__proto__":{"polluted":true}');
      case 'surrogate':
        return Buffer.from('"label \\ud800 here"');
      case 'non-finite':
        return Buffer.from('1e400');
      case 'deep':
        return Buffer.from(`${'['.repeat(c.levels)}"x"${']'.repeat(c.levels)}`);
      case 'utf8':
        return Buffer.concat([Buffer.from('"bad '), Buffer.from([0xff, 0xc0, 0x80]), Buffer.from(' bytes"')]);
    }
  })();
  return Buffer.concat([Buffer.from(before, 'utf8'), piece, Buffer.from(after, 'utf8')]);
}

/** Characters that storage and display layers are known to choke on, so that short strings hit them often. */
const NASTY_UNITS = ['\u0000', 'a', "'", '\\', '"', '\u202e', '😀', '\n', '\t', '%', '\u0007', '\ufeff', ' '];

/** Injection text and odd unicode as names, labels and slugs: stored or refused, never a 5xx. */
export const oddTextArb = fc.oneof(
  injectionTextArb,
  { weight: 3, arbitrary: fc.string({ unit: fc.constantFrom(...NASTY_UNITS), minLength: 1, maxLength: 6 }) },
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.string({ unit: 'grapheme', maxLength: 250 }),
);

/** Where each endpoint is called and what it answers on success: an app of its own, with a schema and a destination to change. */
export async function managementTargets(service: FuzzService): Promise<Record<Endpoint, { method: string; path: string; success: number }>> {
  const app = await service.newApp('management');
  const schema = await service.call('POST', `/v1/apps/${app.id}/schemas`, { eventName: 'managed', fields: [{ name: 'a', type: 'string' }] }, 201);
  const destination = await service.newDestination(app.id, 'webhook');
  return {
    createApp: { method: 'POST', path: '/v1/apps', success: 201 },
    updateApp: { method: 'PATCH', path: `/v1/apps/${app.id}`, success: 200 },
    createSchema: { method: 'POST', path: `/v1/apps/${app.id}/schemas`, success: 201 },
    updateSchema: { method: 'PATCH', path: `/v1/apps/${app.id}/schemas/${schema.id}`, success: 200 },
    createDestination: { method: 'POST', path: `/v1/apps/${app.id}/destinations`, success: 201 },
    updateDestination: { method: 'PATCH', path: `/v1/apps/${app.id}/destinations/${destination.id}`, success: 200 },
    createSecret: { method: 'POST', path: '/v1/client-secrets', success: 201 },
    putDefaultMetadata: { method: 'PUT', path: `/v1/apps/${app.id}/default-metadata`, success: 200 },
  };
}
