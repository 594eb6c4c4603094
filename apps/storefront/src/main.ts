import './style.css';
import { loadConfig } from './config';
import type { Page, PageContext } from './context';
import { html, render } from './dom';
import { accountPage } from './pages/account';
import { cardsPage } from './pages/cards';
import { cartPage } from './pages/cart';
import { checkoutPage } from './pages/checkout';
import { paymentPage } from './pages/payment';
import { productsPage } from './pages/products';
import { returnPage } from './pages/return';
import { MedusaStore } from './stores/medusa';
import type { StoreAdapter, StoreId } from './stores/types';
import { VendureStore } from './stores/vendure';

const STORE_KEY = 'gatewaykit.store';

const ROUTES: [RegExp, Page][] = [
  [/^\/$/, productsPage],
  [/^\/cart$/, cartPage],
  [/^\/checkout$/, checkoutPage],
  [/^\/checkout\/payment$/, paymentPage],
  // Medusa's return route sends the shopper here; Vendure's to /order/<code>.
  [/^\/checkout\/return$/, returnPage],
  [/^\/order\/[^/]+$/, returnPage],
  [/^\/account$/, accountPage],
  [/^\/account\/cards$/, cardsPage],
];

async function main(): Promise<void> {
  const config = await loadConfig();
  const stores: Record<StoreId, StoreAdapter> = {
    medusa: new MedusaStore(config.medusa),
    vendure: new VendureStore(config.vendure),
  };
  const switcher = document.getElementById('store-switch') as HTMLSelectElement;

  // The URL wins (links and return pages carry ?store=), then the last choice, then Medusa.
  const selected = (): StoreId => {
    const fromUrl = new URLSearchParams(location.search).get('store');
    const chosen = fromUrl === 'medusa' || fromUrl === 'vendure' ? fromUrl : localStorage.getItem(STORE_KEY);
    return chosen === 'vendure' ? 'vendure' : 'medusa';
  };

  const withStore = (path: string, id: StoreId): string => {
    const url = new URL(path, location.origin);
    url.searchParams.set('store', id);
    return url.pathname + url.search;
  };

  const refreshHeader = async (): Promise<void> => {
    const store = stores[selected()];
    const [cart, customer] = await Promise.all([
      store.getCart().catch(() => undefined),
      store.currentCustomer().catch(() => undefined),
    ]);
    document.getElementById('cart-count')!.textContent = cart?.itemCount ? `(${cart.itemCount})` : '';
    document.getElementById('nav-account')!.textContent = customer ? customer.email : 'Log in';
  };

  const show = async (): Promise<void> => {
    const id = selected();
    localStorage.setItem(STORE_KEY, id);
    switcher.value = id;
    document.body.dataset.store = id;
    const context: PageContext = {
      store: stores[id],
      path: location.pathname,
      query: new URLSearchParams(location.search),
      navigate,
      refreshHeader,
    };
    const page = ROUTES.find(([pattern]) => pattern.test(location.pathname))?.[1];
    try {
      if (page) await page(context);
      else render(html`<h1>Not found</h1><p><a href="/" data-link>Back to the products</a></p>`);
    } catch (error) {
      render(
        html`<h1>Something went wrong</h1><p class="error" data-testid="page-error">${
          error instanceof Error ? error.message : String(error)
        }</p><p><a href="/" data-link>Back to the products</a></p>`,
      );
    }
    void refreshHeader();
  };

  function navigate(path: string): void {
    history.pushState(null, '', withStore(path, selected()));
    void show();
  }

  switcher.addEventListener('change', () => {
    localStorage.setItem(STORE_KEY, switcher.value);
    history.pushState(null, '', withStore('/', switcher.value as StoreId));
    void show();
  });
  document.addEventListener('click', (event) => {
    const link = (event.target as Element).closest('a[data-link]');
    if (!link || (event as MouseEvent).ctrlKey || (event as MouseEvent).metaKey) return;
    event.preventDefault();
    navigate(link.getAttribute('href') ?? '/');
  });
  window.addEventListener('popstate', () => void show());
  await show();
}

main().catch((error: unknown) => {
  render(html`<h1>The storefront could not start</h1><p class="error">${String(error)}</p>`);
});
