import type { GraphqlClient } from '../../src/graphql-client';

/**
 * A 10 % coupon applied to the shopper's active order (order `orderCode`), and the merchant's way to
 * end its promotion while the shopper pays: Vendure then refuses the payment as charged
 * (CouponRemovedDuringCheckoutError), the case of a charge the order cannot take (docs/SECURITY.md §6).
 */
export async function applyEndingCoupon(
  admin: GraphqlClient,
  shop: GraphqlClient,
  orderCode: string,
): Promise<{ end: () => Promise<void> }> {
  const couponCode = `ENDS-${orderCode}`;
  const { createPromotion } = await admin.query<{ createPromotion: { id: string } }>(
    `mutation ($input: CreatePromotionInput!) { createPromotion(input: $input) { ... on Promotion { id } } }`,
    {
      input: {
        enabled: true,
        couponCode,
        conditions: [],
        actions: [{ code: 'order_percentage_discount', arguments: [{ name: 'discount', value: '10' }] }],
        translations: [{ languageCode: 'en', name: couponCode }],
      },
    },
  );
  await shop.query(`mutation ($code: String!) { applyCouponCode(couponCode: $code) { __typename } }`, {
    code: couponCode,
  });
  const end = async () => {
    await admin.query(
      `mutation ($input: UpdatePromotionInput!) { updatePromotion(input: $input) { __typename } }`,
      { input: { id: createPromotion.id, enabled: false } },
    );
  };
  return { end };
}
