/** The CLI's safe text lives in lib/safe_text.ts (the server's CSV answers use it too). */
export * from '../lib/safe_text.js';
