import { inject } from 'vitest';
import { useStore } from './store-api';

// Every test file talks to the app booted by global-setup.ts (kept free of vitest imports for the bench).
useStore(inject('storeUrl'), inject('publishableKey'));
