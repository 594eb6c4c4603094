import { Migration } from '@medusajs/framework/mikro-orm/migrations';

/**
 * Gateway pages whose payment session Medusa deleted while they were open (lib/deleted-pages.ts): what
 * the reconciliation needs to ask the gateway whether the page was paid after all. No card data: the
 * session data it is copied from never holds any.
 */
export class Migration20261128150000_GatewaykitDeletedPage extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `create table if not exists "gatewaykit_deleted_page" (
        "order_no" text not null,
        "provider_id" text not null,
        "amount" text not null,
        "currency" text not null,
        "mode" text not null,
        "attempted_at" timestamptz not null,
        "deleted_at" timestamptz not null default now(),
        "ended_as" text null,
        "ended_at" timestamptz null,
        constraint "gatewaykit_deleted_page_pkey" primary key ("order_no"));`,
    );
    this.addSql(
      'create index if not exists "gatewaykit_deleted_page_open" on "gatewaykit_deleted_page" ("deleted_at") where "ended_as" is null;',
    );
  }

  override async down(): Promise<void> {
    this.addSql('drop table if exists "gatewaykit_deleted_page";');
  }
}
