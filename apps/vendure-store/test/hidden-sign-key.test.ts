/**
 * The sign key through the Admin API, against the real Vendure server and the sandbox: Vendure answers
 * handler arguments as stored to every admin who may read payment methods, and the key signs a
 * success for any order (docs/SECURITY.md §4). It is write-only: hidden in every answer, kept when a
 * save sends it back hidden, replaced when a new one is typed in.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_MERCHANTS } from '../src/gateways';
import { paymentRequests } from './support/attacker';
import { CARDS, cardInput, prepareOrder, startPayment } from './support/shop';
import { type Stack, shopClient, startStack } from './support/stack';

const HIDDEN = '(hidden: type a new sign key to replace it)';

interface Arg {
  name: string;
  value: string;
}
interface Method {
  id: string;
  code: string;
  handler: { code: string; args: Arg[] };
}
const METHOD_FIELDS = 'id code handler { code args { name value } }';

describe('the sign key through the Admin API', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack();
  });
  afterAll(async () => {
    await stack?.close();
  });

  const argsWith = (signKey: string): Arg[] => [
    { name: 'gatewayNo', value: DEMO_MERCHANTS.main.gatewayNo },
    { name: 'signKey', value: signKey },
    { name: 'environment', value: 'custom' },
    { name: 'baseUrl', value: stack.sandbox.url },
    { name: 'mode', value: 'card' },
    { name: 'localMethod', value: '' },
  ];
  const signKeyOf = (method: Method | undefined) =>
    method?.handler.args.find((arg) => arg.name === 'signKey')?.value;

  async function update(id: string, signKey: string): Promise<Method> {
    const { updatePaymentMethod } = await stack.admin.query<{ updatePaymentMethod: Method }>(
      `mutation ($input: UpdatePaymentMethodInput!) { updatePaymentMethod(input: $input) { ${METHOD_FIELDS} } }`,
      { input: { id, handler: { code: 'gatewaykit', arguments: argsWith(signKey) } } },
    );
    return updatePaymentMethod;
  }

  async function payWith(code: string) {
    const shop = shopClient(stack);
    await prepareOrder(shop);
    return startPayment(shop, { paymentMethodCode: code, card: cardInput(CARDS.success) });
  }

  /** The sandbox's answers to the charges of one order: its code for each (a refused signature has its own). */
  const chargeAnswers = (orderCode: string) =>
    paymentRequests(stack.sandbox, orderCode).map((request) => ({
      code: request.code,
      message: request.message,
    }));

  it('attack: no admin answer carries a gateway sign key: the list, one method, and the answers of create and update', async () => {
    const { paymentMethods } = await stack.admin.query<{ paymentMethods: { items: Method[] } }>(
      `{ paymentMethods(options: { take: 100 }) { items { ${METHOD_FIELDS} } } }`,
    );
    const gateway = paymentMethods.items.filter((m) => m.handler.code === 'gatewaykit');
    expect(gateway.length).toBeGreaterThan(0);
    for (const method of gateway) expect(signKeyOf(method), method.code).toBe(HIDDEN);
    const text = JSON.stringify(paymentMethods);
    expect(text).not.toContain(DEMO_MERCHANTS.main.signKey);
    expect(text).not.toContain(DEMO_MERCHANTS.jp.signKey);

    const { paymentMethod } = await stack.admin.query<{ paymentMethod: Method }>(
      `query ($id: ID!) { paymentMethod(id: $id) { ${METHOD_FIELDS} } }`,
      { id: gateway[0]?.id },
    );
    expect(signKeyOf(paymentMethod)).toBe(HIDDEN);

    const { createPaymentMethod } = await stack.admin.query<{ createPaymentMethod: Method }>(
      `mutation ($input: CreatePaymentMethodInput!) { createPaymentMethod(input: $input) { ${METHOD_FIELDS} } }`,
      {
        input: {
          code: 'hidden-key-card',
          enabled: true,
          handler: { code: 'gatewaykit', arguments: argsWith(DEMO_MERCHANTS.main.signKey) },
          translations: [{ languageCode: 'en', name: 'Hidden key card', description: '' }],
        },
      },
    );
    expect(signKeyOf(createPaymentMethod)).toBe(HIDDEN);
    // The key itself was stored: the method charges.
    expect((await payWith('hidden-key-card')).__typename).toBe('GatewaykitPaymentCompleted');
  });

  it('honest: a save that sends the hidden key back keeps the stored key; a new key typed in replaces it', async () => {
    const { paymentMethods } = await stack.admin.query<{ paymentMethods: { items: Method[] } }>(
      `{ paymentMethods(options: { take: 100 }) { items { ${METHOD_FIELDS} } } }`,
    );
    const method = paymentMethods.items.find((m) => m.code === 'hidden-key-card');
    if (!method) throw new Error('hidden-key-card was not created');

    expect(signKeyOf(await update(method.id, HIDDEN))).toBe(HIDDEN);
    expect((await payWith('hidden-key-card')).__typename).toBe('GatewaykitPaymentCompleted');

    // A wrong key typed in is stored: the sandbox refuses its signature, nothing is charged.
    await update(method.id, 'not-the-merchant-key');
    const shop = shopClient(stack);
    const order = await prepareOrder(shop);
    const refused = await startPayment(shop, {
      paymentMethodCode: 'hidden-key-card',
      card: cardInput(CARDS.success),
    });
    expect(refused).toMatchObject({ __typename: 'GatewaykitPaymentError' });
    const answers = chargeAnswers(order.code);
    expect(answers).toHaveLength(1);
    expect(answers[0]?.message ?? '').toMatch(/sign/i);
    expect(stack.sandbox.order(`${order.code}-1`)?.orderStatus).not.toBe('success');
    await update(method.id, DEMO_MERCHANTS.main.signKey);
    expect((await payWith('hidden-key-card')).__typename).toBe('GatewaykitPaymentCompleted');
  });

  it('attack: moving a method between channels answers it hidden too (assignPaymentMethodsToChannel, removePaymentMethodsFromChannel; found by review)', async () => {
    const { paymentMethods } = await stack.admin.query<{ paymentMethods: { items: Method[] } }>(
      `{ paymentMethods(options: { take: 100 }) { items { ${METHOD_FIELDS} } } }`,
    );
    const ids = paymentMethods.items.filter((m) => m.handler.code === 'gatewaykit').map((m) => m.id);
    const { channels } = await stack.admin.query<{ channels: { items: { id: string; code: string }[] } }>(
      '{ channels { items { id code } } }',
    );
    const other = channels.items.find((channel) => channel.code !== '__default_channel__');
    if (!other) throw new Error('the demo has a second channel');
    const input = { paymentMethodIds: ids, channelId: other.id };
    const { assignPaymentMethodsToChannel } = await stack.admin.query<{
      assignPaymentMethodsToChannel: Method[];
    }>(
      `mutation ($input: AssignPaymentMethodsToChannelInput!) { assignPaymentMethodsToChannel(input: $input) { ${METHOD_FIELDS} } }`,
      { input },
    );
    expect(assignPaymentMethodsToChannel.length).toBe(ids.length);
    for (const method of assignPaymentMethodsToChannel) expect(signKeyOf(method), method.code).toBe(HIDDEN);
    const hiddenKeyCard = paymentMethods.items.find((m) => m.code === 'hidden-key-card');
    const { removePaymentMethodsFromChannel } = await stack.admin.query<{
      removePaymentMethodsFromChannel: Method[];
    }>(
      `mutation ($input: RemovePaymentMethodsFromChannelInput!) { removePaymentMethodsFromChannel(input: $input) { ${METHOD_FIELDS} } }`,
      { input: { paymentMethodIds: [hiddenKeyCard?.id], channelId: other.id } },
    );
    expect(removePaymentMethodsFromChannel.map(signKeyOf)).toEqual([HIDDEN]);
    const everything = JSON.stringify([assignPaymentMethodsToChannel, removePaymentMethodsFromChannel]);
    expect(everything).not.toContain(DEMO_MERCHANTS.main.signKey);
    expect(everything).not.toContain(DEMO_MERCHANTS.jp.signKey);
  });

  it('attack: a new method cannot be created with the hidden marker as its key', async () => {
    const create = stack.admin.query(
      `mutation ($input: CreatePaymentMethodInput!) { createPaymentMethod(input: $input) { id } }`,
      {
        input: {
          code: 'marker-key-card',
          enabled: true,
          handler: { code: 'gatewaykit', arguments: argsWith(HIDDEN) },
          translations: [{ languageCode: 'en', name: 'Marker', description: '' }],
        },
      },
    );
    await expect(create).rejects.toThrow(/signKey must be the merchant sign key/);
  });
});
