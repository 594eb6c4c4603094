import path from 'node:path';

export const APP_DIR = path.resolve(__dirname, '..', '..');
export const SERVER_ENTRY = path.join(APP_DIR, 'dist', 'src', 'index.js');
