import net from 'node:net';

/** Whether nothing listens on the port (any address). */
export function portFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = net.createServer();
    s.once('error', () => resolve(false));
    s.listen(port, '0.0.0.0', () => s.close(() => resolve(true)));
  });
}

/** Resolves once something accepts connections on 127.0.0.1:port; fails after `ms`. */
export async function waitPort(port: number, ms = 60_000): Promise<void> {
  const end = Date.now() + ms;
  for (;;) {
    const ok = await new Promise<boolean>((resolve) => {
      const s = net.connect(port, '127.0.0.1');
      s.once('connect', () => { s.destroy(); resolve(true); });
      s.once('error', () => { s.destroy(); resolve(false); });
    });
    if (ok) return;
    if (Date.now() > end) throw new Error(`port ${port} not open after ${ms} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
