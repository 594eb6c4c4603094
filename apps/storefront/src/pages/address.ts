import { field, Html, html } from '../dom';
import { requireFields } from '../stores/http';
import { type Address, FieldError } from '../stores/types';

const COUNTRIES = [
  ['US', 'United States'],
  ['GB', 'United Kingdom'],
  ['DE', 'Germany'],
] as const;

/** The address inputs, pre-filled; each has its error slot. */
export function addressFields(address: Partial<Address> | undefined): ReturnType<typeof html> {
  return html`<div class="row">${field('firstName', 'First name', address?.firstName, { autocomplete: 'given-name' })}
    ${field('lastName', 'Last name', address?.lastName, { autocomplete: 'family-name' })}</div>
    ${field('line1', 'Street and number', address?.line1, { autocomplete: 'address-line1' })}
    <div class="row">${field('city', 'City', address?.city, { autocomplete: 'address-level2' })}
    ${field('postalCode', 'Postal code', address?.postalCode, { autocomplete: 'postal-code' })}</div>
    <div class="row"><label class="field">Country <select name="countryCode" autocomplete="country">${COUNTRIES.map(
      ([code, name]) =>
        html`<option value="${code}" ${new Html(code === (address?.countryCode || 'US') ? 'selected' : '')}>${name}</option>`,
    )}</select><span class="field-error" data-error-for="countryCode" role="alert"></span></label>
    ${field('province', 'State / province (optional)', address?.province, { autocomplete: 'address-level1' })}</div>
    ${field('phone', 'Phone (optional)', address?.phone, { type: 'tel', autocomplete: 'tel' })}`;
}

/** Reads and checks the address inputs; a missing or malformed value is a FieldError. */
export function readAddress(values: Record<string, string>): Address {
  requireFields(values, {
    firstName: 'First name',
    lastName: 'Last name',
    line1: 'Street and number',
    city: 'City',
    postalCode: 'Postal code',
  });
  if (!/^[A-Za-z0-9 -]{3,10}$/.test(values.postalCode!.trim()))
    throw new FieldError('postalCode', 'Enter a valid postal code');
  return {
    firstName: values.firstName!.trim(),
    lastName: values.lastName!.trim(),
    line1: values.line1!.trim(),
    city: values.city!.trim(),
    postalCode: values.postalCode!.trim(),
    countryCode: values.countryCode ?? 'US',
    province: values.province?.trim() ?? '',
    phone: values.phone?.trim() ?? '',
  };
}
