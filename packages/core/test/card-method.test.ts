import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  type CardMethodDecision,
  decideCardMethod,
  type ElementCardCheckout,
  GatewayAuthenticationError,
  GatewayClient,
  keepElementCard,
  openCardElement,
  type PaymentMethod,
  type PaymentOutcome,
  removeSavedCard,
  resolveCardMethod,
  saveCardData,
} from '../src/index.js';
import { envelope, startTestGateway, type TestGateway } from './support/http-gateway.js';

const method = (customerId: string | undefined): PaymentMethod => ({
  customerPaymentMethodId: 'pm_1526753334131306496',
  customerId,
  card: { brand: 'Visa', last4: '4242' },
});

const paid: PaymentOutcome = { orderNo: 'o1', status: 'succeeded' };

/**
 * The gateway's answers: a customer's list of cards (`lists`, by customerId; none: an empty list) and
 * the method read by id (`byId`). As documented (docs/card-element.md#who-owns-a-card), neither need
 * name the card's owner.
 */
function answerCards(byId: PaymentMethod, lists: Record<string, PaymentMethod[]> = {}) {
  gateway.handle((request, response) => {
    const listed = /\/payment_methods\/list\/([^/?]+)/.exec(request.url);
    if (listed) return envelope(response, '00000', lists[decodeURIComponent(listed[1]!)] ?? []);
    envelope(response, '00000', byId);
  });
}

// A real HTTP server standing in for the gateway, for the parts that ask it.
let gateway: TestGateway;
let client: GatewayClient;

beforeEach(async () => {
  gateway = await startTestGateway();
  client = new GatewayClient({
    gatewayNo: '12345678',
    signKey: 'k',
    baseUrl: gateway.url,
    retryBaseDelayMs: 1,
  });
});

afterEach(async () => {
  await client.close();
  await gateway.close();
});

describe('decideCardMethod', () => {
  it('charges a fresh element card for a guest, without a customer', () => {
    const decision = decideCardMethod(method(undefined), {}, false);
    expect(decision).toEqual({
      ok: true,
      source: { kind: 'saved-card', customerPaymentMethodId: 'pm_1526753334131306496' },
      last4: '4242',
    });
  });

  it('charges a fresh element card for a logged-in customer who does not save it, without binding it', () => {
    const decision = decideCardMethod(method(undefined), { gatewayCustomerId: 'cus_1' }, false);
    expect(decision.ok && decision.source.customerId).toBeUndefined();
    expect(decision.ok && decision.keep).toBeUndefined();
  });

  it('binds a fresh card to the shopper who saves it, and keeps it after the charge', () => {
    const decision = decideCardMethod(method(undefined), { gatewayCustomerId: 'cus_1' }, true);
    expect(decision).toMatchObject({
      ok: true,
      source: { customerPaymentMethodId: 'pm_1526753334131306496', customerId: 'cus_1' },
      keep: { customerPaymentMethodId: 'pm_1526753334131306496', customerId: 'cus_1' },
    });
  });

  it('charges a saved card for its owner', () => {
    const decision = decideCardMethod(method('cus_1'), { gatewayCustomerId: 'cus_1' }, true);
    expect(decision).toMatchObject({ ok: true, source: { customerId: 'cus_1' } });
    expect(decision.ok && decision.keep).toBeUndefined();
  });

  it('attack: never charges a card attached to another customer, nor for a guest', () => {
    for (const shopper of [{ gatewayCustomerId: 'cus_2' }, {}]) {
      for (const save of [false, true]) {
        expect(decideCardMethod(method('cus_1'), shopper, save)).toMatchObject({
          ok: false,
          code: 'CARD_NOT_YOURS',
          field: 'customerPaymentMethodId',
        });
      }
    }
  });

  it('attack: a guest cannot save a card (there is no customer to bind it to)', () => {
    expect(decideCardMethod(method(undefined), {}, true)).toMatchObject({
      ok: false,
      code: 'SAVE_NEEDS_LOGIN',
      field: 'saveCard',
    });
  });

  it('refuses a method the gateway does not know for this merchant', () => {
    expect(decideCardMethod(undefined, { gatewayCustomerId: 'cus_1' }, false)).toMatchObject({
      ok: false,
      code: 'CARD_NOT_FOUND',
    });
  });
});

