import { writeSync, writevSync } from 'node:fs';

/**
 * A write straight to a socket's descriptor, now, that the kernel takes or refuses but nothing keeps: the
 * path for a large piece that is only lent (a body piece read from another socket, valid during the read's
 * callback). The turn's writers otherwise copy such a piece into the turn's memory, because libuv keeps what
 * it cannot send at once by reference, and the lent memory is read into again right after the callback;
 * for a 1 MiB upload that was sixteen copies of 64 KiB a call (docs/decisions.md has what leaving them
 * out measured). A synchronous `write(2)` keeps nothing: what it did not take is copied then,
 * and only that.
 *
 * Returns the bytes written (0 when the socket is full), or a negative libuv error code (the peer is gone).
 */
export function writeNow(fd: number, pieces: readonly Uint8Array[]): number {
  try {
    return pieces.length === 1 ? writeSync(fd, pieces[0]!) : writevSync(fd, pieces as Uint8Array[]);
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    if (e.code === 'EAGAIN' || e.code === 'EWOULDBLOCK' || e.code === 'EINTR') return 0;
    return typeof e.errno === 'number' && e.errno < 0 ? e.errno : -1;
  }
}

/**
 * What is left of `pieces` after the first `sent` bytes went: the rest of the piece the write stopped in and
 * those after it, as views, except that what is left of the last piece (the lent one) is copied by `keep`.
 */
export function unsentOf(pieces: readonly Uint8Array[], sent: number, keep: (rest: Uint8Array) => Buffer): Buffer[] {
  const rest: Buffer[] = [];
  let skip = sent;
  for (let i = 0; i < pieces.length; i++) {
    const p = pieces[i]!;
    if (skip >= p.length) { skip -= p.length; continue; }
    const view = skip === 0 ? p : p.subarray(skip);
    skip = 0;
    rest.push(i === pieces.length - 1 ? keep(view) : Buffer.from(view.buffer, view.byteOffset, view.length));
  }
  return rest;
}
