import type { EntityManager } from '@mikro-orm/core';
import { v7 as uuidv7 } from 'uuid';
import type { App } from '../adapters/metadata/entities/app.entity.js';
import { type Destination, DestinationEntity } from '../adapters/metadata/entities/destination.entity.js';
import type { MetadataStore } from '../adapters/metadata/metadata-store.js';
import { createDestination as insertDestination, findDestinationById, listDestinations as listDestinationRows } from '../adapters/metadata/repositories/destination-repository.js';
import { findRulesUsingDestination } from '../adapters/metadata/repositories/notification-rule-repository.js';
import type { AlertContent, AlertSender, Channel, DestinationTarget } from '../delivery/delivery-types.js';
import { checkDestinationUrl } from '../delivery/outbound-http.js';
import { maskWebhookUrl } from '../delivery/url-mask.js';
import { generateWebhookSecret } from '../delivery/webhook-signature.js';
import { DomainError } from '../domain/errors.js';
import { isUuid } from '../domain/uuid.js';
import { notFound, requireApp } from './app-lookup.js';
import { toDestinationTarget } from './destination-target.js';
import type { RuleSetCache } from './rule-set-cache.js';

/**
 * Destinations of an app. A webhook URL is a credential, so a view only ever carries it masked; the
 * signing secret of a `webhook` destination is returned once, by create. A URL is checked against the
 * outbound address policy when it is set (400 for a private address unless OUTBOUND_ALLOW_PRIVATE);
 * delivery checks it again on every attempt.
 */
export interface DestinationView extends Pick<DestinationTarget, 'id' | 'appId' | 'type' | 'label' | 'email'> {
  /** Masked: scheme, host and the provider's public path prefix only. Null for e-mail. */
  readonly url: string | null;
  readonly verified: boolean;
  readonly verifiedAt: string | null;
  readonly createdAt: string;
  readonly updatedAt: string;
}

export interface CreatedDestinationView extends DestinationView {
  /** `whsec_…`, for `webhook` destinations only; shown in the create response and never again. */
  readonly signingSecret?: string;
}

export interface DestinationsDeps {
  readonly metadata: MetadataStore;
  readonly config: { readonly outbound: { readonly allowPrivate: boolean }; readonly smtp: { readonly url: string | null; readonly from: string | null } };
  readonly alertSender: AlertSender;
  /** Told about every change: the worker's rules join destinations (url, signing secret). */
  readonly ruleSets: Pick<RuleSetCache, 'invalidate'>;
}

/** The request shapes guarantee: `url` exactly for chat and webhook types, `email` exactly for `email`. */
export interface NewDestinationInput {
  readonly type: Channel;
  readonly label: string;
  readonly url?: string | undefined;
  readonly email?: string | undefined;
}

export interface DestinationChanges {
  readonly label?: string | undefined;
  readonly url?: string | undefined;
  readonly email?: string | undefined;
}

/** Stands in for the rule of a test alert, which has none. */
const NO_RULE_ID = '00000000-0000-0000-0000-000000000000';

export async function createDestination(deps: DestinationsDeps, accountId: string, appIdOrSlug: string, input: NewDestinationInput): Promise<CreatedDestinationView> {
  const em = deps.metadata.em();
  const app = await requireApp(em, accountId, appIdOrSlug);
  // Accepted, it would fail every alert sent to it, and nobody would learn why until a page went missing.
  if (input.type === 'email' && (deps.config.smtp.url === null || deps.config.smtp.from === null)) {
    throw fieldError('type', 'email destinations need a mail server: this service has no SMTP_URL and SMTP_FROM configured');
  }
  if (input.url !== undefined) await checkDestinationUrl(input.url, { allowPrivate: deps.config.outbound.allowPrivate });
  const signingSecret = input.type === 'webhook' ? generateWebhookSecret() : null;
  const destination = await insertDestination(em, {
    appId: app.id,
    type: input.type,
    label: input.label,
    url: input.url ?? null,
    email: input.email ?? null,
    signingSecret,
  });
  await deps.ruleSets.invalidate();
  return { ...toView(destination), ...(signingSecret === null ? {} : { signingSecret }) };
}

export async function listDestinations(deps: DestinationsDeps, accountId: string, appIdOrSlug: string, page: { limit: number; offset: number }): Promise<DestinationView[]> {
  const em = deps.metadata.em();
  const app = await requireApp(em, accountId, appIdOrSlug);
  return (await listDestinationRows(em, app.id, page)).map(toView);
}

export async function getDestination(deps: DestinationsDeps, accountId: string, appIdOrSlug: string, id: string): Promise<DestinationView> {
  const em = deps.metadata.em();
  return toView(await requireDestination(em, await requireApp(em, accountId, appIdOrSlug), id));
}

/**
 * Changes the label, url or email. The type cannot change (the request shape refuses it): rules chose
 * the destination for its channel. A new url or email is unverified until tested again.
 */
