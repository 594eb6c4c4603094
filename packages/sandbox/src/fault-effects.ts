/**
 * What an injected fault (faults.ts decides which one a request gets) does to that request on the wire.
 * It lives apart from the server so the request handler only reads "verify, run, answer", and so each
 * way of lying to the client can be checked on its own. A fault acts in one of two phases: before the
 * operation runs (latency, hang, reset, 5xx: nothing is recorded) or after its answer is built
 * (commit-then-drop, truncated: the work is done, the client does not learn it).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FaultRule } from './faults.js';
import { notFound } from './replies.js';
import type { OperationName } from './router.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export class FaultEffects {
  /** Hung requests, held open until the client gives up or `releaseHanging` (the sandbox closing). */
  private readonly hanging = new Set<ServerResponse>();

  /**
   * The fault's effect before the operation runs. True when the request is over (hang, reset, 5xx) and
   * the operation must not run; `record` is called first, with the HTTP status written if any, so the
   * request log shows the fault. Latency waits `fault.ms` and lets the request go on.
   */
  async beforeOperation(
    fault: FaultRule,
    request: IncomingMessage,
    response: ServerResponse,
    record: (httpStatus?: number) => void,
  ): Promise<boolean> {
    switch (fault.kind) {
      case 'latency':
        await sleep(fault.ms);
        return false;
      case 'hang':
        // Never answered; the socket stays open until the client gives up or the sandbox closes.
        this.hanging.add(response);
        response.once('close', () => this.hanging.delete(response));
        record();
        return true;
      case 'reset':
        record();
        request.socket.resetAndDestroy();
        return true;
      case '5xx':
        record(fault.status);
        response.writeHead(fault.status, { 'content-type': 'text/html; charset=utf-8' });
        response.end(`<html><body><h1>${fault.status} Service Unavailable</h1></body></html>`);
        return true;
      default:
        return false;
    }
  }

  /**
   * The fault's effect once the operation has run and `body` is its answer. True when the fault
   * answered (or dropped) the request itself, so the normal answer must not be written.
   */
  afterAnswer(fault: FaultRule, request: IncomingMessage, response: ServerResponse, body: string): boolean {
    if (fault.kind === 'commit-then-drop') {
      // The work is done (state and callback); the client never learns it.
      request.socket.destroy();
      return true;
    }
    if (fault.kind === 'truncated') {
      response.writeHead(200, { 'content-type': 'application/json;charset=UTF-8' });
      response.end(body.slice(0, Math.max(1, Math.floor(body.length / 2))));
      return true;
    }
    return false;
  }

  /**
   * The answer of a verified record read hit by an `unlisted` fault, instead of the sandbox's records:
   * an empty page, or "does not exist" for one trade. Undefined for any other fault.
   */
  hiddenRecords(fault: FaultRule, operation: OperationName, pathParams: Record<string, string>): unknown {
    if (fault.kind !== 'unlisted') return undefined;
    if (operation === 'retrieveTransaction') throw notFound('tradeNo', pathParams.tradeNo ?? '');
    return { page: { total: 0, pageSize: 0, pageIndex: 1 }, list: [] };
  }

  /** Drops every hung connection (the sandbox is closing). */
  releaseHanging(): void {
    for (const response of this.hanging) response.socket?.destroy();
    this.hanging.clear();
  }
}
