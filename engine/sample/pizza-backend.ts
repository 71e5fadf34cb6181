import http from 'node:http';
import crypto from 'node:crypto';

/** The sample backend behind the sample API: a pizza menu and orders, in memory. */
const MENU = [
  { id: 1, name: 'Chicken Parmesan', description: 'Grilled chicken, fresh tomatoes, feta and mozzarella cheese', price: '10.99', icon: '/images/1.png' },
  { id: 2, name: 'Spicy Italian', description: 'Pepperoni and a double portion of spicy Italian sausage', price: '11.99', icon: '/images/2.png' },
  { id: 3, name: 'Garden Fresh', description: 'Slices onions and green peppers, gourmet mushrooms, black olives and ripe Roma tomatoes', price: '9.99', icon: '/images/3.png' },
  { id: 4, name: 'Tuscan Six Cheese', description: 'Six cheese blend of mozzarella, Parmesan, Romano, Asiago and Fontina', price: '12.99', icon: '/images/4.png' },
];

export interface SampleBackend {
  readonly port: number;
  close(): Promise<void>;
}

export async function startPizzaBackend(port = 9080, host = '127.0.0.1'): Promise<SampleBackend> {
  const orders = new Map<string, unknown>();
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const send = (status: number, body: unknown): void => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => { if (chunks.length < 64) chunks.push(c); });
    req.on('end', () => {
      const p = url.pathname.replace(/^\/pizzashack\/v1/, '');
      if (req.method === 'GET' && p === '/menu') return send(200, MENU);
      const item = /^\/menu\/(\d+)$/.exec(p);
      if (req.method === 'GET' && item) {
        const pizza = MENU.find((m) => m.id === Number(item[1]));
        return pizza ? send(200, pizza) : send(404, { error: 'no such pizza' });
      }
      if (req.method === 'POST' && p === '/order') {
        let order: unknown;
        try { order = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}'); } catch { return send(400, { error: 'the order is not JSON' }); }
        const id = crypto.randomUUID();
        orders.set(id, { orderId: id, ...(order as object), status: 'received' });
        return send(201, orders.get(id));
      }
      const ord = /^\/order\/([\w-]+)$/.exec(p);
      if (req.method === 'GET' && ord) return orders.has(ord[1]!) ? send(200, orders.get(ord[1]!)) : send(404, { error: 'no such order' });
      send(404, { error: `nothing at ${req.method} ${url.pathname}` });
    });
  });
  await new Promise<void>((resolve, reject) => { server.once('error', reject); server.listen(port, host, () => resolve()); });
  return {
    port: (server.address() as import('node:net').AddressInfo).port,
    close: () => new Promise<void>((r) => { server.closeAllConnections(); server.close(() => r()); }),
  };
}