/** Bindings as an adapter keeps them (first binding wins), in memory for these tests. */
const memoryBindings = () => new Map<string, string>();
const checkoutOf = (checkout: string, bound = memoryBindings()): ElementCardCheckout => ({
  async bindElementCard(id) {
    if (!bound.has(id)) bound.set(id, checkout);
    return bound.get(id) === checkout;
  },
});

describe('resolveCardMethod and keepElementCard over HTTP', () => {
  it('reads the method at the gateway and decides on what the gateway says', async () => {
    answerCards(method('cus_9'));
    const decision = await resolveCardMethod(
      client,
      'pm_1526753334131306496',
      { gatewayCustomerId: 'cus_1' },
      false,
      checkoutOf('cart_a'),
    );
    expect(decision).toMatchObject({ ok: false, code: 'CARD_NOT_YOURS' });
    // The shopper's own cards first, then the method by id.
    expect(gateway.requests.map((request) => `${request.method} ${request.url}`)).toEqual([
      expect.stringMatching(/^GET .*\/payment_methods\/list\/cus_1$/),
      expect.stringMatching(/^GET .*\/payment_methods\/pm_1526753334131306496$/),
    ]);
  });

  it("charges a logged-in shopper's own card from their list, when no record names an owner", async () => {
    const bindings = memoryBindings();
    answerCards(method(undefined), { cus_1: [method(undefined)] });
    const decision = await resolveCardMethod(
      client,
      'pm_1526753334131306496',
      { gatewayCustomerId: 'cus_1' },
      false,
      checkoutOf('cart_a', bindings),
    );
    expect(decision).toMatchObject({
      ok: true,
      source: { customerPaymentMethodId: 'pm_1526753334131306496', customerId: 'cus_1' },
      last4: '4242',
    });
    expect(decision.ok && decision.keep).toBeUndefined();
    // One call (the list), and no binding: a saved card is not a fresh element card.
    expect(gateway.requests).toHaveLength(1);
    expect(bindings.size).toBe(0);
  });

  it("attack: another customer's saved card whose record names no owner is never theirs: bound to the checkout that saved it, or retired", async () => {
    const bindings = memoryBindings();
    answerCards(method(undefined), { cus_owner: [method(undefined)], cus_attacker: [] });
    // Saved through the element at the owner's checkout: bound there when it was first named.
    bindings.set('pm_1526753334131306496', 'cart_owner');
    for (const shopper of [{}, { gatewayCustomerId: 'cus_attacker' }]) {
      for (const save of [false, true]) {
        expect(
          await resolveCardMethod(
            client,
            'pm_1526753334131306496',
            shopper,
            save && Boolean(shopper.gatewayCustomerId),
            checkoutOf('cart_attacker', bindings),
          ),
        ).toMatchObject({ ok: false, code: 'CARD_NOT_YOURS' });
      }
    }
    // The owner still pays with it at their next checkout, from their list.
    expect(
      await resolveCardMethod(
        client,
        'pm_1526753334131306496',
        { gatewayCustomerId: 'cus_owner' },
        false,
        checkoutOf('cart_owner_2', bindings),
      ),
    ).toMatchObject({ ok: true, source: { customerId: 'cus_owner' } });
    expect([...bindings]).toEqual([['pm_1526753334131306496', 'cart_owner']]);
  });

  it("ownCardsFirst false: a new card costs one call; the list is asked only when the card is bound elsewhere (the shopper's own saved card)", async () => {
    const bindings = memoryBindings();
    answerCards(method(undefined), { cus_1: [method(undefined)] });
    const shopper = { gatewayCustomerId: 'cus_1' };
    const fresh = await resolveCardMethod(
      client,
      'pm_1526753334131306496',
      shopper,
      false,
      checkoutOf('order_a', bindings),
      {
        ownCardsFirst: false,
      },
    );
    expect(fresh).toMatchObject({ ok: true });
    expect(fresh.ok && fresh.source.customerId).toBeUndefined();
    expect(gateway.requests.map((r) => r.url)).toEqual([
      expect.stringMatching(/\/payment_methods\/pm_1526753334131306496$/),
    ]);
    // The same card at the shopper's next order: bound to the first, found in their list.
    const own = await resolveCardMethod(
      client,
      'pm_1526753334131306496',
      shopper,
      false,
      checkoutOf('order_b', bindings),
      {
        ownCardsFirst: false,
      },
    );
    expect(own).toMatchObject({ ok: true, source: { customerId: 'cus_1' } });
    // Anyone else: bound elsewhere and not in their list.
    const other = await resolveCardMethod(
      client,
      'pm_1526753334131306496',
      { gatewayCustomerId: 'cus_2' },
      false,
      checkoutOf('order_c', bindings),
      { ownCardsFirst: false },
    );
    expect(other).toMatchObject({ ok: false, code: 'CARD_NOT_YOURS' });
    expect([...bindings]).toEqual([['pm_1526753334131306496', 'order_a']]);
  });

  it('a customer the gateway refuses to list has no cards here: the method is judged by its record', async () => {
    gateway.handle((request, response) => {
      if (request.url.includes('/payment_methods/list/')) {
        return envelope(response, 'P0002', null, 'customerId does not exist');
      }
      envelope(response, '00000', method('cus_9'));
    });
    expect(
      await resolveCardMethod(client, 'pm_1', { gatewayCustomerId: 'cus_gone' }, false, checkoutOf('cart_a')),
    ).toMatchObject({ ok: false, code: 'CARD_NOT_YOURS' });
  });

  it("turns the gateway's does-not-exist refusal into CARD_NOT_FOUND", async () => {
    gateway.handle((_request, response) =>
      envelope(response, 'P0002', null, 'customerPaymentMethodId pm_1 does not exist'),
    );
    const decision = await resolveCardMethod(client, 'pm_1', {}, false, checkoutOf('cart_a'));
    expect(decision).toMatchObject({ ok: false, code: 'CARD_NOT_FOUND' });
  });

  it('lets credential failures through: nothing can be decided, nothing is charged', async () => {
    gateway.handle((_request, response) => envelope(response, 'L0005', null, 'sign error'));
    await expect(resolveCardMethod(client, 'pm_1', {}, false, checkoutOf('cart_a'))).rejects.toBeInstanceOf(
      GatewayAuthenticationError,
    );
  });

  it('attack: a fresh element card is charged only for the checkout that first named it, never saved by another', async () => {
    gateway.handle((_request, response) => envelope(response, '00000', method(undefined)));
    const bindings = memoryBindings();
    const own = await resolveCardMethod(
      client,
      'pm_1526753334131306496',
      {},
      false,
      checkoutOf('cart_a', bindings),
    );
    expect(own).toMatchObject({ ok: true });
    // The shopper's own retry (a new session of the same checkout) is the same checkout.
    expect(
      await resolveCardMethod(client, 'pm_1526753334131306496', {}, false, checkoutOf('cart_a', bindings)),
    ).toMatchObject({ ok: true });
    for (const shopper of [{}, { gatewayCustomerId: 'cus_attacker' }]) {
      for (const save of [false, true]) {
        const other = await resolveCardMethod(
          client,
          'pm_1526753334131306496',
          shopper,
          save && Boolean(shopper.gatewayCustomerId),
          checkoutOf('cart_b', bindings),
        );
        expect(other).toMatchObject({ ok: false, code: 'CARD_NOT_YOURS', field: 'customerPaymentMethodId' });
      }
    }
    expect([...bindings]).toEqual([['pm_1526753334131306496', 'cart_a']]);
  });

  it("binds the gateway's own id of the card, whatever spelling the storefront sent", async () => {
    gateway.handle((_request, response) => envelope(response, '00000', method(undefined)));
    const bindings = memoryBindings();
    await resolveCardMethod(client, 'PM_1526753334131306496', {}, false, checkoutOf('cart_a', bindings));
    expect([...bindings.keys()]).toEqual(['pm_1526753334131306496']);
    expect(
      await resolveCardMethod(client, 'pm_1526753334131306496', {}, false, checkoutOf('cart_b', bindings)),
    ).toMatchObject({ ok: false, code: 'CARD_NOT_YOURS' });
  });

  it('binds nothing for a card attached to a customer, nor for a refused one', async () => {
    const bindings = memoryBindings();
    answerCards(method('cus_1'), { cus_1: [method('cus_1')] });
    const owned = await resolveCardMethod(
      client,
      'pm_1',
      { gatewayCustomerId: 'cus_1' },
      false,
      checkoutOf('cart_a', bindings),
    );
    expect(owned).toMatchObject({ ok: true });
    const foreign = await resolveCardMethod(
      client,
      'pm_1',
      { gatewayCustomerId: 'cus_2' },
      false,
      checkoutOf('cart_b', bindings),
    );
    expect(foreign).toMatchObject({ ok: false, code: 'CARD_NOT_YOURS' });
    expect(bindings.size).toBe(0);
  });

  it('a binding store that cannot answer refuses by throwing: nothing is charged', async () => {
    gateway.handle((_request, response) => envelope(response, '00000', method(undefined)));
    const broken: ElementCardCheckout = {
      bindElementCard: () => Promise.reject(new Error('database unavailable')),
    };
    await expect(resolveCardMethod(client, 'pm_1', {}, false, broken)).rejects.toThrow(
      'database unavailable',
    );
  });

  const saving = (): CardMethodDecision =>
    decideCardMethod(method(undefined), { gatewayCustomerId: 'cus_1' }, true);

  it('attaches a saved card after a direct success', async () => {
    gateway.handle((_request, response) => envelope(response, '00000', method('cus_1')));
    expect(await keepElementCard(client, saving(), paid)).toBe('attached');
    expect(gateway.requests[0]?.url).toContain('/payment_methods/pm_1526753334131306496/cus_1/attach');
  });

  it('does not attach when the shopper did not ask, or the charge did not succeed', async () => {
    const unsaved = decideCardMethod(method(undefined), { gatewayCustomerId: 'cus_1' }, false);
    expect(await keepElementCard(client, unsaved, paid)).toBe('not-asked');
    const redirect: PaymentOutcome = { orderNo: 'o1', status: 'redirect', redirectUrl: 'https://g/3ds' };
    expect(await keepElementCard(client, saving(), redirect)).toBe('not-paid');
    expect(gateway.requests).toHaveLength(0);
  });

  it('a failed attach is reported, never thrown: the payment stands', async () => {
    gateway.handle((_request, response) => envelope(response, 'S0001', null, 'system busy'));
    expect(await keepElementCard(client, saving(), paid)).toBe('failed');
  });
});

