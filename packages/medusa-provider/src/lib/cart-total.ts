import { type PaymentOutcome, sameOrderAmount } from '@gatewaykit/core';
import type { BigNumberInput, MedusaContainer } from '@medusajs/framework/types';
import { MathBN, Modules } from '@medusajs/framework/utils';
import { BUYER_CART_FIELDS, BUYER_CART_RELATIONS, type CartForBuyer } from './buyer-from-cart';
import { gatewayAmount } from './payment-request';

/**
 * A cart is placed only for what its payment session asked for (docs/SECURITY.md §5). Medusa's
 * `POST /store/carts/:id/taxes` changes the cart's total without refreshing its payment collection,
 * and Medusa's completion never compares the two: the card would charge the old total and the gateway
 * page ask for it, while the order takes the new one.
 */

/** An amount as the gateway takes it: `orderAmount` text and upper-case currency. */
export interface GatewayMoney {
  amount: string;
  currency: string;
}

export function describeMoney(money: GatewayMoney): string {
  return `${money.amount} ${money.currency}`;
}

/**
 * The same money whatever the spelling: the gateway may write `10.5`, `10.500` or `010.50` for the cart's
 * `10.50` (docs/gateway-protocol.md, amounts), so amounts are compared as values, never as text.
 */
export function sameMoney(a: GatewayMoney, b: GatewayMoney): boolean {
  const currency = a.currency.toUpperCase();
  return currency === b.currency.toUpperCase() && sameOrderAmount(a.amount, b.amount, currency);
}

/** The total of cart `cartId` while it is open; undefined once it is an order (or when there is none). */
async function openCartTotal(scope: MedusaContainer, cartId: string): Promise<GatewayMoney | undefined> {
  return (await openCart(scope, cartId, false))?.total;
}

/**
 * Cart `cartId` while it is open, with its total; with `withBuyer`, in the same read, what
 * buyerFromCart takes from it (email, addresses, items).
 */
export async function openCart(
  scope: MedusaContainer,
  cartId: string,
  withBuyer: boolean,
): Promise<{ total: GatewayMoney; cart: CartForBuyer } | undefined> {
  // The cart module computes `total` itself when it is selected (its lines, taxes and adjustments).
  const [cart] = (await scope.resolve(Modules.CART).listCarts(
    { id: cartId },
    {
      select: ['id', 'completed_at', 'currency_code', 'total', ...(withBuyer ? BUYER_CART_FIELDS : [])],
      ...(withBuyer ? { relations: BUYER_CART_RELATIONS } : {}),
    },
  )) as (CartForBuyer & { completed_at?: unknown; currency_code: string; total: BigNumberInput })[];
  if (!cart || cart.completed_at) return undefined;
  const currency = cart.currency_code.toUpperCase();
  try {
    return { total: { amount: gatewayAmount(cart.total, currency), currency }, cart };
  } catch {
    // A total the gateway cannot take (too many decimals) matches no session; shown as Medusa has it.
    return { total: { amount: MathBN.convert(cart.total).toFixed(), currency }, cart };
  }
}

/**
 * Why a success must not complete cart `cartId`: the open cart's total or currency is no longer what
 * was paid. Undefined when they match, or when the cart is an order already.
 */
export async function totalDiffersFromPaid(
  scope: MedusaContainer,
  cartId: string,
  paid: Pick<PaymentOutcome, 'amount' | 'currency'>,
): Promise<string | undefined> {
  if (!paid.amount || !paid.currency) return undefined;
  const total = await openCartTotal(scope, cartId);
  const money = { amount: paid.amount, currency: paid.currency };
  if (!total || sameMoney(total, money)) return undefined;
  return `its cart's total is now ${describeMoney(total)}, not the ${describeMoney(money)} paid, so the cart was not completed`;
}
