#!/usr/bin/env node
// The package's bin. It is committed (unlike dist/) so that npm links it in a fresh workspace install,
// before anything is built; it then runs the built CLI, or says how to build it.
const { existsSync } = require('node:fs');
const { join } = require('node:path');
const { pathToFileURL } = require('node:url');

const cli = join(__dirname, '..', 'dist', 'cli.js');
if (!existsSync(cli)) {
  console.error(
    'gatewaykit-sandbox: the CLI is not built yet (missing dist/cli.js). Build it with\n' +
      '  npm run build --workspace @gatewaykit/sandbox\n' +
      '(or `npm run build` at the repository root), then run `npx gatewaykit-sandbox` again.',
  );
  process.exit(1);
}
import(pathToFileURL(cli).href).catch((error) => {
  console.error(error);
  process.exit(1);
});
