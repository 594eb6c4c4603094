import { MigrationInterface, QueryRunner } from 'typeorm';

/** The plugin's element-card bindings (docs/card-element.md#one-checkout-per-element-card). */
export class ElementCardBinding1795601460214 implements MigrationInterface {
  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "gatewaykit_element_card_binding" ("customerPaymentMethodId" character varying(100) NOT NULL, "orderId" character varying NOT NULL, "createdAt" TIMESTAMP NOT NULL DEFAULT now(), CONSTRAINT "PK_gatewaykit_element_card_binding" PRIMARY KEY ("customerPaymentMethodId"))`,
      undefined,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE "gatewaykit_element_card_binding"`, undefined);
  }
}
