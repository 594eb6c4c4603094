/**
 * The benchmark's stand-in gateway, run as its own process (like the real, remote gateway) so the
 * client and the baseline are measured without sharing an event loop with the server.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

const answer = process.argv[2] ?? '{"code":"00000","message":"success","data":null}';
const server = createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(answer);
  });
});
server.listen(0, '127.0.0.1', () => {
  process.send?.({ port: (server.address() as AddressInfo).port });
});

// The bench may die before it kills this process: leave with it rather than linger.
process.on('disconnect', () => process.exit(0));
