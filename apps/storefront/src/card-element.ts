/**
 * The gateway's card element (docs/card-element.md): the card fields live in an iframe served by the
 * gateway, so card numbers never reach this page or the store. This module loads the gateway's SDK,
 * mounts the element and turns the shopper's card into a payment method id the store can charge.
 */
import type { Address, CardElementSession } from './stores/types';
import { FieldError } from './stores/types';

/** The SDK's surface as docs/card-element.md describes it (only what the storefront calls). */
interface ElementSdk {
  elementInit(kind: 'payment_steps', options: Record<string, unknown>): Promise<unknown>;
  confirmPaymentMethod(request: {
    apikey: string;
    trnxDetail: Record<string, unknown>;
  }): Promise<ConfirmAnswer | undefined>;
}

interface ConfirmAnswer {
  data?: { code?: unknown; message?: unknown; data?: { customerPaymentMethodId?: unknown } };
}

declare global {
  interface Window {
    AsiabillPay?: (sessionToken: string) => ElementSdk;
  }
}

/** Tokens live 30 minutes at the gateway; one older than this is replaced before it is used. */
export const TOKEN_MAX_AGE_MS = 25 * 60_000;

/** Ids of the page elements the SDK is told about (formId, formWrapperId, frameId). */
export const ELEMENT_IDS = { form: 'payment', wrapper: 'card-element', frame: 'card-element-frame' };

/** The billing details the gateway expects with a new payment method, from the cart's address. */
export interface ElementBilling {
  email: string;
  address: Address;
}

const loadedScripts = new Map<string, Promise<void>>();

/** Loads the SDK once per URL; only http(s) URLs the store handed over are accepted. */
function loadScript(url: string): Promise<void> {
  let parsed: URL;
  try {
    parsed = new URL(url, location.href);
  } catch {
    return Promise.reject(new Error('The store sent an invalid card form address'));
  }
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:')
    return Promise.reject(new Error('The store sent an invalid card form address'));
  const key = parsed.href;
  let loading = loadedScripts.get(key);
  if (!loading) {
    loading = new Promise<void>((resolve, reject) => {
      const script = document.createElement('script');
      script.src = key;
      script.async = true;
      script.onload = () => resolve();
      script.onerror = () => {
        loadedScripts.delete(key);
        script.remove();
        reject(new Error('The card form could not be loaded from the payment gateway; try again'));
      };
      document.head.append(script);
    });
    loadedScripts.set(key, loading);
  }
  return loading;
}

// The SDK reports field problems (autoValidate: false) as a window event; the mounted element's
// message slot shows them. One listener for the whole app.
let messageSlot: (() => HTMLElement | null) | undefined;
window.addEventListener('getErrorMessage', (event) => {
  const text = (event as CustomEvent<{ errorMessage?: unknown } | undefined>).detail?.errorMessage;
  const slot = messageSlot?.();
  if (slot) slot.textContent = typeof text === 'string' ? text : '';
});

/**
 * One card element on the payment page. `mount` fetches a token from the store and shows the
 * gateway's fields; `confirm` asks the element for a payment method (renewing a token older than
 * TOKEN_MAX_AGE_MS first) and returns its id, or throws with the element's own message.
 */
export class CardElement {
  private session: CardElementSession | undefined;
  private sdk: ElementSdk | undefined;
  private mounting: Promise<void> | undefined;

  constructor(
    private readonly fetchSession: () => Promise<CardElementSession>,
    private readonly slots: { wrapper: () => HTMLElement | null; message: () => HTMLElement | null },
  ) {
    messageSlot = slots.message;
  }

  /** Idempotent: the first call fetches the token and mounts; later calls wait for that. */
  mount(): Promise<void> {
    this.mounting ??= this.mountFresh().catch((error: unknown) => {
      this.mounting = undefined;
      throw error;
    });
    return this.mounting;
  }

