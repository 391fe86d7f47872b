// `NODE_OPTIONS=--import=<this file>` runs a process as if chDB were not installed (see hooks.mjs).
import { register } from 'node:module';

register('./hooks.mjs', import.meta.url);
