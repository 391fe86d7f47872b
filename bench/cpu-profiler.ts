import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector';
import path from 'node:path';

/**
 * Preloaded into a service process by `npm run bench -- --profile` (through NODE_OPTIONS, compiled by compiled.ts):
 * records a V8 CPU profile from start to exit and writes it to BENCH_PROFILE_DIR. Node 20 refuses
 * --cpu-prof in NODE_OPTIONS, and the service is started with a fixed command line, so the profiler
 * is driven through node:inspector instead; the result is the same .cpuprofile format.
 *
 * The inspector session of the main thread answers synchronously, which is what lets the profile be
 * taken and written inside the 'exit' handler (the service ends with process.exit after SIGTERM).
 */

// The one place outside src/config.ts that reads the environment: it is not the service's code,
// and the profile directory is the benchmark's business only.
const dir = process.env.BENCH_PROFILE_DIR;
if (dir) {
  const session = new Session();
  session.connect();
  session.post('Profiler.enable');
  // 1 ms sampling: fine enough for request handlers of a few milliseconds, cheap enough not to matter.
  session.post('Profiler.setSamplingInterval', { interval: 1000 });
  session.post('Profiler.start');
  process.on('exit', () => {
    session.post('Profiler.stop', (err, result) => {
      if (err) return;
      const role = /\.[jt]s$/.test(process.argv.at(-1) ?? '') ? 'all' : process.argv.at(-1);
      writeFileSync(path.join(dir, `service-${role}-${process.pid}.cpuprofile`), JSON.stringify(result.profile));
    });
  });
}
