import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

/**
 * Evidence for CI's card-data scan: with GATEWAYKIT_EVIDENCE_DIR set, every database file, server log
 * and API response of this suite is kept under `$GATEWAYKIT_EVIDENCE_DIR/vendure-store/`.
 * Without it nothing is written.
 */
export function evidenceDir(): string | undefined {
  const root = process.env.GATEWAYKIT_EVIDENCE_DIR;
  if (!root) return undefined;
  const dir = path.join(root, 'vendure-store');
  fs.mkdirSync(dir, { recursive: true });
  return dir;
}

/** Keeps one server's database file and log, under a name no other server uses. */
export function keepServerEvidence(dbPath: string | undefined, log: string): void {
  const dir = evidenceDir();
  if (!dir) return;
  const name = `server-${Date.now()}-${randomUUID().slice(0, 8)}`;
  fs.writeFileSync(path.join(dir, `${name}.log`), log);
  if (dbPath && fs.existsSync(dbPath)) fs.copyFileSync(dbPath, path.join(dir, `${name}.sqlite`));
}

/** Appends one API response body as a JSON line. */
export function keepResponse(url: string, body: unknown): void {
  const dir = evidenceDir();
  if (!dir) return;
  fs.appendFileSync(path.join(dir, 'responses.jsonl'), `${JSON.stringify({ url, body })}\n`);
}
