import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import ts from 'typescript';

/**
 * The benchmarks measure compiled JavaScript, the code users run: the service as `npm start` and
 * the container image run it (dist/main.js, built by `npm run build`), and the bare server and the
 * profiler preload as plain modules. Run through tsx instead, every process pays for tsx's transform
 * on each request (esbuild's keep-names wrappers around every closure, among others): the api spent
 * about a quarter more CPU per single-event request that way (bench/NOTES.md, `npm run bench:ab`).
 */

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const run = promisify(execFile);

const builds = new Map<string, Promise<void>>();

/**
 * `npm run build` in `root` (this checkout by default), once per benchmark process: every service it
 * starts runs the tree as it was then.
 */
export function buildService(root = ROOT): Promise<void> {
  const known = builds.get(root);
  if (known) return known;
  const build = run('npm', ['run', 'build'], { cwd: root, maxBuffer: 16 * 1024 * 1024 }).then(
    () => undefined,
    (err: unknown) => {
      // execFile's error carries the command's output.
      const { stdout = '', stderr = '' } = err as { stdout?: string; stderr?: string };
      throw new Error(`npm run build failed in ${root}; the benchmark measures the built service:\n${stdout}${stderr}`, { cause: err });
    },
  );
  builds.set(root, build);
  return build;
}

let scratch: string | undefined;
const transpiled = new Map<string, string>();

/**
 * A benchmark script of this folder that imports nothing but Node's own modules (the bare server,
 * the profiler preload), as a plain ES module in a scratch directory: its path, for `node` or `--import`.
 */
export function compiledScript(relativePath: string): string {
  const known = transpiled.get(relativePath);
  if (known) return known;
  const source = readFileSync(path.join(ROOT, relativePath), 'utf8');
  const { outputText } = ts.transpileModule(source, {
    compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 },
    fileName: relativePath,
  });
  scratch ??= mkdtempSync(path.join(tmpdir(), 'eas-bench-js-'));
  const out = path.join(scratch, `${path.basename(relativePath, '.ts')}.mjs`);
  writeFileSync(out, outputText);
  transpiled.set(relativePath, out);
  return out;
}