  private async mountFresh(): Promise<void> {
    const session = await this.fetchSession();
    await loadScript(session.scriptUrl);
    if (typeof window.AsiabillPay !== 'function')
      throw new Error('The card form of the payment gateway did not start; try again');
    const wrapper = this.slots.wrapper();
    if (!wrapper) return;
    wrapper.replaceChildren();
    const sdk = window.AsiabillPay(session.token);
    try {
      await sdk.elementInit('payment_steps', {
        formId: ELEMENT_IDS.form,
        formWrapperId: ELEMENT_IDS.wrapper,
        frameId: ELEMENT_IDS.frame,
        customerId: '',
        autoValidate: false,
        layout: {
          pageMode: 'inner',
          style: {
            frameMaxHeight: '260',
            input: {
              FontSize: '15',
              FontFamily: 'system-ui, sans-serif',
              FontWeight: '400',
              Color: '#1d2330',
              ContainerBorder: '1px solid #c8ccd8',
              ContainerBg: '#ffffff',
              ContainerSh: 'none',
            },
          },
        },
      });
    } catch (error) {
      const message = (error as { msg?: unknown } | undefined)?.msg;
      throw new Error(
        typeof message === 'string' && message
          ? message
          : 'The card form of the payment gateway did not start',
      );
    }
    this.session = session;
    this.sdk = sdk;
  }

  /** Shows fresh, empty fields (after a decline), renewing the token when it is old. */
  async reset(): Promise<void> {
    const old = this.mounting;
    this.mounting = undefined;
    await old?.catch(() => undefined);
    await this.mount();
  }

  /** The payment method id for the card in the element; throws with the text to show. */
  async confirm(billing: ElementBilling): Promise<string> {
    await this.mount();
    let session = this.session!;
    if (Date.now() - session.fetchedAt > TOKEN_MAX_AGE_MS) {
      // The gateway would refuse an expired token; a fresh one is asked for before confirming
      // (docs/card-element.md: tokens are valid for 30 minutes).
      session = await this.fetchSession();
      this.session = session;
    }
    const billingDetail = gatewayBilling(billing);
    let answer: ConfirmAnswer | undefined;
    try {
      answer = await this.sdk!.confirmPaymentMethod({
        apikey: session.token,
        trnxDetail: {
          billingDetail,
          // Placeholders only: the gateway's iframe fills in the card.
          card: {
            cardNo: '',
            cardExpireMonth: '',
            cardExpireYear: '',
            cardSecurityCode: '',
            issuingBank: '',
          },
          customerId: '',
        },
      });
    } catch (error) {
      const message = (error as { msg?: unknown; message?: unknown } | undefined)?.msg;
      throw new FieldError(
        'card',
        typeof message === 'string' && message ? message : 'The card could not be checked',
      );
    }
    const id = answer?.data?.data?.customerPaymentMethodId;
    if (answer?.data?.code === '0' && typeof id === 'string' && id) return id;
    const message = answer?.data?.message;
    throw new FieldError(
      'card',
      typeof message === 'string' && message
        ? message
        : 'The card could not be checked; check the card fields',
    );
  }
}

/**
 * The cart's address in the gateway's billingDetail shape. The gateway needs a phone of at least two
 * characters and both names; the checkout leaves the phone optional, so the same stand-ins as the
 * plugins' own requests are used (packages/core/src/request-builders.ts). Empty optional fields are left out.
 */
function gatewayBilling(billing: ElementBilling): Record<string, unknown> {
  const address = billing.address;
  const state = address.province.replace(/^[a-z]{2}-/i, '').toUpperCase();
  const phone = address.phone.trim();
  return {
    address: {
      city: address.city,
      country: address.countryCode.toUpperCase(),
      line1: address.line1,
      ...(address.postalCode ? { postalCode: address.postalCode } : {}),
      ...(state ? { state } : {}),
    },
    email: billing.email,
    firstName: address.firstName.trim() || 'Customer',
    lastName: address.lastName.trim() || 'Customer',
    phone: phone.length >= 2 ? phone : '00',
  };
}