describe('removeSavedCard', () => {
  it('attack: a removed card is retired before it is detached, so no checkout can bind it as a fresh element card', async () => {
    const steps: string[] = [];
    gateway.handle((request, response) => {
      steps.push(`gateway ${request.url}`);
      envelope(response, '00000', method(undefined));
    });
    const bound = memoryBindings();
    await removeSavedCard(client, 'pm_1526753334131306496', {
      async retire(id) {
        steps.push(`retire ${id}`);
        bound.set(id, 'removed');
      },
    });
    expect(steps[0]).toBe('retire pm_1526753334131306496');
    expect(steps[1]).toMatch(/^gateway .*\/payment_methods\/pm_1526753334131306496\/detach$/);
    // Now attached to nobody at the gateway: any checkout naming it is refused, saved or not.
    for (const save of [false, true]) {
      expect(
        await resolveCardMethod(
          client,
          'pm_1526753334131306496',
          { gatewayCustomerId: 'cus_attacker' },
          save,
          checkoutOf('cart_b', bound),
        ),
      ).toMatchObject({ ok: false, code: 'CARD_NOT_YOURS' });
    }
  });

  it('detaches nothing when the retirement could not be stored', async () => {
    gateway.handle((_request, response) => envelope(response, '00000', method(undefined)));
    await expect(
      removeSavedCard(client, 'pm_1', {
        async retire() {
          throw new Error('database down');
        },
      }),
    ).rejects.toThrow('database down');
    expect(gateway.requests).toEqual([]);
  });
});

