/** Each fault's effect on one request, on a fake request/response that records what was done to it, in order. */
import { EventEmitter } from 'node:events';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { FaultEffects } from '../src/fault-effects.js';
import { type FaultInput, type FaultKind, FaultRegistry } from '../src/faults.js';

function fault(kind: FaultKind, extra: Partial<FaultInput> = {}) {
  return new FaultRegistry().add({ route: '*', kind, ...extra });
}

/** A request/response pair sharing one socket; `done` lists every effect in the order it happened. */
function exchange() {
  const done: string[] = [];
  const socket = {
    destroy: () => done.push('socket.destroy'),
    resetAndDestroy: () => done.push('socket.resetAndDestroy'),
  };
  const written: { status?: number; headers?: Record<string, string>; body?: string } = {};
  const response = Object.assign(new EventEmitter(), {
    socket,
    writeHead(status: number, headers: Record<string, string>) {
      done.push(`writeHead ${status}`);
      written.status = status;
      written.headers = headers;
      return this;
    },
    end(body?: string) {
      done.push('end');
      written.body = body;
      return this;
    },
  });
  return {
    done,
    written,
    emitter: response,
    request: { socket } as unknown as IncomingMessage,
    response: response as unknown as ServerResponse,
    record: (httpStatus?: number) => done.push(`record ${httpStatus ?? '-'}`),
  };
}

const ANSWER = JSON.stringify({ code: '00000', message: 'Success', data: { tradeNo: 'T1' } });

afterEach(() => {
  vi.useRealTimers();
});

describe('before the operation runs', () => {
  it('5xx: records the status, then writes it with an HTML body, and stops the request', async () => {
    const x = exchange();
    expect(
      await new FaultEffects().beforeOperation(
        fault('5xx', { status: 502 }),
        x.request,
        x.response,
        x.record,
      ),
    ).toBe(true);
    expect(x.done).toEqual(['record 502', 'writeHead 502', 'end']);
    expect(x.written).toEqual({
      status: 502,
      headers: { 'content-type': 'text/html; charset=utf-8' },
      body: '<html><body><h1>502 Service Unavailable</h1></body></html>',
    });
  });

  it('reset: records, then resets the socket without writing anything', async () => {
    const x = exchange();
    expect(await new FaultEffects().beforeOperation(fault('reset'), x.request, x.response, x.record)).toBe(
      true,
    );
    expect(x.done).toEqual(['record -', 'socket.resetAndDestroy']);
    expect(x.written).toEqual({});
  });

  it('hang: records and leaves the socket open until the hung requests are released', async () => {
    const effects = new FaultEffects();
    const held = exchange();
    const closedEarly = exchange();
    expect(await effects.beforeOperation(fault('hang'), held.request, held.response, held.record)).toBe(true);
    expect(
      await effects.beforeOperation(
        fault('hang'),
        closedEarly.request,
        closedEarly.response,
        closedEarly.record,
      ),
    ).toBe(true);
    expect(held.done).toEqual(['record -']);
    expect(held.written).toEqual({});
    // A client that gave up is no longer held: releasing does not touch its socket again.
    closedEarly.emitter.emit('close');
    effects.releaseHanging();
    expect(held.done).toEqual(['record -', 'socket.destroy']);
    expect(closedEarly.done).toEqual(['record -']);
    effects.releaseHanging();
    expect(held.done).toEqual(['record -', 'socket.destroy']);
  });

  it('latency: waits the rule’s ms, then lets the operation run, touching nothing', async () => {
    vi.useFakeTimers();
    const x = exchange();
    let outcome: boolean | undefined;
    const waiting = new FaultEffects()
      .beforeOperation(fault('latency', { ms: 250 }), x.request, x.response, x.record)
      .then((ended) => {
        outcome = ended;
      });
    await vi.advanceTimersByTimeAsync(249);
    expect(outcome).toBeUndefined();
    await vi.advanceTimersByTimeAsync(1);
    await waiting;
    expect(outcome).toBe(false);
    expect(x.done).toEqual([]);
  });

  it('the after-answer kinds do nothing yet: the operation must run first', async () => {
    for (const kind of ['commit-then-drop', 'truncated'] as const) {
      const x = exchange();
      expect(await new FaultEffects().beforeOperation(fault(kind), x.request, x.response, x.record)).toBe(
        false,
      );
      expect(x.done).toEqual([]);
    }
  });
});

describe('after the answer is built', () => {
  it('commit-then-drop: destroys the socket and writes nothing of the answer', () => {
    const x = exchange();
    expect(new FaultEffects().afterAnswer(fault('commit-then-drop'), x.request, x.response, ANSWER)).toBe(
      true,
    );
    expect(x.done).toEqual(['socket.destroy']);
    expect(x.written).toEqual({});
  });

  it('truncated: a 200 JSON answer cut to its first half, which does not parse', () => {
    const x = exchange();
    expect(new FaultEffects().afterAnswer(fault('truncated'), x.request, x.response, ANSWER)).toBe(true);
    expect(x.done).toEqual(['writeHead 200', 'end']);
    expect(x.written.status).toBe(200);
    expect(x.written.headers).toEqual({ 'content-type': 'application/json;charset=UTF-8' });
    expect(x.written.body).toBe(ANSWER.slice(0, Math.floor(ANSWER.length / 2)));
    expect(x.written.body?.length).toBeGreaterThan(0);
    expect(() => JSON.parse(x.written.body ?? '')).toThrow();
  });

  it('truncated: even a one-character answer keeps one character', () => {
    const x = exchange();
    new FaultEffects().afterAnswer(fault('truncated'), x.request, x.response, '{');
    expect(x.written.body).toBe('{');
  });

  it('the before-operation kinds leave the answer to the server', () => {
    for (const kind of ['latency', 'hang', 'reset', '5xx'] as const) {
      const x = exchange();
      expect(new FaultEffects().afterAnswer(fault(kind), x.request, x.response, ANSWER)).toBe(false);
      expect(x.done).toEqual([]);
    }
  });
});
