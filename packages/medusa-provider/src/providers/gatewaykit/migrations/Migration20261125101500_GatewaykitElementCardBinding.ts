import { Migration } from '@medusajs/framework/mikro-orm/migrations';

/**
 * The table the card provider keeps element-card bindings in (lib/element-card-bindings.ts): one row per
 * fresh card-element payment method, naming the payment collection that first used it. Medusa runs a
 * provider's migrations with its module's (`medusa db:migrate`), as it does for locking-postgres.
 */
export class Migration20261125101500_GatewaykitElementCardBinding extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      'create table if not exists "gatewaykit_element_card_binding" ("id" text not null, "payment_collection_id" text not null, "created_at" timestamptz not null default now(), constraint "gatewaykit_element_card_binding_pkey" primary key ("id"));',
    );
  }

  override async down(): Promise<void> {
    this.addSql('drop table if exists "gatewaykit_element_card_binding";');
  }
}
