/**
 * Starts the test stack once and keeps it running, for repeated runs of single test files while
 * working on them: `tsx test/support/keep-stack.ts /tmp/stack.json`, then
 * `STOREFRONT_TEST_STACK=/tmp/stack.json npx vitest run test/<file>.test.ts`. Ctrl-C stops it.
 */
import { writeFileSync } from 'node:fs';
import { bootTestStack } from './global-setup';

const file = process.argv[2];
if (!file) {
  console.error('usage: tsx test/support/keep-stack.ts <urls.json>');
  process.exit(2);
}
const { urls, close } = await bootTestStack();
writeFileSync(file, JSON.stringify(urls));
console.log(`[keep-stack] running; URLs in ${file}`);
const stop = () => {
  void close().then(() => process.exit(0));
};
process.once('SIGINT', stop);
process.once('SIGTERM', stop);