describe('saveCardData', () => {
  const request = {
    customerId: 'cus_owner',
    card: {
      cardNo: '4111111111111111',
      cardExpireMonth: '12',
      cardExpireYear: '2030',
      cardSecurityCode: '123',
    },
    billingDetail: {
      email: 'a@b.test',
      firstName: 'A',
      lastName: 'B',
      phone: '5550100',
      address: { city: 'Albany', country: 'US', line1: '1 Main St', postalCode: '12207', state: 'NY' },
    },
  };

  it('attack: a card saved from card data is retired, so no checkout takes it for a fresh element card', async () => {
    answerCards(method(undefined), { cus_owner: [method(undefined)], cus_attacker: [] });
    const bound = memoryBindings();
    const saved = await saveCardData(client, request, {
      async retire(id) {
        bound.set(id, 'removed');
      },
    });
    expect(saved.customerPaymentMethodId).toBe('pm_1526753334131306496');
    expect(gateway.requests[0]?.url).toMatch(/\/payment_methods$/);
    for (const shopper of [{}, { gatewayCustomerId: 'cus_attacker' }]) {
      expect(
        await resolveCardMethod(
          client,
          saved.customerPaymentMethodId,
          shopper,
          false,
          checkoutOf('cart_x', bound),
        ),
      ).toMatchObject({ ok: false, code: 'CARD_NOT_YOURS' });
    }
    expect(
      await resolveCardMethod(
        client,
        saved.customerPaymentMethodId,
        { gatewayCustomerId: 'cus_owner' },
        false,
        checkoutOf('cart_owner', bound),
      ),
    ).toMatchObject({ ok: true, source: { customerId: 'cus_owner' } });
  });

  it("tries the retirement once more, then fails with the card still its owner's: never detached into a fresh-looking card", async () => {
    answerCards(method(undefined));
    let tries = 0;
    const flaky = {
      async retire() {
        tries++;
        if (tries === 1) throw new Error('connection reset');
      },
    };
    expect((await saveCardData(client, request, flaky)).customerPaymentMethodId).toBe(
      'pm_1526753334131306496',
    );
    expect(tries).toBe(2);
    await expect(
      saveCardData(client, request, {
        async retire() {
          throw new Error('database down');
        },
      }),
    ).rejects.toThrow('database down');
    // Created twice, never detached.
    expect(gateway.requests.map((r) => r.url)).toEqual([
      expect.stringMatching(/\/payment_methods$/),
      expect.stringMatching(/\/payment_methods$/),
    ]);
  });
});

describe('openCardElement', () => {
  it("mints the token with the client's account and dates its expiry from before the request", async () => {
    gateway.handle((_request, response) => envelope(response, '00000', { sessionToken: 'st_abc' }));
    const session = await openCardElement(client, () => Date.parse('2026-01-01T00:00:00Z'));
    expect(session).toEqual({
      sessionToken: 'st_abc',
      scriptUrl: `${gateway.url}/static/v3/js/AsiabillPayment.min.js`,
      expiresAt: new Date('2026-01-01T00:30:00Z'),
    });
    expect(gateway.requests[0]?.method).toBe('POST');
    expect(gateway.requests[0]?.url).toContain('/sessionToken');
  });

  it('throws when the gateway refuses: no token, nothing to show', async () => {
    gateway.handle((_request, response) => envelope(response, 'L0001', null, 'merchant unknown'));
    await expect(openCardElement(client)).rejects.toBeInstanceOf(GatewayAuthenticationError);
  });
});
