import { Injectable, OnApplicationBootstrap } from '@nestjs/common';
import { Logger, PaymentMethod, TransactionalConnection, UserInputError } from '@vendure/core';
import type { EntitySubscriberInterface, InsertEvent, UpdateEvent } from 'typeorm';
import { HANDLER_CODE, loggerCtx } from '../constants';
import { withStoredSignKey } from './hidden-sign-key';
import { argsToRecord, MethodConfigError, parseMethodArgs } from './method-args';
import { refusedStoredMethods } from './stored-method-check';

/**
 * Rejects a gateway PaymentMethod with unusable arguments when it is saved, so the admin sees a clear
 * error in the dashboard instead of a failing checkout later; a sign key sent back hidden keeps the
 * stored one (hidden-sign-key.ts).
 */
@Injectable()
export class MethodArgsSubscriber
  implements EntitySubscriberInterface<PaymentMethod>, OnApplicationBootstrap
{
  constructor(private readonly connection: TransactionalConnection) {}

  async onApplicationBootstrap(): Promise<void> {
    this.connection.rawConnection.subscribers.push(this);
    // Methods saved before a rule was added are not saved again: say at start which ones it refuses.
    try {
      const methods = await this.connection.rawConnection.getRepository(PaymentMethod).find();
      for (const { code, reason } of refusedStoredMethods(methods)) {
        Logger.error(
          `Payment method "${code}": its settings are refused (${reason}); its checkouts, callbacks, reconciliation and refunds fail until an admin fixes them`,
          loggerCtx,
        );
      }
    } catch (error) {
      Logger.warn(`Gateway payment methods not checked at start: ${String(error)}`, loggerCtx);
    }
  }

  listenTo(): typeof PaymentMethod {
    return PaymentMethod;
  }

  beforeInsert(event: InsertEvent<PaymentMethod>): void {
    this.keepSignKey(event.entity, undefined);
    this.check(event.entity);
  }

  beforeUpdate(event: UpdateEvent<PaymentMethod>): void {
    const method = event.entity as PaymentMethod | undefined;
    this.keepSignKey(method, (event.databaseEntity as PaymentMethod | undefined)?.handler?.args);
    this.check(method);
  }

  /** A hidden sign key sent back (hidden-sign-key.ts) keeps the stored one; a new method needs a real one. */
  private keepSignKey(
    method: PaymentMethod | undefined,
    stored: PaymentMethod['handler']['args'] | undefined,
  ): void {
    if (!method?.handler || method.handler.code !== HANDLER_CODE) return;
    const args = withStoredSignKey(method.handler.args, stored);
    if (!args) throw new UserInputError('signKey must be the merchant sign key: type it in');
    method.handler = { ...method.handler, args };
  }

  private check(method: PaymentMethod | undefined): void {
    if (!method?.handler || method.handler.code !== HANDLER_CODE) return;
    try {
      parseMethodArgs(argsToRecord(method.handler.args));
    } catch (e) {
      if (e instanceof MethodConfigError) throw new UserInputError(e.message);
      throw e;
    }
  }
}
