import { parseArgs } from 'node:util';
import { z } from 'zod';
import type { OperatorContext } from '../container.js';
import { DomainError } from '../domain/errors.js';
import { clientSecretLabel, clientSecretScopes } from '../services/client-secrets.service.js';

/**
 * The operator commands of `npm run cli -- <command>`, for operators without the dashboard. Each
 * declares its options, validates them with the same zod schemas as the HTTP API, and writes
 * human-readable lines. A full secret or key is written exactly once, to stdout, and never to a log.
 */

/** A command line that cannot be run as given: exit code 2, with the command's usage. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

export type Output = (line?: string) => void;

export interface CommandContext {
  readonly ops: OperatorContext;
  readonly mode: 'embedded' | 'distributed';
  readonly out: Output;
}

interface OptionSpec {
  readonly required: boolean;
  /** Shown in the usage line, e.g. `<name>`. */
  readonly value: string;
}

export interface Command {
  readonly summary: string;
  readonly options: Readonly<Record<string, OptionSpec>>;
  /** Only `migrate` opens the event store: in embedded mode a running service holds its directory. */
  readonly needsEventStore: boolean;
  run(options: Readonly<Record<string, string | undefined>>, ctx: CommandContext): Promise<void>;
}

const required = (value: string): OptionSpec => ({ required: true, value });
const optional = (value: string): OptionSpec => ({ required: false, value });

const accountName = z.string().trim().min(1, 'must be a non-empty string').max(200, 'must be at most 200 characters');

/** Validates one option's value; a failure names the option, as a user typed it. */
function valid<T extends z.ZodType>(schema: T, value: unknown, option: string): z.output<T> {
  const result = schema.safeParse(value);
  if (!result.success) throw new UsageError(`--${option}: ${result.error.issues[0]?.message ?? 'invalid value'}`);
  return result.data;
}

/** `--scopes read,write` → the scope list; absent → both scopes. */
function scopesOption(value: string | undefined): ('read' | 'write')[] {
  if (value === undefined) return ['read', 'write'];
  return valid(clientSecretScopes, value.split(',').map((s) => s.trim()), 'scopes');
}

function secretLines(out: Output, clientSecret: string): void {
  out();
  out('Client secret (shown only now; store it somewhere safe):');
  out(clientSecret);
}

export const COMMANDS: Readonly<Record<string, Command>> = {
  'create-account': {
    summary: 'Create an account with its first client secret',
    options: { name: required('<name>'), label: optional('<label>'), scopes: optional('read,write') },
    needsEventStore: false,
    async run(options, { ops, out }) {
      const name = valid(accountName, options.name, 'name');
      const label = valid(clientSecretLabel, options.label ?? 'initial', 'label');
      const scopes = scopesOption(options.scopes);
      const created = await ops.services.accounts.createWithSecret({ name, label, scopes });
      out(`Created account ${JSON.stringify(name)}`);
      out(`  account id  ${created.accountId}`);
      out(`  secret id   ${created.secretId}`);
      out(`  label       ${label}`);
      out(`  scopes      ${scopes.join(', ')}`);
      secretLines(out, created.clientSecret);
    },
  },

  'create-secret': {
    summary: 'Create another client secret for an account',
    options: { account: required('<account id>'), label: required('<label>'), scopes: optional('read,write') },
    needsEventStore: false,
    async run(options, { ops, out }) {
      const label = valid(clientSecretLabel, options.label, 'label');
      const scopes = scopesOption(options.scopes);
      const created = await ops.services.clientSecrets.create({ accountId: options.account!, label, scopes });
      out(`Created client secret for account ${options.account!}`);
      out(`  secret id   ${created.secret.id}`);
      out(`  label       ${created.secret.label}`);
      out(`  scopes      ${created.secret.scopes.join(', ')}`);
      secretLines(out, created.clientSecret);
    },
  },

  'revoke-secret': {
    summary: 'Revoke a client secret (it fails with 401 from then on)',
    options: { id: required('<secret id>') },
    needsEventStore: false,
    async run(options, { ops, out }) {
      const { accountId, outcome } = await ops.services.clientSecrets.revokeById(options.id!);
      out(outcome === 'revoked' ? `Revoked client secret ${options.id!} of account ${accountId}` : `Client secret ${options.id!} of account ${accountId} was already revoked`);
    },
  },

  'rotate-key': {
    summary: "Replace an app's API key (the old key fails with 401 from then on)",
    options: { app: required('<app id>') },
    needsEventStore: false,
    async run(options, { ops, out }) {
      // No account: an operator acts across accounts, so the app is named by its UUID.
      const { app, apiKey } = await ops.services.appKeys.rotate(null, options.app!);
      out(`Rotated the API key of app ${JSON.stringify(app.name)}`);
      out(`  app id      ${app.id}`);
      out(`  account id  ${app.accountId}`);
      out(`  slug        ${app.slug}`);
      out();
      out('API key (shown only now; the previous key no longer works):');
      out(apiKey);
    },
  },

  migrate: {
    summary: 'Apply pending metadata and event store migrations, then exit',
    options: {},
    needsEventStore: true,
    async run(_options, { ops, mode, out }) {
      // The metadata store was migrated when the operator context was opened; the event store is
      // migrated here. Both are idempotent and safe while other processes start.
      try {
        await ops.events!.migrate();
      } catch (err) {
        // chDB locks its directory for one process: the usual cause is a running embedded service,
        // which applies the same migrations itself when it starts.
        const hint = mode === 'embedded' ? ' In embedded mode, stop the service first (it also migrates when it starts).' : '';
        throw new DomainError('unavailable', `could not migrate the event store: ${err instanceof Error ? err.message : String(err)}.${hint}`, { cause: err });
      }
      out('Metadata and event store migrations are up to date.');
    },
  },
};

/** Parses a command's arguments: only its own options, each once, the required ones present. */
export function parseCommandOptions(command: Command, args: readonly string[]): Record<string, string | undefined> {
  let values: Record<string, string | boolean | undefined>;
  try {
    ({ values } = parseArgs({
      args: [...args],
      options: Object.fromEntries(Object.keys(command.options).map((name) => [name, { type: 'string' as const }])),
      strict: true,
      allowPositionals: false,
    }));
  } catch (err) {
    // node:util reports unknown options, missing values and stray arguments as ERR_PARSE_ARGS_*.
    if (err instanceof Error && 'code' in err && String(err.code).startsWith('ERR_PARSE_ARGS')) throw new UsageError(err.message);
    throw err;
  }
  for (const [name, spec] of Object.entries(command.options)) {
    if (spec.required && values[name] === undefined) throw new UsageError(`--${name} is required`);
  }
  return values as Record<string, string | undefined>;
}

export function usageLine(name: string, command: Command): string {
  const options = Object.entries(command.options).map(([option, spec]) => (spec.required ? `--${option} ${spec.value}` : `[--${option} ${spec.value}]`));
  return [name, ...options].join(' ');
}

export function usage(): string {
  const lines = ['Usage: npm run cli -- <command> [options]', '', 'Commands:'];
  for (const [name, command] of Object.entries(COMMANDS)) lines.push(`  ${usageLine(name, command)}`, `      ${command.summary}`);
  lines.push('', 'Configuration comes from the same environment variables as the service (see .env.example).');
  return lines.join('\n');
}
