import t from 'tap';
import { plainBodyLength } from '../../../transport/sender/http-parser.js';

t.test('a response head\'s Content-Length is found in any spelling of its name', async (t) => {
  for (const name of ['Content-Length', 'content-length', 'CONTENT-LENGTH', 'content-Length']) {
    t.equal(plainBodyLength(['Server', 'x', name, '42', 'Content-Type', 'text/plain']), 42, name);
  }
});

t.test('a response head with Transfer-Encoding, in any spelling, has no plain length', async (t) => {
  for (const name of ['Transfer-Encoding', 'transfer-encoding', 'TRANSFER-ENCODING']) {
    t.equal(plainBodyLength([name, 'chunked']), -1, name);
    t.equal(plainBodyLength(['Content-Length', '5', name, 'chunked']), -1, `${name} after a Content-Length`);
  }
});

t.test('a response head with neither has no plain length; names of the same length are not mistaken for them', async (t) => {
  t.equal(plainBodyLength([]), -1);
  t.equal(plainBodyLength(['Content-Lengtx', '5', 'Transfer-Encodinx', 'chunked']), -1);
  t.equal(plainBodyLength(['Content-Length', '0']), 0, 'an empty body is a length');
});
