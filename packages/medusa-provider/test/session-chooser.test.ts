import { describe, expect, it } from 'vitest';
import { customerIdOf, requesterOf, whyNotTheChooser } from '../src/lib/session-chooser';

const chosen = (data: Record<string, unknown>, provider_id = 'pp_gatewaykit_gatewaykit') => ({
  provider_id,
  data: { orderNo: 'payses_1', mode: 'card', amount: '10.00', currency: 'USD', ...data },
});

describe('whyNotTheChooser (who may complete a cart with a logged-in customer’s session)', () => {
  it('only the customer who created the session, while nothing is taken', () => {
    const session = chosen({ medusaCustomerId: 'cus_owner', customerPaymentMethodId: 'pm_1' });
    expect(whyNotTheChooser(session, 'cus_owner')).toBeUndefined();
    expect(whyNotTheChooser(session, undefined)).toMatch(/log in as that customer/);
    expect(whyNotTheChooser(session, 'cus_other')).toMatch(/another customer chose/);
    // On the gateway's page nothing is taken yet: the cart still decides what the money buys.
    const onPage = chosen({
      medusaCustomerId: 'cus_owner',
      attemptedAt: '2026-11-25T10:00:00.000Z',
      outcome: { orderNo: 'payses_1', status: 'redirect', redirectUrl: 'https://gateway.test/pay' },
    });
    expect(whyNotTheChooser(onPage, undefined)).toMatch(/log in as that customer/);
    expect(whyNotTheChooser(onPage, 'cus_owner')).toBeUndefined();
    // After a decline the customer retries on the same cart: its address still decides where their
    // next payment's goods go.
    const declined = chosen({
      medusaCustomerId: 'cus_owner',
      attemptedAt: '2026-11-25T10:00:00.000Z',
      outcome: { orderNo: 'payses_1', status: 'failed', reason: 'Declined' },
    });
    expect(whyNotTheChooser(declined, undefined)).toMatch(/log in as that customer/);
    expect(whyNotTheChooser(declined, 'cus_other')).toMatch(/another customer chose/);
    expect(whyNotTheChooser(declined, 'cus_owner')).toBeUndefined();
  });

  it("a guest's session, a charge that may have taken money, and other providers' sessions are not judged", () => {
    expect(whyNotTheChooser(chosen({ customerPaymentMethodId: 'pm_1' }), 'cus_other')).toBeUndefined();
    const sent = chosen({ medusaCustomerId: 'cus_owner', attemptedAt: '2026-11-25T10:00:00.000Z' });
    expect(whyNotTheChooser(sent, undefined)).toBeUndefined();
    // Another provider's data is the storefront's own: a key it wrote there decides nothing.
    const foreign = chosen({ medusaCustomerId: 'cus_owner' }, 'pp_system_default');
    expect(whyNotTheChooser(foreign, undefined)).toBeUndefined();
  });
});

describe('customerIdOf', () => {
  it("reads Medusa's context customer id, and nothing from anything else", () => {
    expect(customerIdOf({ customer: { id: 'cus_1' } })).toBe('cus_1');
    expect(customerIdOf({ customer: { id: '' } })).toBeUndefined();
    expect(customerIdOf({ customer: { id: 42 } })).toBeUndefined();
    expect(customerIdOf(undefined)).toBeUndefined();
  });
});

describe('requesterOf', () => {
  it("reads the customer Medusa's authenticate found, and nothing for a guest", () => {
    expect(requesterOf({ auth_context: { actor_id: 'cus_1' } } as never)).toBe('cus_1');
    expect(requesterOf({ auth_context: { actor_id: '' } } as never)).toBeUndefined();
    expect(requesterOf({} as never)).toBeUndefined();
  });
});
