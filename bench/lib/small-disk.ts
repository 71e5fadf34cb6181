/**
 * A directory that can be made full on demand, for the full-disk fault (bench/chaos.ts and
 * test/fixtures/small-disk.ts). As root it is a small tmpfs mounted on the directory, filled with a file
 * until the kernel answers ENOSPC and freed by removing that file: a real full disk. Without the right to
 * mount, the fallback lowers the file size limit of the process under test to one byte (prlimit
 * RLIMIT_FSIZE; Sluice ignores SIGXFSZ, so its writes fail with EFBIG) and raises it back: every file of
 * that process fails to grow, as on a full disk. `how` says which one runs.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

export interface SmallDisk {
  readonly how: 'tmpfs' | 'file size limit';
  /** Leaves no room: writes (of the process `pid`, for the fallback) fail from now on. */
  fill(pid: number): void;
  /** Gives the room back. */
  free(pid: number): void;
}

/** `onCleanup` registers the unmount (a test's teardown; process exit by default). */
export function smallDisk(dir: string, sizeMiB = 8, onCleanup: (fn: () => void) => void = (fn) => { process.once('exit', fn); }): SmallDisk {
  fs.mkdirSync(dir, { recursive: true });
  let mounted = false;
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${sizeMiB}m,mode=0755`, 'tmpfs', dir], { stdio: 'pipe' });
    mounted = true;
  } catch {
    /* no right to mount: the fallback below */
  }
  if (!mounted) {
    return {
      how: 'file size limit',
      fill(pid) { execFileSync('prlimit', ['--pid', String(pid), '--fsize=1:'], { stdio: 'pipe' }); },
      free(pid) { execFileSync('prlimit', ['--pid', String(pid), '--fsize=unlimited:'], { stdio: 'pipe' }); },
    };
  }
  const unmount = (): void => { try { execFileSync('umount', ['-l', dir], { stdio: 'ignore' }); } catch { /* already gone */ } };
  onCleanup(unmount);
  process.once('exit', unmount);
  const filler = path.join(dir, 'filler');
  return {
    how: 'tmpfs',
    fill() {
      const fd = fs.openSync(filler, 'a');
      const block = Buffer.alloc(64 * 1024, 0x5a);
      try {
        for (;;) fs.writeSync(fd, block);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'ENOSPC') throw err;
      }
      // What is left is smaller than a block: take it too.
      try { for (;;) fs.writeSync(fd, block.subarray(0, 512)); } catch { /* full */ }
      fs.closeSync(fd);
    },
    free() { fs.rmSync(filler, { force: true }); },
  };
}
