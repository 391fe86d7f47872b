import { readFileSync } from 'node:fs';

/** This build's version, from package.json: one level above this module in src/ and in dist/ alike. */
export const VERSION: string = (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }).version;
