import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { GraphqlClient } from '../src/graphql-client';
import { isServerFailure, rawGraphql } from './support/attacker';
import { uniqueEmail } from './support/email';
import { adminOrder, CARDS, prepareOrder, registerAndLogin } from './support/shop';
import { type Stack, shopClient, startStack } from './support/stack';

const START = `mutation ($input: GatewaykitStartPaymentInput!) { gatewaykitStartPayment(input: $input) {
  __typename ... on GatewaykitPaymentError { errorCode message } } }`;
const SAVE = `mutation ($input: GatewaykitSaveCardInput!) { gatewaykitSaveCard(input: $input) { id } }`;

/** Card numbers an attacker may slip in: test cards, plain and spaced (all pass Luhn). */
const PANS = Object.values(CARDS);
const spaced = (pan: string) => pan.replace(/(\d{4})(?=\d)/g, '$1 ');

/** Strings from hostile storefronts: unicode, huge, markup, JSON and card numbers inside text. */
const hostileString = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.string({ unit: 'grapheme', maxLength: 40 }),
  fc.constantFrom('', ' ', '../../etc', '<script>', "' OR 1=1 --", '\u0000', 'x'.repeat(20_000)),
  fc.json({ maxDepth: 3 }),
  fc.constantFrom(...PANS).map((pan) => `card ${spaced(pan)} cvv 123`),
  fc.constantFrom(...PANS),
);
/** Non-string junk carries no card numbers: graphql-js refuses it by type before the plugin runs. */
const junk = fc.oneof(
  hostileString,
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
  fc.dictionary(fc.string({ maxLength: 8 }), fc.string({ maxLength: 8 }), { maxKeys: 3 }),
  fc.array(fc.integer(), { maxLength: 3 }),
);
const methodCode = fc.oneof(
  fc.constantFrom('gatewaykit-card', 'gatewaykit-hosted', 'gatewaykit-local', 'jp-gatewaykit-card'),
  junk,
);
const cardArb = fc.oneof(
  fc.record(
    {
      cardNo: fc.oneof(fc.constantFrom(...PANS), fc.constantFrom(...PANS).map(spaced), junk),
      cardExpireMonth: fc.oneof(fc.constant('12'), junk),
      cardExpireYear: fc.oneof(fc.constant(String(new Date().getFullYear() + 2)), junk),
      cardSecurityCode: fc.oneof(fc.constant('123'), junk),
    },
    { requiredKeys: [] },
  ),
  junk,
);
const extraFields = fc.dictionary(
  fc.constantFrom('note', 'outcome', 'status', 'amount', 'pan', '__proto__', 'orderNo'),
  junk,
  { maxKeys: 2 },
);

describe('properties: random Shop API input never pays, never fails the server, never stores a card', () => {
  let stack: Stack;
  const sentPans = new Set<string>();

  beforeAll(async () => {
    stack = await startStack();
  });
  afterAll(async () => {
    await stack?.close();
  });

  it('gatewaykitStartPayment: no paid order without a gateway success for it, no server error', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.record(
          {
            paymentMethodCode: methodCode,
            savedCardId: junk,
            card: cardArb,
            elementPaymentMethodId: junk,
            saveCard: junk,
          },
          { requiredKeys: ['paymentMethodCode'] },
        ),
        extraFields,
        async (input, extra) => {
          const shop = shopClient(stack);
          const order = await prepareOrder(shop);
          remember(input);
          // The card element's token: only a card method of the channel gets one, never a server error.
          const element = await rawGraphql(
            shop,
            `query ($c: String!) { gatewaykitCardElement(paymentMethodCode: $c) { sessionToken } }`,
            { c: input.paymentMethodCode },
          );
          expect(isServerFailure(element)).toBe(false);
          if (!element.body.errors)
            expect(['gatewaykit-card', 'jp-gatewaykit-card']).toContain(input.paymentMethodCode);
          const res = await rawGraphql(shop, START, { input: { ...extra, ...input } });
          expect(isServerFailure(res)).toBe(false);
          expect(JSON.stringify(res.body)).not.toMatch(/4242424242424242|4000000000009995/);
          const after = await adminOrder(stack.admin, order.id);
          for (const payment of after.payments.filter((p) => p.state === 'Settled')) {
            const orderNo = String(payment.metadata.orderNo ?? '');
            expect(orderNo.startsWith(`${order.code}-`)).toBe(true);
            expect(stack.sandbox.order(orderNo)?.orderStatus).toBe('success');
          }
          if (after.state === 'PaymentSettled') {
            expect(after.payments.some((p) => p.state === 'Settled')).toBe(true);
          }
        },
      ),
      { numRuns: 30 },
    );
  });

  it('gatewaykitSaveCard: no server error, refused values never echoed', async () => {
    const shop = shopClient(stack);
    await registerAndLogin(shop, uniqueEmail('prop'));
    await fc.assert(
      fc.asyncProperty(
        fc.record(
          {
            paymentMethodCode: methodCode,
            card: cardArb,
            line1: hostileString,
            city: hostileString,
            countryCode: fc.oneof(fc.constantFrom('GB', 'us', 'GBR', ''), junk),
            postalCode: fc.option(hostileString),
            province: fc.option(hostileString),
          },
          { requiredKeys: ['paymentMethodCode', 'card'] },
        ),
        extraFields,
        async (input, extra) => {
          remember(input);
          const res = await rawGraphql(shop, SAVE, { input: { ...extra, ...input } });
          expect(isServerFailure(res)).toBe(false);
          for (const error of res.body.errors ?? []) {
            for (const pan of PANS) expect(error.message.replace(/\D/g, '')).not.toContain(pan);
          }
        },
      ),
      { numRuns: 25 },
    );
    await savedCardQueries(shop);
  });

  it('no card number the properties sent is in the database file or the server log', async () => {
    expect(sentPans.size).toBeGreaterThan(0);
    const db = await stack.databaseText();
    const log = stack.server.output();
    for (const pan of sentPans) {
      expect(db.includes(pan)).toBe(false);
      expect(log.includes(pan)).toBe(false);
    }
  });

  async function savedCardQueries(shop: GraphqlClient): Promise<void> {
    await fc.assert(
      fc.asyncProperty(methodCode, junk, async (code, id) => {
        const list = await rawGraphql(
          shop,
          `query ($c: String!) { gatewaykitSavedCards(paymentMethodCode: $c) { id } }`,
          {
            c: code,
          },
        );
        expect(isServerFailure(list)).toBe(false);
        const remove = await rawGraphql(
          shop,
          `mutation ($c: String!, $id: String!) { gatewaykitRemoveSavedCard(paymentMethodCode: $c, id: $id) }`,
          { c: code, id },
        );
        expect(isServerFailure(remove)).toBe(false);
      }),
      { numRuns: 20 },
    );
  }

  /** Collects every PAN a generated input carries (nested, spaced), for the at-rest check. */
  function remember(value: unknown): void {
    const text = JSON.stringify(value) ?? '';
    for (const pan of PANS) if (text.replace(/[^\d]/g, '').includes(pan)) sentPans.add(pan);
  }
});
