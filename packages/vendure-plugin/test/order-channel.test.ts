import { describe, expect, it } from 'vitest';
import { paidInItsChannel } from '../src/service/order-channel';

/** Default channel 1; a jp-token order is in channels 1 and 2 (Vendure adds every order to the default one). */
describe('an order is paid only through its own channel', () => {
  const defaultOrder = { channels: [{ id: 1 }] };
  const jpOrder = { channels: [{ id: 1 }, { id: 2 }] };

  it("its own channel may pay it: the default channel's order there, the jp order in jp", () => {
    expect(paidInItsChannel(defaultOrder, 1, 1)).toBe(true);
    expect(paidInItsChannel(jpOrder, 2, 1)).toBe(true);
    expect(paidInItsChannel(jpOrder, '2', '1')).toBe(true);
  });

  it('attack: the jp order in the default channel, or any order in a channel it is not in, is refused', () => {
    expect(paidInItsChannel(jpOrder, 1, 1)).toBe(false);
    expect(paidInItsChannel(defaultOrder, 2, 1)).toBe(false);
    expect(paidInItsChannel(jpOrder, 3, 1)).toBe(false);
    expect(paidInItsChannel({ channels: [] }, 1, 1)).toBe(false);
  });
});
