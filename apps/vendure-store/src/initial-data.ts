import { type InitialData, LanguageCode } from '@vendure/core';

/** Zone, tax, shipping and countries of the demo store (payment methods are upserted at each start). */
export const initialData: InitialData = {
  defaultLanguage: LanguageCode.en,
  defaultZone: 'Europe',
  taxRates: [
    { name: 'Standard Tax', percentage: 20 },
    { name: 'Zero Tax', percentage: 0 },
  ],
  shippingMethods: [
    { name: 'Standard Shipping', price: 500 },
    { name: 'Express Shipping', price: 1000 },
  ],
  paymentMethods: [],
  countries: [
    { name: 'United Kingdom', code: 'GB', zone: 'Europe' },
    { name: 'Germany', code: 'DE', zone: 'Europe' },
    { name: 'Japan', code: 'JP', zone: 'Asia' },
    { name: 'United States of America', code: 'US', zone: 'Americas' },
  ],
  collections: [{ name: 'All', filters: [] }],
};
