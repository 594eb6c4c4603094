import type { ExecArgs } from '@medusajs/framework/types';
import { ContainerRegistrationKeys, Modules } from '@medusajs/framework/utils';
import {
  createApiKeysWorkflow,
  createInventoryLevelsWorkflow,
  createProductsWorkflow,
  createRegionsWorkflow,
  createSalesChannelsWorkflow,
  createShippingOptionsWorkflow,
  createShippingProfilesWorkflow,
  createStockLocationsWorkflow,
  createTaxRegionsWorkflow,
  createUserAccountWorkflow,
  linkSalesChannelsToApiKeyWorkflow,
  linkSalesChannelsToStockLocationWorkflow,
  updateStoresWorkflow,
} from '@medusajs/medusa/core-flows';

export const REGION_NAME = 'Gatewaykit Demo';
export const GATEWAYKIT_PROVIDERS = [
  'pp_gatewaykit_gatewaykit',
  'pp_gatewaykit-hosted_gatewaykit',
  'pp_gatewaykit-local_gatewaykit',
];
const ADMIN_EMAIL = process.env.MEDUSA_ADMIN_EMAIL || 'admin@gatewaykit.test';
const ADMIN_PASSWORD = process.env.MEDUSA_ADMIN_PASSWORD || 'supersecret';

/**
 * Idempotent demo data: a USD region with the three gatewaykit providers (and Medusa's system
 * provider as a baseline), shipping, stock, products, a publishable key and an admin user.
 * A second run finds the region and does nothing.
 */
export default async function seed({ container }: ExecArgs): Promise<void> {
  const logger = container.resolve(ContainerRegistrationKeys.LOGGER);
  const link = container.resolve(ContainerRegistrationKeys.LINK);
  const regionModule = container.resolve(Modules.REGION);
  if ((await regionModule.listRegions({ name: REGION_NAME })).length > 0) {
    logger.info('seed: demo data already present, nothing to do');
    return;
  }

  const salesChannelModule = container.resolve(Modules.SALES_CHANNEL);
  let [channel] = await salesChannelModule.listSalesChannels({ name: 'Default Sales Channel' });
  if (!channel) {
    const { result } = await createSalesChannelsWorkflow(container).run({
      input: { salesChannelsData: [{ name: 'Default Sales Channel' }] },
    });
    channel = result[0]!;
  }
  const [store] = await container.resolve(Modules.STORE).listStores();
  await updateStoresWorkflow(container).run({
    input: {
      selector: { id: store!.id },
      update: {
        supported_currencies: [{ currency_code: 'usd', is_default: true }, { currency_code: 'eur' }],
        default_sales_channel_id: channel.id,
      },
    },
  });

  const { result: regions } = await createRegionsWorkflow(container).run({
    input: {
      regions: [
        {
          name: REGION_NAME,
          currency_code: 'usd',
          countries: ['us', 'gb', 'de'],
          // Only the gateway: the system provider would let any shopper place an order without paying.
          payment_providers: [...GATEWAYKIT_PROVIDERS],
        },
      ],
    },
  });
  const region = regions[0]!;
  await createTaxRegionsWorkflow(container).run({
    input: ['us', 'gb', 'de'].map((country_code) => ({ country_code, provider_id: 'tp_system' })),
  });

  const { result: locations } = await createStockLocationsWorkflow(container).run({
    input: {
      locations: [{ name: 'Demo Warehouse', address: { city: 'Austin', country_code: 'US', address_1: '' } }],
    },
  });
  const location = locations[0]!;
  await link.create({
    [Modules.STOCK_LOCATION]: { stock_location_id: location.id },
    [Modules.FULFILLMENT]: { fulfillment_provider_id: 'manual_manual' },
  });

  const fulfillment = container.resolve(Modules.FULFILLMENT);
  const [existingProfile] = await fulfillment.listShippingProfiles({ type: 'default' });
  const profile =
    existingProfile ??
    (
      await createShippingProfilesWorkflow(container).run({
        input: { data: [{ name: 'Default Shipping Profile', type: 'default' }] },
      })
    ).result[0]!;
  const fulfillmentSet = await fulfillment.createFulfillmentSets({
    name: 'Demo delivery',
    type: 'shipping',
    service_zones: [
      {
        name: 'Demo zone',
        geo_zones: ['us', 'gb', 'de'].map((country_code) => ({ country_code, type: 'country' as const })),
      },
    ],
  });
  await link.create({
    [Modules.STOCK_LOCATION]: { stock_location_id: location.id },
    [Modules.FULFILLMENT]: { fulfillment_set_id: fulfillmentSet.id },
  });
  await createShippingOptionsWorkflow(container).run({
    input: [
      {
        name: 'Standard Shipping',
        price_type: 'flat',
        provider_id: 'manual_manual',
        service_zone_id: fulfillmentSet.service_zones[0]!.id,
        shipping_profile_id: profile.id,
        type: { label: 'Standard', description: 'Ships in 2-3 days.', code: 'standard' },
        prices: [
          { currency_code: 'usd', amount: 10 },
          { region_id: region.id, amount: 10 },
        ],
        rules: [
          { attribute: 'enabled_in_store', value: 'true', operator: 'eq' },
          { attribute: 'is_return', value: 'false', operator: 'eq' },
        ],
      },
    ],
  });
  await linkSalesChannelsToStockLocationWorkflow(container).run({
    input: { id: location.id, add: [channel.id] },
  });

  const { result: keys } = await createApiKeysWorkflow(container).run({
    input: { api_keys: [{ title: 'Gatewaykit demo storefront', type: 'publishable', created_by: '' }] },
  });
  await linkSalesChannelsToApiKeyWorkflow(container).run({
    input: { id: keys[0]!.id, add: [channel.id] },
  });

  const { result: products } = await createProductsWorkflow(container).run({
    input: {
      products: [
        {
          title: 'Gatewaykit T-Shirt',
          handle: 'gatewaykit-t-shirt',
          status: 'published',
          shipping_profile_id: profile.id,
          options: [{ title: 'Size', values: ['M', 'L'] }],
          variants: ['M', 'L'].map((size) => ({
            title: size,
            sku: `GK-SHIRT-${size}`,
            manage_inventory: true,
            options: { Size: size },
            prices: [
              { amount: 25, currency_code: 'usd' },
              { amount: 23, currency_code: 'eur' },
            ],
          })),
          sales_channels: [{ id: channel.id }],
        },
      ],
    },
  });
  const query = container.resolve(ContainerRegistrationKeys.QUERY);
  const { data: items } = await query.graph({
    entity: 'inventory_item',
    fields: ['id'],
    filters: { sku: products[0]!.variants.map((variant) => variant.sku!) },
  });
  await createInventoryLevelsWorkflow(container).run({
    input: {
      inventory_levels: items.map((item: { id: string }) => ({
        location_id: location.id,
        stocked_quantity: 1_000_000,
        inventory_item_id: item.id,
      })),
    },
  });

  const authModule = container.resolve(Modules.AUTH);
  const { authIdentity, error } = await authModule.register('emailpass', {
    body: { email: ADMIN_EMAIL, password: ADMIN_PASSWORD },
  } as never);
  if (error || !authIdentity) throw new Error(`seed: could not register the admin user: ${error}`);
  await createUserAccountWorkflow(container).run({
    input: { authIdentityId: authIdentity.id, userData: { email: ADMIN_EMAIL } },
  });
  logger.info(`seed: demo data created (region ${region.id}, admin ${ADMIN_EMAIL})`);
}
