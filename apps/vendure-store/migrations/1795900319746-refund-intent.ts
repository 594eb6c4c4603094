import { MigrationInterface, QueryRunner } from 'typeorm';

/** The plugin's refund intents (docs/safety-rules.md#refund-intents). */
export class RefundIntent1795900319746 implements MigrationInterface {
  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "gatewaykit_refund_intent" ("merTrackNo" character varying(100) NOT NULL, "paymentId" character varying NOT NULL, "orderId" character varying NOT NULL, "refundAmount" character varying(20) NOT NULL, "currency" character varying(3) NOT NULL, "batchNo" character varying(64), "answer" character varying(16), "createdAt" TIMESTAMP NOT NULL DEFAULT now(), CONSTRAINT "PK_gatewaykit_refund_intent" PRIMARY KEY ("merTrackNo"))`,
      undefined,
    );
    await queryRunner.query(
      `CREATE INDEX "IDX_gatewaykit_refund_intent_payment" ON "gatewaykit_refund_intent" ("paymentId") `,
      undefined,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "public"."IDX_gatewaykit_refund_intent_payment"`, undefined);
    await queryRunner.query(`DROP TABLE "gatewaykit_refund_intent"`, undefined);
  }
}
