/** Building blocks shared by the request schemas (docs/gateway-protocol.md#request-constraints). */
import { z } from 'zod';
import { currencyDigits, isKnownCurrency, KNOWN_CURRENCIES } from '../money.js';
import type { RuleTiming } from './fast-forms.js';

export const STATE_REQUIRED_COUNTRIES = new Set(['US', 'CA', 'IN']);

export const countryCode = z
  .string()
  .regex(/^[A-Z]{2}$/, 'must be a two-letter ISO 3166 country code (e.g. US)');

// The table as an enum rather than a refine(isKnownCurrency): the compiled fast form checks an enum
// inline, where a refine is a callback per request.
export const currencyCode = z
  .string()
  .regex(/^[A-Z]{3}$/, 'must be a three-letter ISO 4217 currency code (e.g. USD)')
  .pipe(z.enum(KNOWN_CURRENCIES as [string, ...string[]], { message: 'is not an ISO 4217 currency code' }));

/** 1–16 chars, at most two decimals; checked against the currency by `refineOrderAmount`. */
export const orderAmount = z
  .string()
  .min(1)
  .max(16)
  .regex(/^\d+(\.\d{1,2})?$/, 'must be a decimal with at most two decimals, e.g. 10.00');

export const isMobile = z.enum(['0', '1', '2', '3'], {
  message: 'must be 0 (web), 1 (h5), 2 (app SDK) or 3 (mini app)',
});

export const goodsDetails = z
  .array(
    z.object({
      goodsTitle: z.string().max(100),
      goodsCount: z.string().max(30),
      goodsPrice: z.string().max(30),
    }),
  )
  .max(10, 'at most 10 items are allowed');

/** Billing/shipping address of the charge request; `timing` as in fast-forms.ts. */
export const addressWith = (timing: RuleTiming) =>
  z
    .object({
      city: z.string().min(2).max(100),
      country: countryCode,
      line1: z.string().min(2).max(500),
      // line2 is not constrained by docs/gateway-protocol.md#addresses-billing-detail-and-card; line1's limit is the safe bound.
      line2: z.string().max(500).optional(),
      postalCode: z.string().max(30).optional(),
      state: z.string().max(50).optional(),
    })
    .superRefine((value, ctx) => {
      // The rule also runs when fields failed (EVEN_WITH_FIELD_ISSUES): a state that is not a string
      // already has its own issue.
      const state = value.state ?? '';
      if (
        typeof state === 'string' &&
        typeof value.country === 'string' &&
        STATE_REQUIRED_COUNTRIES.has(value.country) &&
        !/^[A-Za-z]{2}$/.test(state)
      ) {
        ctx.addIssue({
          code: 'custom',
          path: ['state'],
          message: `a two-letter state code is required for ${value.country}`,
        });
      }
    }, timing);

export const billingDetailWith = (timing: RuleTiming) =>
  z.object({
    firstName: z.string().min(1).max(100),
    // docs/gateway-protocol.md#addresses-billing-detail-and-card gives lastName both 100 (schema) and 50 (description); 50 is the safe rule: the gateway accepts it either way.
    lastName: z.string().min(1).max(50),
    email: z.string().min(2).max(200),
    phone: z.string().min(2).max(50),
    address: addressWith(timing),
  });

/** Raw card data. Messages never echo the values: they are card data. */
export const card = z.object({
  cardNo: z.string().regex(/^\d{13,19}$/, 'must be 13 to 19 digits'),
  cardExpireMonth: z.string().regex(/^(0[1-9]|1[0-2])$/, 'must be two digits, 01 to 12'),
  cardExpireYear: z.string().regex(/^\d{4}$/, 'must be four digits'),
  cardSecurityCode: z.string().regex(/^\d{3,4}$/, 'must be 3 or 4 digits'),
  brand: z.string().max(100).optional(),
  last4: z.string().max(4).optional(),
});

/** Adds an issue on `orderAmount` when its decimals do not fit the currency's minor unit. */
export function refineOrderAmount(
  value: { orderAmount?: string | undefined; orderCurrency?: string | undefined },
  ctx: z.RefinementCtx,
): void {
  // An unknown or malformed currency already has its own issue from the field schema.
  if (typeof value.orderCurrency !== 'string' || !isKnownCurrency(value.orderCurrency)) return;
  let digits: number;
  try {
    digits = currencyDigits(value.orderCurrency);
  } catch {
    // Said whatever the amount is, so one error names every bad field.
    ctx.addIssue({
      code: 'custom',
      path: ['orderCurrency'],
      message: 'has more than two minor digits; not supported',
    });
    return;
  }
  // A malformed amount already has its own issue from the field schema.
  if (typeof value.orderAmount !== 'string' || !/^\d+(\.\d{1,2})?$/.test(value.orderAmount)) return;
  const decimals = value.orderAmount.split('.')[1]?.length ?? 0;
  if (decimals > digits) {
    ctx.addIssue({
      code: 'custom',
      path: ['orderAmount'],
      message:
        digits === 0 ? `${value.orderCurrency} amounts must be whole numbers` : `at most ${digits} decimals`,
    });
  }
  if (/^0+(\.0+)?$/.test(value.orderAmount)) {
    ctx.addIssue({ code: 'custom', path: ['orderAmount'], message: 'must be greater than zero' });
  }
}

/** Optional string in a response: the gateway may send null, a number or omit it. */
export const looseString = z
  .union([z.string(), z.number()])
  .nullish()
  .transform((value) => (value === null || value === undefined ? undefined : String(value)));

/** A required value in a response, read as a string: the gateway's samples mix strings and numbers. */
export const requiredString = z.union([z.string().min(1), z.number()]).transform((value) => String(value));

/**
 * A gateway amount sent by the merchant without its currency (refunds): a decimal greater than zero
 * with at most two decimals. The currency's own minor unit is the gateway's to check (it knows the trade).
 */
export const positiveAmount = z
  .string()
  .min(1)
  .max(16)
  .regex(
    /^(?!0+(\.0+)?$)\d+(\.\d{1,2})?$/,
    'must be a decimal greater than zero with at most two decimals, e.g. 10.00',
  );

/** The three record statuses of the OpenAPI queries (docs/gateway-protocol.md#openapi-refunds-transactions-chargebacks). */
export const RECORD_STATUSES = ['pending', 'success', 'fail'] as const;
export type RecordStatus = (typeof RECORD_STATUSES)[number];

/**
 * A record status read tolerantly: any case, surrounding blanks, `succeeded`/`failed` spellings. Any
 * other value is neither settled nor failed, so it reads as `pending`; the caller keeps the text.
 */
export function readRecordStatus(value: string | undefined): { status: RecordStatus; known: boolean } {
  const text = value?.trim().toLowerCase();
  if (text === 'success' || text === 'succeeded' || text === 'successful')
    return { status: 'success', known: true };
  if (text === 'fail' || text === 'failed' || text === 'failure') return { status: 'fail', known: true };
  if (text === 'pending') return { status: 'pending', known: true };
  return { status: 'pending', known: false };
}

/** Paging of a list answer, wherever the gateway put it (a `page` object or the top level). */
export const pagingFields = {
  pageIndex: z.coerce.number().int().optional(),
  pageSize: z.coerce.number().int().optional(),
  total: z.coerce.number().int().optional(),
};

/** `YYYY-MM-DDTHH:mm:ss`, as the record queries take their time window. */
export const queryTime = z
  .string()
  .regex(
    /^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])T([01]\d|2[0-3]):[0-5]\d:[0-5]\d$/,
    'must be a time YYYY-MM-DDTHH:mm:ss',
  );