export async function updateDestination(deps: DestinationsDeps, accountId: string, appIdOrSlug: string, id: string, changes: DestinationChanges): Promise<DestinationView> {
  const em = deps.metadata.em();
  const destination = await requireDestination(em, await requireApp(em, accountId, appIdOrSlug), id);
  const isEmail = destination.type === 'email';
  if (changes.url !== undefined && isEmail) throw fieldError('url', 'not allowed for an email destination; send email instead');
  if (changes.email !== undefined && !isEmail) throw fieldError('email', `not allowed for a ${destination.type} destination; send url instead`);

  const { label, url, email } = changes;
  const urlChanged = url !== undefined && url !== destination.url;
  const emailChanged = email !== undefined && email !== destination.email;
  const labelChanged = label !== undefined && label !== destination.label;
  // Only a real change is written, so `updatedAt` means "last changed" (as for apps and schemas).
  if (!urlChanged && !emailChanged && !labelChanged) return toView(destination);
  if (urlChanged) {
    await checkDestinationUrl(url, { allowPrivate: deps.config.outbound.allowPrivate });
    destination.url = url;
  }
  if (emailChanged) destination.email = email;
  if (labelChanged) destination.label = label;
  if (urlChanged || emailChanged) {
    destination.verified = false;
    destination.verifiedAt = null;
  }
  await em.flush();
  await deps.ruleSets.invalidate();
  return toView(destination);
}

/**
 * 409 while a rule action (enabled or not) uses the destination. Rule actions are JSON, so no
 * foreign key can refuse the delete; instead the row is locked FOR UPDATE while the rules are
 * checked, and rule writes lock the destinations they use FOR SHARE (notification-rules.service.ts):
 * on PostgreSQL a concurrent rule write and this delete wait for each other. SQLite runs
 * transactions one at a time.
 */
export async function deleteDestination(deps: DestinationsDeps, accountId: string, appIdOrSlug: string, id: string): Promise<void> {
  const app = await requireApp(deps.metadata.em(), accountId, appIdOrSlug);
  await deps.metadata.em().transactional(async (tx) => {
    const destination = isUuid(id) ? await findDestinationById(tx, app.id, id.toLowerCase(), 'update') : null;
    if (!destination) throw notFound();
    const users = await findRulesUsingDestination(tx, app.id, destination.id);
    if (users.length > 0) {
      const names = users.map((rule) => `"${rule.name}"`).join(', ');
      throw new DomainError('conflict', `destination is used by the actions of ${users.length === 1 ? 'rule' : 'rules'} ${names}; remove those actions first`);
    }
    tx.remove(destination);
  });
  await deps.ruleSets.invalidate();
}

/**
 * Sends a test alert (an unverified destination becomes verified when the test succeeds). A failure
 * is a 502 whose message is the sender's reason, which never holds the URL's secret path.
 */
export async function testDestination(deps: DestinationsDeps, accountId: string, appIdOrSlug: string, id: string): Promise<DestinationView> {
  const em = deps.metadata.em();
  const app = await requireApp(em, accountId, appIdOrSlug);
  const destination = await requireDestination(em, app, id);
  const result = await deps.alertSender.send(toDestinationTarget(destination), testAlert(app, destination), uuidv7());
  if (!result.ok) {
    const reason = result.error ?? (result.status === null ? 'no response' : `the receiver answered ${result.status}`);
    throw new DomainError('delivery_failed', `Test delivery failed: ${reason}`);
  }
  // Verifies what was tested: if the url or email changed while the test ran, nothing is marked.
  const now = new Date();
  const marked = await em.nativeUpdate(
    DestinationEntity,
    { id: destination.id, url: destination.url, email: destination.email },
    { verified: true, verifiedAt: now, updatedAt: now },
  );
  if (marked === 0) throw new DomainError('conflict', 'the destination changed while the test ran; test it again');
  return toView(await em.fork().findOneOrFail(DestinationEntity, { id: destination.id }));
}

async function requireDestination(em: EntityManager, app: App, id: string): Promise<Destination> {
  // Not a UUID: no such row, and PostgreSQL's uuid column would turn the lookup into a 500.
  const destination = isUuid(id) ? await findDestinationById(em, app.id, id.toLowerCase()) : null;
  if (!destination) throw notFound();
  return destination;
}

function testAlert(app: App, destination: Destination): AlertContent {
  return {
    appId: app.id,
    appName: app.name,
    ruleId: NO_RULE_ID,
    ruleName: `Test of destination "${destination.label}"`,
    eventId: uuidv7(),
    eventName: 'destination.test',
    level: 'info',
    customerId: null,
    timestamp: new Date().toISOString(),
    data: { message: 'If you can read this, alerts reach this destination.' },
    metadata: {},
    test: true,
  };
}

function fieldError(path: string, message: string): DomainError {
  return new DomainError('validation_failed', `${path}: ${message}`, { details: [{ path, message }] });
}

function toView(destination: Destination): DestinationView {
  return {
    id: destination.id,
    appId: destination.app.id,
    type: destination.type,
    label: destination.label,
    url: destination.url === null ? null : maskWebhookUrl(destination.url),
    email: destination.email,
    verified: destination.verified,
    verifiedAt: destination.verifiedAt?.toISOString() ?? null,
    createdAt: destination.createdAt.toISOString(),
    updatedAt: destination.updatedAt.toISOString(),
  };
}
