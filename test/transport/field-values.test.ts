// The rules every header Sluice writes itself is held to (RFC 9110 §5.5, §5.6.2): names are tokens; values
// carry no control but HTAB and no DEL; above U+00FF only where the head is written as UTF-8 (towards a backend).
import t from 'tap';
import { badValueCharAt, fieldProblem, firstUnsafeField, firstUnsafePair, isFieldName } from '../../transport/field-values.js';

t.test('names are RFC 9110 tokens', async (t) => {
  for (const ok of ['X-Api', 'content-type', "!#$%&'*+-.^_`|~09azAZ"]) t.ok(isFieldName(ok), ok);
  for (const bad of ['', 'X Api', 'X:Api', 'X-Api\r\n', 'X(Api)', 'X"Api"', 'X-\u00e9', 'X/Y', 'X@Y', 'X,Y', 'X;Y', 'X=Y', 'X[Y]', 'X{Y}', 'X\tY']) t.notOk(isFieldName(bad), JSON.stringify(bad));
});

t.test('values: controls but HTAB and DEL are refused everywhere; characters above U+00FF only towards a client', async (t) => {
  for (let c = 0; c < 0x20; c++) t.equal(badValueCharAt(`a${String.fromCharCode(c)}`) >= 0, c !== 0x09, `U+${c.toString(16).padStart(4, '0')}`);
  t.equal(badValueCharAt('a\u007f'), 1, 'DEL');
  t.equal(badValueCharAt(' !~\u0080\u00ff'), -1, 'SP, VCHAR and obs-text');
  t.equal(badValueCharAt('x\u010a'), 1, 'U+010A would be written as LF in a latin1 head');
  t.equal(badValueCharAt('x\u010a\u65e5', true), -1, 'but is fine in a UTF-8 head');
  t.equal(badValueCharAt('x\n', true), 1, 'a control never is');
  t.equal(firstUnsafeField(['a', '1', 'b', 'x\ry']), 2);
  t.equal(firstUnsafeField(['a', '1', 'b c', 'y']), 2);
  t.equal(firstUnsafeField(['a', '1']), -1);
  t.equal(firstUnsafePair([['a', '1'], ['b', 'x\u0000']]), 1);
  t.equal(firstUnsafePair([['a', '\u65e5']], true), -1);
});

t.test('the problem names the character and its place, never the value', async (t) => {
  const p = fieldProblem('X-Token', 'secret-value\r\nSet-Cookie: x');
  t.match(p, /X-Token holds U\+000D at 12/);
  t.notMatch(p, /secret-value|Set-Cookie/);
  t.match(fieldProblem('X Y\u001b', ''), /"X Y\\u001b" is not a header name/);
  t.equal(fieldProblem('X', 'ok'), '');
});

t.test('long values (a backend JWT): a CR or LF anywhere is found, the same value again passes again', async (t) => {
  const clean = 'eyJ' + 'a'.repeat(1200);
  const sameLengthWithCr = 'eyJ' + 'a'.repeat(600) + '\r' + 'a'.repeat(599);
  const sameLengthWithLf = 'eyJ' + 'a'.repeat(1199) + '\n';
  t.equal(firstUnsafeField(['x-jwt-assertion', clean]), -1);
  t.equal(firstUnsafeField(['x-jwt-assertion', clean]), -1, 'again');
  t.equal(firstUnsafeField(['x-a', '1', 'x-jwt-assertion', sameLengthWithCr]), 2, 'a CR in a value of the same length is found');
  t.equal(firstUnsafeField(['x-jwt-assertion', sameLengthWithLf]), 0, 'an LF at the end too');
  t.equal(firstUnsafeField(['x-jwt-assertion', clean + '\u0100']), 0, 'above U+00FF towards a client');
  t.equal(firstUnsafeField(['x-jwt-assertion', clean + '\u0100'], true), -1, 'allowed when wide');
  t.equal(firstUnsafeField(['x-jwt-assertion', clean + '\u0100']), 0, 'and still refused narrow after a wide check');
  t.equal(firstUnsafeField(['bad name', clean]), 0, 'the name is still checked');
});
