import { DataSource, type Repository } from 'typeorm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GatewaykitElementCardBinding } from '../src/entity/element-card-binding.entity';
import { OrderElementCardCheckout } from '../src/service/order-element-card';

/**
 * Against a real sql.js database with the binding entity: the primary key decides who owns a fresh
 * element card (docs/card-element.md#one-checkout-per-element-card), as it does across instances.
 */
describe('OrderElementCardCheckout (one order per fresh element card)', () => {
  let db: DataSource;
  let bindings: Repository<GatewaykitElementCardBinding>;
  const checkout = (orderId: string) => new OrderElementCardCheckout(bindings, orderId);

  beforeAll(async () => {
    db = new DataSource({ type: 'sqljs', entities: [GatewaykitElementCardBinding], synchronize: true });
    await db.initialize();
    bindings = db.getRepository(GatewaykitElementCardBinding);
  });
  afterAll(async () => {
    await db?.destroy();
  });

  it('binds a fresh card to the first order that names it, and stores that order', async () => {
    expect(await checkout('1').bindElementCard('pm_1000000000000000001')).toBe(true);
    const row = await bindings.findOneByOrFail({ customerPaymentMethodId: 'pm_1000000000000000001' });
    expect(row.orderId).toBe('1');
    expect(row.createdAt).toBeInstanceOf(Date);
  });

  it('lets the same order name the card again (a retry after a decline)', async () => {
    expect(await checkout('2').bindElementCard('pm_1000000000000000002')).toBe(true);
    expect(await checkout('2').bindElementCard('pm_1000000000000000002')).toBe(true);
    expect(await bindings.countBy({ customerPaymentMethodId: 'pm_1000000000000000002' })).toBe(1);
  });

  it('refuses another order, and leaves the first binding as it was', async () => {
    expect(await checkout('3').bindElementCard('pm_1000000000000000003')).toBe(true);
    expect(await checkout('4').bindElementCard('pm_1000000000000000003')).toBe(false);
    expect(await checkout('3').bindElementCard('pm_1000000000000000003')).toBe(true);
    const row = await bindings.findOneByOrFail({ customerPaymentMethodId: 'pm_1000000000000000003' });
    expect(row.orderId).toBe('3');
  });

  it('binds each card on its own: one order may name several fresh cards', async () => {
    expect(await checkout('5').bindElementCard('pm_1000000000000000005')).toBe(true);
    expect(await checkout('5').bindElementCard('pm_1000000000000000006')).toBe(true);
  });

  it('several orders naming one fresh card at once: exactly one is bound', async () => {
    const orders = ['10', '11', '12', '13', '14', '15'];
    const answers = await Promise.all(
      orders.map((orderId) => checkout(orderId).bindElementCard('pm_1000000000000000010')),
    );
    expect(answers.filter(Boolean)).toHaveLength(1);
    const row = await bindings.findOneByOrFail({ customerPaymentMethodId: 'pm_1000000000000000010' });
    expect(row.orderId).toBe(orders[answers.indexOf(true)]);
  });

  it('throws when the database cannot be asked (core then charges nothing)', async () => {
    const broken = new DataSource({ type: 'sqljs', entities: [GatewaykitElementCardBinding] });
    await broken.initialize(); // no synchronize: the table does not exist
    try {
      const refusing = new OrderElementCardCheckout(broken.getRepository(GatewaykitElementCardBinding), '1');
      await expect(refusing.bindElementCard('pm_1000000000000000020')).rejects.toThrow();
    } finally {
      await broken.destroy();
    }
  });
});
