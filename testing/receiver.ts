import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type Server } from 'node:http';

export interface Received {
  headers: Record<string, string | string[] | undefined>;
  body: string;
  /** What the receiver's own HMAC check said of `X-SVC-Signature`. */
  signatureValid: boolean | null;
  at: number;
}

/**
 * A callback receiver on loopback, as a customer would write it: it verifies the signature with
 * its own HMAC code (constant-time compare) and answers from a script of statuses (then 200).
 */
export async function startReceiver(secret: string | null, script: (number | { status: number; headers?: Record<string, string> })[] = []): Promise<{ url: string; received: Received[]; close(): Promise<void> }> {
  const received: Received[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks);
      let valid: boolean | null = null;
      const sig = req.headers['x-svc-signature'];
      if (secret !== null) {
        const want = Buffer.from(`sha256=${createHmac('sha256', secret).update(raw).digest('hex')}`);
        const got = Buffer.from(typeof sig === 'string' ? sig : '');
        valid = got.length === want.length && timingSafeEqual(got, want);
      }
      received.push({ headers: req.headers, body: raw.toString('utf8'), signatureValid: valid, at: Date.now() });
      const next = script.shift() ?? 200;
      const r = typeof next === 'number' ? { status: next } : next;
      res.writeHead(r.status, r.headers ?? {}).end('ok');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as { port: number }).port;
  return { url: `http://127.0.0.1:${port}/hook`, received, close: () => new Promise((r) => server.close(() => r())) };
}
