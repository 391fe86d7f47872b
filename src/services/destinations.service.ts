import { v7 as uuidv7 } from 'uuid';
import type { DestinationRecord, MetadataStore } from '../ports/metadata.js';
import { checkDestinationUrl } from '../delivery/outbound-http.js';
import { maskWebhookUrl } from '../delivery/url-mask.js';
import { generateWebhookSecret } from '../delivery/webhook-signature.js';
import { DomainError } from '../domain/errors.js';
import { notFound, requireApp, requireById } from './app-lookup.js';
import { toDestinationTarget } from './destination-target.js';
import type { RuleSetCache } from './rule-set-cache.js';
import type { AlertContent, Channel } from '../domain/alerting.js';
import type { AlertSender, DestinationTarget } from '../ports/alert-sender.js';

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
  readonly settings: {
    /** OUTBOUND_ALLOW_PRIVATE: whether a url may point at a private or loopback address. */
    readonly allowPrivateAddresses: boolean;
    /** Whether a mail server (SMTP_URL and SMTP_FROM) is configured, without which e-mail cannot be sent. */
    readonly emailConfigured: boolean;
  };
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

export interface DestinationChangesInput {
  readonly label?: string | undefined;
  readonly url?: string | undefined;
  readonly email?: string | undefined;
}

/** Stands in for the rule of a test alert, which has none. */
const NO_RULE_ID = '00000000-0000-0000-0000-000000000000';

export class DestinationsService {
  constructor(private readonly deps: DestinationsDeps) {}

  async create(accountId: string, appIdOrSlug: string, input: NewDestinationInput): Promise<CreatedDestinationView> {
    const app = await requireApp(this.deps.metadata.apps, accountId, appIdOrSlug);
    // Accepted, it would fail every alert sent to it, and nobody would learn why until a page went missing.
    if (input.type === 'email' && !this.deps.settings.emailConfigured) {
      throw fieldError('type', 'email destinations need a mail server: this service has no SMTP_URL and SMTP_FROM configured');
    }
    if (input.url !== undefined) await this.#checkUrl(input.url);
    const signingSecret = input.type === 'webhook' ? generateWebhookSecret() : null;
    const destination = await this.deps.metadata.destinations.create({
      appId: app.id,
      type: input.type,
      label: input.label,
      url: input.url ?? null,
      email: input.email ?? null,
      signingSecret,
    });
    await this.deps.ruleSets.invalidate();
    return { ...toView(destination), ...(signingSecret === null ? {} : { signingSecret }) };
  }

  async list(accountId: string, appIdOrSlug: string, page: { limit: number; offset: number }): Promise<DestinationView[]> {
    const app = await requireApp(this.deps.metadata.apps, accountId, appIdOrSlug);
    return (await this.deps.metadata.destinations.list(app.id, page)).map(toView);
  }

  async get(accountId: string, appIdOrSlug: string, id: string): Promise<DestinationView> {
    return toView((await this.#require(accountId, appIdOrSlug, id)).destination);
  }

  /**
   * Changes the label, url or email. The type cannot change (the request shape refuses it): rules chose
   * the destination for its channel. A new url or email is unverified until tested again.
   */
  async update(accountId: string, appIdOrSlug: string, id: string, changes: DestinationChangesInput): Promise<DestinationView> {
    const { destination } = await this.#require(accountId, appIdOrSlug, id);
    const isEmail = destination.type === 'email';
    if (changes.url !== undefined && isEmail) throw fieldError('url', 'not allowed for an email destination; send email instead');
    if (changes.email !== undefined && !isEmail) throw fieldError('email', `not allowed for a ${destination.type} destination; send url instead`);

    const { label, url, email } = changes;
    const urlChanged = url !== undefined && url !== destination.url;
    const emailChanged = email !== undefined && email !== destination.email;
    const labelChanged = label !== undefined && label !== destination.label;
    // Only a real change is written, so `updatedAt` means "last changed" (as for apps and schemas).
    if (!urlChanged && !emailChanged && !labelChanged) return toView(destination);
    if (urlChanged) await this.#checkUrl(url);
    const updated = await this.deps.metadata.destinations.update(destination.id, {
      ...(urlChanged ? { url } : {}),
      ...(emailChanged ? { email } : {}),
      ...(labelChanged ? { label } : {}),
      ...(urlChanged || emailChanged ? { verified: false, verifiedAt: null } : {}),
    });
    if (!updated) throw notFound();
    await this.deps.ruleSets.invalidate();
    return toView(updated);
  }

  /**
   * 409 while a rule action (enabled or not) uses the destination. Rule actions are JSON, so no
   * foreign key can refuse the delete; instead the row is locked FOR UPDATE while the rules are
   * checked, and rule writes lock the destinations they use FOR SHARE (notification-rules.service.ts):
   * on PostgreSQL a concurrent rule write and this delete wait for each other. SQLite runs
   * transactions one at a time.
   */
  async delete(accountId: string, appIdOrSlug: string, id: string): Promise<void> {
    const app = await requireApp(this.deps.metadata.apps, accountId, appIdOrSlug);
    await this.deps.metadata.transaction(async (tx) => {
      const destination = await requireById(id, (lowered) => tx.destinations.findById(app.id, lowered, 'update'));
      const users = await tx.rules.listUsingDestination(app.id, destination.id);
      if (users.length > 0) {
        const names = users.map((rule) => `"${rule.name}"`).join(', ');
        throw new DomainError('conflict', `destination is used by the actions of ${users.length === 1 ? 'rule' : 'rules'} ${names}; remove those actions first`);
      }
      await tx.destinations.delete(app.id, destination.id);
    });
    await this.deps.ruleSets.invalidate();
  }

  /**
   * Sends a test alert (an unverified destination becomes verified when the test succeeds). A failure
   * is a 502 whose message is the sender's reason, which never holds the URL's secret path.
   */
  async test(accountId: string, appIdOrSlug: string, id: string): Promise<DestinationView> {
    const { app, destination } = await this.#require(accountId, appIdOrSlug, id);
    const result = await this.deps.alertSender.send(toDestinationTarget(destination), testAlert(app, destination), uuidv7());
    if (!result.ok) {
      const reason = result.error ?? (result.status === null ? 'no response' : `the receiver answered ${result.status}`);
      throw new DomainError('delivery_failed', `Test delivery failed: ${reason}`);
    }
    // Verifies what was tested: if the url or email changed while the test ran, nothing is marked.
    const verified = await this.deps.metadata.destinations.markVerified(destination.id, destination, new Date());
    if (!verified) throw new DomainError('conflict', 'the destination changed while the test ran; test it again');
    return toView(verified);
  }

  async #require(accountId: string, appIdOrSlug: string, id: string): Promise<{ app: { id: string; name: string }; destination: DestinationRecord }> {
    const app = await requireApp(this.deps.metadata.apps, accountId, appIdOrSlug);
    return { app, destination: await requireById(id, (lowered) => this.deps.metadata.destinations.findById(app.id, lowered)) };
  }

  #checkUrl(url: string): Promise<void> {
    return checkDestinationUrl(url, { allowPrivate: this.deps.settings.allowPrivateAddresses });
  }
}

function testAlert(app: { id: string; name: string }, destination: DestinationRecord): AlertContent {
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
    kind: 'match',
  };
}

function fieldError(path: string, message: string): DomainError {
  return new DomainError('validation_failed', `${path}: ${message}`, { details: [{ path, message }] });
}

function toView(destination: DestinationRecord): DestinationView {
  return {
    id: destination.id,
    appId: destination.appId,
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
