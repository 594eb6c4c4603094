import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startServerProcess } from './server-process';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Populated database that every test file copies (one per test run, in the OS temp dir). */
    templateDb: string;
  }
}

/** Populates one database (products, zones, channels, methods) per run; removed after the run. */
// The parameter is vitest's TestProject; only `provide` is used (typed structurally: this file is CommonJS).
export default async function setup(project: {
  provide: (key: 'templateDb', value: string) => void;
}): Promise<() => void> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gk-vendure-template-'));
  const templateDb = path.join(dir, 'template.sqlite');
  // Payment methods point at an unused URL here; each test's server start re-points them at its sandbox.
  const server = await startServerProcess({ DB_PATH: templateDb, GATEWAY_BASE_URL: 'http://127.0.0.1:9' });
  await server.stop();
  project.provide('templateDb', templateDb);
  return () => fs.rmSync(dir, { recursive: true, force: true });
}
