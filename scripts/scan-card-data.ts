/**
 * Card-data scan over what a test run left behind (docs/SECURITY.md, "No card data at rest"): the
 * Postgres dumps, sql.js database files, server logs and API responses each suite keeps in its
 * `.evidence/` folder when GATEWAYKIT_EVIDENCE_DIR is set. Counts card numbers and security codes;
 * exits 1 when it finds any, or when a suite that must leave evidence left none.
 *
 *   tsx scripts/scan-card-data.ts [folder …]     (default: every workspace's .evidence folder)
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { passesLuhn } from '@gatewaykit/core';

const ROOT = join(import.meta.dirname, '..');
/** Suites that drive the real stores: each must leave evidence, or the scan proves nothing. */
const REQUIRED = ['apps/medusa-store', 'apps/vendure-store', 'apps/storefront'];

/**
 * A card number as stored anywhere: 13–19 digits, optionally with single spaces or dashes, starting
 * like a card brand (2–6), passing Luhn, and not part of a longer run or of an id (`pm_…`, `cus_…`:
 * gateway ids are long digit strings after a prefix).
 */
const CARD_NUMBER = /(?<![\w.])[2-6](?:[ -]?\d){12,18}(?![\w])/g;

/** A security code by its field name, in JSON, query strings or messages (`cvv=123`, `cvc: "123"`). */
const SECURITY_CODE =
  /(?:card_?security_?code|security_?code|cvv2?|cvc2?|cvn)\\?"?\s*(?:[:=]|\\?"\s*:)\s*\\?"?\d{3,4}(?!\d)/gi;

interface Finding {
  file: string;
  kind: 'card number' | 'security code';
  /** Masked: first 6 and last 4 digits of a number, never a code. */
  shown: string;
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path) : [path];
  });
}

function scanText(file: string, text: string): Finding[] {
  const findings: Finding[] = [];
  for (const match of text.matchAll(CARD_NUMBER)) {
    const digits = match[0].replace(/\D/g, '');
    if (digits.length >= 13 && passesLuhn(digits)) {
      findings.push({ file, kind: 'card number', shown: `${digits.slice(0, 6)}***${digits.slice(-4)}` });
    }
  }
  for (const _ of text.matchAll(SECURITY_CODE)) findings.push({ file, kind: 'security code', shown: '***' });
  return findings;
}

function evidenceFolders(): string[] {
  return ['apps', 'packages'].flatMap((group) =>
    readdirSync(join(ROOT, group))
      .map((name) => join(ROOT, group, name, '.evidence'))
      .filter((path) => existsSync(path)),
  );
}

function main(): void {
  const folders = process.argv.length > 2 ? process.argv.slice(2) : evidenceFolders();
  let bytes = 0;
  let files = 0;
  const findings: Finding[] = [];
  for (const folder of folders) {
    const inFolder = filesUnder(folder);
    for (const file of inFolder) {
      // latin1 keeps every byte of binary files (sql.js pages) as one character, digits included.
      const text = readFileSync(file).toString('latin1');
      bytes += text.length;
      findings.push(...scanText(relative(ROOT, file), text));
    }
    files += inFolder.length;
    console.log(`[scan-card-data] ${relative(ROOT, folder)}: ${inFolder.length} files`);
  }
  console.log(
    `[scan-card-data] ${files} files, ${(bytes / 1e6).toFixed(1)} MB: ` +
      `${findings.filter((f) => f.kind === 'card number').length} card numbers, ` +
      `${findings.filter((f) => f.kind === 'security code').length} security codes`,
  );
  for (const finding of findings.slice(0, 50)) {
    console.error(`  ${finding.kind} ${finding.shown} in ${finding.file}`);
  }
  const missing =
    process.argv.length > 2
      ? []
      : REQUIRED.filter((suite) => !folders.some((folder) => relative(ROOT, folder).startsWith(suite)));
  for (const suite of missing)
    console.error(`[scan-card-data] ${suite} left no evidence: nothing was scanned for it`);
  if (findings.length > 0 || missing.length > 0) process.exit(1);
}

main();
