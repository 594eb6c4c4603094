import { Injectable, OnApplicationBootstrap } from '@nestjs/common';
import { PaymentMethod, TransactionalConnection, UserInputError } from '@vendure/core';
import type { EntitySubscriberInterface, InsertEvent, UpdateEvent } from 'typeorm';
import { HANDLER_CODE } from '../constants';
import { argsToRecord, MethodConfigError, parseMethodArgs } from './method-args';

/**
 * Rejects a gateway PaymentMethod with unusable arguments when it is saved, so the admin sees a clear
 * error in the dashboard instead of a failing checkout later.
 */
@Injectable()
export class MethodArgsSubscriber
  implements EntitySubscriberInterface<PaymentMethod>, OnApplicationBootstrap
{
  constructor(private readonly connection: TransactionalConnection) {}

  onApplicationBootstrap(): void {
    this.connection.rawConnection.subscribers.push(this);
  }

  listenTo(): typeof PaymentMethod {
    return PaymentMethod;
  }

  beforeInsert(event: InsertEvent<PaymentMethod>): void {
    this.check(event.entity);
  }

  beforeUpdate(event: UpdateEvent<PaymentMethod>): void {
    this.check(event.entity as PaymentMethod | undefined);
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
