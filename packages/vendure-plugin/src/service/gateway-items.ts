import type { PaymentRequest } from '@gatewaykit/core';
import { vendureAmountToOrderAmount } from './vendure-money';

type GatewayItem = NonNullable<PaymentRequest['items']>[number];

export interface LineLike {
  quantity: number;
  proratedUnitPriceWithTax: number;
  proratedLinePriceWithTax: number;
  productVariant?: { name?: string } | undefined;
}

/**
 * Order lines as the gateway's goods details (informational: banks ask for them, the charge is the
 * order amount). Converted before an attempt is stored, so a line can never break a started payment:
 * a free line is sent with price 0 (the gateway allows it); a unit price the currency cannot express
 * (e.g. ¥123.45 after a discount) is sent as one line of its total; if even that is inexpressible,
 * the error names the line and nothing is charged.
 */
export function gatewayItems(
  lines: readonly LineLike[],
  currency: string,
  precision: number,
): { items: GatewayItem[] } | { error: string } {
  const items: GatewayItem[] = [];
  for (const [index, line] of lines.entries()) {
    const title = line.productVariant?.name || 'Item';
    if (line.quantity <= 0) continue;
    const unitPrice = lineAmount(line.proratedUnitPriceWithTax, currency, precision);
    if (unitPrice !== undefined) {
      items.push({ title, quantity: line.quantity, unitPrice });
      continue;
    }
    const linePrice = lineAmount(line.proratedLinePriceWithTax, currency, precision);
    if (linePrice === undefined) {
      return { error: `Order line ${index + 1} has a price that ${currency} cannot express` };
    }
    items.push({ title: `${title} × ${line.quantity}`, quantity: 1, unitPrice: linePrice });
  }
  return { items };
}

function lineAmount(amount: number, currency: string, precision: number): string | undefined {
  if (amount === 0) return '0';
  try {
    return vendureAmountToOrderAmount(amount, currency, precision);
  } catch {
    return undefined;
  }
}
