import { Migration } from '@medusajs/framework/mikro-orm/migrations';

/**
 * Element-card bindings also name the shopper who bound the card (lib/element-card-bindings.ts): the
 * logged-in customer, or '' for a guest. Rows bound before this migration count as a guest's.
 */
export class Migration20261126090000_GatewaykitElementCardBindingShopper extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `alter table if exists "gatewaykit_element_card_binding" add column if not exists "customer_id" text not null default '';`,
    );
  }

  override async down(): Promise<void> {
    this.addSql(
      'alter table if exists "gatewaykit_element_card_binding" drop column if exists "customer_id";',
    );
  }
}
