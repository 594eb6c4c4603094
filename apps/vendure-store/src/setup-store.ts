import { type GraphqlClient, loginAdmin } from './graphql-client';

/** Gateway credentials of one merchant account (one per channel in the demo). */
export interface MerchantCredentials {
  gatewayNo: string;
  signKey: string;
  baseUrl: string;
}

export interface StoreGateways {
  /** Default channel's merchant. */
  main: MerchantCredentials;
  /** The yen channel's merchant: different credentials, to show per-channel keys. */
  jp: MerchantCredentials;
}

export const JP_CHANNEL_TOKEN = 'jp-token';

/**
 * Payment methods per channel: code prefix, mode, local method and how refunds are made. The hosted
 * method keeps manual refunds so the demo shows both settings.
 */
const METHODS = [
  { suffix: 'card', name: 'Card (saved or entered)', mode: 'card', refunds: 'gateway' },
  { suffix: 'hosted', name: 'Card (hosted page)', mode: 'hosted', refunds: 'manual' },
  { suffix: 'local', name: 'Alipay', mode: 'local', localMethod: 'Alipay', refunds: 'gateway' },
] as const;

/**
 * Idempotent store setup through the Admin API, run at every start: the yen channel and the gateway
 * payment methods (updated so a new sandbox URL or key takes effect on the next start).
 */
export async function setupStore(
  adminUrl: string,
  gateways: StoreGateways,
  superadmin: { identifier: string; password: string },
  benchBaseline = false,
): Promise<void> {
  const admin = await loginAdmin(adminUrl, superadmin.identifier, superadmin.password);
  await ensurePaymentMethods(admin, '', gateways.main);
  if (benchBaseline) await ensureNoopMethod(admin);
  const jp = await ensureJpChannel(admin);
  await ensurePaymentMethods(admin.withChannel(JP_CHANNEL_TOKEN), 'jp-', gateways.jp, jp);
}

async function ensurePaymentMethods(
  admin: GraphqlClient,
  prefix: string,
  merchant: MerchantCredentials,
  _channelId?: string,
): Promise<void> {
  const { paymentMethods } = await admin.query<{ paymentMethods: { items: { id: string; code: string }[] } }>(
    `{ paymentMethods(options: { take: 100 }) { items { id code } } }`,
  );
  for (const m of METHODS) {
    const code = `${prefix}gatewaykit-${m.suffix}`;
    const args = [
      { name: 'gatewayNo', value: merchant.gatewayNo },
      { name: 'signKey', value: merchant.signKey },
      { name: 'environment', value: 'custom' },
      { name: 'baseUrl', value: merchant.baseUrl },
      { name: 'mode', value: m.mode },
      { name: 'localMethod', value: 'localMethod' in m ? m.localMethod : '' },
      { name: 'refunds', value: m.refunds },
    ];
    const handler = { code: 'gatewaykit', arguments: args };
    const existing = paymentMethods.items.find((p) => p.code === code);
    if (existing) {
      await admin.query(
        `mutation ($input: UpdatePaymentMethodInput!) { updatePaymentMethod(input: $input) { id } }`,
        {
          input: { id: existing.id, handler, enabled: true },
        },
      );
    } else {
      await admin.query(
        `mutation ($input: CreatePaymentMethodInput!) { createPaymentMethod(input: $input) { id } }`,
        {
          input: {
            code,
            enabled: true,
            handler,
            translations: [{ languageCode: 'en', name: m.name, description: '' }],
          },
        },
      );
    }
  }
}

/** A second channel selling in yen (zero-decimal currency) with its own gateway merchant. */
async function ensureJpChannel(admin: GraphqlClient): Promise<string> {
  const { channels } = await admin.query<{ channels: { items: { id: string; token: string }[] } }>(
    `{ channels { items { id token } } }`,
  );
  const found = channels.items.find((c) => c.token === JP_CHANNEL_TOKEN);
  if (found) return found.id;
  const { zones } = await admin.query<{ zones: { items: { id: string; name: string }[] } }>(
    `{ zones { items { id name } } }`,
  );
  const europe = zones.items.find((z) => z.name === 'Europe');
  if (!europe) throw new Error('setup: zone Europe missing');
  const { createChannel } = await admin.query<{ createChannel: { id?: string; message?: string } }>(
    `mutation ($input: CreateChannelInput!) { createChannel(input: $input) {
       ... on Channel { id } ... on ErrorResult { message } } }`,
    {
      input: {
        code: 'jp',
        token: JP_CHANNEL_TOKEN,
        defaultLanguageCode: 'en',
        availableLanguageCodes: ['en'],
        pricesIncludeTax: true,
        defaultCurrencyCode: 'JPY',
        availableCurrencyCodes: ['JPY'],
        defaultShippingZoneId: europe.id,
        defaultTaxZoneId: europe.id,
      },
    },
  );
  if (!createChannel.id) throw new Error(`setup: createChannel failed: ${createChannel.message}`);
  const channelId = createChannel.id;
  const { products } = await admin.query<{ products: { items: { id: string }[] } }>(
    `{ products(options: { take: 100 }) { items { id } } }`,
  );
  // Prices are stored with 2 decimals for every currency: factor 100 turns 12.00 into ¥1200.
  await admin.query(
    `mutation ($input: AssignProductsToChannelInput!) { assignProductsToChannel(input: $input) { id } }`,
    { input: { channelId, productIds: products.items.map((p) => p.id), priceFactor: 100 } },
  );
  const { shippingMethods } = await admin.query<{ shippingMethods: { items: { id: string }[] } }>(
    `{ shippingMethods { items { id } } }`,
  );
  await admin.query(
    `mutation ($input: AssignShippingMethodsToChannelInput!) { assignShippingMethodsToChannel(input: $input) { id } }`,
    { input: { channelId, shippingMethodIds: shippingMethods.items.map((s) => s.id) } },
  );
  const { stockLocations } = await admin.query<{ stockLocations: { items: { id: string }[] } }>(
    `{ stockLocations { items { id } } }`,
  );
  await admin.query(
    `mutation ($input: AssignStockLocationsToChannelInput!) { assignStockLocationsToChannel(input: $input) { id } }`,
    { input: { channelId, stockLocationIds: stockLocations.items.map((s) => s.id) } },
  );
  return channelId;
}

/** Benchmark baseline payment method (only with GATEWAYKIT_BENCH=1). */
async function ensureNoopMethod(admin: GraphqlClient): Promise<void> {
  const { paymentMethods } = await admin.query<{ paymentMethods: { items: { code: string }[] } }>(
    `{ paymentMethods(options: { take: 100 }) { items { code } } }`,
  );
  if (paymentMethods.items.some((p) => p.code === 'bench-noop')) return;
  await admin.query(
    `mutation ($input: CreatePaymentMethodInput!) { createPaymentMethod(input: $input) { id } }`,
    {
      input: {
        code: 'bench-noop',
        enabled: true,
        handler: { code: 'bench-noop', arguments: [] },
        translations: [{ languageCode: 'en', name: 'No-op (benchmark)', description: '' }],
      },
    },
  );
}
