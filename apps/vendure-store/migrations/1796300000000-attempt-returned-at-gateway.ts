import { MigrationInterface, QueryRunner } from 'typeorm';

/** Money of an attempt's trade given back at the gateway while no Payment held it (docs/payment-states.md). */
export class AttemptReturnedAtGateway1796300000000 implements MigrationInterface {
  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `ALTER TABLE "gatewaykit_payment_attempt" ADD "returnedAtGateway" character varying(200)`,
      undefined,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `ALTER TABLE "gatewaykit_payment_attempt" DROP COLUMN "returnedAtGateway"`,
      undefined,
    );
  }
}
