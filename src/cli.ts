#!/usr/bin/env node
import { COMMANDS, commandHelp, commandUsage, parseCommandOptions, usage, UsageError, type ParsedCommandLine } from './cli/commands.js';
import { VERSION } from './build-info.js';
import { ConfigError, loadConfigFromProcess } from './config.js';
import { createOperatorContext } from './container.js';
import { DomainError } from './domain/errors.js';
import { createLogger } from './observability/logger.js';

/**
 * Operator CLI: `event-alerting <command> [options]` in the container image (or `node dist/cli.js`),
 * `npm run cli -- <command>` from a checkout. `--json` prints a command's result, or its error, as one
 * JSON document. Exit codes: 0 done, 1 failed (configuration, a store, a refused operation), 2 the
 * command line itself is wrong.
 */

/** Why a run failed: `usage` for exit code 2, `failed` for 1. */
type Failure = { readonly kind: 'usage' | 'failed'; readonly message: string; readonly usage?: string };

async function run(argv: readonly string[]): Promise<number> {
  const out = (text: string): void => void process.stdout.write(`${text}\n`);
  const [name, ...args] = argv;
  if (name === '--version' || name === '-v' || name === 'version') {
    out(VERSION);
    return 0;
  }
  if (name === 'help' || name === '--help' || name === '-h') {
    const about = args[0] === undefined ? undefined : COMMANDS[args[0]];
    out(about ? commandHelp(args[0]!, about) : usage());
    return 0;
  }
  const wantsJson = args.includes('--json');
  const command = name === undefined ? undefined : COMMANDS[name];
  if (!command) {
    return report({ kind: 'usage', message: name === undefined ? 'No command given' : `Unknown command ${JSON.stringify(name)}`, usage: usage() }, wantsJson);
  }

  let line: ParsedCommandLine;
  try {
    line = parseCommandOptions(command, args);
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    return report({ kind: 'usage', message: err.message, usage: commandUsage(name!, command) }, wantsJson);
  }
  if (line.help) {
    out(commandHelp(name!, command));
    return 0;
  }

  let config;
  try {
    // No role argument here: the command line belongs to the CLI.
    config = loadConfigFromProcess([]);
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    return report({ kind: 'failed', message: `${err.message}\nSee .env.example for every setting and its form.` }, line.json);
  }
  // Logs go to stderr so that stdout carries only the command's own output.
  const logger = createLogger({ level: config.logLevel, destination: process.stderr });

  let ops;
  try {
    ops = await createOperatorContext(config, logger, { events: command.needsEventStore });
  } catch (err) {
    return report({ kind: 'failed', message: `could not open the ${config.mode} mode stores: ${err instanceof Error ? err.message : String(err)}` }, line.json);
  }
  try {
    const result = await command.run(line.options, { ops, mode: config.mode });
    out(line.json ? JSON.stringify(result.json, null, 2) : result.lines.join('\n'));
    return 0;
  } catch (err) {
    if (err instanceof UsageError) return report({ kind: 'usage', message: err.message, usage: commandUsage(name!, command) }, line.json);
    // A value the service refuses to accept (an app slug where only an id will do) is a usage error.
    if (err instanceof DomainError) return report({ kind: err.code === 'validation_failed' ? 'usage' : 'failed', message: err.message }, line.json);
    throw err;
  } finally {
    await ops.close();
  }
}

/** Writes the failure to stderr, as text or as `{ "error": { kind, message } }`, and gives its exit code. */
function report(failure: Failure, json: boolean): number {
  const text = json
    ? JSON.stringify({ error: { kind: failure.kind, message: failure.message } })
    : [failure.kind === 'usage' ? failure.message : `Error: ${failure.message}`, ...(failure.usage === undefined ? [] : ['', failure.usage])].join('\n');
  process.stderr.write(`${text}\n`);
  return failure.kind === 'usage' ? 2 : 1;
}

run(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
    // Everything was closed; should some handle still hold the event loop, do not hang an operator's
    // shell. Unreferenced, so a clean exit does not wait for it.
    setTimeout(() => process.exit(code), 5_000).unref();
  },
  (err: unknown) => {
    process.stderr.write(`Error: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exitCode = 1;
    setTimeout(() => process.exit(1), 5_000).unref();
  },
);
