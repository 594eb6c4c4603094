import os from 'node:os';
import path from 'node:path';

export const APP_DIR = path.resolve(__dirname, '..', '..');
export const SERVER_ENTRY = path.join(APP_DIR, 'dist', 'src', 'index.js');
/** Populated database shared (copied) by all test files; outside the app folder. */
export const TEMPLATE_DB = path.join(os.tmpdir(), 'gatewaykit-vendure-tests', 'template.sqlite');
