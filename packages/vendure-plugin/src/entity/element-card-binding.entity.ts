import { Column, CreateDateColumn, Entity, PrimaryColumn } from 'typeorm';

/**
 * A fresh card-element payment method bound to the order that first named it
 * (docs/card-element.md#one-checkout-per-element-card). The method id is the primary key, so the
 * database lets exactly one order bind it, whichever server instance asks first.
 */
@Entity('gatewaykit_element_card_binding')
export class GatewaykitElementCardBinding {
  // Named so the generated migration and the entity agree on the constraint.
  @PrimaryColumn({
    type: 'varchar',
    length: 100,
    primaryKeyConstraintName: 'PK_gatewaykit_element_card_binding',
  })
  customerPaymentMethodId: string;

  @Column({ type: 'varchar' })
  orderId: string;

  @CreateDateColumn()
  createdAt: Date;
}
