import type { StoreAdapter } from './stores/types';

/** What every page gets: the selected store and navigation. */
export interface PageContext {
  store: StoreAdapter;
  path: string;
  query: URLSearchParams;
  navigate(path: string): void;
  /** Refreshes the header (cart count, login link). */
  refreshHeader(): Promise<void>;
}

export type Page = (context: PageContext) => Promise<void>;
