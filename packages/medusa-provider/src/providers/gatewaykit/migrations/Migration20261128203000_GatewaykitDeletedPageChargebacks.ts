import { Migration } from '@medusajs/framework/mikro-orm/migrations';

/**
 * Chargebacks of a payment made on a kept page (lib/deleted-page-chargebacks.ts): no Medusa payment or
 * session holds it, so the page keeps them, in the entry shape the payment data uses. Pages kept before
 * this migration have none.
 */
export class Migration20261128203000_GatewaykitDeletedPageChargebacks extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `alter table if exists "gatewaykit_deleted_page" add column if not exists "chargebacks" jsonb not null default '[]';`,
    );
  }

  override async down(): Promise<void> {
    this.addSql('alter table if exists "gatewaykit_deleted_page" drop column if exists "chargebacks";');
  }
}
